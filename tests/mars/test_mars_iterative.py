"""Pieces of the MARS iterative core checked alone (the whole core: tests/test_cores.py)."""

import random

from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from cipherfab.ciphers.mars import iterative, model


def test_run_mask_logic_matches_the_model():
    m = Module()
    w, out = Signal(32), Signal(32)
    m.d.comb += out.eq(iterative.run_mask(w))
    rng = random.Random(11)
    words = [0, 3, 0xFFFFFFFF, 0x7FFFFFFC, 0x000003FF, 0x000007FE, 0x3FF00000, 0xFFC00003]
    words += [((1 << n) - 1) << s & 0xFFFFFFFF for n in (8, 9, 10, 11, 12) for s in range(0, 32, 3)]
    words += [rng.getrandbits(32) for _ in range(400)]
    words += [w ^ (((1 << rng.randrange(9, 20)) - 1) << rng.randrange(0, 24)) & 0xFFFFFFFF
              for w in (rng.getrandbits(32) for _ in range(400))]

    async def tb(ctx):
        for x in words:
            ctx.set(w, x)
            await ctx.delay(1e-6)
            assert ctx.get(out) == model.run_mask(x), hex(x)

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


def test_key_schedule_writes_every_word_once():
    assert sorted(iterative.WRITE_AT.values()) == list(range(10))
    assert iterative.KEY_SETUP == 300
