"""The 32x32 multiply keeping the low 32 bits (RC6, MARS): the one place its style is chosen.

Theory of operation
-------------------
RC6 (``B(2B+1)``, ``D(2D+1)``) and MARS (the E function's ``(x <<< 13) · K``) use
the product of two 32-bit words mod 2^32.  :func:`mul_low` builds it in one of
:data:`STYLES`:

``dsp``
    Amaranth's ``*`` (an ``$mul`` cell), cut to the low bits.  Yosys' ``synth_ecp5``
    maps it onto MULT18X18D blocks (a 32x32 product takes several, plus the adders
    that join their partial products).
``logic``
    paper 000's multiplier "that computes partial results in parallel and outputs
    only the required 32 bits": partial product ``i`` is ``a[0 : n-i] & b[i]``
    (weight 2^i; the bits it would put above bit n-1 are never built), and the n
    partial products are summed in a balanced tree of two-input adders written out
    here, so the netlist holds no ``$mul`` cell and Yosys infers no DSP block.  Each
    tree node keeps its weight ``s`` and only bits ``s .. n-1``: adding terms of
    weights ``s1 <= s2``, the bits of the first below ``s2`` pass through and the
    adder is ``n - s2`` bits wide (1 + 2 + ... + n-1 adder bits in the first level
    instead of n each).  Depth: log2(n) = 5 carry chains.  Every tree node is a
    named signal (``<name>_l<level>_<k>``), so the Verilog shows the tree.

Both styles are combinational (no register), so a core's cycle counts do not
depend on the style.  Operands wider than ``width`` are cut (the low bits of the
product only depend on the low bits of the operands); the ``dsp`` style leaves
them as given, so a core whose operand is ``Cat(1, x)`` (33 bits) generates the
same Verilog as before this module existed.

Checks: tests/hw/test_mul.py simulates both styles on edge cases and random
words against Python's ``(a * b) % 2**32``.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..errors import CipherfabError
from ..registry import Param

STYLES = ("dsp", "logic")
#: the registry parameter every core with this multiplier declares (RC6, MARS: one --mul);
#: a quiet default, so RC6's names and Verilog from before the option stay as they were
PARAM = Param("mul", STYLES, "dsp",
              "32x32 multiplier (low 32 bits): dsp (Amaranth '*', mapped onto ECP5 MULT18X18D "
              "blocks) or logic (paper 000's partial-product multiplier: AND terms summed in an "
              "explicit adder tree, only the terms the low 32 bits need; no DSP blocks)",
              quiet_default=True)


def check_style(style: str) -> None:
    """Refuse a style that is not one of :data:`STYLES`, in one line."""
    if style not in STYLES:
        raise CipherfabError(f"multiplier style {style!r} is not supported; choose from "
                             f"{', '.join(STYLES)}")


def mul_low(m: Module | None, a, b, style: str = "dsp", width: int = 32, name: str = "mul") -> Value:
    """``(a · b) mod 2**width`` as a value, built in ``style`` (``m`` takes the ``logic``
    style's named tree nodes; the ``dsp`` style adds nothing to ``m``)."""
    check_style(style)
    a, b = Value.cast(a), Value.cast(b)
    if style == "dsp":
        return (a * b)[:width]
    if m is None:
        raise CipherfabError("the logic multiplier needs a module for its adder tree")
    n = width
    # (weight s, value of bits s .. n-1)
    terms = [(i, a[:n - i] & b[i].replicate(n - i)) for i in range(min(n, len(b)))]
    level = 0
    while len(terms) > 1:
        nxt = []
        for k in range(0, len(terms) - 1, 2):
            (s1, x), (s2, y) = terms[k], terms[k + 1]       # s1 < s2
            node = Signal(n - s1, name=f"{name}_l{level}_{k // 2}")
            low = x[:s2 - s1]
            m.d.comb += node.eq(Cat(low, (x[s2 - s1:] + y)[:n - s2]) if s2 > s1 else x + y)
            nxt.append((s1, node))
        if len(terms) % 2:
            nxt.append(terms[-1])
        terms, level = nxt, level + 1
    s, v = terms[0]                                         # the weight-0 term's tree: s == 0
    return v[:n]


class Multiplier(wiring.Component):
    """``p = (a · b) mod 2**width``, combinational, in ``style`` (a unit for tests and reuse)."""

    def __init__(self, style: str = "dsp", width: int = 32):
        check_style(style)
        self.style, self.width = style, width
        super().__init__({"a": In(width), "b": In(width), "p": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.p.eq(mul_low(m, self.a, self.b, self.style, self.width))
        return m
