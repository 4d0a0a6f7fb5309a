"""The DOM S-box (ciphers.aes.masked_sbox_dom) in Amaranth's simulator: a new evaluation every
clock on fresh sharings and fresh bits, each out after the declared 9 clocks; its fresh bits
(18 a pair of shares) and the clocks that take them."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.ciphers.aes.masked_sbox_dom import LATENCY, DomSchedule, MaskedSboxDOM
from cipherfab.ciphers.aes.reference import SBOX


def run(dut, xs, rng, zero_rand=False):
    d, out = dut.shares, []

    async def bench(ctx):
        for c in range(len(xs) + LATENCY):
            if c < len(xs):
                masks = [rng.randrange(256) for _ in range(d - 1)]
                share0 = xs[c]
                for v in masks:
                    share0 ^= v
                for i, v in enumerate([share0] + masks):
                    ctx.set(dut.x[i], v)
            ctx.set(dut.rand, 0 if zero_rand else rng.getrandbits(len(dut.rand)))
            await ctx.tick()
            if LATENCY <= c + 1 < len(xs) + LATENCY:
                v = 0
                for i in range(d):
                    v ^= ctx.get(dut.y[i])
                out.append(v)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return out


@pytest.mark.parametrize("shares", [2, 3, 4])
def test_every_clock_a_new_evaluation_out_after_the_latency(shares):
    rng = random.Random(shares)
    xs = list(range(256)) if shares == 2 else [rng.randrange(256) for _ in range(64)]
    assert run(MaskedSboxDOM(shares), xs, rng) == [SBOX[x] for x in xs]


def test_without_fresh_bits_it_still_computes_the_sbox():
    rng = random.Random(5)
    xs = [rng.randrange(256) for _ in range(32)]
    assert run(MaskedSboxDOM(2), xs, rng, zero_rand=True) == [SBOX[x] for x in xs]


def test_its_glitch_test_mode_computes_the_same():
    rng = random.Random(6)
    xs = [rng.randrange(256) for _ in range(32)]
    assert run(MaskedSboxDOM(2, unregistered=True), xs, rng) == [SBOX[x] for x in xs]


def test_fresh_bits_and_the_clocks_that_take_them():
    assert [DomSchedule(d).random_bits for d in (2, 3, 4)] == [18, 54, 108]
    s = DomSchedule(3)
    assert s.latency == LATENCY == 9
    assert [c for _, _, c in s.rand_clocks] == [1, 3, 5, 5, 7, 7]
    assert sum(b for _, b, _ in s.rand_clocks) == s.random_bits
    assert [f for f, _, _ in s.rand_clocks] == [0, 12, 18, 24, 30, 42]
    with pytest.raises(ValueError, match="2 to 4 shares, not 5"):
        DomSchedule(5)
