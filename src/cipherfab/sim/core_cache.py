"""Generated core Verilog, kept in the cache (``cores/``).

Elaborating a wide core takes seconds (the unrolled lut-10 core with its lint waivers: about
20 s), and ``sim``, ``verify``, ``build``, ``study`` and the tests make the same points again
and again; they take a core's Verilog from :func:`core_verilog`.  An entry's key covers the
point (every value), whether its lint waivers are placed, the cipherfab version and the
point's generator digest (:func:`cipherfab.sim.ledger.generator_digest`: every package file
that makes its Verilog, and the versions of the tools that shape the text;
``tests/sim/test_generator_files.py`` checks that every file that runs is in it), so a changed
source never reuses an old text.  The entry keeps the seconds the elaboration took when it was
made.  Points whose core is not a package module (test doubles) are not kept.  A damaged
entry is made again; a cache that cannot be written costs only time.  ``cipherfab generate``
always elaborates.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import __version__, cache
from ..generate import declaration, generate_verilog
from ..hw.info import CoreInfo
from ..registry import CoreParams
from . import ledger


def core_verilog(params: CoreParams, waivers: bool = True) -> tuple[str, CoreInfo, float]:
    """:func:`cipherfab.generate.generate_verilog`'s (Verilog, declared info, elaboration
    seconds), from the cache when these sources made this point before (the seconds: then)."""
    path = _path(params, waivers)
    if path is not None:
        try:
            kept = json.loads(path.read_text())
            return str(kept["verilog"]), declaration(params), float(kept["seconds"])
        except (OSError, ValueError, KeyError, TypeError):
            pass                     # absent or unreadable: made again and saved over it
    text, info, seconds = generate_verilog(params, waivers)
    if path is not None:
        cache.write_kept(path, json.dumps({"top": params.top, "verilog": text, "seconds": seconds}))
    return text, info, seconds


def _path(params: CoreParams, waivers: bool) -> Path | None:
    if ledger._core_file(ledger._core_of(params)) is None:   # a module outside the package
        return None
    point = json.dumps(params.as_dict(), sort_keys=True)
    key = hashlib.sha256(f"{point}\0{waivers}\0{__version__}\0"
                         f"{ledger.generator_digest(params)}".encode()).hexdigest()[:32]
    return cache.cores() / f"{key}.json"
