"""The masked AES-128 core (ciphers.aes.masked) in Amaranth's simulator: FIPS-197's example
and a random block under a random key, at the declared latency and key setup.  This is the
default run's check of the masked core; its Verilator build takes about a minute, so its
KAT files, random run and timing are tests/test_cores.py's with ``-m slow`` and ``cipherfab
verify --all``'s (the ledger)."""

import random

from amaranth.sim import Simulator

from cipherfab.ciphers.aes import reference as ref
from cipherfab.ciphers.aes.masked import KEY_SETUP, LATENCY, MaskedAES

FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PT = bytes.fromhex("00112233445566778899aabbccddeeff")


def test_masked_core_encrypts_at_its_declared_timing():
    dut = MaskedAES(prng="on")
    rng = random.Random(20)
    jobs = [(FIPS_KEY, FIPS_PT), (rng.randbytes(16), rng.randbytes(16))]
    seen = []

    async def bench(ctx):
        ctx.set(dut.block_out.ready, 1)
        for key, pt in jobs:
            ctx.set(dut.key.payload, int.from_bytes(key, "big"))
            ctx.set(dut.key.valid, 1)
            await ctx.tick().until(dut.key.ready)
            ctx.set(dut.key.valid, 0)
            ctx.set(dut.block_in.payload, int.from_bytes(pt, "big"))
            ctx.set(dut.block_in.valid, 1)
            waited = 0
            while not ctx.get(dut.block_in.ready):
                await ctx.tick()
                waited += 1
            await ctx.tick()
            ctx.set(dut.block_in.valid, 0)
            clocks = 1
            while not ctx.get(dut.block_out.valid):
                await ctx.tick()
                clocks += 1
            seen.append((waited, clocks, ctx.get(dut.block_out.payload).to_bytes(16, "big")))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert [s[2] for s in seen] == [ref.encrypt_block(k, p) for k, p in jobs]
    assert seen[0][2].hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert all(s[0] + 1 == KEY_SETUP and s[1] == LATENCY for s in seen), seen   # + the key clock
