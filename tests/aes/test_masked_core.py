"""The masked AES-128 core (ciphers.aes.masked) in Amaranth's simulator: FIPS-197's example
and a random block under a random key, at the declared seed setup, key setup and latency;
masks after reset that depend on the seed (the same key under two seeds gives other key
shares, the same seed the same ones).  This is the default run's check of the masked core;
its Verilator build takes about a minute, so its KAT files, random run and timing are
tests/test_cores.py's with ``-m slow`` and ``cipherfab verify --all``'s (the ledger)."""

import random

import pytest
from amaranth.hdl import ClockDomain, Module
from amaranth.sim import Simulator
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.ciphers.aes import reference as ref
from cipherfab.ciphers.aes.masked import KEY_SETUP, MaskedAES, gadget_bits, latency, seed_setup
from cipherfab.hw.masking.trivium import WARMUP, bank_shape
from cipherfab.errors import CipherfabError
from cipherfab.hw.masking.trivium import keystream
from cipherfab.registry import resolve

LATENCY = latency()

FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PT = bytes.fromhex("00112233445566778899aabbccddeeff")


async def handshake(ctx, port, value):
    """Offer ``value`` on ``port`` until taken; the clocks it waited."""
    ctx.set(port.payload, value)
    ctx.set(port.valid, 1)
    waited = 0
    while not ctx.get(port.ready):
        await ctx.tick()
        waited += 1
    await ctx.tick()
    ctx.set(port.valid, 0)
    return waited


def run(dut, seed: int, jobs, after_key=None):
    """Seed, then each (key, plaintext): [(seed wait, key wait, block wait, latency, ciphertext)]."""
    seen = []

    async def bench(ctx):
        ctx.set(dut.block_out.ready, 1)
        assert not ctx.get(dut.key.ready) and not ctx.get(dut.block_in.ready)   # no seed yet
        await handshake(ctx, dut.seed, seed)
        first = True
        for key, pt in jobs:
            key_wait = await handshake(ctx, dut.key, int.from_bytes(key, "big"))
            if after_key:
                after_key(ctx)
            block_wait = await handshake(ctx, dut.block_in, int.from_bytes(pt, "big"))
            clocks = 1
            while not ctx.get(dut.block_out.valid):
                await ctx.tick()
                clocks += 1
            seen.append((key_wait if first else None, block_wait, clocks,
                         ctx.get(dut.block_out.payload).to_bytes(16, "big")))
            first = False
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


@pytest.mark.parametrize("prng", ["on", "off"])
def test_masked_core_encrypts_at_its_declared_timing(prng):
    """prng off (the test mode without randomness) keeps the seed port and its wait."""
    dut = MaskedAES(prng=prng)
    rng = random.Random(20)
    jobs = [(FIPS_KEY, FIPS_PT), (rng.randbytes(16), rng.randbytes(16))]
    seen = run(dut, rng.getrandbits(160), jobs)
    assert [s[3] for s in seen] == [ref.encrypt_block(k, p) for k, p in jobs]
    assert seen[0][3].hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert seen[0][0] + 1 == seed_setup(MaskedAES().width)                     # + the seed's clock
    assert all(s[1] + 1 == KEY_SETUP and s[2] == LATENCY for s in seen), seen   # + the key's clock


@pytest.mark.parametrize("glitch_test", ["hpc2-unregistered", "refresh-recombined"])
def test_glitch_test_modes_still_encrypt(glitch_test):
    """The glitch test modes leak through glitches only: they compute AES (FIPS-197's example,
    then a random block under a random key, against ``cryptography``) at the same timing (two
    blocks in Amaranth's simulator: 6 s each; the full core's other tests run four and more)."""
    dut = MaskedAES(prng="on", glitch_test=glitch_test)
    rng = random.Random(glitch_test)
    key = rng.randbytes(16)
    jobs = [(FIPS_KEY, FIPS_PT), (key, rng.randbytes(16))]
    seen = run(dut, rng.getrandbits(160), jobs)
    want = [Cipher(algorithms.AES(k), modes.ECB()).encryptor().update(p) for k, p in jobs]
    assert [s[3] for s in seen] == want
    assert seen[0][3].hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert seen[0][0] + 1 == seed_setup(MaskedAES().width) and all(s[2] == LATENCY for s in seen), seen


def test_glitch_test_modes_need_the_prng():
    with pytest.raises(CipherfabError, match="aes masked: --glitch-test needs --prng on"):
        resolve("aes", "masked", prng="off", glitch_test="hpc2-unregistered")


def bank_first_bits(seed: int, lo: int, n: int) -> int:
    """Bits lo..lo+n-1 of the bank's first output after a seed (the model: instance i
    takes key seed[:80] and IV seed[80:] ^ i, ``unroll`` keystream bits a clock each, after
    a warm-up of whole clocks: ceil(1152 / unroll) x unroll steps)."""
    key = (seed & (1 << 80) - 1).to_bytes(10, "little")
    count, unroll = bank_shape(MaskedAES().width)
    extra = -(-WARMUP // unroll) * unroll - WARMUP
    bits = []
    for i in range(-(-(lo + n) // unroll)):
        bits += keystream(key, ((seed >> 80) ^ i).to_bytes(10, "little"), extra + unroll)[extra:]
    return sum(b << j for j, b in enumerate(bits[lo:lo + n]))


def test_masks_after_reset_depend_on_the_seed_not_the_key():
    """Reset, seed, a key: the key's share 1 (its mask) is the bank's first keystream bits
    under that seed (Trivium's model); the same key under two seeds gets other shares and
    other randomness, the same seed the same ones, and another key the same randomness
    (the key never enters the generators).  One simulation, reset before each case."""
    dut = MaskedAES(prng="on")
    top = Module()
    top.submodules.dut = dut
    top.domains.sync = sync = ClockDomain("sync")
    s1, s2 = 0x1234 << 100 | 0x99, 0x1234 << 100 | 0x9a
    cases = [(s1, FIPS_KEY), (s2, FIPS_KEY), (s1, FIPS_KEY), (s1, FIPS_PT)]
    got = []

    async def bench(ctx):
        ctx.set(dut.block_out.ready, 1)
        for seed, key in cases:
            ctx.set(sync.rst, 1)
            await ctx.tick()
            ctx.set(sync.rst, 0)
            await handshake(ctx, dut.seed, seed)
            await handshake(ctx, dut.key, int.from_bytes(key, "big"))
            got.append(tuple(ctx.get(v) for v in (*dut.probes["k"][:2], dut.probes["rand"])))

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    a, b, again, other_key = got
    key = int.from_bytes(FIPS_KEY, "big")
    assert a[0] ^ a[1] == key and b[0] ^ b[1] == key             # shares of the same key
    assert a[1] == bank_first_bits(s1, gadget_bits(2), 128)         # the mask: seed s1's keystream
    assert a[1] != b[1] and a[2] != b[2]                          # other masks, other randomness
    assert again == a                                             # the same seed: the same masks
    assert other_key[1:] == a[1:] and other_key[0] != a[0]        # the key is not in the PRNG


def test_back_to_back_blocks_fill_the_ring_then_follow_each_other_out():
    """14 blocks offered back to back, the output always read: 7 enter in 7 clocks, the next
    7 each as one leaves the ring (10 clocks per block), all correct."""
    dut = MaskedAES(prng="on")
    rng = random.Random(34)
    key, pts = rng.randbytes(16), [rng.randbytes(16) for _ in range(14)]
    taken, out = [], []

    async def bench(ctx):
        ctx.set(dut.block_out.ready, 1)
        await handshake(ctx, dut.seed, rng.getrandbits(160))
        await handshake(ctx, dut.key, int.from_bytes(key, "big"))
        ctx.set(dut.block_in.valid, 1)
        for clock in range(200):
            ctx.set(dut.block_in.payload, int.from_bytes(pts[len(taken)], "big") if len(taken) < 14 else 0)
            ctx.set(dut.block_in.valid, len(taken) < 14)
            took = ctx.get(dut.block_in.valid) and ctx.get(dut.block_in.ready)
            if ctx.get(dut.block_out.valid):
                out.append(ctx.get(dut.block_out.payload).to_bytes(16, "big"))
            await ctx.tick()
            if took:
                taken.append(clock)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert out == [ref.encrypt_block(key, p) for p in pts]
    assert [t - taken[0] for t in taken] == list(range(7)) + [70 + j for j in range(7)], taken
