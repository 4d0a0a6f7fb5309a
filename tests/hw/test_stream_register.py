"""StreamRegister and SkidRegister: every block through in order under random valid and
ready, one per clock when both sides keep up, the payload from a register; SkidRegister's
``ready`` from a flip-flop too."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.hw.stream_register import SkidRegister, StreamRegister

KINDS = pytest.mark.parametrize("kind", [StreamRegister, SkidRegister])


def _run(p_valid: float, p_ready: float, n: int = 300, seed: int = 1, kind=StreamRegister):
    dut = kind(16)
    rng = random.Random(seed)
    sent, got, clocks = list(range(1, n + 1)), [], [0]

    async def bench(ctx):
        i = 0
        while len(got) < n and clocks[0] < 40 * n:      # a lost block ends the run
            offer = i < n and rng.random() < p_valid
            ctx.set(dut.i.valid, offer)
            if offer:
                ctx.set(dut.i.payload, sent[i])
            ctx.set(dut.o.ready, rng.random() < p_ready)
            took_in = offer and ctx.get(dut.i.ready)
            took_out = ctx.get(dut.o.valid) and ctx.get(dut.o.ready)
            out = ctx.get(dut.o.payload)
            await ctx.tick()
            clocks[0] += 1
            i += took_in
            if took_out:
                got.append(out)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return sent, got, clocks[0]


@KINDS
def test_every_block_in_order_under_random_backpressure(kind):
    for seed, (pv, pr) in enumerate([(0.5, 0.5), (0.9, 0.3), (0.3, 0.9), (1.0, 0.5), (0.5, 1.0)]):
        sent, got, _ = _run(pv, pr, seed=seed, kind=kind)
        assert got == sent, (pv, pr)


@KINDS
def test_one_block_per_clock_when_both_sides_keep_up(kind):
    sent, got, clocks = _run(1.0, 1.0, n=200, kind=kind)
    assert got == sent and clocks == 201        # one clock of latency


@KINDS
def test_the_payload_leaves_from_a_register(kind):
    dut = kind(16)
    seen = []

    async def bench(ctx):
        ctx.set(dut.i.valid, 1)
        ctx.set(dut.i.payload, 0x1234)
        ctx.set(dut.o.ready, 0)
        seen.append(ctx.get(dut.o.valid))               # nothing before a clock edge
        await ctx.tick()
        ctx.set(dut.i.payload, 0xBEEF)                  # a new input changes no output
        seen.append((ctx.get(dut.o.valid), ctx.get(dut.o.payload), ctx.get(dut.i.ready)))
        await ctx.tick()                                # held while the output side waits
        seen.append((ctx.get(dut.o.valid), ctx.get(dut.o.payload)))
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    skid_free = int(kind is SkidRegister)            # the skid still takes the 0xBEEF
    assert seen == [0, (1, 0x1234, skid_free), (1, 0x1234)]


def test_the_skid_registers_ready_does_not_follow_the_output_side_in_the_same_clock():
    """The output side stops: ``i.ready`` stays up for that clock (the block goes to the
    skid), falls only at the next edge, and rises again a clock after the output moves."""
    dut = SkidRegister(16)
    seen = []

    async def bench(ctx):
        ctx.set(dut.i.valid, 1)
        ctx.set(dut.i.payload, 1)
        ctx.set(dut.o.ready, 0)
        await ctx.tick()                                  # 1 in the output register
        ctx.set(dut.i.payload, 2)
        seen.append(ctx.get(dut.i.ready))                 # 1: the skid is empty
        await ctx.tick()                                  # 2 in the skid
        ctx.set(dut.i.payload, 3)
        seen.append(ctx.get(dut.i.ready))                 # 0
        ctx.set(dut.o.ready, 1)
        seen.append((ctx.get(dut.i.ready), ctx.get(dut.o.payload)))   # (0, 1): not yet
        await ctx.tick()                                  # 2 moves out of the skid
        seen.append((ctx.get(dut.i.ready), ctx.get(dut.o.payload)))   # (1, 2)
        await ctx.tick()
        seen.append(ctx.get(dut.o.payload))               # 3
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen == [1, 0, (0, 1), (1, 2), 3]


def test_a_skid_register_that_dropped_its_skid_fails_the_backpressure_test(monkeypatch):
    """The order test can fail: a skid register that never fills its skid (the block that
    arrives while the output waits is lost) drops blocks under backpressure."""
    real = SkidRegister.elaborate

    def broken(self, platform):
        m = real(self, platform)
        m.d.comb += self.i.ready.eq(1)                    # takes a block even with the skid full
        return m
    monkeypatch.setattr(SkidRegister, "elaborate", broken)
    sent, got, _ = _run(0.9, 0.3, kind=SkidRegister)
    assert got != sent
