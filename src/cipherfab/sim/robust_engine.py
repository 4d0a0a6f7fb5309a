"""The robust probing model in C++ (``robust_engine.cpp``): a :class:`~.robust.Netlist`
compiled to ops of at most four inputs, simulated bit-sliced (64 simulations a word) on
threads, each test's joint values counted per group and G-tested as PROLEAD pools them.

:func:`compile_netlist` turns the netlist into arrays; :class:`Stimulus` says what every
input bit is in every clock; :func:`pilot` runs one batch with taint tracking (which
stable signals vary, and which the secret can change, clock by clock); :func:`run` counts
and tests.  The library is compiled once with the C++ compiler Verilator uses and kept in
the Verilator model cache.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CipherfabError, MissingTool
from .robust import RAM, Netlist

SOURCE = Path(__file__).with_name("robust_engine.cpp")
#: simulations a batch: 64 words of 64
WORDS = 64
BATCH = 64 * WORDS
#: most bits a test observes (a dense table of 2 x 2^16 counts)
MAX_BITS = 16
SRC_SECRET, SRC_ENTROPY, SRC_FRESH = 2, 1 << 20, -1


class _Program(ctypes.Structure):
    _fields_ = [("n_nets", ctypes.c_int32), ("n_ops", ctypes.c_int32), ("op_in", ctypes.c_void_p),
                ("op_out", ctypes.c_void_p), ("op_table", ctypes.c_void_p), ("n_ffs", ctypes.c_int32),
                ("ff_q", ctypes.c_void_p), ("ff_d", ctypes.c_void_p), ("ff_ce", ctypes.c_void_p),
                ("ff_lsr", ctypes.c_void_p), ("ff_flags", ctypes.c_void_p), ("clocks", ctypes.c_int32),
                ("n_inputs", ctypes.c_int32), ("in_net", ctypes.c_void_p), ("stim", ctypes.c_void_p),
                ("n_secret", ctypes.c_int32), ("secret_fixed", ctypes.c_void_p), ("n_entropy", ctypes.c_int32),
                ("seed", ctypes.c_uint64), ("secret_second", ctypes.c_void_p)]


class _Tests(ctypes.Structure):
    _fields_ = [("n_tests", ctypes.c_int32), ("clock", ctypes.c_void_p), ("k", ctypes.c_void_p),
                ("first", ctypes.c_void_p), ("bit_net", ctypes.c_void_p), ("bit_prev", ctypes.c_void_p),
                ("n_checkpoints", ctypes.c_int32), ("checkpoints", ctypes.c_void_p), ("words", ctypes.c_int32),
                ("threads", ctypes.c_int32), ("mlog10p", ctypes.c_void_p), ("g", ctypes.c_void_p),
                ("df", ctypes.c_void_p), ("tables", ctypes.c_void_p), ("table_words", ctypes.c_int64),
                ("progress", ctypes.c_void_p), ("error", ctypes.c_char * 256)]

_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_double)


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


@dataclass
class Compiled:
    """The netlist as the engine takes it: dense net numbers (0 and 1 are the constants)."""
    n_nets: int
    op_in: np.ndarray
    op_out: np.ndarray
    op_table: np.ndarray
    ff_q: np.ndarray
    ff_d: np.ndarray
    ff_ce: np.ndarray
    ff_lsr: np.ndarray
    ff_flags: np.ndarray
    dense: dict = field(default_factory=dict)        # Yosys bit (or a RAM cell's bit) -> net

    def net(self, bit) -> int:
        if bit in ("0", "x", "z"):
            return 0
        if bit == "1":
            return 1
        return self.dense[bit]


def _table(fn, n: int) -> int:
    """The 16-entry table of ``fn`` (a function of ``n`` input bits; unused inputs are 0)."""
    return sum(1 << row for row in range(16) if (row >> n) == 0 and fn(*[(row >> j) & 1 for j in range(n)]))


#: a 2:1 mux as an op: inputs (when 0, when 1, select)
MUX2 = _table(lambda a, b, s: b if s else a, 3)


def _init(value) -> int:
    """A parameter's bits (Yosys writes binary strings; ``x`` bits, undefined, read 0)."""
    s = str(value).strip()
    if s and set(s) <= {"0", "1", "x", "z"}:
        return int(s.replace("x", "0").replace("z", "0"), 2)
    try:
        return int(s)
    except ValueError:
        raise CipherfabError(f"parameter value {s[:40]!r} is not a number") from None


def compile_netlist(net: Netlist) -> Compiled:
    """Every combinational cell as ops of <= 4 inputs (CCU2C and the RAM read mux through
    internal nets), every flip-flop and RAM cell as a flip-flop."""
    dense: dict = {}
    counter = [2]

    def n(bit) -> int:
        if bit in ("0", "x", "z"):
            return 0
        if bit == "1":
            return 1
        if bit not in dense:
            dense[bit] = counter[0]
            counter[0] += 1
        return dense[bit]

    def temp() -> int:
        counter[0] += 1
        return counter[0] - 1

    ops: list[tuple[list[int], int, int]] = []

    def op(ins, out, table) -> int:
        ops.append(([*ins, *[0] * (4 - len(ins))], out, table))
        return out

    for b in net.stable:
        n(b)
    ffs = []                                         # (q, d, ce, lsr, flags)
    for cname in net.order:
        cell = net.cells[cname]
        c, kind = cell["connections"], cell["type"]
        pin = lambda name, i=0: n(c[name][i]) if c.get(name) else 0   # noqa: E731 (unconnected: 0)
        if kind == "LUT4":
            op([pin(x) for x in "ABCD"], pin("Z"), _init(cell["parameters"]["INIT"]) & 0xFFFF)
        elif kind == "PFUMX":
            op([pin("BLUT"), pin("ALUT"), pin("C0")], pin("Z"), MUX2)
        elif kind == "L6MUX21":
            op([pin("D0"), pin("D1"), pin("SD")], pin("Z"), MUX2)
        elif kind == "CCU2C":
            p = cell["parameters"]
            carry = pin("CIN")
            for half in (0, 1):
                init = _init(p[f"INIT{half}"]) & 0xFFFF
                inject = str(p.get(f"INJECT1_{half}", "YES")).strip() == "YES"
                lut, low = temp(), temp()
                op([pin(f"{x}{half}") for x in "ABCD"], lut, init)
                op([pin(f"A{half}"), pin(f"B{half}")], low, init & 0xF)
                out = pin(f"S{half}") if c.get(f"S{half}") else temp()
                op([lut, carry], out, _table(lambda l, ci: l if inject else l ^ ci, 2))
                nxt = pin("COUT") if half == 1 and c.get("COUT") else temp()
                op([lut, low, carry], nxt,
                   _table(lambda l, lo, ci: (l & ci) if inject else ((1 - l) & lo) | (l & ci), 3))
                carry = nxt
        elif kind == RAM:
            mem = [n(b) for b in net.rams[cname]]      # word w, bit i: mem[4 w + i]
            rad = [pin("RAD", i) for i in range(4)]
            for i in range(4):                         # read: a tree of 2:1 muxes on RAD
                level = [mem[4 * w + i] for w in range(16)]
                for j in range(4):
                    out = lambda: pin("DO", i) if j == 3 and c.get("DO") else temp()   # noqa: E731
                    level = [op([level[2 * m], level[2 * m + 1], rad[j]], out(), MUX2) for m in range(len(level) // 2)]
        else:
            raise CipherfabError(f"cell {cname}: {kind} is not combinational")
    for cname, conn, p in net.ffs:
        flags = (4 if p.get("REGSET", "RESET") == "SET" else 0)
        cemux = p.get("CEMUX", "1")
        ce = {"1": 1, "0": 0}.get(cemux)
        if ce is None:
            ce = n(conn["CE"][0]) if conn.get("CE") else 1
            flags |= 1 if cemux == "INV" else 0
        lsr = n(conn["LSR"][0]) if conn.get("LSR") else 0
        flags |= 2 if p.get("LSRMUX", "LSR") == "INV" else 0
        ffs.append((n(conn["Q"][0]), n(conn["DI"][0]) if conn.get("DI") else 0, ce, lsr, flags))
    for cname, bits in net.rams.items():               # each memory cell: a flip-flop
        cell = net.cells[cname]
        c, p = cell["connections"], {k: str(v).strip() for k, v in cell.get("parameters", {}).items()}
        init = _init(p.get("INITVAL", "0"))
        wre = n(c["WRE"][0]) if c.get("WRE") else 0
        wremux = p.get("WREMUX", "WRE")
        wre = {"1": 1, "0": 0}.get(wremux, wre)
        wad = [n(c["WAD"][i]) if c.get("WAD") else 0 for i in range(4)]
        for w in range(16):
            sel = temp()
            op(wad, sel, _table(lambda *a, w=w: sum(x << j for j, x in enumerate(a)) == w, 4))
            en = temp()
            op([sel, wre], en, _table(lambda s, e, inv=(wremux == "INV"): s & (e ^ inv), 2))
            for i in range(4):
                d = n(c["DI"][i]) if c.get("DI") else 0
                ffs.append((n(bits[4 * w + i]), d, en, 0, 4 if (init >> (4 * w + i)) & 1 else 0))
    a = np.array
    return Compiled(counter[0], a([o[0] for o in ops], dtype=np.int32).reshape(-1, 4),
                    a([o[1] for o in ops], dtype=np.int32), a([o[2] for o in ops], dtype=np.uint16),
                    *[a([f[i] for f in ffs], dtype=np.int32) for i in range(4)],
                    a([f[4] for f in ffs], dtype=np.uint8), dense)


@dataclass
class Stimulus:
    """What every input bit is in every clock: ``source[clock, input]`` is 0 or 1, a secret
    bit (``SRC_SECRET + j``), an entropy bit held for the whole simulation
    (``SRC_ENTROPY + j``) or fresh (``SRC_FRESH``); ``xor[clock, input]`` an entropy bit
    XORed in (a share) or -1.  The secret is ``secret_fixed`` in the fixed group, and
    ``secret_second`` in the other if given (fixed-vs-fixed; else uniform)."""
    inputs: list                  # Yosys bits of the input ports, in column order
    source: np.ndarray            # [clocks, inputs] int32
    xor: np.ndarray
    secret_fixed: np.ndarray      # uint8 bits
    n_entropy: int
    secret_second: np.ndarray | None = None

    @classmethod
    def empty(cls, net: Netlist, clocks: int, secret_fixed, n_entropy: int) -> "Stimulus":
        bits = [b for port in net.inputs.values() for b in port]
        return cls(bits, np.zeros((clocks, len(bits)), dtype=np.int32), np.full((clocks, len(bits)), -1, np.int32),
                   np.asarray(secret_fixed, dtype=np.uint8), n_entropy)

    def extend(self, clocks: int) -> None:
        """``clocks`` more clocks (none if 0 or less), each as the last."""
        if clocks > 0:
            self.source = np.concatenate([self.source, np.repeat(self.source[-1:], clocks, axis=0)])
            self.xor = np.concatenate([self.xor, np.repeat(self.xor[-1:], clocks, axis=0)])

    def column(self, net: Netlist, port: str) -> list[int]:
        if port not in net.inputs:
            raise CipherfabError(f"the netlist has no input {port}")
        pos = {b: i for i, b in enumerate(self.inputs)}
        return [pos[b] for b in net.inputs[port]]


@functools.lru_cache(maxsize=None)
def _library() -> ctypes.CDLL:
    from .verilated import cache_dir_default
    text = SOURCE.read_bytes()
    flags = ["-O2", "-march=native", "-std=gnu++17", "-fPIC", "-shared", "-pthread"]
    digest = hashlib.sha256(text + " ".join(flags).encode()).hexdigest()[:24]
    lib = cache_dir_default() / f"robust-engine-{digest}.so"
    if not lib.is_file():
        cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
        if not cxx:
            raise MissingTool("the robust model needs a C++ compiler (g++): apt install g++")
        lib.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
            out = Path(tmp) / "engine.so"
            r = subprocess.run([cxx, *flags, str(SOURCE), "-o", str(out)], capture_output=True, text=True)
            if r.returncode:
                raise CipherfabError(f"compiling the robust engine failed: {(r.stderr.strip().splitlines() or ['?'])[0]}")
            os.replace(out, lib)
    dll = ctypes.CDLL(str(lib))
    for fn in ("robust_pilot", "robust_trace", "robust_toggle", "robust_run"):
        getattr(dll, fn).restype = ctypes.c_int
    return dll


class Engine:
    """A compiled netlist and its stimulus, ready to run in the C++ engine."""

    def __init__(self, compiled: Compiled, stim: Stimulus, seed: int = 1):
        self.c, self.stim, self.seed = compiled, stim, seed
        self.lib = _library()
        self._keep = [compiled.op_in, compiled.op_out, compiled.op_table, compiled.ff_q, compiled.ff_d,
                      compiled.ff_ce, compiled.ff_lsr, compiled.ff_flags]
        self.in_net = np.array([compiled.net(b) for b in stim.inputs], dtype=np.int32)
        both = np.ascontiguousarray(np.stack([stim.source, stim.xor], axis=2).astype(np.int32))
        second = None if stim.secret_second is None else np.asarray(stim.secret_second, dtype=np.uint8)
        if second is not None and len(second) != len(stim.secret_fixed):
            raise CipherfabError("the second fixed secret and the fixed one differ in width")
        self._keep += [self.in_net, both, stim.secret_fixed, second]
        c = compiled
        self.prog = _Program(c.n_nets, len(c.op_out), _ptr(c.op_in), _ptr(c.op_out), _ptr(c.op_table),
                             len(c.ff_q), _ptr(c.ff_q), _ptr(c.ff_d), _ptr(c.ff_ce), _ptr(c.ff_lsr),
                             _ptr(c.ff_flags), stim.source.shape[0], len(self.in_net), _ptr(self.in_net),
                             _ptr(both), len(stim.secret_fixed), _ptr(stim.secret_fixed), stim.n_entropy,
                             seed & (2 ** 64 - 1), None if second is None else _ptr(second))

    def pilot(self, nets: list[int], words: int = WORDS) -> np.ndarray:
        """``[clock, net]`` flags of one batch: 1 some simulation saw 1, 2 some saw 0, 4 tainted."""
        obs = np.array(nets, dtype=np.int32)
        flags = np.zeros((self.prog.clocks, len(obs)), dtype=np.uint8)
        self.lib.robust_pilot(ctypes.byref(self.prog), words, len(obs), _ptr(obs), _ptr(flags))
        return flags

    def trace(self, nets: list[int], batch: int = 0, words: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """(``[clock, net, simulation]`` booleans, the fixed group) of batch ``batch``."""
        obs = np.array(nets, dtype=np.int32)
        vals = np.zeros((self.prog.clocks, len(obs), words), dtype=np.uint64)
        group = np.zeros(words, dtype=np.uint64)
        self.lib.robust_trace(ctypes.byref(self.prog), words, batch, len(obs), _ptr(obs), _ptr(vals), _ptr(group))
        unpack = lambda a: np.unpackbits(a.view(np.uint8), axis=-1, bitorder="little").astype(bool)  # noqa: E731
        return unpack(vals), unpack(group)

    def toggle(self, nets: list[int], first: int, samples: int, batch: int = 0,
               words: int = WORDS) -> tuple[np.ndarray, np.ndarray]:
        """(``[sample, simulation]`` counts of ``nets`` whose value changed from clock
        ``first + i - 1`` to ``first + i``, the fixed group as booleans) of batch ``batch``."""
        obs = np.array(nets, dtype=np.int32)
        counts = np.zeros((samples, 64 * words), dtype=np.uint32)
        group = np.zeros(words, dtype=np.uint64)
        if self.lib.robust_toggle(ctypes.byref(self.prog), words, batch, len(obs), _ptr(obs), first, samples,
                                  _ptr(counts), _ptr(group)):
            raise CipherfabError(f"robust engine: toggle samples {first}..{first + samples - 1} are not within "
                                 f"1..{self.prog.clocks - 1}")
        return counts, np.unpackbits(group.view(np.uint8), bitorder="little").astype(bool)

    def run(self, tests: list[tuple[int, list[tuple[int, bool]]]], checkpoints: list[int], threads: int = 1,
            words: int = WORDS, tables: bool = False, progress=None) -> dict:
        """Count and G-test every test (a clock and its bits: net, one clock before?) at each
        checkpoint (simulations, multiples of ``64 words``): ``mlog10p[checkpoint, test]``,
        ``g``, ``df`` (at the last) and, if asked, the count tables.  ``progress(done, worst)``
        is called after each checkpoint."""
        nt = len(tests)
        clock = np.array([t for t, _ in tests], dtype=np.int32)
        k = np.array([len(bits) for _, bits in tests], dtype=np.int32)
        first = np.concatenate([[0], np.cumsum(k)[:-1]]).astype(np.int32) if nt else np.zeros(0, np.int32)
        bit_net = np.array([b for _, bits in tests for b, _ in bits], dtype=np.int32)
        bit_prev = np.array([p for _, bits in tests for _, p in bits], dtype=np.uint8)
        cps = np.array(checkpoints, dtype=np.int64)
        ml = np.zeros((len(cps), nt), dtype=np.float64)
        g, df = np.zeros(nt), np.zeros(nt, dtype=np.int32)
        size = int(sum(2 << int(x) for x in k))
        tab = np.zeros(size if tables else 1, dtype=np.uint32)
        T = _Tests(nt, _ptr(clock), _ptr(k), _ptr(first), _ptr(bit_net), _ptr(bit_prev), len(cps), _ptr(cps),
                   words, threads, _ptr(ml), _ptr(g), _ptr(df), _ptr(tab) if tables else None,
                   size if tables else 0, None, b"")
        callback = _PROGRESS(progress) if progress else None     # kept alive through the call
        if callback:
            T.progress = ctypes.cast(callback, ctypes.c_void_p)
        if self.lib.robust_run(ctypes.byref(self.prog), ctypes.byref(T)):
            raise CipherfabError(f"robust engine: {T.error.decode()}")
        out = {"mlog10p": ml, "g": g, "df": df}
        if tables:
            out["tables"] = [tab[o:o + (2 << int(kk))].reshape(-1, 2).T for o, kk in
                             zip(np.concatenate([[0], np.cumsum([2 << int(x) for x in k])[:-1]]).astype(int), k)]
        return out
