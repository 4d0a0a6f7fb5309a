"""The accelerator system's Verilog for simulation, kept in the cache (``systems/``).

Elaborating a system and placing its lint waivers takes about 7 s; ``encrypt``, ``decrypt``,
``study system`` and ``verify``'s GCM classes make the same systems again and again.  An
entry's key covers the point, the shape, the cipherfab version and :func:`system_digest`:
every source file that makes the core's and the system's Verilog, and the versions of the
tools that shape the text, so a changed source never reuses an old text.  Points whose core is not a package module (test doubles) are
not kept.  A damaged entry is made again; a cache that cannot be written costs only time.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import __version__, cache
from ..generate import system_shape, system_verilog as make_system_verilog
from ..registry import CoreParams
from ..sim import ledger

#: the files that make the system's Verilog around a core (followed through their imports;
#: generate.py, which calls them, is one of every point's generator files)
SYSTEM_ROOTS = ["hw/system/system.py"]


def system_files(params: CoreParams) -> set[Path]:
    """The package files that make the system's Verilog around ``params``' core."""
    return set(ledger.generator_files(params)) | ledger._closure(ledger._parts(SYSTEM_ROOTS))


def system_digest(params: CoreParams) -> str:
    """sha256 over the files that make the system's Verilog (and the tool versions that shape it)."""
    return ledger._digest(sorted(system_files(params)))


def system_verilog(params: CoreParams, width: int | None = None, depth: int | None = None,
                   modes: tuple[str, ...] | None = None) -> tuple[str, str, dict]:
    """(Verilog, top, facts) as :func:`cipherfab.generate.system_verilog` makes them,
    from the cache when this point, shape, mode set and source made them before."""
    width, depth = system_shape(params, width, depth, ("width", "depth"))
    path = _path(params, width, depth, modes)
    if path is not None:
        try:
            kept = json.loads(path.read_text())
            return kept["verilog"], kept["top"], kept["facts"]
        except (OSError, ValueError, KeyError, TypeError):
            pass                        # absent or unreadable: made again and saved over it
    made = make_system_verilog(params, width, depth, modes)
    if path is not None:
        cache.write_kept(path, json.dumps(dict(zip(("verilog", "top", "facts"), made))))
    return made


def _path(params: CoreParams, width: int, depth: int, modes) -> Path | None:
    if ledger._core_file(ledger._core_of(params)) is None:   # a module outside the package
        return None
    key = hashlib.sha256(f"{params.top}\0{width}\0{depth}\0{','.join(modes or ())}\0{__version__}\0"
                         f"{system_digest(params)}".encode()).hexdigest()[:32]
    return cache.systems() / f"{key}.json"

