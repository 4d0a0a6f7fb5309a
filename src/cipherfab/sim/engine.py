"""Any generated core, Verilator-compiled: a vector-runner engine, random runs, timing checks.

Everything here reads the core's declared :class:`~cipherfab.hw.info.CoreInfo`
(block and key widths, key interface, directions, cycle counts) and the
cipher's reference model from the registry; nothing names a cipher.
"""

from __future__ import annotations

import copy
import math
import os
import random
import time
from dataclasses import dataclass

import numpy as np

from ..errors import CipherfabError
from .core_cache import core_verilog
from ..gctune import fewer_collections
from ..hw.info import CoreInfo
from ..registry import CoreParams, get_cipher
from ..vectors.reference import cipher_names
from ..hw.export import LINT_WAIVERS
from .verilated import OP_DEC, OP_ENC, OP_FEEDBACK, OP_KEY, PHASES, VerilatedCore


@dataclass(frozen=True)
class ExternalCore:
    """A core written elsewhere that follows the stream convention, with its declaration
    (a :class:`~cipherfab.hw.info.CoreInfo`, e.g. read from a JSON sidecar)."""

    verilog: str
    top: str
    info: CoreInfo


class HardwareEngine:
    """Runs jobs ``(key, decrypt, blocks)`` through the simulated core (one harness call per batch).

    ``core`` is a generated point (:class:`CoreParams`) or an :class:`ExternalCore`.
    """

    def __init__(self, core: CoreParams | ExternalCore, *, seed: int = 0, in_valid_prob: float = 1.0,
                 out_ready_prob: float = 1.0, pair_prob: float = 0.5, key_period: float = 1.0):
        waivers = None
        t0 = time.perf_counter()
        if isinstance(core, ExternalCore):
            text, self._top, self.info = core.verilog, core.top, core.info
        else:                            # Verilator places the lint waivers as it builds
            with fewer_collections():
                text, self.info, _ = core_verilog(core, waivers=False)
            self._top, waivers = core.top, LINT_WAIVERS
        #: seconds: elaborate (generate the Verilog), then the phases of the Verilator build
        self.phases = {"elaborate": time.perf_counter() - t0}
        cipher = get_cipher(self.info.cipher)
        if self.info.block_bits != cipher.block_bits:
            raise CipherfabError(f"{self._top}: {cipher.name} blocks are {cipher.block_bits} bits, "
                                 f"the core declares {self.info.block_bits}")
        self.key_bits = self.info.key_bits
        self.block_bytes = self.info.block_bits // 8
        self.directions = frozenset(self.info.directions)
        self.cipher, self.cipher_names = cipher.name, cipher_names(cipher)
        self.reference = cipher.reference_model(self.info.key_bits)
        if key_period != 1.0 and "key" not in self.info.clocks:
            raise CipherfabError(f"{self._top} has no key clock: --key-clock-period does not apply")
        before = dict(PHASES)
        self.core = VerilatedCore.from_info(text, self._top, self.info, lint_waivers=waivers)
        self.phases.update({k: v - before.get(k, 0.0) for k, v in PHASES.items()
                            if v != before.get(k, 0.0)})
        #: the Verilog simulated (for a generated point: what ``generate`` writes)
        self.verilog = self.core.verilog
        #: the key clock's period in clk periods, for a core with a key clock
        self.clock_options = {"key_period": key_period} if "key" in self.info.clocks else {}
        self.options = {"seed": seed, "in_valid_prob": in_valid_prob, "out_ready_prob": out_ready_prob,
                        "pair_prob": pair_prob, **self.clock_options}
        self.cycles = 0

    @property
    def top(self) -> str:
        return self._top

    def at_key_period(self, key_period: float) -> "HardwareEngine":
        """The same compiled core with its key clock at ``key_period`` clk periods."""
        if "key" not in self.info.clocks:
            raise CipherfabError(f"{self._top} has no key clock: --key-clock-period does not apply")
        other = copy.copy(self)
        other.clock_options = {"key_period": key_period}
        other.options = {**self.options, **other.clock_options}
        return other

    def block_kind(self, decrypt: bool) -> int:
        if decrypt not in (d == "decrypt" for d in self.info.directions):
            raise CipherfabError(f"{self.top} cannot {'decrypt' if decrypt else 'encrypt'}")
        return OP_DEC if decrypt and self.info.direction_input else OP_ENC

    def key_op(self, key: bytes) -> list[int]:
        """The ops that set ``key``: one key op, or none for a key-specific core (checked)."""
        if self.info.key_interface != "none":
            return [OP_KEY]
        if key.hex() != self.info.fixed_key:
            raise CipherfabError(f"{self.top} is built for key {self.info.fixed_key}; "
                                 f"cannot run key {key.hex()}")
        return []

    def run(self, jobs):
        kinds, keys, blocks = [], [], []
        for key, decrypt, job_blocks in jobs:
            k = self.key_op(key)
            kinds += k
            keys += [key] * len(k)
            kinds += [self.block_kind(decrypt)] * len(job_blocks)
            blocks += job_blocks
        result = self.core.run_packed(np.array(kinds, np.uint8), np.zeros(len(kinds), np.int64),
                                      b"".join(keys), b"".join(blocks), **self.options)
        if not result.ok:
            raise CipherfabError(f"{self.top}: simulation stopped: {result.error or 'hang'}",
                                 exit_code=1)      # the core hung or broke the protocol: a failed check
        self.cycles += result.cycles
        bb, out, outputs, at = self.block_bytes, result.out, [], 0
        for _, _, job_blocks in jobs:
            outputs.append([out[bb * i:bb * i + bb] for i in range(at, at + len(job_blocks))])
            at += len(job_blocks)
        return outputs

    def run_chains(self, chains):
        """Feedback chains (:class:`cipherfab.vectors.checks.Chain`) in the compiled harness:
        ``[(last three outputs, newest first; final chain value)]``, one per chain.

        Chains are independent: a long batch (at least :data:`CHAIN_SPLIT_BLOCKS` blocks per
        part) is split into one part per available CPU, each part a harness call on a model
        of its own in its own thread (the call releases the GIL)."""
        from ..vectors.checks import RULES
        out = []
        for inner in sorted({c.inner for c in chains}):        # one harness call per length
            group = [c for c in chains if c.inner == inner]
            for c in group:
                self.key_op(c.key)                                 # a key-specific core: its key
                self.block_kind(c.decrypt)                         # the core has the direction
            bb = self.block_bytes

            def run(part):
                return self.core.run_chains(
                    b"".join(c.key for c in part) if self.info.key_interface != "none" else b"",
                    b"".join(c.iv or bytes(bb) for c in part), b"".join(c.text for c in part),
                    [RULES[c.rule] for c in part], [c.decrypt and self.info.direction_input for c in part],
                    inner, seed=self.options["seed"], **self.clock_options)

            n = max(1, min(len(group), _cpus(), len(group) * inner // CHAIN_SPLIT_BLOCKS))
            parts = [group[i * len(group) // n:(i + 1) * len(group) // n] for i in range(n)]
            if n == 1:
                results = [run(group)]
            else:
                from concurrent.futures import ThreadPoolExecutor
                with ThreadPoolExecutor(n) as pool:
                    results = list(pool.map(run, parts))
            for part, (tails, ends, cycles) in zip(parts, results):
                self.cycles += cycles
                out += list(zip(part, zip(tails, ends)))
        done = {id(c): r for c, r in out}
        return [done[id(c)] for c in chains]

    def expected(self, key: bytes, data: bytes, decrypt: bool) -> bytes:
        return (self.reference.decrypt if decrypt else self.reference.encrypt)(key, data)


#: blocks per thread from which a batch of feedback chains is split across CPUs
CHAIN_SPLIT_BLOCKS = 200_000


def _cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                     # not on Linux
        return os.cpu_count() or 1


@dataclass
class RandomRun:
    blocks: int
    keys: int
    mismatches: int
    first_mismatch: str | None
    cycles: int
    seconds: float
    latencies: set
    key_to_block: set

    @property
    def blocks_per_second(self) -> float:
        return self.blocks / self.seconds if self.seconds else float("inf")


def _random_key(engine: HardwareEngine, rng: random.Random) -> bytes:
    if engine.info.key_interface == "none":
        return bytes.fromhex(engine.info.fixed_key)
    return rng.randbytes(engine.info.key_bits // 8)


#: blocks per harness call of a random run, at first and at most: bounds memory (about 100 bytes
#: per block) and lets Ctrl-C and progress act between calls; in between, a call is sized to
#: about a second of simulation at the rate measured so far
RANDOM_CHUNK = (4096, 1 << 18)
#: the longest random run accepted: about two months at 200k blocks/s
RANDOM_LIMIT = 10 ** 12


def random_run(engine: HardwareEngine, n_blocks: int, *, seed: int = 1, mean_blocks_per_key: int = 1000,
               in_valid_prob: float = 1.0, out_ready_prob: float = 1.0, pair_prob: float = 0.5,
               progress=None) -> RandomRun:
    """``n_blocks`` random blocks under random keys (changed between blocks at random points),
    random directions where the core has both, checked against the cipher's reference model.

    The run is simulated in chunks (:data:`RANDOM_CHUNK`), each starting with a new key;
    ``progress(run_so_far)`` is called after each chunk."""
    if not 1 <= n_blocks <= RANDOM_LIMIT:
        raise CipherfabError(f"--random {n_blocks}: give 1 to {RANDOM_LIMIT:.0e} blocks")
    rng = random.Random(seed)
    total = RandomRun(0, 0, 0, None, 0, 0.0, set(), set())
    chunk = RANDOM_CHUNK[0]
    while total.blocks < n_blocks:
        n = min(chunk, n_blocks - total.blocks)
        r = _random_chunk(engine, n, rng, seed + total.blocks, mean_blocks_per_key,
                          in_valid_prob, out_ready_prob, pair_prob, total.blocks)
        total = RandomRun(total.blocks + r.blocks, total.keys + r.keys, total.mismatches + r.mismatches,
                          total.first_mismatch or r.first_mismatch, total.cycles + r.cycles,
                          total.seconds + r.seconds, total.latencies | r.latencies,
                          total.key_to_block | r.key_to_block)
        chunk = min(max(int(r.blocks_per_second), RANDOM_CHUNK[0]), RANDOM_CHUNK[1])
        if progress:
            progress(total)
    return total


def _random_chunk(engine, n_blocks, rng, seed, mean_blocks_per_key, in_valid_prob, out_ready_prob,
                  pair_prob, first_block) -> RandomRun:
    """One harness call of :func:`random_run`; block numbers in messages count from ``first_block``."""
    bb = engine.block_bytes
    data = rng.randbytes(bb * n_blocks)
    if engine.info.direction_input:
        dec = np.frombuffer(rng.randbytes(n_blocks), np.uint8) & 1
    else:
        dec = np.full(n_blocks, int(engine.info.directions == ("decrypt",)), np.uint8)
    cuts, at = [], 0                               # each segment starts with a key
    while at < n_blocks:
        cuts.append(at)
        at += max(1, int(rng.expovariate(1 / mean_blocks_per_key)))
    if engine.info.key_interface == "none":
        cuts = [0]
    keys = [_random_key(engine, rng) for _ in cuts]
    kinds, seg = [], dict(zip(cuts, range(len(cuts))))
    for i in range(n_blocks):
        if i in seg:
            kinds += engine.key_op(keys[seg[i]])
        kinds.append(engine.block_kind(bool(dec[i])))
    kind = np.array(kinds, np.uint8)
    key_bytes = b"".join(keys) if engine.info.key_interface != "none" else b""
    t0 = time.perf_counter()
    result = engine.core.run_packed(kind, np.zeros(len(kind), np.int64), key_bytes, data, seed=seed,
                                    in_valid_prob=in_valid_prob, out_ready_prob=out_ready_prob,
                                    pair_prob=pair_prob, **engine.clock_options)
    seconds = time.perf_counter() - t0
    if not result.ok:
        raise CipherfabError(f"{engine.top}: simulation stopped: {result.error or 'hang'}", exit_code=1)
    expected = bytearray()
    bounds = cuts + [n_blocks]
    for s, (a, b) in enumerate(zip(bounds, bounds[1:])):
        i = a
        while i < b:                               # runs of one direction, checked in bulk
            j = i
            while j < b and dec[j] == dec[i]:
                j += 1
            expected += engine.expected(keys[s], data[bb * i:bb * j], bool(dec[i]))
            i = j
    got = result.out
    mismatches, first = 0, None
    if got != bytes(expected):
        g = np.frombuffer(got.ljust(len(expected), b"\0"), np.uint8).reshape(-1, bb)
        e = np.frombuffer(bytes(expected), np.uint8).reshape(-1, bb)
        bad = np.nonzero(np.any(g != e, axis=1))[0]
        mismatches = len(bad)
        i = int(bad[0])
        s = int(np.searchsorted(cuts, i, side="right") - 1)
        first = (f"block {first_block + i}: key {keys[s].hex()} {'decrypt' if dec[i] else 'encrypt'} "
                 f"{data[bb * i:bb * i + bb].hex()} expected {e[i].tobytes().hex()} got {g[i].tobytes().hex()}")
    lat = result.latency
    return RandomRun(n_blocks, len(keys), mismatches, first, result.cycles, seconds,
                     set(int(x) for x in np.unique(lat[lat >= 0])),
                     set(int(x) for x in np.unique(result.key_to_block_cycles)))


def check_timing(engine: HardwareEngine, blocks: int = 24, seed: int = 3) -> list[str]:
    """Measure every declared cycle count; returns the differences found (empty: all exact).

    Back to back under one key (ECB), each block offered with the key or right after it:
    key setup, latency, cycles per block, blocks outstanding.  Feedback (CBC): each block
    offered in the cycle the previous output is taken: cycles per block in feedback use.
    Both directions where the core has both.  A core with a key clock is run with the
    key clock at the engine's key period, its key loaded twice (the first key after a
    reset may wait for the key domain to leave reset); at a period other than 1 its key
    setup is checked against the bound its declaration gives (:func:`key_setup_bounds`).
    A core with a seed port is seeded after the reset with its first key (or block) offered at
    once: the cycles from the seed's handshake to that key's are its seed setup.
    """
    info, rng, problems = engine.info, random.Random(seed), []
    key_period = engine.clock_options.get("key_period", 1.0)
    # enough blocks to fill a deep pipeline twice over
    blocks = max(blocks, 2 * math.ceil(info.latency / info.cycles_per_block) + 4)
    for decrypt in sorted({d == "decrypt" for d in info.directions}):
        key = _random_key(engine, rng)
        data = rng.randbytes(engine.block_bytes * blocks)
        key_ops = engine.key_op(key) * (2 if info.clocks else 1)
        for feedback in (False, True):
            kinds = key_ops + [engine.block_kind(decrypt) | (OP_FEEDBACK if feedback else 0)] * blocks
            r = engine.core.run_packed(np.array(kinds, np.uint8), np.zeros(len(kinds), np.int64),
                                       key * len(key_ops), data, seed=seed, pair_prob=1.0,
                                       **engine.clock_options)
            what = f"{'decrypt' if decrypt else 'encrypt'}{', feedback' if feedback else ''}"
            if not r.ok:
                problems.append(f"{what}: {r.error}")
                continue
            if r.out != engine.expected(key, data, decrypt):
                problems.append(f"{what}: wrong output")
            # an interleaved core takes its blocks_in_flight blocks in a burst: the period
            # over that many blocks is exact, the average cycles per block is the declared one
            every = 1 if feedback else max(1, info.blocks_in_flight)
            gaps = set(int(g) for g in r.accept_gaps(every))
            want = info.cycles_per_block_feedback if feedback else info.cycles_per_block
            if gaps != {want * every}:
                got = ", ".join(f"{g}/{every}" if every > 1 else str(g) for g in sorted(gaps))
                problems.append(f"{what}: cycles per block {got}, declared {want}")
            lat = set(int(x) for x in r.latency)
            if lat != {info.latency}:
                problems.append(f"{what}: latency {sorted(lat)}, declared {info.latency}")
            if info.key_interface != "none":
                setup = set(int(x) for x in r.key_to_block_cycles)
                lo, hi = key_setup_bounds(info, key_period)
                if not all(lo <= x <= hi for x in setup):
                    want = f"{info.key_setup_cycles}" if lo == hi else f"{lo:g}..{hi:g} at key period {key_period:g}"
                    problems.append(f"{what}: key setup {sorted(setup)}, declared {want}")
            if info.seed_bits:           # the seed after the reset, then the key (or block) at once
                seeded = set(int(x) for x in r.seed_setup_cycles if x >= 0)
                if seeded != {info.seed_setup_cycles}:
                    problems.append(f"{what}: seed setup {sorted(seeded)}, declared {info.seed_setup_cycles}")
            if not feedback and r.max_outstanding != declared_outstanding(info):
                problems.append(f"{what}: {r.max_outstanding} blocks outstanding at most, expected "
                                f"{declared_outstanding(info)} (the declared bursts over the latency)")
    return problems


def declared_outstanding(info: CoreInfo) -> int:
    """Blocks taken and not yet given back, at most, back to back: a core takes
    ``blocks_in_flight`` blocks ``burst_spacing`` clocks apart (one a clock unless it says)
    every ``blocks_in_flight x cycles_per_block`` clocks (one block every
    ``cycles_per_block`` when it has one in flight), each given back ``latency`` clocks
    after it was taken: the most taken in any ``latency`` clocks.  With one block in
    flight, ceil(latency / cycles per block)."""
    burst = max(1, info.blocks_in_flight)
    period = burst * info.cycles_per_block
    taken = [k * period + j * info.burst_spacing for k in range(info.latency // period + 3)
             for j in range(burst)]
    return max(sum(1 for a in taken if t - info.latency < a <= t) for t in taken)


def key_setup_bounds(info: CoreInfo, key_period: float = 1.0) -> tuple[float, float]:
    """The key setup, in clk cycles, a core's declaration allows with its key clock at
    ``key_period`` clk periods: exact at 1 (or without a key clock); otherwise the sync
    cycles plus the key cycles scaled, less up to one clk, plus up to one clk and one key
    clock for the phase of the two crossings."""
    if not info.key_clock_cycles or key_period == 1.0:
        return info.key_setup_cycles, info.key_setup_cycles
    mid = info.key_setup_cycles - info.key_clock_cycles + info.key_clock_cycles * key_period
    return mid - 1, mid + key_period + 1


def default_seed() -> int:
    return int.from_bytes(os.urandom(4), "big")
