"""ECP5 block-RAM output registers (``--ebr-outreg``): the fabric register after a DP16KD
read port moved into the block RAM (``REGMODE_x = OUTREG``), in the synthesized netlist.

Yosys maps a memory's read port to a DP16KD with its address registered inside the block
RAM and its data out unregistered (``NOREG``): its memory library has no output-register
option, so the register a design puts after the read stays a flip-flop in the fabric, and
the block RAM's slow clock-to-output (4.26 ns at speed 8 in nextpnr's timing data)
starts a path through routing to it.  Vendor synthesis moves
such a register into the block RAM; this pass does the same on ``synth_ecp5``'s JSON
netlist, before place and route.

A read port's register is moved only when every data-out bit the design uses drives
exactly one cell input, the ``DI`` of a ``TRELLIS_FF`` on the port's clock, always
enabled, with no set or asynchronous reset (a synchronous reset, the same net for every
bit, becomes the port's ``RST`` with ``RESETMODE SYNC``: the output register's reset to
zero, as the flip-flops' ``REGSET RESET``).  Anything else leaves the port as it was.  Each
module of the netlist is read on its own (the flow keeps the declared parts' modules): a
register in another module than its block RAM is not seen, ``--flatten`` puts every one
in the top module.  A port's reset mode is one setting for both ports of a DP16KD, so a
block RAM whose ports would need different ones keeps both as they were.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from ..errors import CipherfabError

PORTS = "AB"
DATA_BITS = 18


def _flip_flop_of(cells: dict, readers: dict, port_bits: set, ebr: dict, x: str):
    """``[(data-out pin, flip-flop name, reset net)]`` of read port ``x`` if every used bit
    qualifies, else None."""
    clock = ebr["connections"][f"CLK{x}"]
    if ebr["connections"].get(f"RST{x}", ["0"]) != ["0"]:
        return None                                     # its output latch resets already
    plan = []
    for i in range(DATA_BITS):
        bits = ebr["connections"].get(f"DO{x}{i}", [])
        if not bits or not isinstance(bits[0], int) or not readers.get(bits[0]):
            continue                                    # not connected, or not used
        if len(readers[bits[0]]) != 1 or bits[0] in port_bits:
            return None
        name, pin = readers[bits[0]][0]
        ff = cells[name]
        p, c = ff["parameters"], ff["connections"]
        if (ff["type"] != "TRELLIS_FF" or pin != "DI" or c.get("CLK") != clock
                or p.get("CLKMUX", "CLK").strip() != "CLK" or p.get("GSR", "DISABLED").strip() != "DISABLED"
                or not (p.get("CEMUX", "CE").strip() == "1" or c.get("CE") == ["1"])
                or p.get("REGSET", "RESET").strip() != "RESET"
                or p.get("SRMODE", "LSR_OVER_CE").strip() != "LSR_OVER_CE"):
            return None
        reset = ["0"] if p.get("LSRMUX", "LSR").strip() == "0" else c.get("LSR", ["0"])
        plan.append((f"DO{x}{i}", name, reset))
    if not plan or len({tuple(r) for _, _, r in plan}) > 1:
        return None
    return plan


def absorb(netlist: Path) -> dict:
    """Rewrite ``netlist`` (``synth_ecp5`` JSON) in place; returns the counts."""
    try:
        data = json.loads(netlist.read_text())
        modules = [m for m in data["modules"].values()
                   if any(c["type"] == "DP16KD" for c in m.get("cells", {}).values())]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise CipherfabError(f"--ebr-outreg: {netlist} is not a Yosys JSON netlist") from None
    counts = {"block_rams": 0, "read_ports_outreg": 0, "flip_flops_moved": 0}
    for module in modules:
        for k, v in _absorb_module(module).items():
            counts[k] += v
    netlist.write_text(json.dumps(data))
    return counts


def _absorb_module(top: dict) -> dict:
    cells = top["cells"]
    readers = defaultdict(list)
    for name, cell in cells.items():
        for pin, bits in cell["connections"].items():
            if cell.get("port_directions", {}).get(pin) == "input":
                for b in bits:
                    if isinstance(b, int):
                        readers[b].append((name, pin))
    port_bits = {b for p in top.get("ports", {}).values() for b in p["bits"] if isinstance(b, int)}
    ebrs = ports = moved = 0
    for cell in [c for c in cells.values() if c["type"] == "DP16KD"]:
        ebrs += 1
        plans = {x: _flip_flop_of(cells, readers, port_bits, cell, x) for x in PORTS
                 if cell["parameters"].get(f"REGMODE_{x}", "NOREG").strip() == "NOREG"}
        plans = {x: p for x, p in plans.items() if p}
        resets = {tuple(p[0][2]) for p in plans.values()}
        others = [x for x in PORTS if x not in plans and cell["connections"].get(f"RST{x}", ["0"]) != ["0"]]
        if not plans or len(resets) > 1 or (resets != {("0",)} and others):
            continue
        for x, plan in plans.items():
            for pin, name, reset in plan:
                cell["connections"][pin] = cells.pop(name)["connections"]["Q"]
            cell["parameters"][f"REGMODE_{x}"] = "OUTREG"
            cell["connections"][f"OCE{x}"] = ["1"]
            cell["connections"][f"RST{x}"] = plan[0][2]
            ports += 1
            moved += len(plan)
        if resets != {("0",)}:
            cell["parameters"]["RESETMODE"] = "SYNC"
    return {"block_rams": ebrs, "read_ports_outreg": ports, "flip_flops_moved": moved}
