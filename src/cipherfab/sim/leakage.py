"""Leakage assessment in simulation: the fixed-vs-random Welch t-test (TVLA) on power traces
estimated from the simulated core.

The models: ``hd``, each clock's sample is the Hamming distance of every register of the
core between the clock edges before and after it, the bits its flip-flops switch (here, on
the Verilated core); ``toggle``, the same over every cell output of the synthesized ECP5
netlist (:mod:`.toggle`, on the robust model's C++ engine).  Gaussian noise of ``noise``
sigma is added if asked.  Both are zero-delay: they do not model glitches (a LUT output's
transient values inside a clock), routing, coupling or placement (what a board measures; see
docs/guide/leakage.md).  The registers are found in the Verilog (every ``always @(posedge
clk)`` assignment) and made readable by a Verilator configuration (``public_flat_rd``);
traces are made and folded into per-clock central moments in C++ (``leakage_harness.cpp``),
one process per ``jobs``, no trace files.

The test: two groups of traces under one key, the fixed plaintext and random plaintexts (or a
second fixed one), interleaved at random.  The window ends before the clock edge that writes
the result into the output register: the ciphertext is public, and a fixed plaintext's
ciphertext is always told apart from random ones.  Each piece of traces starts the core's
generators from a state of its own: a core with a seed port takes a seed drawn from the piece's
random stream after reset, as a device reseeds, then the key; a core without one first takes a
key drawn from that stream (see leakage_harness.cpp).  Order 1 compares the groups' means at each clock, order 2 the means
of the squared centred samples (univariate second order); ``|t| > 4.5`` at any clock fails.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CipherfabError
from ..userfiles import atomic
from .fold import fold
from .verilated import CXX_FLAGS, build_library, cache_dir_default

HARNESS = Path(__file__).with_name("leakage_harness.cpp")
THRESHOLD = 4.5
MODELS = ("hd", "toggle")
_MODULE = re.compile(r"^module (\\\S+|\w+)")
_ASSIGN = re.compile(r"^\s*(\\\S+|\w+)\s*<=")


def registers(verilog: str) -> list[tuple[str, str]]:
    """``(module, register)`` for every register assigned on a rising clock edge."""
    out, module, edge = [], None, False
    for line in verilog.splitlines():
        if m := _MODULE.match(line):
            module = m.group(1).lstrip("\\")
        elif line.strip().startswith("always @(posedge"):
            edge = True
            continue
        elif edge and (m := _ASSIGN.match(line)):
            out.append((module, m.group(1).lstrip("\\")))
        edge = False
    return out


def config(regs) -> str:
    """The Verilator configuration that makes those registers readable from the harness."""
    lines = ["`verilator_config"]
    lines += [f'public_flat_rd -module "{mod}" -var "{name}"' for mod, name in sorted(set(regs))]
    return "\n".join(lines) + "\n"


class _Leak(ctypes.Structure):
    _fields_ = [("key", ctypes.c_void_p), ("fixed", ctypes.c_void_p), ("second", ctypes.c_void_p),
                ("traces", ctypes.c_int64),
                ("window", ctypes.c_int64), ("checkpoints", ctypes.c_void_p),
                ("n_checkpoints", ctypes.c_int64), ("seed", ctypes.c_uint64), ("noise", ctypes.c_double),
                ("moments", ctypes.c_void_p), ("registers", ctypes.c_int64),
                ("register_bits", ctypes.c_int64), ("cycles", ctypes.c_int64),
                ("failed", ctypes.c_int32), ("error", ctypes.c_char * 512)]


def check_core(top: str, info) -> None:
    """Refuse a core the harness cannot trace (from its declaration alone)."""
    if info.key_interface != "stream" or info.clocks:
        raise CipherfabError(f"{top}: leakage runs cores with a key stream and one clock")
    if len(info.directions) != 1 or info.directions[0] != "encrypt":
        raise CipherfabError(f"{top}: leakage runs encrypt-only cores (the trace is an encryption)")


class LeakageModel:
    """A core (Verilog text, top, declaration) compiled for the ``hd`` model's traces."""

    def __init__(self, verilog: str, top: str, info, cache_dir=None):
        check_core(top, info)
        self.top, self.info = top, info
        text, _ = fold(verilog)
        self.registers = registers(text)
        if not self.registers:
            raise CipherfabError(f"{top}: no registers found in its Verilog")
        cflags = [*CXX_FLAGS, f"-DKEY_BITS={info.key_bits}", f"-DBLOCK_BITS={info.block_bits}",
                  *([f"-DSEED_BITS={info.seed_bits}"] if info.seed_bits else [])]
        vlt = config(self.registers)
        digest = hashlib.sha256("\0".join([text, top, vlt, HARNESS.read_text(), *cflags]).encode()).hexdigest()[:32]
        cache = Path(cache_dir) if cache_dir else cache_dir_default()
        self.library = cache / f"leak-{digest}.so"
        self.identity = self.library.name          # what a run's saved pieces are named after
        if not self.library.exists():
            cache.mkdir(parents=True, exist_ok=True)
            fd, conf = tempfile.mkstemp(dir=cache, prefix=f"leak-{digest}-", suffix=".vlt")
            with os.fdopen(fd, "w") as f:     # its own file: a run compiling the same core at once has another
                f.write(vlt)
            print(f"note: compiling {top} for leakage traces with Verilator (first use)", file=sys.stderr,
                  flush=True)
            try:
                build_library(text, top, HARNESS, cflags, self.library, extra_args=[conf])
            finally:
                os.unlink(conf)

    def moments(self, key: bytes, fixed: bytes, traces: int, window: int, checkpoints, seed: int,
                noise: float, second: bytes | None = None) -> tuple[np.ndarray, dict]:
        """``(n_checkpoints, 2, window, 5)`` moments (n, mean, M2, M3, M4) and run facts;
        group 1 is random blocks, or ``second`` (fixed-vs-fixed)."""
        lib = ctypes.CDLL(str(self.library))
        lib.cf_leak.argtypes = [ctypes.POINTER(_Leak)]
        cps = np.asarray(checkpoints, dtype=np.int64)
        out = np.zeros((len(cps), 2, window, 5))
        k, f, g = bytes(key), bytes(fixed), None if second is None else bytes(second)
        ptr = lambda b: None if b is None else ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p)
        r = _Leak(ptr(k), ptr(f), ptr(g), traces, window, cps.ctypes.data, len(cps), seed, noise,
                  out.ctypes.data)
        if lib.cf_leak(ctypes.byref(r)):
            raise CipherfabError(f"{self.top}: leakage run failed: {r.error.decode(errors='replace')}")
        return out, {"registers": r.registers, "register_bits": r.register_bits, "cycles": r.cycles}


def merge(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two sets of central moments (..., 5) of disjoint traces as one (Pebay 2008)."""
    na, ma, m2a, m3a, m4a = (a[..., i] for i in range(5))
    nb, mb, m2b, m3b, m4b = (b[..., i] for i in range(5))
    n = na + nb
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(n > 0, mb - ma, 0.0)
        nn = np.where(n > 0, n, 1.0)
        mean = ma + d * nb / nn
        m2 = m2a + m2b + d ** 2 * na * nb / nn
        m3 = m3a + m3b + d ** 3 * na * nb * (na - nb) / nn ** 2 + 3 * d * (na * m2b - nb * m2a) / nn
        m4 = (m4a + m4b + d ** 4 * na * nb * (na ** 2 - na * nb + nb ** 2) / nn ** 3
              + 6 * d ** 2 * (na ** 2 * m2b + nb ** 2 * m2a) / nn ** 2 + 4 * d * (na * m3b - nb * m3a) / nn)
    return np.stack([n, mean, m2, m3, m4], axis=-1)


def t_values(m: np.ndarray, order: int) -> np.ndarray:
    """Welch's t per clock from the two groups' moments ``(2, window, 5)``; order 1 on the
    samples, order 2 on the squared centred samples.  No variance in either group: 0 if the
    groups agree, infinite if they differ."""
    n, mean, m2, m4 = m[..., 0], m[..., 1], m[..., 2], m[..., 4]
    with np.errstate(invalid="ignore", divide="ignore"):
        if order == 1:
            mu, var = mean, m2 / n
        else:
            mu, var = m2 / n, m4 / n - (m2 / n) ** 2
        diff, se = mu[0] - mu[1], np.sqrt(np.maximum(var[0], 0) / n[0] + np.maximum(var[1], 0) / n[1])
        t = np.where(se > 0, diff / np.where(se > 0, se, 1), np.where(np.abs(diff) > 1e-9, np.inf, 0.0))
    return np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf)


@dataclass
class Assessment:
    """What a run found, per order: max |t| and its clock, the first checkpoint crossing 4.5."""

    top: str
    traces: int
    window: int
    checkpoints: list[int]
    t: dict[int, list[float]] = field(default_factory=dict)        # order -> t per clock
    max_t: dict[int, list[float]] = field(default_factory=dict)    # order -> max |t| per checkpoint
    facts: dict = field(default_factory=dict)

    def first_crossing(self, order: int) -> int | None:
        return next((c for c, v in zip(self.checkpoints, self.max_t[order]) if v > THRESHOLD), None)

    def worst_clock(self, order: int) -> int:
        return int(np.argmax(np.abs(self.t[order])))


def checkpoints(traces: int) -> list[int]:
    """1, 2, 5 x 10^k trace counts up to ``traces``, and ``traces``."""
    out, k = [], 100
    while k < traces:
        out += [c for c in (k, 2 * k, 5 * k) if c < traces]
        k *= 10
    return out + [traces]


#: traces in one piece of a run: the unit that runs in a process and is saved, so a long run
#: interrupted (a session's end) goes on from its saved pieces
PIECE = 10_000


def pieces(traces: int, cps: list[int]) -> list[tuple[int, list[int]]]:
    """``traces`` cut into pieces of at most :data:`PIECE`: each piece's trace count and its
    share of every checkpoint, as if the traces were dealt out to the pieces in turn (so the
    shares of a checkpoint add up to it).  Seeded by their index, the pieces do not depend on
    the number of processes."""
    n = max(1, math.ceil(traces / PIECE))
    share = lambda c, i: c // n + (i < c % n)
    return [(share(traces, i), [share(c, i) for c in cps]) for i in range(n)]


def assess(model: LeakageModel, key: bytes, fixed: bytes, traces: int, window: int, seed: int = 1,
           noise: float = 0.0, jobs: int = 1, orders=(1, 2), second: bytes | None = None,
           save: Path | None = None, progress=None) -> Assessment:
    """The t-test over ``traces`` traces in pieces of :data:`PIECE`, ``jobs`` processes at a
    time (their moments merged in piece order); ``second``: fixed-vs-fixed against that block.
    ``save``: a folder where each finished piece's moments are kept; a piece found there is not
    run again (the folder's name must cover everything the run depends on: :func:`run_key`).
    ``progress(done, total, resumed)`` is called as pieces finish."""
    cps = checkpoints(traces)
    work = pieces(traces, cps)
    args = {i: (model, key, fixed, s, window, p, seed * 1000 + i, noise, second)
            for i, (s, p) in enumerate(work)}
    results = {}
    if save is not None:
        for i in args:
            f = save / f"piece-{i}.npz"
            if f.is_file():
                try:
                    with np.load(f) as z:
                        results[i] = (z["moments"], {k: int(z[k]) for k in ("registers", "register_bits", "cycles")})
                except (OSError, ValueError, KeyError):
                    pass                                 # a piece cut short while written: run it again
        save.mkdir(parents=True, exist_ok=True)
    resumed = len(results)

    def keep(i, result):
        results[i] = result
        if save is not None:
            _save_piece(save, i, result)
        if progress:
            progress(len(results), len(work), resumed)

    todo = [i for i in args if i not in results]
    if jobs == 1 or len(todo) <= 1:
        for i in todo:
            keep(i, _one(*args[i]))
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            futures = {pool.submit(_one, *args[i]): i for i in todo}
            for f in as_completed(futures):
                keep(futures[f], f.result())
    total = results[0][0]
    for i in range(1, len(work)):
        total = merge(total, results[i][0])
    a = Assessment(model.top, traces, window, cps,
                   facts={**results[0][1], "cycles": sum(r[1]["cycles"] for r in results.values()),
                          "jobs": min(jobs, len(work)), "pieces": len(work), "resumed": resumed})
    for order in orders:
        a.t[order] = [float(x) for x in t_values(total[-1], order)]
        a.max_t[order] = [float(np.max(np.abs(t_values(total[i], order)))) for i in range(len(cps))]
    return a


def _save_piece(save: Path, i: int, result) -> None:
    """Keep piece ``i`` in ``save`` as ``piece-<i>.npz``, written under a name of its own and
    renamed into place: an identical run at once (which may also remove the folder when it
    ends) neither reads a piece half written nor takes this run's file away.  A piece that
    cannot be saved is only not resumable: the run goes on."""
    try:
        save.mkdir(parents=True, exist_ok=True)
        with atomic(save / f"piece-{i}.npz", prefix=f".piece-{i}-", suffix=".npz") as tmp, \
                open(tmp, "wb") as f:
            np.savez(f, moments=result[0], **result[1])
    except OSError:
        pass


def run_key(model: LeakageModel, *parts) -> str:
    """A name for a run's saved pieces: the compiled model, the piece size and every argument
    that shapes the traces (key, blocks, trace count, window, seed, noise)."""
    text = "\0".join([model.identity, f"piece {PIECE}",
                       *(p.hex() if isinstance(p, bytes) else repr(p) for p in parts)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _one(model, key, fixed, traces, window, cps, seed, noise, second):
    """One piece's moments at each of its checkpoints (a share of none: no traces, zeros)."""
    counts = sorted({c for c in cps if c > 0})
    m, facts = model.moments(key, fixed, traces, window, counts, seed, noise, second)
    none = np.zeros(m.shape[1:])
    return np.stack([m[counts.index(c)] if c else none for c in cps]), facts


def describe_t(value: float) -> str:
    return "inf (no variance; the groups always differ)" if math.isinf(value) else f"{value:.2f}"
