"""AXI4-Stream to blocks and back (hw.stream.axis) in Amaranth's simulator: messages of any byte
length, every width that divides the block, random tvalid/tready pauses; the blocks
between carry the stream's bytes big-endian with their byte count and last flag."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from cipherfab.hw.stream.axis import AxisToBlocks, BlocksToAxis
from hw.doubles import messages_of, transfers


class Loop(wiring.Component):
    """AxisToBlocks -> BlocksToAxis, the blocks visible between them."""

    def __init__(self, width, block_bits):
        self.a, self.b = AxisToBlocks(width, block_bits), BlocksToAxis(width, block_bits)
        super().__init__({})

    def elaborate(self, platform):
        m = Module()
        m.submodules.a, m.submodules.b = self.a, self.b
        wiring.connect(m, self.a.blocks, self.b.blocks)
        return m


def run(width, block_bits, messages, rng, bad_keep=False):
    dut = Loop(width, block_bits)
    lanes, bb = width // 8, block_bits // 8
    sent = [t for msg in messages for t in transfers(msg, lanes, bb)]
    if bad_keep:
        sent[0] = (sent[0][0], 0b10, sent[0][2])
    got, blocks, seen = [], [], {}

    async def bench(ctx):
        i = 0
        for _ in range(20000):
            offer = i < len(sent) and rng.random() < 0.7
            ctx.set(dut.a.axis.valid, offer)
            if offer:
                d, k, last = sent[i]
                ctx.set(dut.a.axis.payload.data, d)
                ctx.set(dut.a.axis.payload.keep, k)
                ctx.set(dut.a.axis.payload.last, last)
            ctx.set(dut.b.axis.ready, rng.random() < 0.6)
            await ctx.delay(1e-9)
            i += bool(ctx.get(dut.a.axis.valid) and ctx.get(dut.a.axis.ready))
            if ctx.get(dut.a.blocks.valid) and ctx.get(dut.a.blocks.ready):
                blocks.append((ctx.get(dut.a.blocks.payload.data), ctx.get(dut.a.blocks.payload.side.last),
                               ctx.get(dut.a.blocks.payload.side.bytes)))
            if ctx.get(dut.b.axis.valid) and ctx.get(dut.b.axis.ready):
                got.append((ctx.get(dut.b.axis.payload.data), ctx.get(dut.b.axis.payload.keep),
                            ctx.get(dut.b.axis.payload.last)))
            await ctx.tick()
            if i == len(sent) and not ctx.get(dut.a.blocks.valid) and not ctx.get(dut.b.axis.valid):
                break
        seen["error"] = ctx.get(dut.a.error)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return got, blocks, seen["error"]


@pytest.mark.parametrize("width,block_bits", [(32, 128), (64, 128), (128, 128), (32, 64), (64, 64)])
def test_any_length_round_trips(width, block_bits):
    rng = random.Random(width * 1000 + block_bits)
    bb = block_bits // 8
    messages = [rng.randbytes(n) for n in (1, bb, bb + 1, 3 * bb, 2 * bb - 1, 37, 5)]
    got, blocks, error = run(width, block_bits, messages, rng)
    assert not error
    assert messages_of(got, width // 8) == messages
    want = []
    for msg in messages:
        for at in range(0, len(msg), bb):
            chunk = msg[at:at + bb]
            want.append((int.from_bytes(chunk.ljust(bb, b"\0"), "big"), int(at + bb >= len(msg)), len(chunk)))
    assert blocks == want


def test_keep_with_a_hole_is_flagged():
    got, _, error = run(32, 128, [bytes(range(16))], random.Random(1), bad_keep=True)
    assert error == 1


@pytest.mark.parametrize("width,block_bits", [(48, 128), (128, 64)])
def test_refuses_widths_that_do_not_divide_the_block(width, block_bits):
    with pytest.raises(ValueError):
        AxisToBlocks(width, block_bits)
