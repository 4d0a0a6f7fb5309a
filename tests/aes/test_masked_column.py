"""The masked AES cores with 4 S-boxes (a column, two lanes) and 1 (byte-serial) on d shares
(ciphers.aes.masked_column, masked_plan) in Amaranth's simulator: FIPS-197's example and
random blocks back to back against ``cryptography``, at the declared seed setup, latency and
burst period; the schedule's facts; the test modes still encrypt; refused combinations.
The Verilator runs (KAT files, random run with backpressure, every declared count) are
``cipherfab verify``'s and the ledger's."""

import random

import pytest
from amaranth.sim import Simulator
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.ciphers.aes.masked_column import MaskedColumnAES, random_bits
from cipherfab.ciphers.aes.masked_plan import plan
from cipherfab.errors import CipherfabError
from cipherfab.hw.info import info_of
from cipherfab.registry import resolve

FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PT = bytes.fromhex("00112233445566778899aabbccddeeff")


def test_the_schedule():
    """4 S-boxes: a round in 11 clocks, two lanes, one state buffer (55 cycles a block, 112
    latency); 1 S-box: 20 clocks, one lane, two buffers (the next round reads while this one
    writes); other counts are refused."""
    four, one = plan(4, 7), plan(1, 7)
    assert (four.period, four.lanes, four.double_buffer, four.cycles_per_block, four.block_latency) == \
        (11, 2, False, 55, 112)
    assert (one.period, one.lanes, one.double_buffer, one.cycles_per_block, one.block_latency) == \
        (20, 1, True, 200, 208)
    assert four.state_bytes(1) == [0, 5, 10, 15] and four.issue(10) is None and four.issue(5) == (1, 0)
    assert four.key_at_start and not one.key_at_start
    with pytest.raises(ValueError, match="4 or 1 S-boxes"):
        plan(2, 7)


def test_random_bits_a_clock_are_the_gadgets_and_the_key_re_sharing():
    assert random_bits(4, 2)["per_clock"] == 4 * 34 + 32
    assert random_bits(4, 3)["per_clock"] == 4 * 34 * 3 + 64
    assert random_bits(1, 2)["per_clock"] == 34 + 8
    assert random_bits(4, 2, "dom")["per_clock"] == 4 * 18 + 32                # DOM: 18 bits a pair
    assert random_bits(4, 4, "dom")["per_clock"] == 4 * 18 * 6 + 96


def run(dut, seed, key, pts):
    """Seed, key at once, then the blocks offered back to back: (the key's wait, accept times,
    out times, outputs)."""
    got, accepted, given, waits = [], [], [], {}

    async def bench(ctx):
        ctx.set(dut.block_out.ready, 1)
        t = 0
        for name, port, value in (("seed", dut.seed, seed), ("key", dut.key, int.from_bytes(key, "big"))):
            ctx.set(port.payload, value)
            ctx.set(port.valid, 1)
            start = t
            while not ctx.get(port.ready):
                await ctx.tick()
                t += 1
            waits[name] = t - start
            await ctx.tick()
            t += 1
            ctx.set(port.valid, 0)
        n = 0
        ctx.set(dut.block_in.valid, 1)
        while len(got) < len(pts):
            ctx.set(dut.block_in.payload, int.from_bytes(pts[min(n, len(pts) - 1)], "big"))
            ctx.set(dut.block_in.valid, n < len(pts))
            if n < len(pts) and ctx.get(dut.block_in.ready):
                accepted.append(t)
                n += 1
            if ctx.get(dut.block_out.valid):
                got.append(ctx.get(dut.block_out.payload).to_bytes(16, "big"))
                given.append(t)
            await ctx.tick()
            t += 1
            assert t < 20_000

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return waits["key"], accepted, given, got


@pytest.mark.parametrize("sboxes, shares, prng, glitch_test, gadget", [(*p, "hpc2")[:5] for p in [
    (4, 2, "on", "none"), (1, 2, "on", "none"), (4, 3, "on", "none"), (4, 2, "off", "none"),
    (4, 2, "on", "hpc2-unregistered"), (1, 2, "on", "refresh-recombined"),
    (1, 3, "on", "none", "dom"), (4, 2, "on", "dom-unregistered", "dom")]])   # 4, 2, dom: a test point
def test_column_cores_encrypt_at_their_declared_timing(sboxes, shares, prng, glitch_test, gadget):
    dut = MaskedColumnAES(sboxes, shares, prng, glitch_test, gadget=gadget)
    info = info_of(dut)
    rng = random.Random(sboxes * 10 + shares)
    key = FIPS_KEY
    pts = [FIPS_PT] + [rng.randbytes(16) for _ in range(4)]
    key_wait, accepted, given, got = run(dut, rng.getrandbits(160), key, pts)
    assert got == [Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(p) for p in pts]
    assert got[0].hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert key_wait + 1 == info.seed_setup_cycles                # + the seed's clock
    assert [o - i for i, o in zip(accepted, given)] == [info.latency] * len(pts)
    lanes = info.blocks_in_flight
    assert all(accepted[j + lanes] - accepted[j] == lanes * info.cycles_per_block
               for j in range(len(pts) - lanes))
    assert all(accepted[j + 1] - accepted[j] == info.burst_spacing for j in range(0, len(pts) - 1, lanes)
               if lanes > 1)


@pytest.mark.parametrize("given, message", [
    ({"sboxes": 3}, "--sboxes 3 is not supported; choose from 20, 4, 1"),
    ({"shares": 5}, "--shares 5 is not supported; choose from 2, 3, 4"),
    ({"shares": 3, "prng": "off"}, "the test modes (--prng off, --glitch-test) are built on 2 shares"),
    ({"sboxes": 4, "shares": 4, "glitch_test": "hpc2-unregistered"}, "built on 2 shares"),
    ({"gadget": "ti"}, "--gadget 'ti' is not supported; choose from hpc2, dom"),
    ({"sboxes": 4, "gadget": "dom", "glitch_test": "hpc2-unregistered"},
     "a gadget's glitch test mode (--glitch-test hpc2-unregistered, dom-unregistered) needs that --gadget"),
    ({"glitch_test": "dom-unregistered"}, "needs that --gadget"),
])
def test_refused_combinations_say_why(given, message):
    with pytest.raises(CipherfabError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve("aes", "masked", **given)


def test_key_changes_between_back_to_back_blocks_under_backpressure():
    """Groups of blocks under new keys, the output ready a third of the time: the byte-serial
    core (whose lane restarts while its last block's outputs still arrive) gives every block."""
    dut = MaskedColumnAES(1, 2, "off")
    rng = random.Random(3)
    jobs, want = [], []
    for _ in range(4):
        key = rng.randbytes(16)
        jobs.append(("key", key))
        for _ in range(rng.randrange(1, 4)):
            pt = rng.randbytes(16)
            jobs.append(("block", pt))
            want.append(Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(pt))
    got = []

    async def bench(ctx):
        ctx.set(dut.seed.valid, 1)
        await ctx.tick()
        ctx.set(dut.seed.valid, 0)
        i = 0
        for _ in range(20_000):
            ctx.set(dut.block_out.ready, rng.random() < 0.3)
            ctx.set(dut.key.valid, 0)
            ctx.set(dut.block_in.valid, 0)
            if i < len(jobs):
                port = dut.key if jobs[i][0] == "key" else dut.block_in
                ctx.set(port.payload, int.from_bytes(jobs[i][1], "big"))
                ctx.set(port.valid, 1)
            await ctx.delay(1e-9)
            if i < len(jobs) and ctx.get(port.ready):
                i += 1
            if ctx.get(dut.block_out.valid) and ctx.get(dut.block_out.ready):
                got.append(ctx.get(dut.block_out.payload).to_bytes(16, "big"))
            await ctx.tick()
            if len(got) == len(want):
                break

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == want
