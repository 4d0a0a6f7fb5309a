// Power traces of a Verilated cipherfab core, and the moments of a fixed-vs-random test
// (see cipherfab/sim/leakage.py).  Built with a Verilator config that makes the core's
// registers public (public_flat_rd); the model class is Vcore.  KEY_BITS, BLOCK_BITS come
// from -D flags; the core has a key stream (key, key_valid, key_ready), and with SEED_BITS > 0
// an entropy input (seed, seed_valid, seed_ready) that must take a seed after reset.
//
// One exported function, cf_leak(): seed the core (a core with a seed port: a seed drawn from
// the run's random stream; a core without: a first key drawn from it), load the key, run WARMUP encryptions, then for each trace offer a block
// (the fixed one, or a random one or a second fixed one; the group drawn at random), and from the clock its
// handshake happens sample `window` clocks: each sample is the Hamming distance of every
// public register between the clock edges before and after it (what the flip-flops
// switch), plus Gaussian noise.  The samples are folded into per-group, per-clock central
// moments (mean, M2, M3, M4; one-pass, Pebay's update), copied out at each checkpoint.
#include "Vcore.h"
#include "verilated.h"
#include "verilated_syms.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

void vl_fatal(const char* filename, int linenum, const char*, const char* msg) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw std::runtime_error(std::string(msg) + " at " + filename + ":" + std::to_string(linenum));
}

namespace {

constexpr int KEY_BYTES = KEY_BITS / 8;
constexpr int64_t WARMUP = 2;     // encryptions after the key that are not traces
constexpr int BLOCK_BYTES = BLOCK_BITS / 8;
#ifndef SEED_BITS
#define SEED_BITS 0
#endif

template <typename T> void put(T& port, const uint8_t* b, int n) {
    T v = 0;
    for (int i = 0; i < n; ++i) v = (T)((v << 8) | b[i]);
    port = v;
}
template <std::size_t W> void put(VlWide<W>& port, const uint8_t* b, int n) {
    for (std::size_t w = 0; w < W; ++w) port[w] = 0;
    for (int i = 0; i < n; ++i) {
        int j = n - 1 - i;
        port[j / 4] |= (uint32_t)b[i] << (8 * (j % 4));
    }
}

struct Var { const uint8_t* data; std::size_t bytes; };
// Slots of one width (1, 2, 4 or 8 bytes: Verilator's CData, SData, IData, QData, the words
// of wide values and the elements of arrays) and each one's last value.
struct Group { std::vector<const uint8_t*> data; std::vector<uint64_t> last; };

template <typename T> inline uint64_t bits(const uint8_t* const* data, std::size_t n, uint64_t* last) {
    uint64_t hd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        T x;
        std::memcpy(&x, data[i], sizeof x);
        hd += (uint64_t)__builtin_popcountll((uint64_t)x ^ last[i]);
        last[i] = (uint64_t)x;
    }
    return hd;
}

// The bits a group's slots switched since `last`, which takes the new values.  Most of a
// trace's time for a large core (a masked one: 12,000 registers): on x86-64 a clone with the
// POPCNT instruction is picked at load time where the CPU has it (else libgcc's popcount).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("popcnt", "default")))
#endif
uint64_t switched(Group& g, int bytes) {
    const std::size_t n = g.data.size();
    switch (bytes) {
        case 1: return bits<uint8_t>(g.data.data(), n, g.last.data());
        case 2: return bits<uint16_t>(g.data.data(), n, g.last.data());
        case 4: return bits<uint32_t>(g.data.data(), n, g.last.data());
        default: return bits<uint64_t>(g.data.data(), n, g.last.data());
    }
}

}  // namespace

// Shared with ctypes (cipherfab.sim.leakage._Leak); keep the field order.
struct CfLeak {
    const uint8_t* key;        // KEY_BYTES
    const uint8_t* fixed;      // BLOCK_BYTES: the fixed group's block
    const uint8_t* second;     // BLOCK_BYTES: the other group's block (fixed-vs-fixed), or null: random
    int64_t traces;
    int64_t window;            // clocks sampled per trace, from the block handshake
    const int64_t* checkpoints;  // n_checkpoints trace counts, ascending, the last = traces
    int64_t n_checkpoints;
    uint64_t seed;
    double noise;              // sigma of the Gaussian noise added to every sample
    // outputs
    double* moments;           // n_checkpoints x 2 groups x window x 5: n, mean, M2, M3, M4
    int64_t registers;         // public registers found
    int64_t register_bits;     // their storage bits
    int64_t cycles;
    int32_t failed;
    char error[512];
};

extern "C" __attribute__((visibility("default"))) int cf_leak(CfLeak* r) {
    r->failed = 0;
    r->error[0] = 0;
    r->cycles = 0;
    try {
        auto ctx = std::make_unique<VerilatedContext>();
        ctx->randReset(2);
        ctx->randSeed((int)(r->seed % 2147483646) + 1);
        auto m = std::make_unique<Vcore>(ctx.get(), "core");
        std::mt19937_64 rng(r->seed ^ 0x6c65616b61676521ull);
        std::normal_distribution<double> gauss(0.0, r->noise > 0 ? r->noise : 1.0);

        std::vector<Var> vars;
        std::size_t total = 0;
        // every public variable of every scope: the registers the config made public
        for (const auto& scope : *ctx->scopeNameMap()) {
            const VerilatedVarNameMap* vm = scope.second->varsp();
            if (!vm) continue;
            for (const auto& v : *vm) {
                std::size_t bytes = v.second.entSize();
                for (int d = 0; d < v.second.udims(); ++d)
                    bytes *= (std::size_t)v.second.unpackedRanges()[(std::size_t)d].elements();
                vars.push_back({(const uint8_t*)v.second.datap(), bytes});
                total += bytes;
            }
        }
        r->registers = (int64_t)vars.size();
        if (vars.empty()) throw std::runtime_error("no public registers in the model");
        // Each variable's last value in slots of its width (words of 8 bytes for wide ones, the
        // last one 4); a clock's sample is the popcount of what changed, updated in the same pass.
        Group groups[4];                                   // 1, 2, 4, 8 bytes
        const int widths[4] = {1, 2, 4, 8};
        for (const auto& v : vars) {
            for (std::size_t off = 0; off < v.bytes;) {       // 8-byte words, then 4, 2, 1
                int k = 3;
                while (widths[k] > (int)(v.bytes - off)) --k;
                groups[k].data.push_back(v.data + off);
                groups[k].last.push_back(0);
                off += (std::size_t)widths[k];
            }
        }
        auto distance = [&]() {
            uint64_t hd = 0;
            for (int k = 0; k < 4; ++k) hd += switched(groups[k], widths[k]);
            return (double)hd;
        };
        auto snapshot = [&]() { distance(); };
        r->register_bits = (int64_t)(8 * total);

        int64_t cyc = 0;
        auto settle = [&]() { m->clk = 0; m->eval(); };
        auto tick = [&]() {
            m->clk = 1;
            m->eval();
            ++cyc;
            if (ctx->gotFinish()) throw std::runtime_error("core called $finish");
        };
        m->key_valid = 0;
        m->block_in_valid = 0;
        m->block_out_ready = 1;
#if SEED_BITS
        m->seed_valid = 0;
#endif
        m->rst = 1;
        for (int i = 0; i < 4; ++i) { settle(); tick(); }
        m->rst = 0;
        // Each run (a piece of traces) starts its core's random generators from a state of its
        // own, as a device must (seeded from entropy); runs restarting one state would reuse one
        // mask sequence, trace for trace, and show first-order leakage that is the harness's,
        // not the core's.  A core with a seed port takes a seed drawn from this run's stream,
        // then the trace key, as a device reseeds after reset.  A core without one takes a key
        // drawn from that stream first (a core whose generators are reseeded through its key
        // port moves away from its reset state; one without generators just takes two keys).
        // hold valid until the core takes the transfer (its payload already put)
        auto transfer = [&](auto& valid, const auto& ready, const char* what) {
            valid = 1;
            for (int64_t guard = 0;; ++guard) {
                settle();
                bool hs = ready;
                tick();
                if (hs) break;
                if (guard > 100000) throw std::runtime_error(std::string("the core never took the ") + what);
            }
            valid = 0;
        };
        auto load_key = [&](const uint8_t* key) {
            put(m->key, key, KEY_BYTES);
            transfer(m->key_valid, m->key_ready, "key");
        };
#if SEED_BITS
        uint8_t seed[(SEED_BITS + 7) / 8];
        for (auto& b : seed) b = (uint8_t)rng();
        put(m->seed, seed, (int)sizeof seed);
        transfer(m->seed_valid, m->seed_ready, "seed");
#else
        uint8_t start_key[KEY_BYTES];
        for (int i = 0; i < KEY_BYTES; ++i) start_key[i] = (uint8_t)rng();
        load_key(start_key);
#endif
        load_key(r->key);

        const int64_t W = r->window;
        std::vector<double> acc((std::size_t)2 * W * 5, 0.0);   // n, mean, M2, M3, M4
        std::vector<double> samples((std::size_t)W);
        uint8_t block[BLOCK_BYTES];
        int64_t next_checkpoint = 0;
        // The first encryptions after the key start from registers the key setup left (zeros
        // where no block has been yet): unlike every later trace, so not folded in.  A run in
        // pieces would otherwise hold one such trace per piece, all of them in its first
        // checkpoints.
        for (int64_t t = -WARMUP; t < r->traces; ++t) {
            int g = (int)(rng() & 1);                 // 0: the fixed block, 1: random (or second)
            if (g == 0) std::memcpy(block, r->fixed, BLOCK_BYTES);
            else if (r->second) std::memcpy(block, r->second, BLOCK_BYTES);
            else for (int i = 0; i < BLOCK_BYTES; ++i) block[i] = (uint8_t)rng();
            put(m->block_in, block, BLOCK_BYTES);
            m->block_in_valid = 1;
            for (int64_t guard = 0;; ++guard) {
                settle();
                bool hs = m->block_in_ready;
                if (hs) break;
                tick();
                if (guard > 1000000) throw std::runtime_error("the core never took a block");
            }
            snapshot();
            tick();                                   // the handshake clock
            m->block_in_valid = 0;
            for (int64_t c = 0; c < W; ++c) {
                samples[(std::size_t)c] = distance() + (r->noise > 0 ? gauss(rng) : 0.0);
                settle();
                tick();
            }
            if (t < 0) continue;
            for (int64_t c = 0; c < W; ++c) {        // Pebay's one-pass central moments
                double* a = &acc[((std::size_t)g * W + c) * 5];
                double n1 = a[0], n = n1 + 1, x = samples[(std::size_t)c];
                double d = x - a[1], dn = d / n, dn2 = dn * dn, t1 = d * dn * n1;
                a[1] += dn;
                a[4] += t1 * dn2 * (n * n - 3 * n + 3) + 6 * dn2 * a[2] - 4 * dn * a[3];
                a[3] += t1 * dn * (n - 2) - 3 * dn * a[2];
                a[2] += t1;
                a[0] = n;
            }
            if (next_checkpoint < r->n_checkpoints && t + 1 == r->checkpoints[next_checkpoint]) {
                std::memcpy(r->moments + (std::size_t)next_checkpoint * 2 * W * 5, acc.data(),
                            acc.size() * sizeof(double));
                ++next_checkpoint;
            }
        }
        r->cycles = cyc;
        return 0;
    } catch (const std::exception& e) {
        r->failed = 1;
        std::snprintf(r->error, sizeof r->error, "%s", e.what());
        return 1;
    }
}
