"""The shared serial I/O wrapper (hw.stream.serial_io) around a small test-double core, in
Amaranth's simulator: words in and out under random valid/ready gaps, blocks in order,
keys (stream, per-block, none) taken where the core's declaration says."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.sim import Simulator

from cipherfab.hw.info import CoreInfo, CoreSignature, payload_parts
from cipherfab.hw.stream.serial_io import SerialIO

FIXED = 0x0F1E2D3C4B5A69788796A5B4C3D2E1F0


def info_for(key_interface: str) -> CoreInfo:
    return CoreInfo(cipher="xor", arch="double", params={}, block_bits=128,
                    key_bits=0 if key_interface == "none" else 128,
                    key_bits_effective=0 if key_interface == "none" else 128,
                    key_interface=key_interface, directions=("encrypt",), latency=2,
                    cycles_per_block=2, cycles_per_block_feedback=2, blocks_in_flight=1,
                    key_setup_cycles=0, fixed_key="00" if key_interface == "none" else None)


class XorCore(wiring.Component):
    """block XOR key (or a constant), one block at a time, 2 cycles: a test double."""

    def __init__(self, key_interface: str):
        super().__init__(CoreSignature(info_for(key_interface)))

    def elaborate(self, platform):
        m = Module()
        block, _, block_key = payload_parts(self)
        key, full, result = Signal(128, init=FIXED), Signal(), Signal(128)
        if "key" in self.signature.members:
            m.d.comb += self.key.ready.eq(~full)
            with m.If(self.key.valid & self.key.ready):
                m.d.sync += key.eq(self.key.payload)
        use_key = block_key if block_key is not None else key
        m.d.comb += [self.block_in.ready.eq(~full), self.block_out.valid.eq(full),
                     self.block_out.payload.eq(result), self.busy.eq(full)]
        with m.If(self.block_in.valid & self.block_in.ready):
            m.d.sync += [result.eq(block ^ use_key), full.eq(1)]
        with m.Elif(self.block_out.ready):
            m.d.sync += full.eq(0)
        return m


@pytest.mark.parametrize("key_interface", ["stream", "per_block", "none"])
def test_words_in_blocks_out_in_order(key_interface):
    rng = random.Random(7)
    dut = SerialIO(info_for(key_interface), core=XorCore(key_interface))
    keys = [rng.getrandbits(128) for _ in range(3)]
    jobs = []      # (key or None, [blocks])
    for k in keys:
        jobs.append((None if key_interface == "none" else k, [rng.getrandbits(128) for _ in range(3)]))
    words_in = []
    expect = []
    for k, blocks in jobs:
        if k is not None:
            words_in += [((k >> (8 * (15 - i))) & 0xFF, 1) for i in range(16)]
        for b in blocks:
            words_in += [((b >> (8 * (15 - i))) & 0xFF, 0) for i in range(16)]
            expect.append(b ^ (k if k is not None else FIXED))
    got = []

    async def bench(ctx):
        i = 0
        out_words = []
        for _ in range(4000):
            if i < len(words_in) and rng.random() < 0.7:
                ctx.set(dut.rx.valid, 1)
                ctx.set(dut.rx.payload.data, words_in[i][0])
                ctx.set(dut.rx.payload.key, words_in[i][1])
            else:
                ctx.set(dut.rx.valid, 0)
            ctx.set(dut.tx.ready, rng.random() < 0.6)
            await ctx.delay(1e-9)
            took = ctx.get(dut.rx.valid) and ctx.get(dut.rx.ready)
            if ctx.get(dut.tx.valid) and ctx.get(dut.tx.ready):
                out_words.append(ctx.get(dut.tx.payload))
            await ctx.tick()
            i += took
            if len(out_words) == 16 * len(expect):
                break
        for n in range(len(out_words) // 16):
            got.append(int.from_bytes(bytes(out_words[16 * n:16 * n + 16]), "big"))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == expect


def test_refuses_ragged_words_and_two_cores():
    with pytest.raises(ValueError, match="whole number"):
        SerialIO(info_for("stream"), top="x", width=7)
    with pytest.raises(ValueError, match="top-module name or the core"):
        SerialIO(info_for("stream"), top="x", core=XorCore("stream"))


@pytest.mark.usefixtures("seed_registry")
def test_a_seed_is_shifted_in_before_the_key():
    """A core with a seed port (toyseed, tests/registry/seedtoys, whose results show the seed's
    first 8 bytes): rx_seed words fill the seed register, offered to its seed port."""
    from toyseed.hw import Masked
    core = Masked(warmup=3, shows="seed")
    dut = SerialIO(core.info, core=core)
    seed, key, blocks = bytes(range(7, 27)), bytes(range(8)), [bytes(range(i, i + 8)) for i in (40, 80)]
    words = [(b, 0, 1) for b in seed] + [(b, 1, 0) for b in key] + [(b, 0, 0) for blk in blocks for b in blk]
    out = []

    async def bench(ctx):
        i = 0
        for _ in range(400):
            ctx.set(dut.rx.valid, i < len(words))
            if i < len(words):
                ctx.set(dut.rx.payload.data, words[i][0])
                ctx.set(dut.rx.payload.key, words[i][1])
                ctx.set(dut.rx.payload.seed, words[i][2])
            ctx.set(dut.tx.ready, 1)
            await ctx.delay(1e-9)
            i += bool(ctx.get(dut.rx.ready)) and i < len(words)
            if ctx.get(dut.tx.valid):
                out.append(ctx.get(dut.tx.payload))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    shown = [bytes(b ^ k ^ s for b, k, s in zip(blk, key, seed)) for blk in blocks]
    assert bytes(out) == b"".join(shown)


def test_no_seed_bit_without_a_seed_port():
    dut = SerialIO(info_for("stream"), top="x")
    dut._MustUse__used = True                              # only its ports were wanted
    assert "seed" not in dut.rx.payload.shape().members
