// Cycle loop for a Verilated cipherfab core (see cipherfab/sim/verilated.py).
// Built together with the Verilator output; the model class is always Vcore
// (--prefix Vcore).  KEY_BITS, BLOCK_BITS, HAS_DECRYPT and KEY_MODE come from
// -D flags; KEY_MODE is the core's declared key interface: 0 none (key-specific
// core), 1 a key stream (key, key_valid, key_ready), 2 a key with every block
// (block_in_key).  KEY_CLOCK=1: the core has a second clock, key_clk, for its key
// schedule (CoreInfo.clocks == ("key",)), run at key_period sync periods, its
// rising edges at 0.5, 1.5, ... key periods (sync edge n at time n).
// SEED_BITS > 0: the core has an entropy input (seed, seed_valid, seed_ready; CoreInfo.seed_bits).
// After every reset (the first and each reset op) one seed is offered at once and held until
// taken; no key or block may be taken before it.  Its bytes are the caller's (CfRun.seeds, one
// per reset in order) or drawn from splitmix64 seeded with the run's seed ^ SEED_SALT, 8 bytes a
// draw, so a run is reproducible.  cf_run reports, per seed, the cycles from its handshake to the
// next key or block handshake (the declared seed_setup_cycles when that was offered at once).
// One exported function, cf_run(), runs a whole op list without returning to
// Python.
#include "Vcore.h"
#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// Verilator's default vl_fatal() calls exit(): throw instead so that a $fatal,
// $stop or runtime error in the core becomes an error in the result.
void vl_fatal(const char* filename, int linenum, const char*, const char* msg) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw std::runtime_error(std::string(msg) + " at " + filename + ":" + std::to_string(linenum));
}

#ifndef SEED_BITS
#define SEED_BITS 0
#endif

namespace {

constexpr int KEY_BYTES = KEY_BITS / 8;
constexpr int BLOCK_BYTES = BLOCK_BITS / 8;
constexpr int SEED_BYTES = (SEED_BITS + 7) / 8;
constexpr uint64_t SEED_SALT = 0x7365656462797465ull;  // "seedbyte"

// Byte 0 is the most significant byte of the port.
template <typename T> void put(T& port, const uint8_t* b, int n) {
    T v = 0;
    for (int i = 0; i < n; ++i) v = (T)((v << 8) | b[i]);
    port = v;
}
template <std::size_t W> void put(VlWide<W>& port, const uint8_t* b, int n) {
    for (std::size_t w = 0; w < W; ++w) port[w] = 0;
    for (int i = 0; i < n; ++i) {
        int j = n - 1 - i;  // little-endian byte index
        port[j / 4] |= (uint32_t)b[i] << (8 * (j % 4));
    }
}
template <typename T> void get(const T& port, uint8_t* b, int n) {
    for (int i = 0; i < n; ++i) b[i] = (uint8_t)(port >> (8 * (n - 1 - i)));
}
template <std::size_t W> void get(const VlWide<W>& port, uint8_t* b, int n) {
    for (int i = 0; i < n; ++i) {
        int j = n - 1 - i;
        b[i] = (uint8_t)(port[j / 4] >> (8 * (j % 4)));
    }
}

struct Rng {  // splitmix64
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Bernoulli draw against a threshold in [0, 2^53].
    bool chance(uint64_t thr) { return (next() >> 11) < thr; }
};

#if SEED_BITS
// The seeds of a run, one per reset: the caller's (`given`, SEED_BYTES each), else drawn.
struct Seeds {
    const uint8_t* given;
    Rng rng;
    int64_t n = 0;
    uint8_t bytes[SEED_BYTES];
    const uint8_t* next() {
        if (given) return given + (int64_t)SEED_BYTES * n++;
        for (int i = 0; i < SEED_BYTES; i += 8) {
            uint64_t v = rng.next();
            for (int j = 0; j < 8 && i + j < SEED_BYTES; ++j) bytes[i + j] = (uint8_t)(v >> (56 - 8 * j));
        }
        ++n;
        return bytes;
    }
};
#endif

}  // namespace

enum { OP_KEY = 0, OP_ENC = 1, OP_DEC = 2, OP_RESET = 3, OP_FEEDBACK = 0x10 };
// Key interfaces (macros, not an enum: the preprocessor compares them with KEY_MODE).
#define KEY_NONE 0
#define KEY_STREAM 1
#define KEY_PER_BLOCK 2

// Shared with ctypes (cipherfab.sim.verilated._Run); keep the field order.
struct CfRun {
    // inputs
    int64_t n_ops;
    const uint8_t* kind;   // n_ops: OP_* (a block op may carry OP_FEEDBACK)
    const int64_t* arg;    // n_ops: delay cycles for OP_RESET, unused otherwise
    const uint8_t* keys;   // KEY_BYTES per key op, in op order
    const uint8_t* blocks; // BLOCK_BYTES per block op, in op order
    uint64_t seed;
    uint64_t in_valid_thr;  // probability * 2^53
    uint64_t out_ready_thr;
    uint64_t pair_thr;      // probability that a block is offered in the same cycle as the key before it
    int64_t reset_cycles;
    int64_t timeout;
    // outputs
    uint8_t* out;           // BLOCK_BYTES per received output, in arrival order
    int64_t* op_cycle;      // n_ops: handshake cycle (key/block), reset cycle, -1 = not reached
    int64_t* accept_cycle;  // per block op
    int64_t* output_cycle;  // per block op: first cycle block_out_valid was high for it, -1 = none
    int64_t* output_index;  // per block op: index into out, -1 = none / lost
    int64_t* reset_info;    // 3 per reset op: outputs received before, blocks lost, clean (0/1)
    int64_t max_outstanding; // most blocks accepted and not yet delivered at once
    int64_t n_out;
    int64_t cycles;
    int32_t hang;
    int32_t failed;
    char error[512];
    double key_period;      // KEY_CLOCK: key_clk period in sync periods
    // SEED_BITS: the seeds (one per reset: 1 + reset ops), or null: drawn (see the top)
    const uint8_t* seeds;
    int64_t* seed_setup;    // per seed taken: cycles from its handshake to the next key/block handshake, -1 none
    int64_t n_seeds;        // seeds taken
};

extern "C" __attribute__((visibility("default"))) int cf_key_bits() { return KEY_BITS; }
extern "C" __attribute__((visibility("default"))) int cf_block_bits() { return BLOCK_BITS; }
extern "C" __attribute__((visibility("default"))) int cf_key_mode() { return KEY_MODE; }
extern "C" __attribute__((visibility("default"))) int cf_seed_bits() { return SEED_BITS; }

extern "C" __attribute__((visibility("default"))) int cf_run(CfRun* r) {
    r->n_out = 0;
    r->cycles = 0;
    r->hang = 0;
    r->failed = 0;
    r->error[0] = 0;
    r->max_outstanding = 0;
    r->n_seeds = 0;
    // The caller fills op_cycle, accept_cycle, output_cycle, output_index with -1.

    auto fail = [r](bool hang, const std::string& msg) {
        r->hang = hang;
        r->failed = 1;
        std::snprintf(r->error, sizeof r->error, "%s", msg.c_str());
    };
    auto base = [r](int64_t i) { return r->kind[i] & 0x0f; };
    auto is_block = [&](int64_t i) { int k = base(i); return k == OP_ENC || k == OP_DEC; };
    int64_t cyc = 0;
    try {
        auto ctx = std::make_unique<VerilatedContext>();
        ctx->randReset(2);  // with --x-initial unique: registers start random
        ctx->randSeed((int)(r->seed % 2147483646) + 1);
        ctx->fatalOnError(true);
        auto m = std::make_unique<Vcore>(ctx.get(), "core");
        Rng rng{r->seed ^ 0x6369706865726661ull};

        // One clock cycle: inputs are already set; settle combinational logic
        // (ready may depend on valid), return, caller samples, then tick().
        auto settle = [&]() { m->clk = 0; m->eval(); };
#if KEY_CLOCK
        double key_edge = 0.5 * r->key_period;  // time of the next key_clk rising edge
        m->key_clk = 0;
#endif
        auto tick = [&]() {
#if KEY_CLOCK
            for (; key_edge < (double)(cyc + 1); key_edge += r->key_period) {  // before sync edge cyc+1
                m->key_clk = 1;
                m->eval();
                m->key_clk = 0;
                m->eval();
            }
#endif
            m->clk = 1;
            m->eval();
            ++cyc;
            if (ctx->gotFinish()) throw std::runtime_error("core called $finish");
        };
        auto idle_inputs = [&]() {
#if KEY_MODE == KEY_STREAM
            m->key_valid = 0;
#endif
            m->block_in_valid = 0;
            m->block_out_ready = 0;
#if SEED_BITS
            m->seed_valid = 0;
#endif
        };

        idle_inputs();
        m->rst = 1;
        for (int64_t i = 0; i < r->reset_cycles; ++i) { settle(); tick(); }
        m->rst = 0;
#if SEED_BITS
        Seeds seeds{r->seeds, Rng{r->seed ^ SEED_SALT}};
        bool seed_due = true;                  // a reset was the last: a seed is offered
        put(m->seed, seeds.next(), SEED_BYTES);
#endif

        int64_t op = 0, nkey = 0, nblk = 0;  // next op / key / block index
        int64_t head = 0;                      // oldest block still owed an output
        int64_t nreset = 0;
        bool key_up = false, blk_up = false;   // valid raised on the key / block port
        int64_t key_on = -1, blk_on = -1;      // op whose payload is on the key / block port
        int64_t reset_at = -1;        // cycle at which rst goes high for a pending reset op
        bool held = false;            // last cycle: block_out_valid && !block_out_ready
        uint8_t held_data[BLOCK_BYTES];
        uint8_t cur[BLOCK_BYTES];
        const uint8_t* block_key = nullptr;  // KEY_PER_BLOCK: the key the next blocks carry
        int64_t last_progress = cyc;
        int64_t last_handshake = cyc - 1;
        (void)block_key; (void)nkey;
#if SEED_BITS
        int64_t seed_at = -1;         // cycle of the last seed handshake
#endif

        auto load_block = [&](int64_t i) {
            put(m->block_in, r->blocks + (int64_t)BLOCK_BYTES * nblk, BLOCK_BYTES);
#if HAS_DECRYPT
            m->block_in_decrypt = base(i) == OP_DEC;
#endif
#if KEY_MODE == KEY_PER_BLOCK
            if (!block_key) throw std::logic_error("block op before any key op");
            put(m->block_in_key, block_key, KEY_BYTES);
#endif
            blk_on = i;
        };
        auto feedback_ready = [&](int64_t i) { return !(r->kind[i] & OP_FEEDBACK) || head == nblk; };

        while (op < r->n_ops || head < nblk) {
            int kind = op < r->n_ops ? base(op) : -1;

            if (kind == OP_RESET) {
                if (reset_at < 0) reset_at = last_handshake + 1 + r->arg[op];
                if (cyc >= reset_at) {
                    int64_t* info = r->reset_info + 3 * nreset++;
                    info[0] = r->n_out;
                    info[1] = nblk - head;
                    for (; head < nblk; ++head) r->output_cycle[head] = -1;
                    r->op_cycle[op] = cyc;
                    idle_inputs();
                    m->rst = 1;
                    settle();
                    tick();
                    m->rst = 0;
#if SEED_BITS
                    seed_due = true;
                    put(m->seed, seeds.next(), SEED_BYTES);
#endif
                    settle();
                    info[2] = !m->block_out_valid && !m->busy;
                    held = false;
                    key_up = blk_up = false;
                    key_on = blk_on = -1;
                    reset_at = -1;
                    last_handshake = cyc - 1;
                    last_progress = cyc;
                    ++op;
                    continue;
                }
                last_progress = cyc;  // waiting on purpose
            }
            if (kind == OP_KEY) {
#if KEY_MODE == KEY_NONE
                throw std::logic_error("key op for a core without a key port");
#elif KEY_MODE == KEY_PER_BLOCK
                block_key = r->keys + (int64_t)KEY_BYTES * nkey++;  // travels with the next blocks
                r->op_cycle[op++] = cyc;
                continue;
#else
                if (key_on != op) { put(m->key, r->keys + (int64_t)KEY_BYTES * nkey, KEY_BYTES); key_on = op; }
                if (!key_up) key_up = rng.chance(r->in_valid_thr);
                // The block after a key may be offered with it, in the same cycle.
                if (key_up && !blk_up && op + 1 < r->n_ops && is_block(op + 1) &&
                    !(r->kind[op + 1] & OP_FEEDBACK) && rng.chance(r->pair_thr)) {
                    load_block(op + 1);
                    blk_up = true;
                }
#endif
            } else if (kind == OP_ENC || kind == OP_DEC) {
                if (blk_on != op) load_block(op);
                if (!blk_up && feedback_ready(op)) blk_up = rng.chance(r->in_valid_thr);
            }
#if KEY_MODE == KEY_STREAM
            m->key_valid = key_up;
#endif
            m->block_in_valid = blk_up;
#if SEED_BITS
            m->seed_valid = seed_due;
#endif
            bool out_ready = rng.chance(r->out_ready_thr);
            m->block_out_ready = out_ready;
            settle();

            // Output side: sample, match against the oldest owed block.
            bool ov = m->block_out_valid;
            if (held) {
                if (!ov) throw std::logic_error("protocol violation: block_out_valid dropped before block_out_ready");
                get(m->block_out, cur, BLOCK_BYTES);
                if (std::memcmp(cur, held_data, BLOCK_BYTES))
                    throw std::logic_error("protocol violation: block_out changed while valid and not ready");
            }
            if (ov) {
                if (head >= nblk) throw std::logic_error("unexpected output: block_out_valid with no block owed");
                if (r->output_cycle[head] < 0) r->output_cycle[head] = cyc;
                if (out_ready) {
                    get(m->block_out, r->out + (int64_t)BLOCK_BYTES * r->n_out, BLOCK_BYTES);
                    r->output_index[head++] = r->n_out++;
                    last_progress = cyc;
                    held = false;
                    // A feedback block is offered in the cycle its predecessor's output is taken.
                    if (!blk_up && (kind == OP_ENC || kind == OP_DEC) && (r->kind[op] & OP_FEEDBACK) && head == nblk) {
                        blk_up = rng.chance(r->in_valid_thr);
                        if (blk_up) { m->block_in_valid = 1; settle(); }
                    }
                } else if (!held) {
                    get(m->block_out, held_data, BLOCK_BYTES);
                    held = true;
                }
            }
            // Input handshakes: a key before a block offered in the same cycle.
#if KEY_MODE == KEY_STREAM
            bool key_hs = key_up && m->key_ready;
#else
            bool key_hs = false;
#endif
            bool blk_hs = blk_up && m->block_in_ready;
            if (blk_hs && key_up && !key_hs)
                throw std::logic_error("protocol violation: block_in taken while the key offered with it "
                                       "was not (the key must be taken first)");
#if SEED_BITS
            bool seed_hs = seed_due && m->seed_ready;
            if ((key_hs || blk_hs) && seed_due && !seed_hs)
                throw std::logic_error(std::string("protocol violation: ") + (key_hs ? "a key" : "a block") +
                                       " taken after a reset before the seed");
            if (seed_hs) {
                r->seed_setup[r->n_seeds++] = -1;
                seed_at = last_progress = cyc;
                seed_due = false;
            }
            if ((key_hs || blk_hs) && r->n_seeds && r->seed_setup[r->n_seeds - 1] < 0)
                r->seed_setup[r->n_seeds - 1] = cyc - seed_at;
#endif
            if (key_hs) {
                r->op_cycle[op++] = cyc;
                ++nkey;
                key_up = false;
                key_on = -1;
                last_handshake = last_progress = cyc;
            }
            if (blk_hs) {
                r->op_cycle[op++] = cyc;
                r->accept_cycle[nblk++] = cyc;
                blk_up = false;
                blk_on = -1;
                last_handshake = last_progress = cyc;
                if (nblk - head > r->max_outstanding) r->max_outstanding = nblk - head;
            }
            tick();
            if (cyc - last_progress > r->timeout) {
                std::string what = head < nblk
                    ? "output of block " + std::to_string(head)
                    : "handshake of op " + std::to_string(op);
#if SEED_BITS
                if (seed_due && head == nblk) what = "the seed to be taken after a reset";
#endif
                fail(true, "hang: no progress for " + std::to_string(r->timeout) +
                               " cycles waiting for " + what);
                break;
            }
        }
        m->final();
    } catch (const std::exception& e) {
        fail(false, e.what());
    }
    r->cycles = cyc;
    return r->failed;
}

// ---------------------------------------------------------------------------------------------
// Feedback chains (Monte-Carlo loops, NESSIE "Iterated N times"): each chain runs `inner`
// blocks, every input made from earlier outputs, without returning to Python.  Rules (the
// chain value starts as the IV, prev as the IV):
//   0 ECB:            in = x;              x = out
//   1 CBC encrypt:    in = x ^ chain;      chain = out; x = prev; prev = out
//   2 CBC decrypt, the next input is the output before last (AESAVS):
//                     in = x; out ^= chain; chain = x; x = prev; prev = out
//   3 CBC decrypt, the next input is the output (AES submission, TDES):
//                     in = x; out ^= chain; chain = x; x = out
// A core with a key port runs its chains one after another (the key loaded before each);
// one with a key per block or none interleaves them, each chain's next block offered as soon
// as its output is taken (at most one block of a chain in flight).  Inputs are offered at
// once, outputs taken at once: no backpressure here.  A core with a seed port is seeded
// after the reset as cf_run does (a seed drawn from the run's seed) before its first key.
struct CfChain {
    int64_t n;               // chains
    int64_t inner;           // blocks per chain
    const uint8_t* keys;     // KEY_BYTES per chain (unused without a key port)
    const uint8_t* ivs;      // BLOCK_BYTES per chain (rules 1-3)
    const uint8_t* texts;    // BLOCK_BYTES per chain: the first input
    const uint8_t* rule;     // per chain
    const uint8_t* decrypt;  // per chain: the core's direction
    uint64_t seed;
    int64_t reset_cycles;
    int64_t timeout;
    uint8_t* tail;           // 3 * BLOCK_BYTES per chain: the last, second and third last outputs
    uint8_t* chain_out;      // BLOCK_BYTES per chain: the chain value at the end
    int64_t cycles;
    int32_t failed;
    char error[512];
    double key_period;
};

extern "C" __attribute__((visibility("default"))) int cf_chain(CfChain* r) {
    r->cycles = 0;
    r->failed = 0;
    r->error[0] = 0;
    int64_t cyc = 0;
    try {
        auto ctx = std::make_unique<VerilatedContext>();
        ctx->randReset(2);
        ctx->randSeed((int)(r->seed % 2147483646) + 1);
        ctx->fatalOnError(true);
        auto m = std::make_unique<Vcore>(ctx.get(), "core");
#if KEY_CLOCK
        double key_edge = 0.5 * r->key_period;
        m->key_clk = 0;
#endif
        auto settle = [&]() { m->clk = 0; m->eval(); };
        auto tick = [&]() {
#if KEY_CLOCK
            for (; key_edge < (double)(cyc + 1); key_edge += r->key_period) {
                m->key_clk = 1; m->eval(); m->key_clk = 0; m->eval();
            }
#endif
            m->clk = 1;
            m->eval();
            ++cyc;
            if (ctx->gotFinish()) throw std::runtime_error("core called $finish");
        };
#if KEY_MODE == KEY_STREAM
        m->key_valid = 0;
#endif
        m->block_in_valid = 0;
        m->block_out_ready = 0;
#if SEED_BITS
        m->seed_valid = 0;
#endif
        m->rst = 1;
        for (int64_t i = 0; i < r->reset_cycles; ++i) { settle(); tick(); }
        m->rst = 0;
#if SEED_BITS
        Seeds seeds{nullptr, Rng{r->seed ^ SEED_SALT}};
        bool seed_due = true;
        put(m->seed, seeds.next(), SEED_BYTES);
#endif

        const int64_t n = r->n;
        struct St { uint8_t x[BLOCK_BYTES], chain[BLOCK_BYTES], prev[BLOCK_BYTES]; int64_t done; };
        std::vector<St> st((size_t)n);
        for (int64_t c = 0; c < n; ++c) {
            std::memcpy(st[c].x, r->texts + BLOCK_BYTES * c, BLOCK_BYTES);
            std::memcpy(st[c].chain, r->ivs + BLOCK_BYTES * c, BLOCK_BYTES);
            std::memcpy(st[c].prev, r->ivs + BLOCK_BYTES * c, BLOCK_BYTES);
            std::memset(r->tail + 3 * BLOCK_BYTES * c, 0, 3 * BLOCK_BYTES);
            st[c].done = 0;
            if (r->rule[c] > 3) throw std::logic_error("unknown chain rule");
        }
        if (r->inner < 1) throw std::logic_error("a chain needs at least one block");
#if KEY_MODE == KEY_STREAM
        const bool serial = true;   // a key op between chains
#else
        const bool serial = false;
#endif
        std::vector<int64_t> ready, flight;   // chains whose next block waits; blocks in flight (FIFO)
        size_t rd = 0, fl = 0;
        int64_t next_chain = 0;               // serial: the chain being run
        bool key_needed = serial;
        auto add_ready = [&](int64_t c) { ready.push_back(c); };
        if (!serial) for (int64_t c = 0; c < n; ++c) add_ready(c);
        else add_ready(0);
        int64_t finished = 0, last_progress = cyc;
        uint8_t blk[BLOCK_BYTES], out[BLOCK_BYTES];
        auto input_of = [&](int64_t c, uint8_t* b) {
            for (int i = 0; i < BLOCK_BYTES; ++i)
                b[i] = r->rule[c] == 1 ? st[c].x[i] ^ st[c].chain[i] : st[c].x[i];
        };
        auto offer = [&]() {   // put the next ready chain's block (and its key) on the port
            if (rd >= ready.size()) { m->block_in_valid = 0; return; }
            int64_t c = ready[rd];
            input_of(c, blk);
            put(m->block_in, blk, BLOCK_BYTES);
#if HAS_DECRYPT
            m->block_in_decrypt = r->decrypt[c] != 0;
#endif
#if KEY_MODE == KEY_PER_BLOCK
            put(m->block_in_key, r->keys + (int64_t)KEY_BYTES * c, KEY_BYTES);
#endif
            m->block_in_valid = !key_needed;
        };
        while (finished < n) {
#if KEY_MODE == KEY_STREAM
            if (key_needed) put(m->key, r->keys + (int64_t)KEY_BYTES * next_chain, KEY_BYTES);
            m->key_valid = key_needed;
#endif
            offer();
            m->block_out_ready = 1;
#if SEED_BITS
            m->seed_valid = seed_due;
#endif
            settle();
            if (m->block_out_valid) {
                if (fl >= flight.size()) throw std::logic_error("unexpected output: block_out_valid with no block owed");
                int64_t c = flight[fl++];
                get(m->block_out, out, BLOCK_BYTES);
                St& s = st[c];
                uint8_t* t = r->tail + 3 * BLOCK_BYTES * c;
                int rule = r->rule[c];
                if (rule >= 2) for (int i = 0; i < BLOCK_BYTES; ++i) out[i] ^= s.chain[i];
                std::memmove(t + BLOCK_BYTES, t, 2 * BLOCK_BYTES);
                std::memcpy(t, out, BLOCK_BYTES);
                switch (rule) {
                    case 0: std::memcpy(s.x, out, BLOCK_BYTES); break;
                    case 1: std::memcpy(s.chain, out, BLOCK_BYTES); std::memcpy(s.x, s.prev, BLOCK_BYTES);
                            std::memcpy(s.prev, out, BLOCK_BYTES); break;
                    case 2: std::memcpy(s.chain, s.x, BLOCK_BYTES); std::memcpy(s.x, s.prev, BLOCK_BYTES);
                            std::memcpy(s.prev, out, BLOCK_BYTES); break;
                    case 3: std::memcpy(s.chain, s.x, BLOCK_BYTES); std::memcpy(s.x, out, BLOCK_BYTES); break;
                }
                last_progress = cyc;
                if (++s.done == r->inner) {
                    std::memcpy(r->chain_out + BLOCK_BYTES * c, s.chain, BLOCK_BYTES);
                    ++finished;
                    if (serial && ++next_chain < n) { key_needed = true; add_ready(next_chain); }
                } else {
                    add_ready(c);
                }
                if (!m->block_in_valid) { offer(); settle(); }   // fed back in the same cycle
            }
#if KEY_MODE == KEY_STREAM
            bool key_hs = m->key_valid && m->key_ready;
#else
            bool key_hs = false;
#endif
            bool blk_hs = m->block_in_valid && m->block_in_ready;
#if SEED_BITS
            if ((key_hs || blk_hs) && seed_due && !m->seed_ready)
                throw std::logic_error("protocol violation: a key or block taken after a reset before the seed");
            if (seed_due && m->seed_ready) {
                seed_due = false;
                last_progress = cyc;
            }
#endif
            if (key_hs) {             // taken at this edge; the block follows in the next cycle
                key_needed = false;
                last_progress = cyc;
            }
            if (blk_hs) {
                flight.push_back(ready[rd++]);
                last_progress = cyc;
            }
            if (rd > 4096 && rd * 2 > ready.size()) { ready.erase(ready.begin(), ready.begin() + rd); rd = 0; }
            if (fl > 4096 && fl * 2 > flight.size()) { flight.erase(flight.begin(), flight.begin() + fl); fl = 0; }
            tick();
            if (cyc - last_progress > r->timeout) {
                std::snprintf(r->error, sizeof r->error, "hang: no progress for %lld cycles in a feedback chain",
                              (long long)r->timeout);
                r->failed = 1;
                break;
            }
        }
        m->final();
    } catch (const std::exception& e) {
        r->failed = 1;
        std::snprintf(r->error, sizeof r->error, "%s", e.what());
    }
    r->cycles = cyc;
    return r->failed;
}
