"""Trivium (hw.masking.trivium): the model against eSTREAM's published test vectors (stream[0..15] of
four vectors of its sets 1 and 2, as quoted with their set and vector numbers in public
implementations' test suites, and the all-zero vector's first 64 bytes); the hardware against
the model at several widths, through reseeding."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.hw.masking.trivium import WARMUP, Trivium, keystream, keystream_bytes

#: eSTREAM Trivium (80-bit key and IV) test vectors: (set, vector#, key, IV, stream[0..15])
ESTREAM = [
    (1, 0, "80000000000000000000", "00000000000000000000", "38EB86FF730D7A9CAF8DF13A4420540D"),
    (1, 9, "00400000000000000000", "00000000000000000000", "61208D286BC1DC431171EDA5CAF79D95"),
    (2, 0, "00000000000000000000", "00000000000000000000", "FBE0BF265859051B517A2E4E239FC97F"),
    (2, 9, "09090909090909090909", "00000000000000000000", "AB97616E7BAF0921F424B2573BFA15BD"),
]
ZERO_0_63 = ("FBE0BF265859051B517A2E4E239FC97F563203161907CF2DE7A8790FA1B2E9CD"
             "F75292030268B7382B4C1A759AA2599A285549986E74805903801A4CB5A5D4F2")


@pytest.mark.parametrize("vector", ESTREAM, ids=lambda v: f"set{v[0]}-vector{v[1]}")
def test_model_gives_estream_vectors(vector):
    _, _, key, iv, stream = vector
    assert keystream_bytes(bytes.fromhex(key), bytes.fromhex(iv), 16) == bytes.fromhex(stream)


def test_model_gives_the_zero_vectors_first_64_bytes():
    assert keystream_bytes(bytes(10), bytes(10), 64).hex().upper() == ZERO_0_63


@pytest.mark.parametrize("width", [64, 34, 1])
def test_hardware_matches_the_model_and_reseeds(width):
    dut = Trivium(width)
    rng = random.Random(width)
    seeds = [(rng.randbytes(10), rng.randbytes(10)) for _ in range(2)]
    extra = dut.warmup_clocks * width - WARMUP          # steps past eSTREAM's warm-up
    clocks = 6 if width > 1 else 80

    async def bench(ctx):
        assert not ctx.get(dut.ready)                    # never seeded: no bits
        for key, iv in seeds:
            ctx.set(dut.key, int.from_bytes(key, "little"))
            ctx.set(dut.iv, int.from_bytes(iv, "little"))
            ctx.set(dut.seed, 1)
            await ctx.tick()
            ctx.set(dut.seed, 0)
            for _ in range(dut.warmup_clocks):
                assert not ctx.get(dut.ready)
                await ctx.tick()
            got = []
            for _ in range(clocks):
                assert ctx.get(dut.ready)
                got += [(ctx.get(dut.bits) >> j) & 1 for j in range(width)]
                await ctx.tick()
            assert got == keystream(key, iv, extra + len(got))[extra:]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_a_bank_is_sized_to_its_width():
    """As few instances as the 64-bit limit allows, each unrolled just enough."""
    from cipherfab.hw.masking.trivium import bank_shape, bank_warmup
    assert bank_shape(936) == (15, 63) and bank_shape(168) == (3, 56) and bank_shape(42) == (1, 42)
    assert bank_shape(64) == (1, 64) and bank_shape(65) == (2, 33)
    assert bank_warmup(64) == 18 and bank_warmup(42) == 28
    with pytest.raises(ValueError, match="at least one bit"):
        bank_shape(0)
