"""Where a routed cell comes from: the part of the core and the kept module it lies in.

Synthesis keeps the module of every declared part (and everything below it) as a
hierarchy of its own (see :mod:`.synth`), and nextpnr names each cell of the flattened
design after the instance path it came from: a cell of the key schedule's S-box module
of an AES core is ``core.key_schedule.subword.<name>``.  The synthesized netlist
(``netlist.json``) says which module each instance path is; the declared parts
(``DesignSource.parts``, module-name prefixes) say which part each module is.

A cell is labelled by its part and the kept instances below the part's outermost
instance: ``key_schedule``, ``key_schedule.subword``, ``datapath.sub_bytes``.  A cell
outside every kept instance lies in the top module.  For a generated core that is its
``control``: the core's own logic outside the declared parts (handshakes, counters,
selects), flattened into the top together with ``core``; the top module around ``core``
only renames ports, so no cell is the wrapper's (the area split counts these cells as
``unassigned``).  For an external core it is the part declared for the top module,
else ``unassigned``, as in the area split.

A flip-flop is named by the register it holds (:meth:`Where.register`): in the
synthesized netlist its output bit has every name the design gave that signal
(``y1_r0``, and the S-box's output port ``y``); the one the cell was named after is
taken (``y1_r0_TRELLIS_FF_Q_3`` holds ``y1_r0``) unless it is an anonymous ``$signal``,
else the plainest (:meth:`Where._names_of_bits`).
"""

from __future__ import annotations

import re

from .parse import part_of

CONTROL, UNASSIGNED = "control", "unassigned"
#: a net or cell name that synthesis made up from the cells around it
MADE_UP = re.compile(r"_(TRELLIS_FF|TRELLIS_COMB|LUT4|PFUMX|L6MUX21|CCU2C|DP16KD|MULT18X18D)_")
_FF_CELL = re.compile(r"(.+?)_TRELLIS_FF_Q(_\d+)?")


def instances(netlist: dict, top: str) -> dict[str, str]:
    """Every instance path of a design module under ``top`` (``core.key_schedule``) -> its module."""
    modules = netlist.get("modules", {})
    out: dict[str, str] = {}

    def walk(module: str, prefix: str, depth: int) -> None:
        for name, cell in modules.get(module, {}).get("cells", {}).items():
            sub = modules.get(cell.get("type"))
            if sub is None or "blackbox" in sub.get("attributes", {}) or depth > 100:
                continue
            out[prefix + name] = cell["type"]
            walk(cell["type"], f"{prefix}{name}.", depth + 1)

    walk(top, "", 0)
    return out


class Where:
    """Labels cells of one routed design: ``where(cell) -> (part, label)``."""

    def __init__(self, netlist: dict, top: str, parts: dict[str, str], generated: bool):
        self.modules = netlist.get("modules", {})
        self.top = top
        self.instances = instances(netlist, top)
        self.parts = parts
        self.top_part = CONTROL if generated else (part_of(top, parts) or UNASSIGNED)
        self._cache: dict[str, tuple[str, str]] = {}
        self._aliases: dict[str, dict] = {}

    def _instance(self, cell: str) -> str | None:
        """The longest instance path that ``cell`` is named under."""
        i = len(cell)
        while (i := cell.rfind(".", 0, i)) > 0:
            if cell[:i] in self.instances:
                return cell[:i]
        return None

    def _part(self, instance: str) -> str:
        return part_of(self.instances[instance], self.parts) or UNASSIGNED

    def __call__(self, cell: str) -> tuple[str, str]:
        if cell not in self._cache:
            self._cache[cell] = self._locate(cell)
        return self._cache[cell]

    def _locate(self, cell: str) -> tuple[str, str]:
        inst = self._instance(cell)
        if inst is None:
            return self.top_part, self.top_part
        part = self._part(inst)
        names = inst.split(".")
        root = next(i for i in range(1, len(names) + 1)
                    if ".".join(names[:i]) in self.instances and self._part(".".join(names[:i])) == part)
        return part, ".".join([part, *names[root:]])

    def _names_of_bits(self, module: str) -> dict:
        """bit -> [(name, index, width, rank)] of ``module``'s nets, built once per module; the
        lowest rank is the plainest name: not made up by synthesis, not hidden, no ``$``, not
        a port (a port is another name for a register inside), then the shortest."""
        if module not in self._aliases:
            index: dict = {}
            ports = self.modules.get(module, {}).get("ports", {})
            for name, net in self.modules.get(module, {}).get("netnames", {}).items():
                bits = net.get("bits", [])
                rank = (bool(MADE_UP.search(name)), net.get("hide_name", 0), "$" in name, name in ports, len(name))
                for i, bit in enumerate(bits):
                    index.setdefault(bit, []).append((name, i, len(bits), rank))
            self._aliases[module] = index
        return self._aliases[module]

    def register(self, cell: str) -> str | None:
        """``core.key_schedule.subword.y1_r0[5]`` for a flip-flop cell, or None if the
        synthesized netlist does not have it."""
        inst = self._instance(cell)
        module = self.instances[inst] if inst else self.top
        local = cell[len(inst) + 1:] if inst else cell
        found = self.modules.get(module, {}).get("cells", {}).get(local)
        bits = (found or {}).get("connections", {}).get("Q") or [None]
        names = self._names_of_bits(module).get(bits[0]) if found else None
        if not names:
            return None
        m = _FF_CELL.fullmatch(local)
        own = [n for n in names if m and n[0] == m.group(1) and not n[0].lstrip("\\").startswith("$")]
        name, i, width, _ = own[0] if own else min(names, key=lambda n: n[3])
        return (f"{inst}." if inst else "") + name + (f"[{i}]" if width > 1 else "")
