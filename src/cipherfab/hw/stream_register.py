"""One register stage on a stream, at full rate: the payload and ``valid`` leave from
flip-flops.

Put behind a FIFO whose read data comes straight from a block RAM's read port (Amaranth's
``SyncFIFOBuffered``): on ECP5 a DP16KD's clock-to-output is most of a clock at 100 MHz and
more, so logic fed by it directly (a core's first S-box, a GHASH multiplier) is slower than
the same logic fed by a flip-flop.  The stage takes a block whenever it is empty or its
block leaves in the same clock (``ready`` is combinational from the output side): one block
per clock, one clock of latency, no block dropped, duplicated or reordered.

:class:`SkidRegister` also takes ``ready`` from a flip-flop: a second register (the skid)
holds the block that arrives in the clock the output side stops, so neither side's
handshake logic runs through the other's.  Put it where two sides' handshakes would
otherwise make one long path (the accelerator's FIFOs and its mode engine: at the
pipelined cores' clock, the engine's accept condition, the GCM phase and a FIFO's level
update were one seven-LUT path).  Same rate and latency as :class:`StreamRegister`.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
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


class SkidRegister(wiring.Component):
    """``i`` -> a register (and a skid register beside it) -> ``o``; ``i.ready``, ``o.valid``
    and ``o.payload`` all leave from flip-flops."""

    def __init__(self, shape):
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        skid = Signal.like(self.i.payload, name="skid")
        skid_valid = Signal()
        m.d.comb += self.i.ready.eq(~skid_valid)
        with m.If(~self.o.valid | self.o.ready):          # the output register is free
            with m.If(skid_valid):
                m.d.sync += [self.o.valid.eq(1), self.o.payload.eq(skid), skid_valid.eq(0)]
            with m.Else():
                m.d.sync += [self.o.valid.eq(self.i.valid), self.o.payload.eq(self.i.payload)]
        with m.Elif(self.i.valid & ~skid_valid):          # the output waits: keep the new block
            m.d.sync += [skid.eq(self.i.payload), skid_valid.eq(1)]
        return m
