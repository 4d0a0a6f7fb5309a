"""Test designs for the robust probing model (tests/sim/test_robust.py): first-order masked
gadgets in Amaranth, each with its ports, its secrets' share ports and its fresh randomness.

- ``dom_and``: DOM-indep AND (Gross et al., 2016) with its internal register: the cross-domain
  products are remasked with ``r`` and registered before they meet the inner-domain ones.
  Robust first-order secure.
- ``dom_and_unregistered``: the same without the register: one LUT sees ``a0, b0, b1, r``
  (both shares of ``b``).  Settled values are all masked (passes a zero-delay test);
  a glitch shows ``a0 & b``: robust first order fails.
- ``linear_recombined``: a masked XOR ``y = x ^ w`` that computes ``x0 ^ x1 ^ w0 ^ r`` in one
  LUT before a register: settled masked, robust leaky.
- ``and_unmasked``: ``a & b`` on unshared inputs: leaks in every model.
"""

from amaranth import Elaboratable, Module, Signal
from amaranth.back import rtlil


class _Gadget(Elaboratable):
    def __init__(self, inputs, outputs, build):
        self.ins = {n: Signal(name=n) for n in inputs}
        self.outs = {n: Signal(name=n) for n in outputs}
        self._build = build

    def elaborate(self, platform):
        m = Module()
        self._build(m, self.ins, self.outs)
        return m


def _dom_and(m, i, o):
    q = {n: Signal(name=f"q_{n}") for n in ("00", "01", "10", "11")}
    m.d.sync += [q["00"].eq(i["a0"] & i["b0"]), q["01"].eq((i["a0"] & i["b1"]) ^ i["r"]),
                 q["10"].eq((i["a1"] & i["b0"]) ^ i["r"]), q["11"].eq(i["a1"] & i["b1"])]
    m.d.comb += [o["c0"].eq(q["00"] ^ q["01"]), o["c1"].eq(q["11"] ^ q["10"])]


def _dom_and_unregistered(m, i, o):
    m.d.sync += [o["c0"].eq((i["a0"] & i["b0"]) ^ (i["a0"] & i["b1"]) ^ i["r"]),
                 o["c1"].eq((i["a1"] & i["b1"]) ^ (i["a1"] & i["b0"]) ^ i["r"])]


def _linear_recombined(m, i, o):
    m.d.sync += [o["y0"].eq(i["x0"] ^ i["x1"] ^ i["w0"] ^ i["r"]), o["y1"].eq(i["w1"] ^ i["r"])]


def _and_unmasked(m, i, o):
    m.d.sync += o["c"].eq(i["a"] & i["b"])


#: name -> (inputs, outputs, build, secrets -> share ports, fresh randomness ports)
GADGETS = {
    "dom_and": (["a0", "a1", "b0", "b1", "r"], ["c0", "c1"], _dom_and,
                {"a": ["a0", "a1"], "b": ["b0", "b1"]}, ["r"]),
    "dom_and_unregistered": (["a0", "a1", "b0", "b1", "r"], ["c0", "c1"], _dom_and_unregistered,
                             {"a": ["a0", "a1"], "b": ["b0", "b1"]}, ["r"]),
    "linear_recombined": (["x0", "x1", "w0", "w1", "r"], ["y0", "y1"], _linear_recombined,
                          {"x": ["x0", "x1"], "w": ["w0", "w1"]}, ["r"]),
    "and_unmasked": (["a", "b"], ["c"], _and_unmasked, {"a": ["a"], "b": ["b"]}, []),
}


def gadget(name: str):
    """(RTLIL text, top module name, secrets, randomness ports) of one gadget."""
    inputs, outputs, build, secrets, randoms = GADGETS[name]
    g = _Gadget(inputs, outputs, build)
    text = rtlil.convert(g, name=name, ports=[*g.ins.values(), *g.outs.values()])
    return text, name, secrets, randoms


def wrapped(name: str, instance: str = "and0"):
    """A gadget as submodule ``instance`` of a top module ``top``: (RTLIL, top, secrets, randoms)."""
    inputs, outputs, build, secrets, randoms = GADGETS[name]
    inner = _Gadget(inputs, outputs, build)

    class Top(Elaboratable):
        def elaborate(self, platform):
            m = Module()
            m.submodules[instance] = inner
            return m
    text = rtlil.convert(Top(), name="top", ports=[*inner.ins.values(), *inner.outs.values()])
    return text, "top", secrets, randoms


def arithmetic():
    """(RTLIL, top) of an unmasked check design for the simulator: a registered 4-bit adder
    (CCU2C carry cells) and a 16-to-1 multiplexer (LUT4s into PFUMX and L6MUX21)."""
    class Arith(Elaboratable):
        def __init__(self):
            self.x, self.y, self.s = Signal(4, name="x"), Signal(4, name="y"), Signal(4, name="s")
            self.d, self.sum, self.m = Signal(16, name="d"), Signal(5, name="sum"), Signal(name="m")

        def elaborate(self, platform):
            m = Module()
            m.d.sync += [self.sum.eq(self.x + self.y), self.m.eq(self.d.bit_select(self.s, 1))]
            return m
    a = Arith()
    return rtlil.convert(a, name="arith", ports=[a.x, a.y, a.s, a.d, a.sum, a.m]), "arith"
