"""A design's flattened ``synth_ecp5`` netlist as Yosys JSON, for the robust probing model
(:mod:`cipherfab.sim.robust`, which may not import the flow layer: this module runs Yosys
and hands it the parsed netlist).  Synthesized once per design, as the toggle model's netlist
is (:func:`.netlist_probe.synthesized_once`).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import CipherfabError
from ..sim.robust import Netlist
from .netlist_probe import synthesized_once

READERS = {"verilog": "read_verilog", "rtlil": "read_rtlil"}


def synthesized(source: str, top: str, language: str = "verilog", timeout: float | None = None) -> Netlist:
    """The :class:`~cipherfab.sim.robust.Netlist` of ``source`` (Verilog or RTLIL text)."""
    if language not in READERS:
        raise CipherfabError(f"unknown source language {language!r} (verilog, rtlil)")
    text = synthesized_once("robust", source, top, "robust model", READERS[language], "write_json",
                            timeout, Path(__file__).read_text())
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CipherfabError(f"the robust model's netlist of {top} is not Yosys JSON ({e})") from None
    return Netlist(data, top)
