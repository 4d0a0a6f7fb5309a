"""A FIFO in block RAM whose read data leaves through the RAM's output register, and whose
every handshake decision is a flip-flop.

Amaranth's ``SyncFIFOBuffered`` reads its block RAM straight into the logic behind it: on
ECP5 a DP16KD's clock-to-output without its output register is about 4.5 ns, which alone
bounds a system at the pipelined cores' clock to about 150 MHz (measured: the rom pipeline's
accelerator, 2026-11-29, its worst paths after the handshakes were registered).  Here a
read is issued two clocks ahead: the RAM's read register, then a plain register (no enable,
no reset: the flow's ``--ebr-outreg`` moves it into the DP16KD as ``REGMODE = OUTREG``), then
a queue of ``QUEUE`` blocks in flip-flops, from which ``r_data`` is read.  A read is issued
when the RAM holds a block and the queue has room for every block in flight to it, so the
queue never overflows and a block per clock goes through when both sides keep up.

The ports are ``SyncFIFOBuffered``'s: ``w_data``, ``w_en``, ``w_rdy``; ``r_data``,
``r_en``, ``r_rdy``; ``level`` (blocks held).  ``w_rdy`` and ``r_rdy`` are flip-flops.  A
written block can be read four clocks later at the earliest (``SyncFIFOBuffered``: two).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Elaboratable, Module, Mux, Signal
from amaranth.lib.memory import Memory

QUEUE = 4          # blocks: two reads in flight and the one leaving, with one to spare


def stream_fifo(width: int, depth: int, fast: bool):
    """The FIFO a stream of blocks gets: :class:`BlockRamFIFO` at a clock that takes a
    block every cycle (``fast``: its read register and its flip-flop queue are what lets a
    pipelined core's system reach its clock), else Amaranth's ``SyncFIFOBuffered`` (same
    ports; without the queue and the issue logic)."""
    if fast:
        return BlockRamFIFO(width=width, depth=depth)
    from amaranth.lib.fifo import SyncFIFOBuffered
    return SyncFIFOBuffered(width=width, depth=depth)


class BlockRamFIFO(Elaboratable):
    """``depth`` blocks of ``width`` bits, read through the block RAM's output register."""

    def __init__(self, *, width: int, depth: int):
        if depth < 1:
            raise ValueError(f"a block-RAM FIFO needs a depth of at least 1, not {depth}")
        self.width, self.depth = width, depth
        self.w_data, self.w_en, self.w_rdy = Signal(width), Signal(), Signal(init=1)
        self.r_data, self.r_en, self.r_rdy = Signal(width), Signal(), Signal()
        self.level = Signal(range(depth + 1))

    def elaborate(self, platform):
        m = Module()
        depth = self.depth
        m.submodules.storage = storage = Memory(shape=self.width, depth=depth, init=[])
        w_port, r_port = storage.write_port(), storage.read_port(domain="sync")
        produce, consume = Signal(range(depth)), Signal(range(depth))
        stored = Signal(range(depth + 1))           # in the RAM, no read issued yet
        has_stored = Signal()                       # stored != 0, as a flip-flop
        issued = Signal(2)                          # a read issued one / two clocks ago
        out_reg = Signal(self.width, reset_less=True)     # the RAM's output register: plain
        queue = Array(Signal(self.width, name=f"queue{i}") for i in range(QUEUE))
        head, tail = Signal(range(QUEUE)), Signal(range(QUEUE))
        queued = Signal(range(QUEUE + 1))

        wrote = self.w_en & self.w_rdy
        took = self.r_en & self.r_rdy
        issue = has_stored & room_for_a_read(queued, issued[0] + issued[1])
        arrives = issued[1]                          # out_reg holds a block read two clocks ago

        m.d.comb += [w_port.addr.eq(produce), w_port.data.eq(self.w_data), w_port.en.eq(wrote),
                     r_port.addr.eq(consume), self.r_data.eq(queue[head])]
        m.d.sync += [out_reg.eq(r_port.data), issued.eq(Cat(issue, issued[0]))]
        with m.If(wrote):
            m.d.sync += produce.eq(_next(produce, depth))
        with m.If(issue):
            m.d.sync += consume.eq(_next(consume, depth))
        with m.If(arrives):
            m.d.sync += [queue[tail].eq(out_reg), tail.eq(tail + 1)]     # QUEUE: a power of 2
        with m.If(took):
            m.d.sync += head.eq(head + 1)

        next_stored = stored + wrote - issue
        next_queued = queued + arrives - took
        next_level = self.level + wrote - took
        m.d.sync += [stored.eq(next_stored), has_stored.eq(next_stored != 0),
                     queued.eq(next_queued), self.r_rdy.eq(next_queued != 0),
                     self.level.eq(next_level), self.w_rdy.eq(next_level < depth)]
        return m


def room_for_a_read(queued, in_flight):
    """A read may be issued: the queue has a place for it and for every read in flight."""
    return queued + in_flight < QUEUE


def _next(pointer, depth):
    """``pointer + 1`` modulo ``depth``."""
    return Mux(pointer == depth - 1, 0, pointer + 1)
