"""One register stage on a stream, at full rate: the payload and ``valid`` leave from
flip-flops.

Put behind a FIFO whose read data comes straight from a block RAM's read port (Amaranth's
``SyncFIFOBuffered``): on ECP5 a DP16KD's clock-to-output is most of a clock at 100 MHz and
more, so logic fed by it directly (a core's first S-box, a GHASH multiplier) is slower than
the same logic fed by a flip-flop.  The stage takes a block whenever it is empty or its
block leaves in the same clock (``ready`` is combinational from the output side): one block
per clock, one clock of latency, no block dropped, duplicated or reordered.
"""

from __future__ import annotations

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


class StreamRegister(wiring.Component):
    """``i`` -> a register -> ``o``, for payloads of ``shape``."""

    def __init__(self, shape):
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.i.ready.eq(~self.o.valid | self.o.ready)
        with m.If(self.i.ready):
            m.d.sync += [self.o.valid.eq(self.i.valid), self.o.payload.eq(self.i.payload)]
        return m
