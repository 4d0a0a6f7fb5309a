"""StreamRegister: every block through in order under random valid and ready, one per clock
when both sides keep up, and its payload from a register."""

import random

from amaranth.sim import Simulator

from cipherfab.hw.stream.stream_register import StreamRegister


def _run(p_valid: float, p_ready: float, n: int = 300, seed: int = 1):
    dut = StreamRegister(16)
    rng = random.Random(seed)
    sent, got, clocks = list(range(1, n + 1)), [], [0]

    async def bench(ctx):
        i = 0
        while len(got) < n:
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


def test_every_block_in_order_under_random_backpressure():
    for seed, (pv, pr) in enumerate([(0.5, 0.5), (0.9, 0.3), (0.3, 0.9), (1.0, 0.5), (0.5, 1.0)]):
        sent, got, _ = _run(pv, pr, seed=seed)
        assert got == sent, (pv, pr)


def test_one_block_per_clock_when_both_sides_keep_up():
    sent, got, clocks = _run(1.0, 1.0, n=200)
    assert got == sent and clocks == 201        # one clock of latency


def test_the_payload_leaves_from_a_register():
    dut = StreamRegister(16)
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
    assert seen == [0, (1, 0x1234, 0), (1, 0x1234)]
