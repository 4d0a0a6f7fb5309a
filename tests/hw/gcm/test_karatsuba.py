"""hw.gcm.karatsuba: nine 32 x 32 products recombined equal the 128 x 128 carry-less
product (random operands, and the extreme ones), through Amaranth's simulator."""

import random

import pytest
from amaranth.hdl import Cat, Module, Signal
from amaranth.sim import Simulator

from cipherfab.hw.gcm.ghash import clmul
from cipherfab.hw.gcm.karatsuba import PARTS, operands, product


def clmul_int(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = a << 1, b >> 1
    return r


def test_nine_products_recombine_to_the_full_one():
    m = Module()
    a, b = Signal(128), Signal(128)
    out = Signal(255)
    pa, pb = operands(a), operands(b)
    m.d.comb += out.eq(product([clmul(x, y) for x, y in zip(pa, pb)]))
    rng = random.Random(37)
    pairs = [(0, 0), ((1 << 128) - 1, (1 << 128) - 1), (1, 1 << 127), (1 << 127, 1 << 127)]
    pairs += [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(200)]

    async def tb(ctx):
        for x, y in pairs:
            ctx.set(a, x)
            ctx.set(b, y)
            assert ctx.get(out) == clmul_int(x, y), (hex(x), hex(y))

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


def test_the_parts_are_nine_of_32_bits_and_product_wants_nine():
    assert [len(p) for p in operands(Signal(128))] == [32] * PARTS
    with pytest.raises(ValueError, match="need 9 products, not 8"):
        product([Signal(63)] * 8)
