"""The accelerator system (``hw.system``) compiled with Verilator and its host side in C++
(``sim/system_harness.cpp``): register writes and reads, and streaming through a link
model, called through ctypes (no Python per cycle)."""

from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import CipherfabError
from ..sim.verilated import CXX_FLAGS, build_library, cache_dir_default, library_digest

HARNESS = Path(__file__).resolve().parent.parent / "sim" / "system_harness.cpp"


class _Stream(ctypes.Structure):
    """Mirror of ``struct CfStream`` in system_harness.cpp."""

    _p = ctypes.c_void_p
    _i = ctypes.c_int64
    _fields_ = [
        ("inp", _p), ("n_in", _i), ("last", ctypes.c_int32), ("no_output", ctypes.c_int32),
        ("out", _p), ("out_cap", _i),
        ("in_bytes_per_clock", ctypes.c_double), ("in_latency", _i), ("in_burst", _i),
        ("out_bytes_per_clock", ctypes.c_double), ("out_latency", _i), ("out_burst", _i),
        ("timeout", _i),
        ("n_out", _i), ("cycles", _i), ("in_link_wait", _i), ("out_link_wait", _i),
        ("first_in", _i), ("last_out", _i),
        ("failed", ctypes.c_int32), ("error", ctypes.c_char * 256),
    ]


@dataclass
class StreamResult:
    out: bytes
    cycles: int             # since the model was opened
    in_link_wait: int       # clocks the input had nothing to send: the link had not delivered
    out_link_wait: int      # clocks a result waited for the output link
    first_in: int           # the cycle the message's stream began (the link's first latency counts)
    last_out: int


class SystemModel:
    """One Verilated ``AcceleratorSystem``; :meth:`open` gives a running instance."""

    def __init__(self, verilog: str, top: str, width: int, cache_dir: str | Path | None = None):
        self.width = width
        self._cflags = CXX_FLAGS + [f"-DWIDTH={width}"]
        cache = Path(cache_dir) if cache_dir else cache_dir_default()
        self.library = cache / f"{library_digest(verilog, top, HARNESS, self._cflags)}.so"
        if not self.library.exists():
            print("note: compiling the system with Verilator (first use; 10-90 s)", file=sys.stderr,
                  flush=True)
            build_library(verilog, top, HARNESS, self._cflags, self.library)
        lib = ctypes.CDLL(str(self.library))
        lib.cf_sys_open.argtypes, lib.cf_sys_open.restype = [ctypes.c_uint64, ctypes.c_int64], ctypes.c_void_p
        lib.cf_sys_close.argtypes, lib.cf_sys_close.restype = [ctypes.c_void_p], None
        lib.cf_sys_write.argtypes, lib.cf_sys_write.restype = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32], ctypes.c_int
        lib.cf_sys_read.argtypes, lib.cf_sys_read.restype = [ctypes.c_void_p, ctypes.c_int], ctypes.c_int64
        lib.cf_sys_stream.argtypes, lib.cf_sys_stream.restype = [ctypes.c_void_p, ctypes.POINTER(_Stream)], ctypes.c_int
        self._lib = lib

    def open(self, seed: int = 1) -> "Instance":
        h = self._lib.cf_sys_open(seed, 4)
        if not h:
            raise CipherfabError("the system model did not start")
        return Instance(self._lib, h, self.width)


class Instance:
    def __init__(self, lib, handle, width):
        self._lib, self._h, self.lanes = lib, handle, width // 8

    def write(self, addr: int, value: int) -> None:
        r = self._lib.cf_sys_write(self._h, addr, value & 0xFFFFFFFF)
        if r != 0:
            raise CipherfabError(f"register write at 0x{addr:02x} failed (bresp {r})")

    def read(self, addr: int) -> int:
        r = self._lib.cf_sys_read(self._h, addr)
        if r < 0:
            raise CipherfabError(f"register read at 0x{addr:02x} timed out")
        return r

    def stream(self, data: bytes, last: bool, link: tuple, out_cap: int,
               timeout: int = 1_000_000, no_output: bool = False) -> StreamResult:
        """Push ``data`` (the next part of a message; ``last``: its end) through the link
        ``(bytes per clock, latency clocks, burst bytes)``, both ways; return what came out.
        The message is out at its output's ``tlast``, or, with ``no_output`` (a message with
        no output, e.g. GCM decryption of an empty text), once its input is in."""
        buf = ctypes.create_string_buffer(max(out_cap, 1))
        src = ctypes.create_string_buffer(bytes(data), max(len(data), 1))
        rate, latency, burst = link
        r = _Stream(inp=ctypes.addressof(src), n_in=len(data), last=int(last),
                    no_output=int(no_output), out=ctypes.addressof(buf),
                    out_cap=out_cap, in_bytes_per_clock=rate, in_latency=latency, in_burst=burst,
                    out_bytes_per_clock=rate, out_latency=latency, out_burst=burst, timeout=timeout)
        self._lib.cf_sys_stream(self._h, ctypes.byref(r))
        if r.failed:
            raise CipherfabError(f"system simulation stopped: {r.error.decode(errors='replace')}")
        return StreamResult(buf.raw[:r.n_out], r.cycles, r.in_link_wait, r.out_link_wait,
                            r.first_in, r.last_out)

    def close(self) -> None:
        if self._h:
            self._lib.cf_sys_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
