// Cycle loop for a Verilated cipherfab accelerator system (hw/system/system.py; see
// cipherfab/host/model.py).  The model class is Vcore (--prefix Vcore); WIDTH (the
// AXI4-Stream tdata bits) comes from a -D flag.  The host side is modelled here, in
// C++, so a whole file streams without Python per cycle:
//   - AXI4-Lite writes and reads of the register map (cf_sys_write, cf_sys_read);
//   - a link in each direction: bursts of `burst` bytes, each costing `latency`
//     clocks of overhead and then moving `bytes_per_clock` (serialized: a burst starts
//     when the previous one ends), full duplex;
//   - cf_sys_stream(): push bytes into s_axis as the input link delivers them (tlast
//     on the message's final byte when `last`), take m_axis as the output link allows,
//     until the input is in and, for the last chunk, the message's output is out.
#include "Vcore.h"
#include "verilated.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

void vl_fatal(const char* filename, int linenum, const char*, const char* msg) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw std::runtime_error(std::string(msg) + " at " + filename + ":" + std::to_string(linenum));
}

namespace {

constexpr int LANES = WIDTH / 8;

// AXI4-Stream byte lanes: byte i of a transfer in tdata[8i+7:8i].
template <typename T> void put_lanes(T& port, const uint8_t* b, int n) {
    T v = 0;
    for (int i = 0; i < n; ++i) v |= (T)b[i] << (8 * i);
    port = v;
}
template <std::size_t W> void put_lanes(VlWide<W>& port, const uint8_t* b, int n) {
    for (std::size_t w = 0; w < W; ++w) port[w] = 0;
    for (int i = 0; i < n; ++i) port[i / 4] |= (uint32_t)b[i] << (8 * (i % 4));
}
template <typename T> void get_lanes(const T& port, uint8_t* b, int n) {
    for (int i = 0; i < n; ++i) b[i] = (uint8_t)(port >> (8 * i));
}
template <std::size_t W> void get_lanes(const VlWide<W>& port, uint8_t* b, int n) {
    for (int i = 0; i < n; ++i) b[i] = (uint8_t)(port[i / 4] >> (8 * (i % 4)));
}

// One direction of the link: `burst` bytes at a time, `latency` clocks before each.
struct Link {
    double bytes_per_clock = 1e9;
    int64_t latency = 0, burst = 1 << 30;
    double credit = 0;        // bytes of the current burst that have crossed
    int64_t wait = 0;         // overhead clocks left before the current burst moves
    int64_t left = 0;         // bytes left in the current burst (0: between bursts)
    void start(int64_t bytes) { left = std::min<int64_t>(burst, bytes); wait = latency; credit = 0; }
    // one clock: how many bytes cross, at most `room` (the far side's buffer)
    int64_t step(int64_t room) {
        if (left <= 0) return 0;
        if (wait > 0) { --wait; return 0; }
        credit += bytes_per_clock;
        int64_t can = (int64_t)credit;
        int64_t n = std::min<int64_t>(can, std::min<int64_t>(left, std::max<int64_t>(room, 0)));
        credit -= (double)n;
        if (n < can) credit = std::min(credit, std::max(1.0, bytes_per_clock));  // held: no banking
        left -= n;
        if (left == 0) credit = 0;
        return n;
    }
};

struct Sys {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vcore> m;
    int64_t cyc = 0;
    Link in, out;
    int64_t in_ready_bytes = 0;   // bytes delivered by the input link, not yet sent on s_axis
    int64_t out_room = 0;         // bytes the output link may take now
    int64_t in_sent = 0;          // bytes of the message sent so far (over every chunk)
    int64_t in_total = -1;        // bytes of the message (known with the last chunk)
    int64_t out_got = 0;
    int64_t in_link_wait = 0, out_link_wait = 0;
    int64_t first_in = -1, last_out = -1;   // first_in: the cycle the message's stream began
    bool message_done = false;    // the last call ended a message: the next one begins another
};

void settle(Sys& s) { s.m->clk = 0; s.m->eval(); }
void tick(Sys& s) {
    s.m->clk = 1;
    s.m->eval();
    ++s.cyc;
    if (s.ctx->gotFinish()) throw std::runtime_error("model called $finish");
}

}  // namespace

// Shared with ctypes (cipherfab.host.model._Stream); keep the field order.
struct CfStream {
    const uint8_t* in; int64_t n_in; int32_t last; int32_t no_output;   // no_output: done once the input is in
    uint8_t* out; int64_t out_cap;
    double in_bytes_per_clock; int64_t in_latency; int64_t in_burst;
    double out_bytes_per_clock; int64_t out_latency; int64_t out_burst;
    int64_t timeout;
    // outputs (cumulative where it says so)
    int64_t n_out;            // bytes written to out by this call
    int64_t cycles;           // since open
    int64_t in_link_wait;     // over the message: clocks s_axis had nothing to send because the link had not delivered
    int64_t out_link_wait;    // over the message: clocks m_axis had data the output link could not take
    int64_t first_in, last_out;   // cycle the message's stream began, of its last output transfer
    int32_t failed; char error[256];
};

extern "C" __attribute__((visibility("default"))) int cf_sys_width() { return WIDTH; }

extern "C" __attribute__((visibility("default"))) void* cf_sys_open(uint64_t seed, int64_t reset_cycles) {
    try {
        auto* s = new Sys();
        s->ctx = std::make_unique<VerilatedContext>();
        s->ctx->randReset(2);
        s->ctx->randSeed((int)(seed % 2147483646) + 1);
        s->m = std::make_unique<Vcore>(s->ctx.get(), "system");
        s->m->s_axis_tvalid = 0;
        s->m->m_axis_tready = 0;
        s->m->ctrl_awvalid = s->m->ctrl_wvalid = s->m->ctrl_bready = 0;
        s->m->ctrl_arvalid = s->m->ctrl_rready = 0;
        s->m->rst = 1;
        for (int64_t i = 0; i < reset_cycles; ++i) { settle(*s); tick(*s); }
        s->m->rst = 0;
        return s;
    } catch (const std::exception&) {
        return nullptr;
    }
}

extern "C" __attribute__((visibility("default"))) void cf_sys_close(void* h) {
    auto* s = (Sys*)h;
    if (s) { s->m->final(); delete s; }
}

// AXI4-Lite write; returns BRESP, or -1 on timeout.
extern "C" __attribute__((visibility("default"))) int cf_sys_write(void* h, int addr, uint32_t value) {
    auto& s = *(Sys*)h;
    s.m->ctrl_awaddr = addr; s.m->ctrl_wdata = value; s.m->ctrl_wstrb = 0xF;
    s.m->ctrl_awvalid = 1; s.m->ctrl_wvalid = 1;
    for (int i = 0; i < 1000; ++i) {
        settle(s);
        bool taken = s.m->ctrl_awready;
        tick(s);
        if (taken) break;
    }
    s.m->ctrl_awvalid = 0; s.m->ctrl_wvalid = 0; s.m->ctrl_bready = 1;
    for (int i = 0; i < 1000; ++i) {
        settle(s);
        if (s.m->ctrl_bvalid) { int r = s.m->ctrl_bresp; tick(s); s.m->ctrl_bready = 0; return r; }
        tick(s);
    }
    s.m->ctrl_bready = 0;
    return -1;
}

extern "C" __attribute__((visibility("default"))) int64_t cf_sys_read(void* h, int addr) {
    auto& s = *(Sys*)h;
    s.m->ctrl_araddr = addr; s.m->ctrl_arvalid = 1;
    for (int i = 0; i < 1000; ++i) {
        settle(s);
        bool taken = s.m->ctrl_arready;
        tick(s);
        if (taken) break;
    }
    s.m->ctrl_arvalid = 0; s.m->ctrl_rready = 1;
    for (int i = 0; i < 1000; ++i) {
        settle(s);
        if (s.m->ctrl_rvalid) { int64_t d = s.m->ctrl_rdata; tick(s); s.m->ctrl_rready = 0; return d; }
        tick(s);
    }
    s.m->ctrl_rready = 0;
    return -1;
}

extern "C" __attribute__((visibility("default"))) int cf_sys_stream(void* h, CfStream* r) {
    auto& s = *(Sys*)h;
    r->failed = 0; r->error[0] = 0; r->n_out = 0;
    try {
        s.in.bytes_per_clock = r->in_bytes_per_clock; s.in.latency = r->in_latency; s.in.burst = r->in_burst;
        s.out.bytes_per_clock = r->out_bytes_per_clock; s.out.latency = r->out_latency; s.out.burst = r->out_burst;
        if (s.message_done) {            // a new message on the open system: its own times
            s.first_in = s.last_out = -1;
            s.in_link_wait = s.out_link_wait = 0;
            s.message_done = false;
        }
        if (r->last) s.in_total = s.in_sent + r->n_in;
        if (s.first_in < 0) s.first_in = s.cyc;   // the host starts the transfer now
        int64_t pos = 0;                 // next byte of this chunk to send
        int64_t linked = 0;              // bytes of this chunk the link has delivered
        int64_t idle = 0;
        uint8_t word[LANES];
        bool out_done = false;
        while (true) {
            // input link: start a burst over what is left of this chunk, deliver
            if (s.in.left == 0 && linked < r->n_in) s.in.start(r->n_in - linked);
            linked += s.in.step(2 * LANES - (linked - pos));
            // offer a transfer when a whole word (or the message's last bytes) has arrived
            int64_t avail = linked - pos;
            int64_t n = std::min<int64_t>(LANES, r->n_in - pos);
            bool final = r->last && pos + n == r->n_in;
            bool offer = n > 0 && avail >= n && (n == LANES || final);
            if (offer) {
                put_lanes(s.m->s_axis_tdata, r->in + pos, (int)n);
                s.m->s_axis_tkeep = (uint32_t)((1ull << n) - 1);
                s.m->s_axis_tlast = final;
            } else if (pos < r->n_in) {
                ++s.in_link_wait;
            }
            s.m->s_axis_tvalid = offer;
            // output link: takes a transfer when a word's worth has crossed
            bool ready = s.out_room >= LANES;
            s.m->m_axis_tready = ready;
            settle(s);
            if (s.m->m_axis_tvalid) {         // the host reads a burst while there is data
                if (!ready) ++s.out_link_wait;
                if (s.out.left == 0) s.out.start(s.out.burst);
                s.out_room += s.out.step(2 * LANES - s.out_room + (ready ? LANES : 0));
            }
            bool in_hs = offer && s.m->s_axis_tready;
            if (s.m->m_axis_tvalid && ready) {
                uint32_t keep = (uint32_t)s.m->m_axis_tkeep;
                int k = 0;
                while (k < LANES && (keep >> k) & 1) ++k;
                if (r->n_out + k > r->out_cap) throw std::runtime_error("more output than input");
                get_lanes(s.m->m_axis_tdata, word, LANES);
                std::memcpy(r->out + r->n_out, word, k);
                r->n_out += k;
                s.out_got += k;
                s.out_room -= LANES;
                s.last_out = s.cyc;
                if (s.m->m_axis_tlast) out_done = true;
                idle = 0;
            }
            if (in_hs) {
                pos += n; s.in_sent += n; idle = 0;
            }
            tick(s);
            if (++idle > r->timeout) throw std::runtime_error("hang: no transfer for " + std::to_string(r->timeout) + " cycles");
            if (pos == r->n_in && (!r->last || out_done || r->no_output)) break;
            if (!r->last && pos == r->n_in) break;
        }
        s.m->s_axis_tvalid = 0;
        s.m->m_axis_tready = 0;
    } catch (const std::exception& e) {
        r->failed = 1;
        std::snprintf(r->error, sizeof r->error, "%s", e.what());
    }
    if (r->last) s.message_done = true;
    r->cycles = s.cyc;
    r->in_link_wait = s.in_link_wait; r->out_link_wait = s.out_link_wait;
    r->first_in = s.first_in; r->last_out = s.last_out;
    return r->failed;
}
