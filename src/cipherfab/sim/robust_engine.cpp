// The robust probing model's simulator and counter (cipherfab.sim.robust_engine drives it).
//
// A netlist compiled by cipherfab.sim.robust: combinational outputs as ops of at most four
// inputs and a 16-entry table (LUT4s as they are; muxes, carry and RAM read logic split
// into such ops), and flip-flops (D, clock enable, set/reset).  Nets are bit-sliced: one
// 64-bit word holds one net's value in 64 simulations, W words a batch of 64 W.
//
// Stimulus: every input bit in every clock is a constant, a bit of the secret (its fixed
// value in the fixed group, uniform in the random one), a bit of the per-simulation held
// entropy, or a fresh uniform bit; optionally XORed with an entropy bit (a share).
//
// robust_pilot: one batch, with taint (gate-level information flow: a net is tainted when
// the secret can change it, given the other inputs' values), and per clock and observed
// net: seen 1, seen 0, tainted.  robust_run: many batches on threads; every test (a list
// of observed stable bits, now or one clock before) counts its joint values per group in a
// table; at each checkpoint each test's G-test as PROLEAD pools it.  Deterministic: batch
// b's random bits come from (seed, b), whatever the threads.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

typedef uint64_t u64;

extern "C" {

struct RobustProgram {
    int32_t n_nets;                  // net 0 is constant 0, net 1 constant 1
    int32_t n_ops;
    const int32_t* op_in;            // 4 per op (unused inputs: net 0)
    const int32_t* op_out;
    const uint16_t* op_table;        // bit (a + 2b + 4c + 8d) is the output
    int32_t n_ffs;
    const int32_t* ff_q;
    const int32_t* ff_d;
    const int32_t* ff_ce;            // net; constant nets for a fixed enable
    const int32_t* ff_lsr;           // net (0: none)
    const uint8_t* ff_flags;         // 1: CE inverted, 2: LSR inverted, 4: set value 1
    int32_t clocks;
    int32_t n_inputs;
    const int32_t* in_net;
    const int32_t* stim;             // [clocks][n_inputs][2]: source, entropy bit XORed in or -1
    int32_t n_secret;
    const uint8_t* secret_fixed;
    int32_t n_entropy;
    uint64_t seed;
    const uint8_t* secret_second;    // the other group's secret (fixed-vs-fixed), or null: uniform
};

// stimulus sources: 0/1 constant, SRC_SECRET + j, SRC_ENTROPY + j, SRC_FRESH
enum { SRC_SECRET = 2, SRC_ENTROPY = 1 << 20, SRC_FRESH = -1 };

struct RobustTests {
    int32_t n_tests;
    const int32_t* clock;            // the clock each test observes (bits at offset -1: the one before)
    const int32_t* k;                // bits of each test (<= 16)
    const int32_t* first;            // index of its first bit in bit_net/bit_prev
    const int32_t* bit_net;          // an observed net
    const uint8_t* bit_prev;         // 1: its value one clock before
    int32_t n_checkpoints;
    const int64_t* checkpoints;      // simulations, each a multiple of the batch
    int32_t words;                   // words a batch (64 simulations each)
    int32_t threads;
    double* mlog10p;                 // out: [checkpoint][test]
    double* g;                       // out: [test], at the last checkpoint
    int32_t* df;                     // out: [test]
    uint32_t* tables;                // out (optional, may be null): [test][2][2^k] at the end
    int64_t table_words;             // its length (checked)
    void (*progress)(int64_t done, double worst);   // after each checkpoint (may be null)
    char error[256];
};

}  // extern "C"

namespace {

struct Rng {                         // xoshiro256**, seeded by splitmix64
    u64 s[4];
    explicit Rng(u64 seed) {
        for (int i = 0; i < 4; i++) {
            seed += 0x9E3779B97F4A7C15ull;
            u64 z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            s[i] = z ^ (z >> 31);
        }
    }
    static u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }
    u64 next() {
        u64 r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
        return r;
    }
};

// A LUT over W words: table bit (a + 2b + 4c + 8d) as a tree of 2:1 muxes, a first, its
// constants hoisted out of the word loop (vectorizes)
inline void eval_lut(uint16_t t, const u64* __restrict a, const u64* __restrict b, const u64* __restrict c,
                     const u64* __restrict d, u64* __restrict out, int W) {
    u64 lo[8], x[8];
    for (int j = 0; j < 8; j++) {
        lo[j] = (t >> (2 * j)) & 1 ? ~0ull : 0;
        x[j] = lo[j] ^ ((t >> (2 * j + 1)) & 1 ? ~0ull : 0);
    }
    if ((t >> 8) == (t & 0xFF) && ((t >> 4) & 0xF) == (t & 0xF)) {     // c and d unused
        for (int w = 0; w < W; w++) {
            u64 v0 = lo[0] ^ (x[0] & a[w]), v1 = lo[1] ^ (x[1] & a[w]);
            out[w] = v0 ^ ((v0 ^ v1) & b[w]);
        }
        return;
    }
    for (int w = 0; w < W; w++) {
        u64 aw = a[w], bw = b[w];
        u64 v0 = lo[0] ^ (x[0] & aw), v1 = lo[1] ^ (x[1] & aw), v2 = lo[2] ^ (x[2] & aw), v3 = lo[3] ^ (x[3] & aw);
        u64 v4 = lo[4] ^ (x[4] & aw), v5 = lo[5] ^ (x[5] & aw), v6 = lo[6] ^ (x[6] & aw), v7 = lo[7] ^ (x[7] & aw);
        u64 u0 = v0 ^ ((v0 ^ v1) & bw), u1 = v2 ^ ((v2 ^ v3) & bw), u2 = v4 ^ ((v4 ^ v5) & bw), u3 = v6 ^ ((v6 ^ v7) & bw);
        u64 s0 = u0 ^ ((u0 ^ u1) & c[w]), s1 = u2 ^ ((u2 ^ u3) & c[w]);
        out[w] = s0 ^ ((s0 ^ s1) & d[w]);
    }
}

// tainted output: some row reachable by changing tainted inputs gives 1, another 0
inline u64 lut_taint(uint16_t t, const u64* v, const u64* tt) {
    u64 one = 0, zero = 0;
    for (int row = 0; row < 16; row++) {
        u64 reach = ~0ull;
        for (int j = 0; j < 4; j++) reach &= ((row >> j) & 1 ? v[j] : ~v[j]) | tt[j];
        if ((t >> row) & 1) one |= reach; else zero |= reach;
    }
    return one & zero;
}

struct Sim {
    const RobustProgram& p;
    int W;
    std::vector<u64> val, taint, next, next_t;
    std::vector<u64> secret, entropy, group;      // [bit][W], [bit][W], [W]
    bool with_taint;

    Sim(const RobustProgram& prog, int words, bool t)
        : p(prog), W(words), val((size_t)prog.n_nets * words), next((size_t)prog.n_ffs * words),
          secret((size_t)prog.n_secret * words), entropy((size_t)prog.n_entropy * words), group(words),
          with_taint(t) {
        if (t) { taint.assign(val.size(), 0); next_t.assign(next.size(), 0); }
    }
    u64* at(int net) { return &val[(size_t)net * W]; }
    u64* tat(int net) { return &taint[(size_t)net * W]; }

    void start(Rng& rng) {
        std::fill(val.begin(), val.end(), 0);
        if (with_taint) std::fill(taint.begin(), taint.end(), 0);
        for (int w = 0; w < W; w++) val[(size_t)1 * W + w] = ~0ull;
        for (int w = 0; w < W; w++) group[w] = rng.next();
        for (int j = 0; j < p.n_secret; j++)
            for (int w = 0; w < W; w++) {
                u64 fixed = p.secret_fixed[j] ? ~0ull : 0;
                u64 other = p.secret_second ? (p.secret_second[j] ? ~0ull : 0) : rng.next();
                secret[(size_t)j * W + w] = (group[w] & fixed) | (~group[w] & other);
            }
        for (int j = 0; j < p.n_entropy; j++)
            for (int w = 0; w < W; w++) entropy[(size_t)j * W + w] = rng.next();
        for (int i = 0; i < p.n_ffs; i++) {       // flip-flops start at their set/reset value
            u64 v = (p.ff_flags[i] & 4) ? ~0ull : 0;
            for (int w = 0; w < W; w++) at(p.ff_q[i])[w] = v;
        }
    }

    void inputs(int clock, Rng& rng) {
        const int32_t* s = p.stim + (size_t)clock * p.n_inputs * 2;
        for (int i = 0; i < p.n_inputs; i++) {
            int src = s[2 * i], x = s[2 * i + 1];
            u64* out = at(p.in_net[i]);
            u64* tout = with_taint ? tat(p.in_net[i]) : nullptr;
            for (int w = 0; w < W; w++) {
                u64 v;
                if (src == 0 || src == 1) v = src ? ~0ull : 0;
                else if (src == SRC_FRESH) v = rng.next();
                else if (src >= SRC_ENTROPY) v = entropy[(size_t)(src - SRC_ENTROPY) * W + w];
                else v = secret[(size_t)(src - SRC_SECRET) * W + w];
                if (x >= 0) v ^= entropy[(size_t)x * W + w];
                out[w] = v;
                if (tout) tout[w] = (src >= SRC_SECRET && src < SRC_ENTROPY) ? ~0ull : 0;
            }
        }
    }

    void comb() {
        for (int o = 0; o < p.n_ops; o++) {
            const int32_t* in = p.op_in + 4 * o;
            const u64 *a = at(in[0]), *b = at(in[1]), *c = at(in[2]), *d = at(in[3]);
            u64* out = at(p.op_out[o]);
            uint16_t t = p.op_table[o];
            eval_lut(t, a, b, c, d, out, W);
            if (with_taint) {
                u64* tout = tat(p.op_out[o]);
                for (int w = 0; w < W; w++) {
                    u64 v[4] = {a[w], b[w], c[w], d[w]};
                    u64 tt[4] = {tat(in[0])[w], tat(in[1])[w], tat(in[2])[w], tat(in[3])[w]};
                    tout[w] = (tt[0] | tt[1] | tt[2] | tt[3]) ? lut_taint(t, v, tt) : 0;
                }
            }
        }
    }

    void clock_edge() {
        for (int i = 0; i < p.n_ffs; i++) {
            uint8_t f = p.ff_flags[i];
            const u64 *q = at(p.ff_q[i]), *d = at(p.ff_d[i]), *ce = at(p.ff_ce[i]), *lsr = at(p.ff_lsr[i]);
            u64 set = (f & 4) ? ~0ull : 0, cinv = (f & 1) ? ~0ull : 0, linv = (f & 2) ? ~0ull : 0;
            u64* n = &next[(size_t)i * W];
            for (int w = 0; w < W; w++) {
                u64 e = ce[w] ^ cinv, r = lsr[w] ^ linv;
                n[w] = (r & set) | (~r & ((e & d[w]) | (~e & q[w])));
            }
            if (with_taint) {
                const u64 *tq = tat(p.ff_q[i]), *td = tat(p.ff_d[i]), *te = tat(p.ff_ce[i]), *tl = tat(p.ff_lsr[i]);
                u64* nt = &next_t[(size_t)i * W];
                for (int w = 0; w < W; w++) {
                    u64 e = ce[w] ^ cinv, r = lsr[w] ^ linv;
                    u64 kept = (e & td[w]) | (~e & tq[w]) | (te[w] & ((d[w] ^ q[w]) | td[w] | tq[w]));
                    nt[w] = tl[w] | (~r & kept);
                }
            }
        }
        for (int i = 0; i < p.n_ffs; i++) {
            std::memcpy(at(p.ff_q[i]), &next[(size_t)i * W], W * sizeof(u64));
            if (with_taint) std::memcpy(tat(p.ff_q[i]), &next_t[(size_t)i * W], W * sizeof(u64));
        }
    }
};

inline u64 batch_seed(u64 seed, u64 b) { return seed * 0x9E3779B97F4A7C15ull + b * 0xD1B54A32D192ED03ull + 1; }

// -- the G-test, as PROLEAD pools it (cipherfab.sim.robust.g_test is the reference) ------
double chi2_mlog10_sf(double x, int df) {
    double a = df / 2.0, z = x / 2.0;
    if (z <= 0) return 0.0;
    double log_front = a * std::log(z) - z - std::lgamma(a);
    if (z < a + 1) {
        double term = 1.0 / a, total = term, k = a;
        while (std::fabs(term) > std::fabs(total) * 1e-16) { k += 1; term *= z / k; total += term; }
        double pp = std::exp(log_front) * total;
        return pp < 1 ? -std::log10(std::max(1.0 - pp, 1e-300)) : 300.0;
    }
    const double tiny = 1e-300;
    double b = z + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b; if (std::fabs(d) < tiny) d = tiny;
        c = b + an / c; if (std::fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double delta = d * c;
        h *= delta;
        if (std::fabs(delta - 1) < 1e-16) break;
    }
    return -(log_front + std::log(h)) / std::log(10.0);
}

void g_test(const double* fixed, const double* random, int n, double& g, int& df, double& ml) {
    double n0 = 0, n1 = 0; int cols = 0;
    for (int v = 0; v < n; v++) { n0 += fixed[v]; n1 += random[v]; cols += (fixed[v] + random[v]) > 0; }
    double total = n0 + n1;
    g = 0; df = 0; ml = 0;
    if (cols < 2 || total == 0) return;
    double s0 = n0 / total, s1 = n1 / total, pool = total / cols;
    double p0 = 0, p1 = 0; int kept = 0; bool pooled = false;
    double sum = 0;
    auto term = [&](double o, double e) { return o > 0 ? o * std::log(o / e) : 0.0; };
    for (int v = 0; v < n; v++) {
        double c = fixed[v] + random[v];
        if (c <= 0) continue;
        double e0 = s0 * c, e1 = s1 * c;
        bool keep = e0 >= 5 && e1 >= 5 && (e0 >= 5 * pool || e0 >= 20) && (e1 >= 5 * pool || e1 >= 20);
        if (keep) { sum += term(fixed[v], e0) + term(random[v], e1); kept++; }
        else { p0 += fixed[v]; p1 += random[v]; pooled = true; }
    }
    if (pooled) { double c = p0 + p1; sum += term(p0, s0 * c) + term(p1, s1 * c); }
    int columns = kept + (pooled ? 1 : 0);
    g = std::max(2 * sum, 0.0);
    df = columns - 1;
    ml = df ? chi2_mlog10_sf(g, df) : 0.0;
}

// byte i of spread[x] is bit i of x: eight simulations' bits, one a byte
struct Spread {
    u64 v[256];
    Spread() { for (int x = 0; x < 256; x++) { v[x] = 0; for (int i = 0; i < 8; i++) v[x] |= (u64)((x >> i) & 1) << (8 * i); } }
};
const Spread SPREAD;

// A test's counts, value-major: table[2 v] the fixed group's, table[2 v + 1] the random one's.
void count(const RobustTests& T, int t, Sim& s, const std::vector<u64>& prev, const std::vector<int>& obs_slot,
           uint32_t* table) {
    int k = T.k[t], W = s.W;
    const u64* bits[16];
    for (int j = 0; j < k; j++) {
        int net = T.bit_net[T.first[t] + j];
        bits[j] = T.bit_prev[T.first[t] + j] ? &prev[(size_t)obs_slot[net] * W] : s.at(net);
    }
    if (k <= 5) {                                      // each value's simulations as a word
        u64 m[32];
        for (int w = 0; w < W; w++) {
            int n = 1;
            m[0] = ~0ull;
            for (int j = 0; j < k; j++) {              // value bit j is bits[j], as below
                u64 b = bits[j][w];
                for (int i = 0; i < n; i++) { m[i + n] = m[i] & b; m[i] &= ~b; }
                n *= 2;
            }
            u64 g = s.group[w];
            for (int v = 0; v < n; v++) {
                int all = __builtin_popcountll(m[v]), f = __builtin_popcountll(m[v] & g);
                table[2 * v] += f; table[2 * v + 1] += all - f;
            }
        }
        return;
    }
    for (int w = 0; w < W; w++) {                      // each simulation's value as an index
        u64 lo[8] = {0}, hi[8] = {0};                  // byte i of lo[q]: simulation 8 q + i
        for (int j = 0; j < k; j++) {
            u64 b = bits[j][w];
            u64* acc = j < 8 ? lo : hi;
            int sh = j & 7;
            for (int q = 0; q < 8; q++) acc[q] |= SPREAD.v[(b >> (8 * q)) & 0xFF] << sh;
        }
        u64 ng = ~s.group[w];                          // 0: the fixed group
        for (int q = 0; q < 8; q++)
            for (int i = 0; i < 8; i++) {
                uint32_t idx = (uint32_t)((lo[q] >> (8 * i)) & 0xFF) | (uint32_t)((hi[q] >> (8 * i)) & 0xFF) << 8;
                table[2 * idx + ((ng >> (8 * q + i)) & 1)]++;
            }
    }
}

}  // namespace

extern "C" {

// One batch of 64 * words simulations with taint.  For each clock and observed net: bit 0
// some simulation saw 1, bit 1 some saw 0, bit 2 tainted in some.  Returns 0.
int robust_pilot(const RobustProgram* p, int32_t words, int32_t n_obs, const int32_t* obs, uint8_t* flags) {
    Sim s(*p, words, true);
    Rng rng(batch_seed(p->seed, ~0ull));
    s.start(rng);
    for (int c = 0; c < p->clocks; c++) {
        s.inputs(c, rng);
        s.comb();
        for (int i = 0; i < n_obs; i++) {
            const u64 *v = s.at(obs[i]), *t = s.tat(obs[i]);
            u64 one = 0, zero = 0, tt = 0;
            for (int w = 0; w < words; w++) { one |= v[w]; zero |= ~v[w]; tt |= t[w]; }
            flags[(size_t)c * n_obs + i] = (one ? 1 : 0) | (zero ? 2 : 0) | (tt ? 4 : 0);
        }
        s.clock_edge();
    }
    return 0;
}

// The values of nets in every clock of one batch (test of the counting): values[clock][net][words].
int robust_trace(const RobustProgram* p, int32_t words, int64_t batch, int32_t n_obs, const int32_t* obs,
                 u64* values, u64* group) {
    Sim s(*p, words, false);
    Rng rng(batch_seed(p->seed, batch));
    s.start(rng);
    std::memcpy(group, s.group.data(), words * sizeof(u64));
    for (int c = 0; c < p->clocks; c++) {
        s.inputs(c, rng);
        s.comb();
        for (int i = 0; i < n_obs; i++)
            std::memcpy(values + ((size_t)c * n_obs + i) * words, s.at(obs[i]), words * sizeof(u64));
        s.clock_edge();
    }
    return 0;
}

// The toggle model: each simulation's count of observed nets whose value changed from clock
// c - 1 to clock c, for c = first .. first + n_samples - 1 (first >= 1), into
// counts[sample][simulation]; the counts are summed bit-sliced (a ripple counter per word).
int robust_toggle(const RobustProgram* p, int32_t words, int64_t batch, int32_t n_obs, const int32_t* obs,
                  int32_t first, int32_t n_samples, uint32_t* counts, u64* group) {
    if (first < 1 || first + n_samples > p->clocks) return 1;
    const int W = words;
    int planes = 1;
    while ((1ll << planes) <= n_obs) planes++;
    Sim s(*p, words, false);
    Rng rng(batch_seed(p->seed, batch));
    s.start(rng);
    std::memcpy(group, s.group.data(), W * sizeof(u64));
    std::vector<u64> prev((size_t)n_obs * W), cnt((size_t)planes * W);
    for (int c = 0; c < first + n_samples; c++) {
        s.inputs(c, rng);
        s.comb();
        if (c >= first) {
            std::fill(cnt.begin(), cnt.end(), 0);
            for (int i = 0; i < n_obs; i++) {
                const u64 *cur = s.at(obs[i]), *pr = &prev[(size_t)i * W];
                for (int w = 0; w < W; w++)
                    for (u64 x = cur[w] ^ pr[w], b = 0; x; b++) {
                        u64& plane = cnt[b * W + w];
                        u64 carry = plane & x;
                        plane ^= x;
                        x = carry;
                    }
            }
            uint32_t* out = counts + (size_t)(c - first) * 64 * W;
            for (int w = 0; w < W; w++)
                for (int i = 0; i < 64; i++) {
                    uint32_t v = 0;
                    for (int b = 0; b < planes; b++) v |= (uint32_t)((cnt[(size_t)b * W + w] >> i) & 1) << b;
                    out[64 * w + i] = v;
                }
        }
        if (c >= first - 1)
            for (int i = 0; i < n_obs; i++) std::memcpy(&prev[(size_t)i * W], s.at(obs[i]), W * sizeof(u64));
        s.clock_edge();
    }
    return 0;
}

int robust_run(const RobustProgram* p, RobustTests* T) {
    const int W = T->words;
    std::vector<int64_t> offset(T->n_tests + 1, 0);
    for (int t = 0; t < T->n_tests; t++) {
        if (T->k[t] < 1 || T->k[t] > 16) { snprintf(T->error, sizeof T->error, "test %d has %d bits (1 to 16)", t, T->k[t]); return 1; }
        offset[t + 1] = offset[t] + ((int64_t)2 << T->k[t]);
    }
    if (T->tables && T->table_words != offset[T->n_tests]) { snprintf(T->error, sizeof T->error, "tables: %lld words, need %lld", (long long)T->table_words, (long long)offset[T->n_tests]); return 1; }
    // tests by clock; the nets needed one clock before, each in a slot of the snapshot
    std::vector<std::vector<int>> by_clock(p->clocks);
    std::vector<int> slot(p->n_nets, -1);
    int n_slots = 0;
    for (int t = 0; t < T->n_tests; t++) {
        if (T->clock[t] < 0 || T->clock[t] >= p->clocks) { snprintf(T->error, sizeof T->error, "test %d: clock %d outside the run", t, T->clock[t]); return 1; }
        by_clock[T->clock[t]].push_back(t);
        for (int j = 0; j < T->k[t]; j++)
            if (T->bit_prev[T->first[t] + j] && slot[T->bit_net[T->first[t] + j]] < 0) slot[T->bit_net[T->first[t] + j]] = n_slots++;
    }
    std::vector<int> slot_net(n_slots);
    for (int n = 0; n < p->n_nets; n++) if (slot[n] >= 0) slot_net[slot[n]] = n;
    int threads = std::max(1, T->threads);
    std::vector<std::vector<uint32_t>> tables(threads, std::vector<uint32_t>(offset[T->n_tests], 0));
    const int64_t per_batch = 64LL * W;
    int64_t done = 0;
    std::vector<double> f(1 << 16), r(1 << 16);
    for (int cp = 0; cp < T->n_checkpoints; cp++) {
        int64_t target = T->checkpoints[cp];
        if (target % per_batch || target <= done) { snprintf(T->error, sizeof T->error, "checkpoint %lld: not a rising multiple of %lld", (long long)target, (long long)per_batch); return 1; }
        std::atomic<int64_t> next_batch(done / per_batch);
        int64_t end_batch = target / per_batch;
        auto work = [&](int th) {
            Sim s(*p, W, false);
            std::vector<u64> prev((size_t)n_slots * W);
            uint32_t* tab = tables[th].data();
            for (int64_t b; (b = next_batch++) < end_batch;) {
                Rng rng(batch_seed(p->seed, b));
                s.start(rng);
                for (int c = 0; c < p->clocks; c++) {
                    s.inputs(c, rng);
                    s.comb();
                    for (int t : by_clock[c]) count(*T, t, s, prev, slot, tab + offset[t]);
                    for (int i = 0; i < n_slots; i++) std::memcpy(&prev[(size_t)i * W], s.at(slot_net[i]), W * sizeof(u64));
                    s.clock_edge();
                }
            }
        };
        std::vector<std::thread> pool;
        for (int th = 1; th < threads; th++) pool.emplace_back(work, th);
        work(0);
        for (auto& th : pool) th.join();
        done = target;
        for (int t = 0; t < T->n_tests; t++) {
            int n = 1 << T->k[t];
            for (int v = 0; v < n; v++) {
                double a = 0, b = 0;
                for (int th = 0; th < threads; th++) { a += tables[th][offset[t] + 2 * v]; b += tables[th][offset[t] + 2 * v + 1]; }
                f[v] = a; r[v] = b;
            }
            double g; int df; double ml;
            g_test(f.data(), r.data(), n, g, df, ml);
            T->mlog10p[(size_t)cp * T->n_tests + t] = ml;
            if (cp == T->n_checkpoints - 1) { T->g[t] = g; T->df[t] = df; }
        }
        if (T->progress) {
            double worst = 0;
            for (int t = 0; t < T->n_tests; t++) worst = std::max(worst, T->mlog10p[(size_t)cp * T->n_tests + t]);
            T->progress(done, worst);
        }
    }
    if (T->tables)
        for (int64_t i = 0; i < offset[T->n_tests]; i++) {
            uint64_t sum = 0;
            for (int th = 0; th < threads; th++) sum += tables[th][i];
            T->tables[i] = (uint32_t)sum;
        }
    return 0;
}

}  // extern "C"
