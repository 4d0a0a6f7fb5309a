"""The worst path of a build on a family whose routed delays the flow does not read (Gowin,
Nexus, GateMate, iCE40): nextpnr's own critical-path report of the measured clock, from its log.

nextpnr prints one critical path per clock::

    Info: Critical path report for clock 'clk$11' (posedge -> posedge):
    Info:       type curr  total name
    Info:   clk-skew  1.72  1.72 Net clk$11 (146,54) -> (131,3)
    Info:   clk-to-q  0.59  2.31 Source core.core.core.key_schedule.$auto$ff.cc:337:slice$11143.DOUT
    Info:    routing  1.96  4.27 Net core.core.core.last (146,54) -> (148,58)
    Info:                          Sink $abc$19562$blif$19562$8.D0_10
    Info:      logic  0.61  4.88 Source $abc$19562$blif$19562$8.OUT
    ...
    Info:      setup  0.10 19.99 Source $auto$ff.cc:337:slice$9226.DIN
    Info: 2.20 ns logic, 17.79 ns routing

That one path goes in the record in the shape of :mod:`.worst_paths`' (ECP5's static timing
analysis of the routed SDF finds the worst path per end register instead): ``delay_ns`` is
nextpnr's total, clock skew included (``clock_skew_ns``), so it is 1000 / Fmax;
``lut_levels`` counts the logic cells passed (a family's LUT, mux or adder cell alike);
parts, registers and fanouts come as on ECP5 from the synthesized and the placed netlists.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from .parse import clock_base
from .where import Where
from .worst_paths import merged_runs

HEADER = re.compile(r"Critical path report for clock '([^']+)'")
ENTRY = re.compile(r"Info:\s+(clk-skew|clk-to-q|routing|logic|setup)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+"
                   r"(Source|Net)\s+(\S+)")
SINK = re.compile(r"Info:\s+Sink\s+(\S+)")
SOURCE = "nextpnr's critical path report (one path per clock)"


def _split(name: str) -> tuple[str, str]:
    """``cell.PIN`` -> (cell, pin)."""
    cell, _, pin = name.rpartition(".")
    return (cell, pin) if cell else (name, "")


def report(lines: list[str], clock: str) -> list[tuple]:
    """The entries of ``clock``'s critical-path report: (type, ns, total ns, Source|Net|Sink,
    name), the sinks as they follow their net; empty if the log has none for the clock."""
    out: list[tuple] = []
    inside = False
    for line in lines:
        m = HEADER.search(line)
        if m:
            inside = clock_base(m.group(1)) == clock_base(clock) or m.group(1) == clock
            out = [] if inside else out
            continue
        if not inside:
            continue
        e = ENTRY.search(line)
        if e:
            out.append((e.group(1), float(e.group(2)), float(e.group(3)), e.group(4), e.group(5)))
        elif (s := SINK.search(line)) and out and out[-1][3] == "Net":
            out.append(("sink", 0.0, out[-1][2], "Sink", s.group(1)))
        elif re.search(r"ns logic, .* ns routing", line):
            return out
    return out if inside else []


def _fanouts(placed: dict) -> tuple[dict, dict]:
    """(net name -> the cell input pins its first bit drives, cell name -> cell type) of the
    placed design."""
    module = next(iter(placed.get("modules", {}).values()), {})
    bit_of = {name: net["bits"][0] for name, net in module.get("netnames", {}).items() if net.get("bits")}
    sinks: Counter = Counter()
    types = {}
    for name, cell in module.get("cells", {}).items():
        types[name] = cell.get("type")
        dirs = cell.get("port_directions", {})
        for port, bits in cell.get("connections", {}).items():
            if dirs.get(port) == "input":
                for b in bits:
                    sinks[b] += 1
    return {n: sinks.get(b, 0) for n, b in bit_of.items()}, types


def describe(entries: list[tuple], where: Where, fanout: dict, types: dict) -> dict | None:
    """The path of ``entries`` as the record carries it, or None without a launching register."""
    hops, pin_in, skew = [], None, 0.0
    for kind, ns, _total, what, name in entries:
        if kind == "clk-skew":
            skew += ns
        elif what == "Source":
            cell, pin = _split(name)
            part, label = where(cell)
            hops.append({"cell": cell, "type": types.get(cell), "from": pin_in, "to": pin,
                         "logic_ns": round(ns, 3), "where": label, "part": part})
            pin_in = None
        elif what == "Net" and hops:
            hops[-1].update(net=name, routing_ns=round(ns, 3), fanout=fanout.get(name, 0))
        elif what == "Sink":
            pin_in = _split(name)[1]
    if not hops or entries[0][0] not in ("clk-to-q", "clk-skew"):
        return None
    last = hops[-1]
    last["from"], last["to"] = last["to"], None          # the setup entry names the end's input pin
    logic = sum(h["logic_ns"] for h in hops)
    routing = sum(h.get("routing_ns", 0.0) for h in hops)

    def end(h, **extra):
        reg = where.register(h["cell"])
        return {"cell": h["cell"], **extra, "register": reg or h["cell"], "part": h["part"], "where": h["where"]}

    return {"delay_ns": round(entries[-1][2], 3), "logic_ns": round(logic, 3), "routing_ns": round(routing, 3),
            "clock_skew_ns": round(skew, 3), "lut_levels": max(0, len(hops) - 2), "carry_cells": 0,
            "start": end(hops[0]), "end": end(last, pin=last["from"]),
            "parts": merged_runs([h["part"] for h in hops]), "crosses": merged_runs([h["where"] for h in hops]),
            "hops": [{k: v for k, v in h.items() if k != "part"} for h in hops], "source": SOURCE}


def analyse(workdir: Path, lines: list[str], top: str, parts: dict[str, str], generated: bool,
            clock: str) -> list[dict]:
    """The measured clock's critical path from the nextpnr log ``lines`` of the build in
    ``workdir`` (a list of one, or none when the log has no report for the clock)."""
    entries = report(lines, clock)
    if not entries:
        return []
    where = Where(json.loads((workdir / "netlist.json").read_text()), top, parts, generated)
    fanout, types = _fanouts(json.loads((workdir / "placed.json").read_text()))
    path = describe(entries, where, fanout, types)
    return [path] if path else []
