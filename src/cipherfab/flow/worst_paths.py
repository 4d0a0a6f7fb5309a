"""The worst routed paths of a build, described for the record: registers, parts, delays, levels.

nextpnr prints one critical path per clock and (in this build) writes no detailed timing
report, but it writes the routed design's SDF.  :mod:`.sta` finds the worst
register-to-register paths of the measured clock in it, one per end register; this
module names what each path crosses, from nextpnr's routed netlist (``placed.json``:
cell modes, the net on each pin) and the synthesized one (``netlist.json``: which kept
module each instance is, see :mod:`.where`).

Each path in the record::

    delay_ns, logic_ns, routing_ns   clock-to-Q + cells + setup, and the nets
    lut_levels                       LUT inputs passed (A-D, or M of a wider LUT's mux);
                                     the mux inputs inside one wide LUT (F1, FXA, FXB) and
                                     carry cells are not levels
    carry_cells                      carry-chain cells passed (CCU2 mode)
    start, end                       {cell, register, part, where} (end: and pin): a
                                     flip-flop's register is the signal bit it holds
                                     (``core.key_schedule.subword.y1_r0[5]``); a block
                                     RAM's is the cell
    parts                            the parts crossed, in order (consecutive repeats merged)
    crosses                          the same at the finer label of :mod:`.where`
    hops                             every cell passed: cell, type, from/to pin, logic_ns
                                     and where, then the net it drives with routing_ns and
                                     fanout (its number of sinks); the first hop is the
                                     launch (clock-to-Q), the last the end's setup time

Cells nextpnr inserts (``$nextpnr_...``: carry feed-ins, pass-through LUTs) take the part of
the cell before them on the path.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from . import sdf, sta
from .parse import clock_base
from .where import Where

#: how many paths a build computes and caches; ``build --paths N`` shows up to this many
PATHS_KEPT = 20
#: how many a record carries when none are asked for
PATHS_SHOWN = 3
#: the routed design's SDF in the work folder (ECP5 builds)
SDF_FILE = "routed.sdf"

LUT_INPUTS = frozenset({"A", "B", "C", "D", "M"})


class Netlist:
    """What the routed netlist says about cells: type, mode, and the net on each pin."""

    def __init__(self, placed: dict):
        module = next(iter(placed.get("modules", {}).values()), {})
        self.cells = module.get("cells", {})
        self.net_of_bit = {}
        for name, net in module.get("netnames", {}).items():
            for bit in net.get("bits", []):
                old = self.net_of_bit.get(bit)
                if old is None or (net.get("hide_name", 0), len(name)) < old[1]:
                    self.net_of_bit[bit] = (name, (net.get("hide_name", 0), len(name)))

    def net(self, cell: str, pin: str) -> str | None:
        bits = self.cells.get(cell, {}).get("connections", {}).get(pin) or [None]
        found = self.net_of_bit.get(bits[0])
        return found[0] if found else None

    def mode(self, cell: str) -> str:
        return self.cells.get(cell, {}).get("parameters", {}).get("MODE", "LOGIC")



def merged_runs(labels: list[str]) -> list[str]:
    """``labels`` with consecutive repeats merged (the parts a path crosses, in order)."""
    return [x for i, x in enumerate(labels) if i == 0 or x != labels[i - 1]]


def _hops(path: sta.TimedPath, timing: sdf.Timing, net: Netlist, where: Where, fanout: Counter) -> list[dict]:
    hops: list[dict] = []
    for arc in path.steps:
        if arc.kind == "net":
            hops[-1].update(net=net.net(*arc.src), routing_ns=round(arc.delay_ns, 3), fanout=fanout[arc.src])
            continue
        cell = arc.src[0]
        part, label = where(cell)
        if cell.startswith("$nextpnr") and hops:
            part, label = hops[-1]["part"], hops[-1]["where"]
        hops.append({"cell": cell, "type": timing.cell_types.get(cell, "?"), "from": arc.src[1],
                     "to": arc.dst[1], "logic_ns": round(arc.delay_ns, 3), "part": part, "where": label})
    return hops


def _levels(hops: list[dict], net: Netlist) -> tuple[int, int]:
    luts = carries = 0
    for h in hops[1:-1]:
        if h["type"] != "TRELLIS_COMB":
            continue
        if net.mode(h["cell"]) == "CCU2":
            carries += 1
        elif h["from"] in LUT_INPUTS:
            luts += 1
    return luts, carries


def _end(hop: dict, where: Where, **extra) -> dict:
    """A path's start or end: a flip-flop by its register (:meth:`.Where.register`), else the cell."""
    register = where.register(hop["cell"]) if hop["type"] == "TRELLIS_FF" else None
    return {"cell": hop["cell"], **extra, "register": register or hop["cell"],
            "part": hop["part"], "where": hop["where"]}


def describe(path: sta.TimedPath, timing: sdf.Timing, net: Netlist, where: Where, fanout: Counter) -> dict:
    """One path as the record carries it (see the module docstring)."""
    hops = _hops(path, timing, net, where, fanout)
    luts, carries = _levels(hops, net)
    return {"delay_ns": round(path.delay_ns, 3), "logic_ns": round(path.logic_ns, 3),
            "routing_ns": round(path.routing_ns, 3), "lut_levels": luts, "carry_cells": carries,
            "start": _end(hops[0], where), "end": _end(hops[-1], where, pin=hops[-1]["from"]),
            "parts": merged_runs([h["part"] for h in hops]), "crosses": merged_runs([h["where"] for h in hops]),
            "hops": [{k: v for k, v in h.items() if k != "part"} for h in hops]}


def _same_clock(a: str | None, b: str) -> bool:
    return a is not None and (a == b or clock_base(a) == clock_base(b))


def analyse(workdir: Path, top: str, parts: dict[str, str], generated: bool, clock: str,
            n: int = PATHS_KEPT) -> list[dict]:
    """The ``n`` worst ``clock``-to-``clock`` paths of the build in ``workdir``, worst first."""
    timing = sdf.parse((workdir / SDF_FILE).read_text())
    net = Netlist(json.loads((workdir / "placed.json").read_text()))
    where = Where(json.loads((workdir / "netlist.json").read_text()), top, parts, generated)
    fanout = Counter(arc.src for arc in timing.net_arcs)
    paths = sta.worst_paths(timing, n, lambda cell, pin: _same_clock(net.net(cell, pin), clock))
    return [describe(p, timing, net, where, fanout) for p in paths]


def without_hops(record: dict) -> dict:
    """``record`` with its worst paths kept as summaries (no ``hops``): what a study's
    results.json keeps, a few hundred bytes a path instead of several kilobytes."""
    paths = (record.get("timing") or {}).get("worst_paths")
    if not paths:
        return record
    kept = [{k: v for k, v in p.items() if k != "hops"} for p in paths]
    return {**record, "timing": {**record["timing"], "worst_paths": kept}}
