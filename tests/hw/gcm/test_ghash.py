"""hw.gcm.ghash: every multiplier style against gf128.mul (random and basis operands, exact
cycle counts) and the GF(2^8) instance of the same generator on all 65536 operand pairs."""

import random

import pytest
from amaranth.hdl import Cat, Const, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from cipherfab.errors import CipherfabError
from cipherfab.hw.gf import gf256_mul
from cipherfab.hw.gcm.gf128 import GCM, Field, mul, reverse
from cipherfab.hw.gcm.ghash import DIGITS, GF128Mul, check

BASIS = [0, 1, 2, 7, 8, 63, 64, 120, 126, 127]


def operands(seed: int, count: int):
    rng = random.Random(seed)
    out = [(1 << i, 1 << j) for i in BASIS for j in BASIS]
    out += [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(count)]
    return out + [(0, 0), (2 ** 128 - 1, 2 ** 128 - 1), (1 << 127, 2 ** 128 - 1)]


def run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def test_parallel_one_product_per_clock():
    dut, cases = GF128Mul(), operands(1, 200)

    async def tb(ctx):
        before = 0
        for k, (x, h) in enumerate(cases):
            ctx.set(dut.x, x)
            ctx.set(dut.h, h)
            ctx.set(dut.valid_in, k % 3 != 1)
            assert ctx.get(dut.y) == before            # registered: new operands not seen yet
            await ctx.tick()
            assert ctx.get(dut.valid_out) == (k % 3 != 1)
            assert ctx.get(dut.y) == mul(x, h), (hex(x), hex(h))
            before = mul(x, h)

    run(dut, tb)


@pytest.mark.parametrize("digit", DIGITS)
def test_digit_serial_exact_cycles(digit):
    dut, cases = GF128Mul("digit", digit), operands(digit, 50)
    n = 128 // digit
    assert dut.cycles == n

    async def tb(ctx):
        ctx.set(dut.start, 1)
        for k, (x, h) in enumerate(cases):
            ctx.set(dut.x, x)
            ctx.set(dut.h, h)
            ctx.set(dut.start, 1)
            await ctx.tick()
            # inputs change while the product is computed: only the sampled ones count
            ctx.set(dut.x, x ^ 0x5A5A)
            ctx.set(dut.h, ~h & (2 ** 128 - 1))
            ctx.set(dut.start, k % 2)                # ignored while busy
            for _ in range(n - 1):
                assert ctx.get(dut.busy) and not ctx.get(dut.done)
                await ctx.tick()
            assert ctx.get(dut.done) and not ctx.get(dut.busy)
            assert ctx.get(dut.y) == mul(x, h), (k, hex(x), hex(h))
            if k % 5 == 4:                           # an idle clock: y holds, done drops
                ctx.set(dut.start, 0)
                await ctx.tick()
                assert not ctx.get(dut.done) and ctx.get(dut.y) == mul(x, h)

    run(dut, tb)


@pytest.mark.parametrize("style,digit", [("ghash", None), ("parallel", 8), ("digit", None),
                                         ("digit", 12), ("digit", 128), ("digit", 4)])
def test_refused(style, digit):
    with pytest.raises(CipherfabError):
        check(style, digit, GCM)


# --- GF(2^8), x^8 + x^4 + x^3 + x + 1, reflected bit order: every operand pair -------------

AES = Field(8, 0x11B)
LANE_BITS = 4                                         # 16 multipliers side by side


def expected8(x: int, h: int) -> int:
    """The AES-field product (hw.gf, written independently) in the reflected bit order."""
    return reverse(gf256_mul(reverse(x, 8), reverse(h, 8), 0x11B), 8)


class Lanes(wiring.Component):
    """16 GF(2^8) multipliers, lane l taking ``x = xh || l`` and the shared ``h``."""

    def __init__(self, style: str, digit: int | None):
        self.style, self.digit = style, digit
        super().__init__({"xh": In(8 - LANE_BITS), "h": In(8), "go": In(1),
                          "ys": Out(8 << LANE_BITS), "ready": Out(1)})

    def elaborate(self, platform):
        m = Module()
        units = [GF128Mul(self.style, self.digit, AES) for _ in range(1 << LANE_BITS)]
        for lane, u in enumerate(units):
            m.submodules[f"lane{lane}"] = u
            m.d.comb += [u.x.eq(Cat(Const(lane, LANE_BITS), self.xh)), u.h.eq(self.h)]
            m.d.comb += (u.valid_in if self.style == "parallel" else u.start).eq(self.go)
        u = units[0]
        m.d.comb += [self.ys.eq(Cat(*(u.y for u in units))),
                     self.ready.eq(u.valid_out if self.style == "parallel" else u.done)]
        return m


@pytest.mark.parametrize("style,digit", [("parallel", None), ("digit", 2),
                                         pytest.param("digit", 1, marks=pytest.mark.slow),
                                         pytest.param("digit", 4, marks=pytest.mark.slow)])
def test_gf256_instance_every_pair(style, digit):
    dut = Lanes(style, digit)
    cycles = 1 if digit is None else 8 // digit
    checked = set()

    async def tb(ctx):
        for xh in range(1 << (8 - LANE_BITS)):
            ctx.set(dut.xh, xh)
            for h in range(256):
                ctx.set(dut.h, h)
                ctx.set(dut.go, 1)
                await ctx.tick()
                ctx.set(dut.go, 0)
                for _ in range(cycles - 1):
                    await ctx.tick()
                assert ctx.get(dut.ready)
                ys = ctx.get(dut.ys)
                for lane in range(1 << LANE_BITS):
                    x = xh << LANE_BITS | lane
                    assert (ys >> 8 * lane) & 0xFF == expected8(x, h), (x, h)
                    checked.add((x, h))

    run(dut, tb)
    assert len(checked) == 65536
