"""Block RAMs placed in the order the data reaches them (``--floorplan``), along the device's
block-RAM rows, before nextpnr places the rest.

nextpnr's analytic placer spreads a design's block RAMs over the die: in the 4-stage
block-RAM AES pipeline on ECP5-85k the 8 block RAMs of one round sat up to 60 columns and
three rows apart, and the paths from a block RAM's output register to the flip-flop after it
(no logic, fan-out 1) took 3.6-4.4 ns of routing, which held the core near 220 MHz.  A
pipeline's stages follow one another, so their block RAMs should too.

The order is read from the synthesized netlist, not declared: each block RAM's *register
distance* from the design's inputs (the fewest flip-flops and block RAMs a signal passes on
its way from an input port to the block RAM's inputs), then its hierarchical name.  A
pipeline's round r has distance about r times the registers per round, whatever the core,
so any core (and an external Verilog core) is ordered by its own structure.  The sites are
the family's block-RAM rows (:meth:`~cipherfab.flow.families.Family.block_ram_rows`): the
fewest adjacent rows that hold them all (of those, the rows closest together), filled as a
snake, left to right and back.  Each block RAM gets nextpnr's ``BEL`` attribute; nextpnr
places everything else around them as usual.

A block RAM inside a module that the netlist instantiates more than once cannot have a site
of its own (the attribute sits on the module's cell); those are left to the placer and
counted.  Nothing else changes: the netlist is the same design.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict, deque
from pathlib import Path

from ..errors import CipherfabError

def place(netlist: Path, rows: list[list[str]], ram_type: str, flip_flops) -> dict:
    """Give each ``ram_type`` cell of ``netlist`` (Yosys JSON, rewritten in place) a site of
    ``rows``; a ``flip_flops`` cell (a type name) or a block RAM starts a new register stage.
    Returns what was done, for the record."""
    try:
        data = json.loads(netlist.read_text())
        top = next(n for n, m in data["modules"].items() if m.get("attributes", {}).get("top"))
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        raise CipherfabError(f"--floorplan: {netlist} is not a Yosys JSON netlist with a top module") from None
    flat = _Flat(data["modules"])
    flat.walk(top, "", {})
    rams = [c for c in flat.cells if c.type == ram_type]
    if not rams:
        return {"block_rams": 0, "placed": 0, "note": "no block RAM: nothing to place"}
    distance = flat.distances(set(flip_flops) | {ram_type})
    own = [c for c in rams if flat.instances[c.module] == 1]
    own.sort(key=lambda c: (distance.get(c.path, math.inf), c.path))
    sites = _snake(rows, len(own))
    if sites is None:
        total = sum(len(r) for r in rows)
        raise CipherfabError(f"--floorplan: {len(own)} block RAMs, the device has {total} sites")
    for c, site in zip(own, sites):
        data["modules"][c.module]["cells"][c.name].setdefault("attributes", {})["BEL"] = site
    netlist.write_text(json.dumps(data))
    used_rows = sorted({s.split("/")[1] for s in sites}, key=lambda y: int(y[1:]))
    return {"block_rams": len(rams), "placed": len(own), "left_to_placer": len(rams) - len(own),
            "rows": used_rows, "order": "register distance from the inputs, then name"}


def _snake(rows: list[list[str]], n: int) -> list[str] | None:
    """``n`` sites: the fewest adjacent rows that hold them (of those, the closest together),
    left to right in the first, right to left in the next, and so on."""
    if n == 0:
        return []
    width = len(rows[0])
    k = math.ceil(n / width)
    if k > len(rows):
        return None
    ys = [int(r[0].split("/")[1][1:]) for r in rows]
    first = min(range(len(rows) - k + 1), key=lambda i: (ys[i + k - 1] - ys[i], i))
    sites = []
    for j, row in enumerate(rows[first:first + k]):
        sites += row if j % 2 == 0 else row[::-1]
    return sites[:n]


def _control_pin(name: str) -> bool:
    """A primitive's clock, enable, reset or write-enable input (ECP5: CLK, LSR, CE; a
    DP16KD's CLKx, CEx, OCEx, RSTx, WEx, CSx; a DPR16X4's WCK, WRE), not its data."""
    n = name.upper()
    return n in ("LSR", "GSR", "WRE", "WCK") or n.startswith(("CLK", "CE", "OCE", "RST", "WE", "CS"))


def _leaf(module: dict) -> bool:
    """A library cell's model (Yosys writes the primitives it used as blackbox modules)."""
    attrs = module.get("attributes", {})
    return any(str(attrs.get(a, "0")).strip("0") for a in ("blackbox", "whitebox"))


class _Cell:
    __slots__ = ("module", "name", "path", "type", "inputs", "outputs")

    def __init__(self, module, name, path, type_, inputs, outputs):
        self.module, self.name, self.path, self.type = module, name, path, type_
        self.inputs, self.outputs = inputs, outputs


class _Flat:
    """The hierarchical netlist walked from the top: every leaf cell with its path and its
    nets as global numbers (a port's bits are its instance's nets)."""

    def __init__(self, modules: dict):
        self.modules, self.cells, self.next_net = modules, [], 0
        self.instances: dict[str, int] = defaultdict(int)
        self.inputs: set[int] = set()

    def _net(self, bits: dict, b) -> int | None:
        if not isinstance(b, int):
            return None                          # a constant
        if b not in bits:
            bits[b] = self.next_net
            self.next_net += 1
        return bits[b]

    def walk(self, name: str, prefix: str, bits: dict) -> None:
        module = self.modules[name]
        self.instances[name] += 1
        if not prefix:                           # the top: its input ports are the sources
            for port in module.get("ports", {}).values():
                if port["direction"] in ("input", "inout"):
                    self.inputs |= {n for b in port["bits"] if (n := self._net(bits, b)) is not None}
        for cname, cell in module.get("cells", {}).items():
            conns, dirs = cell.get("connections", {}), cell.get("port_directions", {})
            child = self.modules.get(cell["type"])
            if child is not None and not _leaf(child):
                inner: dict = {}
                for pname, port in child.get("ports", {}).items():
                    for ib, ob in zip(port["bits"], conns.get(pname, [])):
                        n = self._net(bits, ob)
                        if n is not None and isinstance(ib, int):
                            inner.setdefault(ib, n)
                self.walk(cell["type"], f"{prefix}{cname}.", inner)
                continue
            ins, outs = [], []
            for pname, pbits in conns.items():
                if _control_pin(pname):
                    continue                     # a clock or reset reaches every register at once
                nets = [n for b in pbits if (n := self._net(bits, b)) is not None]
                (outs if dirs.get(pname) == "output" else ins).extend(nets)
            self.cells.append(_Cell(name, cname, prefix + cname, cell["type"], ins, outs))

    def distances(self, registers: set[str]) -> dict[str, int]:
        """Each cell's register distance from the inputs (0-1 breadth-first: a register's
        outputs are one further than its inputs, logic's the same)."""
        sinks = defaultdict(list)
        for c in self.cells:
            for n in c.inputs:
                sinks[n].append(c)
        best: dict[int, int] = {n: 0 for n in self.inputs}
        at: dict[str, int] = {}
        queue = deque((n, 0) for n in self.inputs)
        while queue:
            n, d = queue.popleft()
            if d > best.get(n, math.inf):
                continue
            for c in sinks[n]:
                if d >= at.get(c.path, math.inf):
                    continue
                at[c.path] = d
                step = 1 if c.type in registers else 0
                for o in c.outputs:
                    if d + step < best.get(o, math.inf):
                        best[o] = d + step
                        (queue.append if step else queue.appendleft)((o, d + step))
        return at
