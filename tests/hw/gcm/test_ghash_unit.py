"""hw.gcm.ghash_unit: GHASH over a block stream, every multiplier style, against gf128.ghash
(random messages with random gaps, empty ones, clears between them) and exact clocks per
block when blocks are offered back to back."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.errors import CipherfabError
from cipherfab.hw.gcm.gf128 import ghash, ghash_input
from cipherfab.hw.gcm.ghash import DIGITS
from cipherfab.hw.gcm.ghash_unit import GHASH

from cipherfab.hw.gcm.ghash_aggregated import LANES
from cipherfab.hw.gcm.ghash_table import DIGITS as TABLE_DIGITS

STYLES = ([("parallel", None)] + [("digit", d) for d in DIGITS] + [("aggregated", n) for n in LANES]
          + [("table", d) for d in TABLE_DIGITS])


def run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


async def clear(ctx, dut, h, count=0):
    ctx.set(dut.h, h)
    ctx.set(dut.count, count)
    ctx.set(dut.clear, 1)
    await ctx.tick()
    ctx.set(dut.clear, 0)


async def send(ctx, dut, blocks, rng=None):
    """Offer ``blocks`` (with random idle clocks when ``rng``); the clock each was taken."""
    taken = []
    clock = 0
    for x in blocks:
        while rng is not None and rng.random() < 0.3:
            ctx.set(dut.block.valid, 0)
            await ctx.tick()
            clock += 1
        ctx.set(dut.block.valid, 1)
        ctx.set(dut.block.payload, x)
        while not ctx.get(dut.block.ready):
            await ctx.tick()
            clock += 1
        taken.append(clock)
        await ctx.tick()
        clock += 1
    ctx.set(dut.block.valid, 0)
    while ctx.get(dut.busy):
        await ctx.tick()
    return taken


@pytest.mark.parametrize("style, digit", STYLES, ids=[s if d is None else f"{s}{d}" for s, d in STYLES])
def test_random_messages_with_gaps_and_clears(style, digit):
    dut = GHASH(style, digit)
    rng = random.Random(f"{style}{digit}")
    messages = [[rng.getrandbits(128) for _ in range(n)] for n in (0, 1, 3, 0, 7, 2, 19)]
    messages.append(ghash_input(rng.randbytes(20), rng.randbytes(33)))    # a GCM-shaped one

    async def tb(ctx):
        for blocks in messages:
            h = rng.getrandbits(128)
            await clear(ctx, dut, h, len(blocks))
            assert ctx.get(dut.y) == 0
            await send(ctx, dut, blocks, rng)
            assert ctx.get(dut.y) == ghash(h, blocks), f"{len(blocks)} blocks"
    run(dut, tb)


@pytest.mark.parametrize("style, digit", STYLES, ids=[s if d is None else f"{s}{d}" for s, d in STYLES])
def test_back_to_back_blocks_take_exactly_the_declared_clocks(style, digit):
    dut = GHASH(style, digit)
    rng = random.Random(5)
    blocks = [rng.getrandbits(128) for _ in range(6)]
    h = rng.getrandbits(128)

    async def tb(ctx):
        await clear(ctx, dut, h, len(blocks))
        taken = await send(ctx, dut, blocks)
        assert [b - a for a, b in zip(taken, taken[1:])] == [dut.cycles_per_block] * 5
        assert ctx.get(dut.y) == ghash(h, blocks)
    run(dut, tb)


def test_no_block_is_taken_with_a_clear():
    dut = GHASH()

    async def tb(ctx):
        ctx.set(dut.block.valid, 1)
        ctx.set(dut.clear, 1)
        assert not ctx.get(dut.block.ready)
        ctx.set(dut.clear, 0)
        assert ctx.get(dut.block.ready)
    run(dut, tb)


@pytest.mark.parametrize("style, digit, message", [
    ("serial", None, "GHASH multiplier style 'serial' is not supported"),
    ("digit", 12, "GHASH digit size 12 is not supported"),
    ("parallel", 8, "the parallel GHASH multiplier takes no digit size"),
    ("aggregated", 3, "aggregated GHASH lanes must be one of 8, not 3"),
    ("aggregated", None, "aggregated GHASH lanes must be one of 8, not None"),
    ("table", 64, "table GHASH digit size must be one of 8, 16, 32, not 64"),
    ("table", None, "table GHASH digit size must be one of 8, 16, 32, not None"),
])
def test_refusals(style, digit, message):
    with pytest.raises(CipherfabError, match=message):
        GHASH(style, digit)


KEEPING = [s for s in STYLES if s[0] in ("aggregated", "table")] + [("digit", 32), ("parallel", None)]


@pytest.mark.parametrize("style, digit", KEEPING, ids=[s if d is None else f"{s}{d}" for s, d in KEEPING])
def test_a_clear_with_keep_keeps_what_was_made_of_h_and_only_that(style, digit):
    """``keep`` with a clear (H unchanged): the aggregated powers and the tables are kept, so
    the first block is taken at once; a keep in the middle of making them starts them again
    (a unit that kept half-made powers fails here); every message's ``y`` right."""
    dut = GHASH(style, digit)
    rng = random.Random(f"keep{style}{digit}")
    h = rng.getrandbits(128)
    messages = [[rng.getrandbits(128) for _ in range(n)] for n in (3, 5, 1, 4)]
    waits = []

    async def tb(ctx):
        for n, blocks in enumerate(messages):
            ctx.set(dut.keep, n > 0)
            if n == 3:                     # a keep right after a clear without it
                ctx.set(dut.keep, 0)
                await clear(ctx, dut, h, len(blocks))
                ctx.set(dut.keep, 1)
            await clear(ctx, dut, h, len(blocks))
            ctx.set(dut.keep, 0)
            taken = await send(ctx, dut, blocks)
            waits.append(taken[0])
            assert ctx.get(dut.y) == ghash(h, blocks), f"message {n}"
    run(dut, tb)
    if style in ("aggregated", "table"):
        assert waits[1] == waits[2] <= 2 < waits[0] and waits[3] == waits[0], waits
    else:
        assert len(set(waits)) == 1, waits
