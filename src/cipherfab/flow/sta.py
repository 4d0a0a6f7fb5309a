"""Static timing analysis of a routed design from its SDF arcs: the worst register-to-register
paths, one per end register.

Theory of operation.  The arcs of :mod:`.sdf` form a graph whose nodes are cell pins.  A
path starts where a clock edge launches data (a clocked ``IOPATH``: a flip-flop's
clock-to-Q, a block RAM's clock-to-output), alternates net arcs (routing) and cell arcs
(logic), and ends at a pin with a setup check (a flip-flop's D, CE, LSR or M input, a block
RAM's address, data or enable input).  Visiting the pins in topological order from the
launch points gives each pin its latest arrival and the arc that brought it; an end pin's
path delay is its arrival plus its setup time, which is what nextpnr's own critical-path
report adds up (clock-to-Q, then each cell and net, then setup).  The pins of each end
cell are taken together and the cells ranked by their worst pin; walking the arcs back
from a pin gives its path.  Pins on a combinational loop (none in a synchronous design)
are never ready in the topological order and stay without an arrival.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

from .sdf import Arc, Timing


@dataclass
class TimedPath:
    """A path as its arcs in order: the ``launch`` arc, then ``net`` and ``cell`` arcs, then
    a ``setup`` arc from the end pin to its clock pin, whose delay is the setup time."""

    steps: list[Arc]

    @property
    def delay_ns(self) -> float:
        return sum(s.delay_ns for s in self.steps)

    @property
    def routing_ns(self) -> float:
        return sum(s.delay_ns for s in self.steps if s.kind == "net")

    @property
    def logic_ns(self) -> float:
        return self.delay_ns - self.routing_ns

    @property
    def start(self) -> Arc:
        return self.steps[0]

    @property
    def end(self) -> Arc:
        return self.steps[-1]


def _arrivals(t: Timing, in_domain) -> tuple[dict, dict]:
    """(latest arrival in ns, the arc that set it) for every pin data reaches from a launch
    whose clock pin ``in_domain(cell, pin)`` accepts."""
    out_arcs: dict[tuple, list[Arc]] = defaultdict(list)
    for arc in t.cell_arcs:
        if arc.kind != "launch":
            out_arcs[arc.src].append(arc)
    for arc in t.net_arcs:
        out_arcs[arc.src].append(arc)
    arrival: dict[tuple, float] = {}
    came_by: dict[tuple, Arc] = {}
    for arc in t.cell_arcs:
        if arc.kind == "launch" and in_domain(*arc.src) and arc.delay_ns >= arrival.get(arc.dst, -1.0):
            arrival[arc.dst], came_by[arc.dst] = arc.delay_ns, arc
    reached, todo = set(arrival), deque(arrival)
    while todo:
        for arc in out_arcs.get(todo.popleft(), ()):
            if arc.dst not in reached:
                reached.add(arc.dst)
                todo.append(arc.dst)
    waiting = defaultdict(int)
    for pin in reached:
        for arc in out_arcs.get(pin, ()):
            waiting[arc.dst] += 1
    ready = deque(p for p in arrival if not waiting[p])
    while ready:
        pin = ready.popleft()
        for arc in out_arcs.get(pin, ()):
            a = arrival[pin] + arc.delay_ns
            if a > arrival.get(arc.dst, -1.0):
                arrival[arc.dst], came_by[arc.dst] = a, arc
            waiting[arc.dst] -= 1
            if not waiting[arc.dst]:
                ready.append(arc.dst)
    return arrival, came_by


def _walk_back(pin: tuple, came_by: dict) -> list[Arc]:
    arcs: list[Arc] = []
    while pin in came_by:
        arc = came_by[pin]
        arcs.append(arc)
        if arc.kind == "launch":
            break
        pin = arc.src
    return arcs[::-1]


def _any_clock(cell: str, pin: str) -> bool:
    return True


def worst_paths(t: Timing, n: int, in_domain=_any_clock) -> list[TimedPath]:
    """The ``n`` worst register-to-register paths, each ending at a different cell, worst first.

    ``in_domain(cell, clock_pin)`` keeps the launches and captures of one clock (a design
    with two clocks is analysed per clock, as nextpnr reports it); by default every one."""
    arrival, came_by = _arrivals(t, in_domain)
    best: dict[str, tuple[float, tuple]] = {}
    for pin, setup in t.setup_ns.items():
        if pin in arrival and in_domain(pin[0], t.clock_pins.get(pin, "")):
            total = arrival[pin] + setup
            if pin[0] not in best or total > best[pin[0]][0]:
                best[pin[0]] = (total, pin)
    ranked = sorted(best.values(), key=lambda v: (-v[0], v[1]))[:n]
    out = []
    for _, pin in ranked:
        setup = Arc(pin, (pin[0], t.clock_pins.get(pin, "")), t.setup_ns[pin], "setup")
        out.append(TimedPath(_walk_back(pin, came_by) + [setup]))
    return out
