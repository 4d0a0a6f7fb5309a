"""hw.gcm.ghash_table: the tables the fill writes (every entry, every table, against
gf128.mul), a reset and a zero H leaving no multiple of H behind, a clear in the middle of
a fill or a multiply, and the style the GCM layer picks for a core."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.hw.gcm.gcm import ghash_for
from cipherfab.hw.gcm.gf128 import BITS, ghash, mul, reverse
from cipherfab.hw.gcm.ghash_table import DIGITS, ENTRIES, FILL_CLOCKS, TableGHASH


def _run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def _entry(h: int, t: int, b: int) -> int:
    """T_t[b] = b(a) . a^(8t) . H, in the ports' bit order (b reflected: bit i is a^i)."""
    poly = 0
    for i in range(8):
        if b >> i & 1:
            poly |= 1 << (127 - (8 * t + i))         # a^(8t+i), GCM bit order
    return mul(poly, h)


def _tables(ctx, dut):
    return [[ctx.get(mem.data[b]) for b in range(ENTRIES)] for mem in dut.table_memories]


@pytest.mark.parametrize("digit", DIGITS)
def test_the_fill_writes_every_entry_of_every_table(digit):
    dut = TableGHASH(digit)
    h = random.Random(digit).getrandbits(128)

    async def tb(ctx):
        ctx.set(dut.h, h)
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        clocks = 0
        while ctx.get(dut.busy):
            await ctx.tick()
            clocks += 1
        assert clocks == FILL_CLOCKS
        for t, table in enumerate(_tables(ctx, dut)):
            assert [reverse(v, BITS) for v in table] == [_entry(h, t, b) for b in range(ENTRIES)], t
    _run(dut, tb)


def test_a_reset_and_a_zero_h_leave_no_multiple_of_h():
    dut = TableGHASH(16)
    h = random.Random(3).getrandbits(128)

    async def tb(ctx):
        for _ in range(FILL_CLOCKS + 1):        # out of reset: the tables filled from h = 0
            await ctx.tick()
        assert not ctx.get(dut.busy)
        assert all(v == 0 for table in _tables(ctx, dut) for v in table)
        ctx.set(dut.h, h)
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        await ctx.tick().until(~dut.busy)
        assert any(v for table in _tables(ctx, dut) for v in table)
        ctx.set(dut.h, 0)                       # the GCM layer's clear after the tag
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        await ctx.tick().until(~dut.busy)
        assert all(v == 0 for table in _tables(ctx, dut) for v in table)
    _run(dut, tb)


@pytest.mark.parametrize("when", [0, 1, 2, 3, 100, FILL_CLOCKS - 1, FILL_CLOCKS + 4])
def test_a_clear_in_a_fill_or_a_multiply_starts_afresh(when):
    """A second clear ``when`` clocks after the first (with another H): mid-fill, or while a
    block is being multiplied; the message after it hashes under the new H."""
    dut = TableGHASH(16)
    rng = random.Random(when)
    h1, h2 = rng.getrandbits(128), rng.getrandbits(128)
    blocks = [rng.getrandbits(128) for _ in range(3)]

    async def tb(ctx):
        ctx.set(dut.h, h1)
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        ctx.set(dut.block.valid, 1)
        ctx.set(dut.block.payload, rng.getrandbits(128))
        for _ in range(when):
            await ctx.tick()
        ctx.set(dut.block.valid, 0)
        ctx.set(dut.h, h2)
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        assert ctx.get(dut.y) == 0
        for x in blocks:
            ctx.set(dut.block.valid, 1)
            ctx.set(dut.block.payload, x)
            await ctx.tick().until(dut.block.ready)
            await ctx.tick()
        ctx.set(dut.block.valid, 0)
        await ctx.tick().until(~dut.busy)
        assert ctx.get(dut.y) == ghash(h2, blocks)
    _run(dut, tb)


@pytest.mark.parametrize("cycles, free, want", [
    (10, None, ("table", 16)), (14, None, ("table", 16)), (17, None, ("table", 8)),
    (5, None, ("table", 32)), (4, None, ("digit", 32)), (1, None, ("aggregated", 8)),
    (10, 7, ("digit", 16)), (10, 8, ("table", 16)), (20, 4, ("table", 8)), (20, 3, ("digit", 8)),
    (6, 15, ("digit", 32)),
])
def test_the_layer_picks_tables_that_keep_up_and_fit(cycles, free, want):
    assert ghash_for(cycles, free) == want


def test_the_system_picks_tables_for_the_iterative_core():
    from cipherfab.generate import make_core
    from cipherfab.hw.system.accelerator import Accelerator
    from cipherfab.registry import resolve
    core = make_core(resolve("aes", "iterative", key_bits=128, sbox="rom"))
    acc = Accelerator(core, depth=512)
    core._MustUse__silence = acc._MustUse__silence = True     # asked, not built
    assert acc.ghash == ("table", 16)
