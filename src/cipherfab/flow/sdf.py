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


def _tree(text: str) -> list:
    """The S-expression as nested lists of strings (atoms still escaped)."""
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) < 2:
                raise CipherfabError("SDF: unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1 or len(stack[0]) != 1 or not isinstance(stack[0][0], list):
        raise CipherfabError("SDF: not one balanced (DELAYFILE ...) expression")
    return stack[0][0]


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


def _cell(block: list, t: Timing, scale: float, divider: str) -> None:
    entries = {e[0]: e for e in block[1:] if isinstance(e, list) and e}
    ctype = entries.get("CELLTYPE", [None, '""'])[1].strip('"')
    inst = entries.get("INSTANCE", ["INSTANCE"])
    name = unescape(inst[1]) if len(inst) > 1 else ""
    if name:
        t.cell_types[name] = ctype
    for delay in (e for e in block[1:] if isinstance(e, list) and e and e[0] == "DELAY"):
        for kind in delay[1:]:
            for arc in kind[1:]:
                if arc[0] == "IOPATH":
                    (src, clocked), (dst, _) = _pin(arc[1]), _pin(arc[2])
                    t.cell_arcs.append(Arc((name, src), (name, dst), _value(arc[3:], scale),
                                           "launch" if clocked else "cell"))
                elif arc[0] == "INTERCONNECT":
                    t.net_arcs.append(Arc(_split(arc[1], divider), _split(arc[2], divider),
                                          _value(arc[3:], scale), "net"))
    for check in (e for e in block[1:] if isinstance(e, list) and e and e[0] == "TIMINGCHECK"):
        for c in check[1:]:
            if c[0] in ("SETUPHOLD", "SETUP"):
                pin, _ = _pin(c[1])
                clock, _ = _pin(c[2])
                key = (name, pin)
                t.setup_ns[key] = max(t.setup_ns.get(key, 0.0), _value(c[3:4], scale))
                t.clock_pins[key] = clock


def parse(text: str) -> Timing:
    """The arcs and checks of one SDF file's text."""
    tree = _tree(text)
    if not tree or tree[0] != "DELAYFILE":
        raise CipherfabError("SDF: the file does not start with (DELAYFILE")
    head = {e[0]: e for e in tree[1:] if isinstance(e, list) and e and e[0] != "CELL"}
    scale = _scale_ns(head["TIMESCALE"]) if "TIMESCALE" in head else 1.0
    divider = head["DIVIDER"][1] if "DIVIDER" in head and len(head["DIVIDER"]) > 1 else "/"
    t = Timing()
    for block in tree[1:]:
        if isinstance(block, list) and block and block[0] == "CELL":
            _cell(block, t, scale, divider)
    clocks: dict[str, set] = {}
    for (cell, _), clock in t.clock_pins.items():
        clocks.setdefault(t.cell_types.get(cell, ""), set()).add(clock)
    for arc in t.cell_arcs:
        pin = arc.src[1]
        if pin in CLOCK_PINS or pin in clocks.get(t.cell_types.get(arc.src[0], ""), ()):
            arc.kind = "launch"
    return t
