"""Read the timing-annotated SDF that nextpnr writes for a routed design (``--sdf FILE``).

An SDF file (IEEE 1497) is one S-expression.  nextpnr writes, per placed cell, a
``(CELL (CELLTYPE ..) (INSTANCE name) (DELAY (ABSOLUTE (IOPATH in out (rise) (fall)) ..))
(TIMINGCHECK (SETUPHOLD pin (posedge clk) (setup) (hold)) ..))`` block, and one block for
the top level whose ``INTERCONNECT src/pin dst/pin (rise) (fall)`` entries are the routed
delay of every net from its driver to each sink.  A clocked output arc is written with
its edge or without (nextpnr writes ``(IOPATH CLK Q ..)``): an arc from a clock pin is a
launch.  A cell type's clock pins are those its timing checks name as clock
(``(SETUPHOLD (posedge DI) (posedge CLK) ..)``), and the clock pins of the ECP5 and iCE40
primitives (:data:`CLOCK_PINS`) for a pin no check of the design names.

Each delay triple is ``min:typ:max`` in the file's ``TIMESCALE`` (nextpnr: 1 ps); setup
analysis uses the slowest value, so an arc's delay here is the largest ``max`` of its
rise and fall triples, in ns.  Names are SDF identifiers: every character other than a
letter, digit or ``_`` may be escaped with a backslash, and the ``DIVIDER`` character
separates a cell name from its pin in ``INTERCONNECT``; :func:`unescape` gives the names
back as nextpnr's own (as in its ``--write`` JSON).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import CipherfabError

_TOKEN = re.compile(r'\(|\)|"[^"]*"|(?:\\.|[^\s()"\\])+')
#: clock inputs of ECP5 (TRELLIS_FF, DP16KD, LUT-RAM) and iCE40 (ICESTORM_LC, ICESTORM_RAM) cells
CLOCK_PINS = frozenset({"CLK", "CLKA", "CLKB", "WCK", "RCLK", "WCLK"})
_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0, "ps": 1e-3, "fs": 1e-6}


@dataclass
class Arc:
    """One timing arc of a cell (``IOPATH``) or a net (``INTERCONNECT``), delay in ns."""

    src: tuple[str, str]        # (cell, pin)
    dst: tuple[str, str]
    delay_ns: float
    kind: str = "cell"  # "cell", "net", "launch" (a clock edge starts it: clock-to-Q), "setup"


@dataclass
class Timing:
    """What one SDF says: cell types, cell arcs, net arcs and setup times per checked pin."""

    cell_types: dict[str, str] = field(default_factory=dict)
    cell_arcs: list[Arc] = field(default_factory=list)
    net_arcs: list[Arc] = field(default_factory=list)
    setup_ns: dict[tuple[str, str], float] = field(default_factory=dict)  # data pin -> setup
    clock_pins: dict[tuple[str, str], str] = field(default_factory=dict)  # data pin -> its clock pin


def unescape(name: str) -> str:
    """``core\\.ks\\$12`` -> ``core.ks$12``."""
    return re.sub(r"\\(.)", r"\1", name)


def _scale_ns(timescale: list) -> float:
    """ns per SDF time unit: ``(TIMESCALE 1ps)`` or ``(TIMESCALE 1 ps)`` -> 0.001."""
    m = re.fullmatch(r"([\d.]+)\s*([a-z]+)", "".join(timescale[1:]))
    if not m or m.group(2) not in _UNITS:
        raise CipherfabError(f"SDF: unknown TIMESCALE {' '.join(timescale[1:])}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _value(triples: list, scale: float) -> float:
    """Largest max of the delay triples ``(min:typ:max)`` (``()`` and ``(v)`` allowed)."""
    best = 0.0
    for t in triples:
        for atom in t if isinstance(t, list) else [t]:
            fields = [f for f in str(atom).split(":") if f]
            if fields:
                best = max(best, float(fields[-1]))
    return best * scale


def _pin(atom) -> tuple[str, bool]:
    """A port spec: ``A`` or ``(posedge CLK)`` -> (name, clocked)."""
    if isinstance(atom, list):
        return unescape(atom[-1]), atom[0].lower() in ("posedge", "negedge")
    return unescape(atom), False


def _split(atom: str, divider: str) -> tuple[str, str]:
    """``cell/pin`` at the last unescaped divider -> (cell, pin), both unescaped."""
    i = len(atom)
    while True:
        i = atom.rfind(divider, 0, i)
        if i <= 0:
            raise CipherfabError(f"SDF: no cell/pin divider in {atom!r}")
        slashes = len(atom[:i]) - len(atom[:i].rstrip("\\"))
        if slashes % 2 == 0:
            return unescape(atom[:i]), unescape(atom[i + 1:])


class _Reader:
    """Reads the S-expression token by token, handling each arc, check and cell name as its
    list closes and keeping no list longer than that: a routed design's SDF runs to tens of
    megabytes, and the whole tree would hold every token at once."""

    #: lists whose contents were handled already: dropped instead of kept in their parent
    HANDLED = frozenset({"CELL", "DELAY", "ABSOLUTE", "INCREMENT", "TIMINGCHECK", "IOPATH",
                         "INTERCONNECT", "SETUPHOLD", "SETUP", "HOLD", "CELLTYPE", "INSTANCE"})

    def __init__(self):
        self.t = Timing()
        self.scale, self.divider, self.cell, self.cell_type = 1.0, "/", "", ""

    def closed(self, item: list) -> bool:
        """Handle a list that just closed; True if it is to be dropped."""
        head = item[0] if item and isinstance(item[0], str) else None
        if head == "TIMESCALE":
            self.scale = _scale_ns(item)
        elif head == "DIVIDER" and len(item) > 1:
            self.divider = item[1]
        elif head == "CELLTYPE":
            self.cell_type = item[1].strip('"') if len(item) > 1 else ""
        elif head == "INSTANCE":
            self.cell = unescape(item[1]) if len(item) > 1 else ""
            if self.cell:
                self.t.cell_types[self.cell] = self.cell_type
        elif head == "IOPATH":
            (src, clocked), (dst, _) = _pin(item[1]), _pin(item[2])
            self.t.cell_arcs.append(Arc((self.cell, src), (self.cell, dst), _value(item[3:], self.scale),
                                        "launch" if clocked else "cell"))
        elif head == "INTERCONNECT":
            self.t.net_arcs.append(Arc(_split(item[1], self.divider), _split(item[2], self.divider),
                                       _value(item[3:], self.scale), "net"))
        elif head in ("SETUPHOLD", "SETUP"):
            key, (clock, _) = (self.cell, _pin(item[1])[0]), _pin(item[2])
            self.t.setup_ns[key] = max(self.t.setup_ns.get(key, 0.0), _value(item[3:4], self.scale))
            self.t.clock_pins[key] = clock
        return head in self.HANDLED

    def read(self, text: str) -> Timing:
        stack: list[list] = [[]]
        for m in _TOKEN.finditer(text):
            tok = m.group()
            if tok == "(":
                stack.append([])
            elif tok == ")":
                if len(stack) < 2:
                    raise CipherfabError("SDF: unbalanced ')'")
                done = stack.pop()
                if not self.closed(done):
                    stack[-1].append(done)
            else:
                if len(stack) == 2 and not stack[1] and tok != "DELAYFILE":
                    raise CipherfabError("SDF: the file does not start with (DELAYFILE")
                stack[-1].append(tok)
        if len(stack) != 1 or len(stack[0]) != 1 or not isinstance(stack[0][0], list):
            raise CipherfabError("SDF: not one balanced (DELAYFILE ...) expression")
        if stack[0][0][:1] != ["DELAYFILE"]:
            raise CipherfabError("SDF: the file does not start with (DELAYFILE")
        return self.t


def parse(text: str) -> Timing:
    """The arcs and checks of one SDF file's text."""
    t = _Reader().read(text)
    clocks: dict[str, set] = {}
    for (cell, _), clock in t.clock_pins.items():
        clocks.setdefault(t.cell_types.get(cell, ""), set()).add(clock)
    for arc in t.cell_arcs:
        pin = arc.src[1]
        if pin in CLOCK_PINS or pin in clocks.get(t.cell_types.get(arc.src[0], ""), ()):
            arc.kind = "launch"
    return t
