"""AXI4-Stream byte streams to cipher blocks and back (the system's data ports).

Theory of operation
-------------------
An AXI4-Stream transfer carries ``width`` bits in byte lanes; lane 0 (``tdata[7:0]``)
is the first byte of the stream.  cipherfab blocks are big-endian: byte 0 of a block
sits in its top bits.  So stream byte ``i`` of a block goes to block bits
``[B-1-8i : B-8-8i]``, whatever the width.

:class:`AxisToBlocks` gathers ``B / width`` transfers into a block.  ``tkeep`` may be
partial only on the transfer with ``tlast``, and only as low lanes (bytes 0..j-1): a
stream whose length is not a whole number of blocks.  The block then carries its byte
count and a last flag in the sideband ``{last, bytes}`` (``bytes`` = B/8 for a full
block), and its missing bytes are zero.  Any other ``tkeep`` raises the sticky
``error`` flag (until reset): the transfer is still taken, but the result is not to
be trusted, and the flag says so.  :class:`BlocksToAxis` writes a block back as
``B / width`` transfers, or for a last block as many as its byte count needs (at least
one), with ``tkeep`` on the bytes that exist and ``tlast`` on the final one.

Both hold at most one block each way and keep one transfer per clock when the other
side keeps up.  Widths: 32, 64 or 128 bits, dividing the block (a 64-bit DES block
takes 32- or 64-bit transfers).
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

WIDTHS = (32, 64, 128)


def axis_layout(width: int) -> data.StructLayout:
    return data.StructLayout({"data": width, "keep": width // 8, "last": 1})


def axis_signature(width: int) -> wiring.Signature:
    """AXI4-Stream with its own signal names (as a source drives them): exported as
    ``<port>_tdata``, ``_tkeep``, ``_tlast``, ``_tvalid``, ``_tready``."""
    return wiring.Signature({"tdata": Out(width), "tkeep": Out(width // 8), "tlast": Out(1),
                             "tvalid": Out(1), "tready": In(1)})


def connect_axis(m: Module, axi, flow: stream.Interface, into_design: bool) -> None:
    """Join AXI-named port ``axi`` and the stream ``flow`` of :func:`axis_layout`."""
    p = flow.payload
    if into_design:
        m.d.comb += [p.data.eq(axi.tdata), p.keep.eq(axi.tkeep), p.last.eq(axi.tlast),
                     flow.valid.eq(axi.tvalid), axi.tready.eq(flow.ready)]
    else:   # an output shows nothing while not valid (no stale block, no key material)
        m.d.comb += [axi.tdata.eq(Mux(flow.valid, p.data, 0)), axi.tkeep.eq(Mux(flow.valid, p.keep, 0)),
                     axi.tlast.eq(flow.valid & p.last), axi.tvalid.eq(flow.valid),
                     flow.ready.eq(axi.tready)]


def side_layout(block_bits: int) -> data.StructLayout:
    """What travels beside a block: the stream's last block, and its bytes (B/8: full)."""
    return data.StructLayout({"last": 1, "bytes": range(block_bits // 8 + 1)})


def block_layout(block_bits: int) -> data.StructLayout:
    return data.StructLayout({"data": block_bits, "side": side_layout(block_bits)})


def check_widths(width: int, block_bits: int) -> None:
    if width not in WIDTHS:
        raise ValueError(f"tdata width {width}: one of {', '.join(map(str, WIDTHS))}")
    if block_bits % width:
        raise ValueError(f"tdata width {width} does not divide the {block_bits}-bit block")


def _word_counter(words: int):
    """Which transfer of a block is on the port: a counter, or the constant 0 when a block
    is one transfer (a zero-width signal would be ``wire [-1:0]`` in Verilog, which
    ``verilator -Wall`` refuses as ASCRANGE)."""
    return Signal(range(words), name="word") if words > 1 else Const(0, 1)


def _byte_bits(block_bits: int, n: int) -> slice:
    """Where block byte ``n`` (0 = first in the stream) sits in a big-endian block."""
    return slice(block_bits - 8 * (n + 1), block_bits - 8 * n)


class AxisToBlocks(wiring.Component):
    """``width``-bit AXI4-Stream transfers in, ``block_bits`` blocks with their sideband out."""

    def __init__(self, width: int, block_bits: int):
        check_widths(width, block_bits)
        self.width, self.block_bits = width, block_bits
        super().__init__({"axis": In(stream.Signature(axis_layout(width))),
                          "blocks": Out(stream.Signature(block_layout(block_bits))),
                          "error": Out(1)})

    def elaborate(self, platform):
        m = Module()
        w, b = self.width, self.block_bits
        lanes, words = w // 8, b // w
        word = _word_counter(words)
        acc = Signal(b) if words > 1 else Const(0, b)     # one transfer per block: nothing to gather
        t = self.axis.payload
        keep_ok = Signal()                       # all lanes, or (with tlast) low lanes only
        m.d.comb += keep_ok.eq((t.keep == (1 << lanes) - 1)
                               | (t.last & ((t.keep & (t.keep + 1)) == 0)))
        kept = Signal(range(lanes + 1))
        for j in range(lanes + 1):
            with m.If(t.keep == (1 << j) - 1):
                m.d.comb += kept.eq(j)
        # this transfer's bytes placed at their block positions; kept lanes only
        placed = Signal(b)
        for wi in range(words):
            with m.If(word == wi):
                for i in range(lanes):
                    m.d.comb += placed[_byte_bits(b, wi * lanes + i)].eq(
                        Mux(t.keep[i], t.data[8 * i:8 * i + 8], 0))
        ends = t.last | (word == words - 1)
        full = self.blocks.valid
        m.d.comb += self.axis.ready.eq(~ends | ~full | self.blocks.ready)
        with m.If(self.blocks.valid & self.blocks.ready):
            m.d.sync += self.blocks.valid.eq(0)
        with m.If(self.axis.valid & self.axis.ready):
            with m.If(~keep_ok):
                m.d.sync += self.error.eq(1)
            with m.If(ends):
                m.d.sync += [self.blocks.valid.eq(1), self.blocks.payload.data.eq(acc | placed),
                             self.blocks.payload.side.last.eq(t.last),
                             self.blocks.payload.side.bytes.eq(word * lanes + kept)]
                if words > 1:
                    m.d.sync += [acc.eq(0), word.eq(0)]
            if words > 1:                     # with one word per block every transfer ends one
                with m.Else():
                    m.d.sync += [acc.eq(acc | placed), word.eq(word + 1)]
        return m


class BlocksToAxis(wiring.Component):
    """``block_bits`` blocks with their sideband in, ``width``-bit AXI4-Stream transfers out."""

    def __init__(self, width: int, block_bits: int):
        check_widths(width, block_bits)
        self.width, self.block_bits = width, block_bits
        super().__init__({"blocks": In(stream.Signature(block_layout(block_bits))),
                          "axis": Out(stream.Signature(axis_layout(width)))})

    def elaborate(self, platform):
        m = Module()
        w, b = self.width, self.block_bits
        lanes, words = w // 8, b // w
        word = _word_counter(words)
        blk = self.blocks.payload
        m.d.comb += self.axis.valid.eq(self.blocks.valid)
        # the bytes of this transfer, lane i = block byte word*lanes + i
        for wi in range(words):
            with m.If(word == wi):
                for i in range(lanes):
                    m.d.comb += self.axis.payload.data[8 * i:8 * i + 8].eq(
                        blk.data[_byte_bits(b, wi * lanes + i)])
        left = Signal(range(b // 8 + 1))            # bytes of this block from this transfer on
        m.d.comb += left.eq(Mux(blk.side.last, blk.side.bytes, b // 8) - word * lanes)
        final = (word == words - 1) | (blk.side.last & (left <= lanes))
        for i in range(lanes):
            m.d.comb += self.axis.payload.keep[i].eq(left > i)
        m.d.comb += [self.axis.payload.last.eq(blk.side.last & final),
                     self.blocks.ready.eq(self.axis.ready & final)]
        if words > 1:
            with m.If(self.axis.valid & self.axis.ready):
                m.d.sync += word.eq(Mux(final, 0, word + 1))
        return m
