"""The robust probing model on a whole core (``cipherfab leakage --model robust``).

Each simulation drives the core's synthesized netlist as a device would, from its
declaration: reset; a seed from the simulation's own entropy on the seed port (a core with
one); the key on the key port (or in each block, key-agile cores); then one block, the
plaintext.  The window is ``window`` clocks from the block's handshake (default: the
latency - 1, up to the clock that writes the result: the ciphertext is public, and under a
fixed key it is always told apart from random keys' ciphertexts).

The secret is the **key**: fixed in the fixed group, uniform in the random one; the
plaintext is fixed and the same in both groups (it is public: a probe that sees it is not
a leak, and a plaintext that differs between the groups would be found by every probe on
the input port).  Every input not named is 0 (``block_out_ready`` is 1).

A probe is tested at a clock only if its extended set holds a signal the key can change
in that clock (taint tracking in one pilot batch of 4,096 simulations: a signal is
tainted when changing the key could change it, given the other inputs' values; the core's
timing does not depend on key or data, so the same signals are tainted in every
simulation); signals constant over the pilot are dropped from the observation (they carry
nothing).  Tests of more than :data:`~.robust_engine.MAX_BITS` bits are not run and are
reported as such: PROLEAD's pooling puts every value of so wide an observation in one
column at 10^6 simulations unless the fixed group concentrates on few values.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import CipherfabError
from .robust import THRESHOLD, Netlist
from .robust_engine import (BATCH, MAX_BITS, SRC_ENTROPY, SRC_SECRET, Compiled, Engine, Stimulus,
                            compile_netlist)

#: clocks a handshake may wait before the core is called stuck
MAX_WAIT = 100_000


def family_threshold(tests: int) -> float:
    """The -log10 p a test must pass for the core to fail: PROLEAD's 5 per probing set, plus
    log10 of the number of tests (Bonferroni): T tests at p < 10^-5 each would give T / 10^5
    false alarms in a leak-free design (2.5 among the masked core's 250,000); so corrected,
    a leak-free design fails with probability below 10^-5 at each checkpoint."""
    return THRESHOLD + math.log10(max(tests, 1))


def _bits(value: bytes, width: int) -> list[int]:
    """Port bits of a big-endian value (bit i of the port is bit i of the integer)."""
    v = int.from_bytes(value, "big")
    return [(v >> i) & 1 for i in range(width)]


@dataclass
class Plan:
    """When each transfer happens, and the stimulus up to the end of the window."""
    stimulus: Stimulus
    handshakes: dict = field(default_factory=dict)   # transfer -> clock
    start: int = 0                                   # the block handshake: window clock 0
    window: int = 1


def check(info) -> None:
    """Refuse a core the model cannot drive, before its netlist is made."""
    if info.key_interface == "none":
        raise CipherfabError(f"{info.cipher} {info.arch}: the robust model tests fixed-vs-random keys, and a "
                             "key-specific core has its key built in")
    if info.clocks:
        raise CipherfabError("the robust model simulates cores with one clock (this one declares "
                             f"{', '.join(info.clocks)} besides sync)")


def plan(net: Netlist, comp: Compiled, info, key: bytes, plaintext: bytes, window: int | None,
         seed: int = 1, secret: str = "key", second: bytes | None = None) -> Plan:
    """Find each handshake clock by pilot runs (the same in every simulation, or refused).
    ``secret``: what differs between the groups, the key (``key`` is its fixed value) or the
    block (``plaintext`` is); ``second``: the other group's fixed value (else uniform)."""
    check(info)
    if secret not in ("key", "block"):
        raise CipherfabError(f"the secret is the key or the block, not {secret!r}")
    width = info.key_bits if secret == "key" else info.block_bits
    hidden = [SRC_SECRET + j for j in range(width)]
    key_bits = hidden if secret == "key" else _bits(key, info.key_bits)
    block_bits = _bits(plaintext, info.block_bits) if secret == "key" else hidden
    window = window or max(1, info.latency - 1)
    horizon = 2 + info.seed_setup_cycles + info.key_setup_cycles + 64
    need = {"rst", "block_in", "block_in_valid", "block_in_ready", "block_out_ready"}
    if info.key_interface == "stream":
        need |= {"key", "key_valid", "key_ready"}
    if info.seed_bits:
        need |= {"seed", "seed_valid", "seed_ready"}
    ports = set(net.inputs) | set(net.outputs)
    missing = sorted(need - ports)
    if missing:
        raise CipherfabError(f"the netlist of {net.top} has no port {missing[0]} (a cipherfab core's ports are expected)")
    st = Stimulus.empty(net, horizon + window, _bits(key if secret == "key" else plaintext, width), info.seed_bits)
    if second is not None:
        st.secret_second = np.asarray(_bits(second, width), dtype=np.uint8)
    st.source[0, st.column(net, "rst")] = 1
    st.source[:, st.column(net, "block_out_ready")] = 1
    steps = []
    if info.seed_bits:
        steps.append(("seed", [SRC_ENTROPY + j for j in range(info.seed_bits)]))
    if info.key_interface == "stream":
        steps.append(("key", key_bits))
    steps.append(("block_in", block_bits))
    out = Plan(st)
    at = 1
    for port, payload in steps:
        valid, data = st.column(net, f"{port}_valid"), st.column(net, port)
        if port == "block_in" and info.key_interface == "per_block":
            if "block_in_key" not in net.inputs:
                raise CipherfabError(f"the netlist of {net.top} has no port block_in_key")
            st.source[at:, st.column(net, "block_in_key")] = key_bits
        st.source[at:, valid] = 1
        st.source[at:, data[:len(payload)]] = payload
        clock = _handshake(net, comp, st, f"{port}_ready", at, seed)
        st.source[clock + 1:, valid] = 0
        st.source[clock + 1:, data] = 0
        if port == "block_in" and info.key_interface == "per_block":
            st.source[clock + 1:, st.column(net, "block_in_key")] = 0
        out.handshakes[port] = clock
        at = clock + 1
        if port != "block_in":
            st.extend(at + window + info.key_setup_cycles + 64 - st.source.shape[0])
    out.start, out.window = out.handshakes["block_in"], window
    st.source, st.xor = st.source[:out.start + window], st.xor[:out.start + window]
    return out


def _handshake(net, comp, st, ready: str, at: int, seed: int) -> int:
    """The first clock from ``at`` where ``ready`` is 1 in every simulation of a pilot."""
    bit = comp.net(net.outputs[ready][0])
    while True:
        flags = Engine(comp, st, seed).pilot([bit], words=1)[:, 0]
        if (flags[at:] & 4).any():
            raise CipherfabError(f"{ready} depends on the key: the core's timing must not")
        mixed = np.nonzero((flags[at:] & 3) == 3)[0]
        ones = np.nonzero((flags[at:] & 3) == 1)[0]
        if mixed.size and (not ones.size or mixed[0] < ones[0]):
            raise CipherfabError(f"{ready} differs between simulations at clock {at + mixed[0]}: the core's timing "
                                 "must not depend on data")
        if ones.size:
            return at + int(ones[0])
        if st.source.shape[0] > MAX_WAIT:
            raise CipherfabError(f"{ready} stayed low for {MAX_WAIT:,} clocks")
        st.extend(st.source.shape[0])


@dataclass
class Result:
    simulations: int
    checkpoints: list
    max_mlog10p: list                  # the worst test's -log10 p at each checkpoint
    tests: int
    probes_tested: int
    untestable: list                   # (window clock, probe, bits, shares tagged among them) over MAX_BITS
    leaks: list                        # dicts, worst first
    handshakes: dict
    window: int
    seconds: float
    facts: dict = field(default_factory=dict)

    @property
    def threshold(self) -> float:
        return family_threshold(self.tests)

    def first_failing(self, threshold: float | None = None):
        threshold = self.threshold if threshold is None else threshold
        return next((n for n, m in zip(self.checkpoints, self.max_mlog10p) if m > threshold), None)


def _memory_limit() -> int:
    """Bytes the count tables may take: half the memory available now (8 GiB if unknown)."""
    try:
        with open("/proc/meminfo") as f:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f if ":" in line}
        return info["MemAvailable"] // 2
    except (OSError, KeyError, ValueError, IndexError):
        return 8 << 30


def checkpoints(n: int) -> list[int]:
    """Simulations at which the tests are read: 1, 2, 5 x 10^k batches' worth, up to ``n``."""
    total = max(1, -(-n // BATCH)) * BATCH
    out, scale = [], 1
    while True:
        for m in (1, 2, 5):
            c = m * scale * BATCH
            if c < total:
                out.append(c)
        if scale * BATCH >= total:
            break
        scale *= 10
    return sorted(set(out + [total]))


def assess(net: Netlist, info, key: bytes, plaintext: bytes, simulations: int, window: int | None = None,
           transitions: bool = False, seed: int = 1, threads: int = 1, report: int = 20, progress=None) -> Result:
    t0 = time.perf_counter()
    comp = compile_netlist(net)
    p = plan(net, comp, info, key, plaintext, window, seed)
    engine = Engine(comp, p.stimulus, seed)
    stable = [comp.net(b) for b in net.stable]
    flags = engine.pilot(stable)
    varying, tainted = (flags & 3) == 3, (flags & 4) != 0
    tests, owners, untestable, index = [], [], [], {}
    table_bytes, memory_limit = 0, _memory_limit()
    active = set()
    for t in range(p.start, p.start + p.window):
        # with transitions, the clock before is the window's too: the first clock's is the one
        # that took the key (unshared on its port: outside the window, as for hd and toggle)
        before = transitions and t > p.start
        hot = set(np.nonzero(tainted[t])[0])
        if before:
            hot |= set(np.nonzero(tainted[t - 1])[0])
        for pi, probe in enumerate(net.probes):
            if hot.isdisjoint(probe.extended):
                continue
            cur = tuple(s for s in probe.extended if varying[t, s])
            prev = tuple(s for s in probe.extended if varying[t - 1, s]) if before else ()
            if not cur and not prev:
                continue
            active.add(pi)
            if len(cur) + len(prev) > MAX_BITS:
                shares = {net.share.get(net.stable[s]) for s in (*cur, *prev)} - {None}
                untestable.append((t - p.start, pi, len(cur) + len(prev), "".join(sorted(shares))))
                continue
            k = (t, cur, prev)
            if k not in index:
                table_bytes += (2 << (len(cur) + len(prev))) * 4 * threads
                if table_bytes > memory_limit:
                    raise CipherfabError(
                        f"the robust model's count tables would pass {memory_limit / 2 ** 30:.1f} GiB (over "
                        f"{len(tests):,} tests by window clock {t - p.start}): the key reaches too much of the "
                        "design; a shorter --window, or fewer threads, needs less")
                index[k] = len(tests)
                tests.append((t, [(stable[s], False) for s in cur] + [(stable[s], True) for s in prev]))
                owners.append([])
            owners[index[k]].append(pi)
    if progress:
        progress(f"{len(tests):,} tests of {len(active):,} probes over {p.window} clocks "
                 f"({len(untestable):,} probe-clocks over {MAX_BITS} bits not tested); simulating")
    cps = checkpoints(simulations)
    def tick(done: int, worst: float) -> None:
        if progress:
            progress(f"{done:,} of {cps[-1]:,} simulations, {time.perf_counter() - t0:.0f} s, "
                     f"max -log10(p) {worst:.2f}")
    out = engine.run(tests, cps, threads=threads, progress=tick) if tests else \
        {"mlog10p": np.zeros((len(cps), 0)), "g": np.zeros(0), "df": np.zeros(0, int)}
    ml = out["mlog10p"]
    keys = list(index)                 # test -> (clock, observed now, observed one clock before)
    leaks = []
    final = ml[-1] if len(tests) else np.zeros(0)
    limit = family_threshold(len(tests))
    for ti in np.argsort(-final)[:report]:
        if final[ti] <= limit:
            break
        probe = net.probes[owners[ti][0]]
        leaks.append({**_describe(net, keys[ti], probe, final[ti], p.start), "g": round(float(out["g"][ti]), 1),
                      "df": int(out["df"][ti]), "first_failing": next(c for c, row in zip(cps, ml[:, ti]) if row > limit),
                      "pin": probe.pin, "net": probe.net, "probes": len(owners[ti])})
    worst = None
    if len(tests):                     # the worst test, leaking or not
        w = int(np.argmax(final))
        worst = _describe(net, keys[w], net.probes[owners[w][0]], final[w], p.start)
    return Result(cps[-1], cps, [float(r.max()) if r.size else 0.0 for r in ml], len(tests), len(active),
                  untestable, leaks, p.handshakes, p.window, time.perf_counter() - t0,
                  {"probes": len(net.probes), "stable": len(net.stable), "ops": len(comp.op_out),
                   "flip_flops": len(comp.ff_q), "threads": threads, "transitions": transitions,
                   "tests_over_5": int((final > THRESHOLD).sum()),
                   "worst": worst})


def _describe(net, key, probe, mlog10p, start) -> dict:
    """A test as the report names it: its window clock, statistic, first probe and what it observes."""
    t, cur, prev = key
    return {"clock": t - start, "mlog10p": round(float(mlog10p), 2), "cell": probe.cell.lstrip("\\"),
            "part": probe.part, "observes": [net.names[s] for s in cur] + [f"{net.names[s]}@-1" for s in prev]}
