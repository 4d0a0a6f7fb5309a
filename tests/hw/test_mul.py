"""hw.mul: both multiplier styles against Python's (a * b) mod 2**32."""

import random

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.sim import Simulator

from cipherfab.errors import CipherfabError
from cipherfab.hw.mul import STYLES, Multiplier, mul_low

MASK = 0xFFFFFFFF
EDGES = [0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, MASK, 0x55555555,
         0xAAAAAAAA, 0x0000FFFF, 0xFFFF0000, 0x00010001, 0x12345678, 0x9E3779B9]


def pairs(seed: int, n: int):
    rng = random.Random(seed)
    out = [(a, b) for a in EDGES for b in EDGES]
    out += [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(n)]
    out += [(1 << rng.randrange(32), rng.getrandbits(32)) for _ in range(n // 10)]
    return out


def simulate(dut, stimulus):
    async def tb(ctx):
        for a, b in stimulus:
            ctx.set(dut.a, a)
            ctx.set(dut.b, b)
            await ctx.delay(1e-6)
            assert ctx.get(dut.p) == (a * b) & MASK, (hex(a), hex(b))

    sim = Simulator(dut)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("style", STYLES)
def test_style_matches_python(style):
    simulate(Multiplier(style), pairs(seed=5, n=1500))


def test_logic_style_has_no_mul_cell_and_dsp_style_has_one():
    texts = {s: rtlil.convert(Multiplier(s)) for s in STYLES}
    assert "$mul" in texts["dsp"]
    assert "$mul" not in texts["logic"]
    assert "mul_l4_0" in texts["logic"]             # the tree's root: 32 terms, 5 levels


def test_rc6_operand_shape():
    # RC6 multiplies B by Cat(1, B) (33 bits): both styles give B(2B+1) mod 2**32
    for style in STYLES:
        m = Module()
        x, p = Signal(32), Signal(32)
        m.d.comb += p.eq(mul_low(m, x, Cat(Const(1, 1), x), style))

        async def tb(ctx, rng=random.Random(3)):
            for v in EDGES + [rng.getrandbits(32) for _ in range(300)]:
                ctx.set(x, v)
                await ctx.delay(1e-6)
                assert ctx.get(p) == (v * (2 * v + 1)) & MASK

        sim = Simulator(m)
        sim.add_testbench(tb)
        sim.run()


def test_unknown_style_is_refused():
    with pytest.raises(CipherfabError, match="multiplier style 'booth' is not supported"):
        mul_low(None, Signal(32), Signal(32), "booth")
