"""The accelerator (hw.system.accelerator) in Amaranth's simulator: messages of any length through
AXI4-Stream, FIFOs that fill and drain, every mode, random tvalid/tready pauses, the
counters, and the error flags; around a pipelined test double and around AES-128."""

import random

import pytest
from amaranth.sim import Simulator
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.hw.system.accelerator import Accelerator
from cipherfab.hw.modes import Mode
from hw.doubles import (PipeCore, begin_message, messages_of, model, stream_through, toy_decrypt,
                     toy_encrypt, transfers)


def toy_mode(mode, key, iv, msg):
    """The toy cipher in ``mode`` over a byte message (CTR: any length, the last block
    zero-padded and its output cut to the message's length)."""
    blocks = [int.from_bytes(msg[at:at + 16].ljust(16, b"\0"), "big") for at in range(0, len(msg), 16)]
    out = model(mode, lambda x: toy_encrypt(key, x), lambda y: toy_decrypt(key, y), iv, blocks)
    return b"".join(y.to_bytes(16, "big") for y in out)[:len(msg)]

def run(dut, jobs, rng, valid_p=0.7, ready_p=0.6, limit=40000):
    """jobs: [(key, mode, iv, message bytes)], one after another. Returns the output
    messages, the counters after each job, and the error flags at the end."""
    lanes = dut.width // 8
    outs, counters, flags = [], [], {}

    async def bench(ctx):
        for key, mode, iv, msg in jobs:
            await begin_message(ctx, dut, key, mode, iv)
            got = await stream_through(ctx, dut, transfers(msg, lanes, 16), rng, valid_p, ready_p,
                                       limit, lambda i, got: got and got[-1][2])
            got = got or []
            outs.append(b"".join(messages_of(got, lanes)))
            counters.append({c: ctx.get(getattr(dut, c)) for c in ("blocks_in", "blocks_out", "starved", "blocked")})
        flags.update({f: ctx.get(getattr(dut, f)) for f in ("mode_error", "axis_error", "length_error")})

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return outs, counters, flags


@pytest.mark.parametrize("width,depth", [(128, 512), (32, 4), (64, 3)])
def test_every_mode_any_length_through_the_fifos(width, depth):
    rng = random.Random(width + depth)
    dut = Accelerator(PipeCore("stream", stages=6), width=width, depth=depth)
    jobs = []
    for mode in (m for m in Mode if not m.layer):
        for n in ((1, 17, 16 * 9 + 5) if mode == Mode.CTR else (16, 16 * 11)):
            jobs.append((rng.getrandbits(128), mode, rng.getrandbits(128), rng.randbytes(n)))
    outs, counters, flags = run(dut, jobs, rng)
    assert flags == {"mode_error": 0, "axis_error": 0, "length_error": 0}
    for (key, mode, iv, msg), out, c in zip(jobs, outs, counters):
        assert out == toy_mode(mode, key, iv, msg), (mode, len(msg))
        blocks = -(-len(msg) // 16)
        assert c["blocks_in"] == c["blocks_out"] == blocks


def test_counters_say_where_the_time_went():
    """A slow sink fills the output FIFO (blocked clocks); a slow source starves the core."""
    rng = random.Random(5)
    dut = Accelerator(PipeCore("stream", stages=4), width=128, depth=3)
    job = [(7, Mode.ECB_ENCRYPT, 0, rng.randbytes(16 * 30))]
    _, slow_sink, _ = run(dut, job, rng, valid_p=1.0, ready_p=0.1)
    _, slow_source, _ = run(dut, job, rng, valid_p=0.1, ready_p=1.0)
    assert slow_sink[0]["blocked"] > 30 and slow_sink[0]["starved"] < slow_sink[0]["blocked"]
    assert slow_source[0]["starved"] > 30 and slow_source[0]["blocked"] == 0


def test_a_partial_block_in_a_block_mode_is_flagged():
    rng = random.Random(6)
    dut = Accelerator(PipeCore("stream"), width=128, depth=8)
    _, _, flags = run(dut, [(1, Mode.CBC_ENCRYPT, 2, rng.randbytes(20))], rng)
    assert flags["length_error"] == 1


def test_aes_modes_against_cryptography():
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    core = make_core(resolve("aes", "interleaved", key_bits=128, direction="both", sbox="rom", stages=2))
    dut = Accelerator(core, width=32, depth=16)
    rng = random.Random(8)
    key, iv = rng.randbytes(16), rng.randbytes(16)
    k, v = int.from_bytes(key, "big"), int.from_bytes(iv, "big")
    whole, odd = rng.randbytes(16 * 5), rng.randbytes(16 * 3 + 7)
    jobs = [(k, Mode.CBC_ENCRYPT, v, whole), (k, Mode.CBC_DECRYPT, v, whole), (k, Mode.CTR, v, odd),
            (k, Mode.ECB_DECRYPT, v, whole)]
    outs, _, flags = run(dut, jobs, rng, limit=8000)

    def lib(mode, data, decrypt=False):
        c = Cipher(algorithms.AES(key), mode)
        return (c.decryptor() if decrypt else c.encryptor()).update(data)
    assert outs == [lib(modes.CBC(iv), whole), lib(modes.CBC(iv), whole, True),
                    lib(modes.CTR(iv), odd), lib(modes.ECB(), whole, True)]
    assert not any(flags.values())


@pytest.mark.parametrize("arch, values, ghash", [
    ("pipeline", {"sbox": "rom", "stages": 1}, "auto"),     # a block every clock
    ("iterative", {"sbox": "rom"}, "auto"),                 # 10 clocks a block
    ("iterative", {"sbox": "rom"}, None),                   # no GCM layer to register
])
def test_gcm_skid_registers_between_the_layer_and_the_engine(arch, values, ghash):
    """Between the GCM layer and the engine, skid registers (141 LUT4 each way) wherever
    there is a GCM layer: around the iterative core, without them, the layer's phase reached
    the core's first round (9 LUT levels)."""
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    acc = Accelerator(make_core(resolve("aes", arch, key_bits=128, direction="encrypt", **values)),
                      ghash=ghash)
    m = acc.elaborate(None)
    regs = {"e_in_reg", "e_out_reg"}
    assert (acc.ghash is not None) is (ghash is not None)
    assert regs & set(m._named_submodules) == (regs if ghash else set())


@pytest.mark.parametrize("text_bytes, error", [(48, 0), (0, 0), (40, 1), ((16 << 20) + 16, 1)])
def test_an_xts_data_unit_that_is_not_whole_blocks_is_a_length_error(text_bytes, error):
    """XTS takes TEXT_BYTES as the data unit when the tweaks come on the stream: whole blocks,
    at most 2^20 of them; anything else raises length_error at the start (0: no units)."""
    dut = Accelerator(PipeCore("stream", stages=3), width=128, depth=8)
    seen = {}

    async def bench(ctx):
        ctx.set(dut.text_bytes, text_bytes)
        await begin_message(ctx, dut, 5, Mode.XTS_ENCRYPT, 0)
        await ctx.tick().repeat(3)
        seen["error"] = ctx.get(dut.length_error)
        ctx.set(dut.text_bytes, 40)                 # another mode at the same length: no error
        await begin_message(ctx, dut, None, Mode.CTR, 0)
        await ctx.tick().repeat(3)
        seen["ctr"] = ctx.get(dut.length_error)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen == {"error": error, "ctr": error}          # sticky: stays until clear
