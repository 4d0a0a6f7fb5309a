"""Amaranth-simulator unit tests for the small pieces: round layers, key schedule (S-boxes: tests/hw)."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from cipherfab.ciphers.aes import reference as ref
from cipherfab.ciphers.aes import round as rnd
from cipherfab.ciphers.aes.key_schedule import KeySchedule


def _state_list(b: bytes) -> list[int]:
    return list(b)


@pytest.mark.parametrize("name", ["shift_rows", "inv_shift_rows", "mix_columns", "inv_mix_columns"])
def test_round_layers_match_reference(name):
    m = Module()
    a, y = Signal(128), Signal(128)
    f = getattr(rnd, name)
    m.d.comb += y.eq(f(m, a) if "mix" in name else f(a))
    model = {
        "shift_rows": ref._shift_rows, "inv_shift_rows": ref._inv_shift_rows,
        "mix_columns": ref._mix_columns,
        "inv_mix_columns": lambda s: ref._mix_columns(s, ref._INV_MIX),
    }[name]
    rng = random.Random(name)

    async def tb(ctx):
        for _ in range(50):
            s = rng.randbytes(16)
            ctx.set(a, int.from_bytes(s, "big"))
            assert ctx.get(y).to_bytes(16, "big") == bytes(model(_state_list(s)))

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("key_bits", [128, 192, 256])
@pytest.mark.parametrize("directions", [(True, False), (False, True), (True, True)])
def test_key_schedule_round_keys(key_bits, directions):
    enc, dec = directions
    dut = KeySchedule(key_bits, enc, dec, "lut")
    rng = random.Random(key_bits)
    nr = ref.NR[key_bits]

    async def tb(ctx):
        for key in (rng.randbytes(key_bits // 8), rng.randbytes(key_bits // 8)):
            rks = [int.from_bytes(k, "big") for k in ref.round_keys(key)]
            ctx.set(dut.key, int.from_bytes(key, "big"))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            setup = 1
            while not ctx.get(dut.ready):
                await ctx.tick()
                setup += 1
            assert setup == (nr + 1 if dec else 1)
            for decrypt in [d for d, on in ((False, enc), (True, dec)) if on]:
                ctx.set(dut.start, 1)
                ctx.set(dut.start_decrypt, decrypt)
                seen = [ctx.get(dut.first_key)]
                await ctx.tick()
                ctx.set(dut.start, 0)
                while True:
                    seen.append(ctx.get(dut.round_key))
                    if ctx.get(dut.last):
                        break
                    await ctx.tick()
                assert seen == (rks[::-1] if decrypt else rks)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
