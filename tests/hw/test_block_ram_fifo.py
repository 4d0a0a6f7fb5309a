"""BlockRamFIFO (hw/block_ram_fifo.py): every block out in order under random write and read enables, never more
than ``depth`` held, a block per clock when both sides keep up, and ``w_rdy``/``r_rdy``
from flip-flops; an issue rule that overfills the queue is shown losing blocks."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.hw import block_ram_fifo
from cipherfab.hw.block_ram_fifo import BlockRamFIFO


def _run(depth: int, p_write: float, p_read: float, n: int = 400, seed: int = 1):
    dut = BlockRamFIFO(width=16, depth=depth)
    rng = random.Random(seed)
    sent, got, seen = list(range(1, n + 1)), [], {"clocks": 0, "max_level": 0}

    async def bench(ctx):
        i = 0
        while len(got) < n and seen["clocks"] < 40 * n:          # a lost block ends the run
            ctx.set(dut.w_en, i < n and rng.random() < p_write)
            ctx.set(dut.w_data, sent[i] if i < n else 0)
            ctx.set(dut.r_en, rng.random() < p_read)
            wrote = ctx.get(dut.w_en) and ctx.get(dut.w_rdy)
            took = ctx.get(dut.r_en) and ctx.get(dut.r_rdy)
            out = ctx.get(dut.r_data)
            seen["max_level"] = max(seen["max_level"], ctx.get(dut.level))
            await ctx.tick()
            seen["clocks"] += 1
            i += wrote
            if took:
                got.append(out)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return sent, got, seen


@pytest.mark.parametrize("depth", [1, 2, 5, 16])
def test_every_block_in_order_and_never_more_than_depth(depth):
    for seed, (pw, pr) in enumerate([(0.5, 0.5), (0.9, 0.2), (0.2, 0.9), (1.0, 1.0), (1.0, 0.5)]):
        sent, got, seen = _run(depth, pw, pr, seed=seed)
        assert got == sent, (depth, pw, pr)
        assert seen["max_level"] <= depth


def test_a_block_per_clock_when_both_sides_keep_up():
    sent, got, seen = _run(16, 1.0, 1.0, n=300)
    assert got == sent and seen["clocks"] == 300 + 4            # four clocks in, then one a clock


def test_ready_flags_do_not_follow_the_enables_in_the_same_clock():
    dut = BlockRamFIFO(width=8, depth=2)
    seen = []

    async def bench(ctx):
        ctx.set(dut.w_en, 1)
        for v in (7, 8):
            ctx.set(dut.w_data, v)
            await ctx.tick()
        seen.append((ctx.get(dut.w_rdy), ctx.get(dut.level)))     # full: (0, 2)
        ctx.set(dut.w_en, 0)
        for _ in range(4):
            await ctx.tick()
        ctx.set(dut.r_en, 1)
        seen.append((ctx.get(dut.r_rdy), ctx.get(dut.r_data), ctx.get(dut.w_rdy)))   # (1, 7, 0)
        await ctx.tick()
        seen.append((ctx.get(dut.w_rdy), ctx.get(dut.r_data)))    # (1, 8): room after the edge
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen == [(0, 2), (1, 7, 0), (1, 8)]


def test_an_issue_rule_that_overfills_the_queue_loses_blocks(monkeypatch):
    """The order test can fail: a rule that forgets the reads in flight issues reads while
    the reader waits, and their blocks overwrite blocks not yet read."""
    monkeypatch.setattr(block_ram_fifo, "room_for_a_read",
                        lambda queued, in_flight: queued < block_ram_fifo.QUEUE)
    sent, got, _ = _run(16, 0.9, 0.3)
    assert got != sent


def test_a_depth_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1, not 0"):
        BlockRamFIFO(width=8, depth=0)
