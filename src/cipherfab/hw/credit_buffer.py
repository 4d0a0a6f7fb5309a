"""The output buffer of a pipeline that never stalls, with the credits that keep it from
overflowing, built so that no control path is longer than two LUT levels.

A pipelined core loads every register every clock (no clock enable fans out over its
datapath), so a block that enters it comes out ``depth`` clocks later whatever the output
side does.  The buffer behind the pipeline holds those blocks, and the core accepts a block
only while it has a *credit*: a credit is taken with the input handshake (``take``) and
given back when its block leaves ``r``.  With ``credits`` no larger than the buffer's
capacity a write (``w_en``, straight from the pipeline's last ``valid`` register) never
finds it full, so it is written without a check.

What makes it fast (the first version, Amaranth's ``SyncFIFOBuffered``, limited the block-RAM
pipeline to 226 MHz on ECP5: its level counter decoded the LUT-RAM write enables through
three LUT levels and a fan-out of 96):

- The write enable is ``w_en`` itself (no fullness check), so each LUT-RAM bank's enable is
  one LUT of it and the write address's top bits.  The storage holds ``credits`` rounded up
  to whole banks of ``bank_depth`` words (16: an ECP5 ``DPR16X4``).
- Both counts are thermometer codes (bit ``i`` set while more than ``i`` are counted):
  ``room`` is the first bit of the free credits' count and "the memory holds a block" the
  first bit of the stored blocks' count, each a flip-flop, and each bit's next value
  depends on its neighbours and the two handshakes only.  No carry chain, no comparator.
- The output register loads whenever it is empty or its block leaves (the read address
  advances only when it loaded a block), so its clock enable is one LUT of two signals.

- With ``read_copies`` > 1 the storage is that many memories side by side (each a slice of
  the width), each read through its own copy of the read address (a counter stepping
  itself, which Yosys's register merging does not fold into the others; marked ``keep``
  too), so no address bit drives every LUT RAM of a wide buffer.

A block is never dropped, duplicated or reordered; with ``r.ready`` high a block written in
one clock is on ``r`` two clocks later (written, then the output register).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out

BANK_DEPTH = 16     # words per LUT-RAM bank: an ECP5 DPR16X4 (16 words of 4 bits)


class CreditBuffer(wiring.Component):
    """``credits`` blocks of ``width`` bits from the input handshake until they leave ``r``."""

    def __init__(self, width: int, credits: int, bank_depth: int = BANK_DEPTH, read_copies: int = 1):
        if credits < 1:
            raise ValueError(f"a credit buffer needs at least one credit, not {credits}")
        if read_copies < 1 or width % read_copies:
            raise ValueError(f"{read_copies} read-address copies do not divide {width} bits")
        self.width, self.credits, self.bank_depth = width, credits, bank_depth
        self.read_copies = read_copies
        self.banks = -(-credits // bank_depth)
        super().__init__({
            "take": In(1),                 # a block entered the pipeline (it holds a credit)
            "room": Out(1),                # a credit is free (registered)
            "held": Out(1),                # a credit is out: a block is in the pipeline or here
            "w_en": In(1), "w_data": In(width),
            "r": Out(stream.Signature(width)),
        })

    def elaborate(self, platform):
        m = Module()
        give = self.r.valid & self.r.ready
        free = _Thermometer(m, "free", self.credits, up=give, down=self.take, full=True)
        m.d.comb += [self.room.eq(free.any), self.held.eq(~free.full)]

        # the output register loads when empty or leaving; a block, if the memory has one
        load, advance = ~self.r.valid | self.r.ready, Signal(name="advance")
        stored = _Thermometer(m, "stored", self.credits, up=self.w_en, down=advance)
        m.d.comb += advance.eq(load & stored.any)

        size = self.banks * self.bank_depth
        w_addr = Signal(range(size), name="w_addr")
        _step(m, self.w_en, w_addr, size)
        if self.read_copies == 1:
            read = _storage(m, "storage", self.width, size, w_addr, self.w_data, self.w_en,
                            _step(m, advance, Signal(range(size), name="r_addr"), size))
        else:
            part = self.width // self.read_copies
            read = Cat(*(_storage(m, f"storage{i}", part, size, w_addr,
                                  self.w_data[i * part:(i + 1) * part], self.w_en,
                                  _step(m, advance, Signal(range(size), name=f"r_addr{i}",
                                                           attrs={"keep": 1}), size))
                         for i in range(self.read_copies)))

        with m.If(load):
            m.d.sync += [self.r.payload.eq(read), self.r.valid.eq(stored.any)]
        return m


class _Thermometer:
    """A count from 0 to ``n`` (from ``n`` if ``full``) as ``n`` flip-flops (bit ``i`` set
    while the count is more than ``i``), counting ``up`` and ``down`` (both in one clock:
    unchanged)."""

    def __init__(self, m: Module, name: str, n: int, up, down, full: bool = False):
        self.bits = bits = Signal(n, name=f"{name}_count", init=(1 << n) - 1 if full else 0)
        self.any, self.full = bits[0], bits[n - 1]
        rise, fall = Signal(name=f"{name}_up"), Signal(name=f"{name}_down")
        m.d.comb += [rise.eq(up & ~down), fall.eq(down & ~up)]
        below, above = Cat(Const(1, 1), bits[:-1]), Cat(bits[1:], Const(0, 1))
        with m.If(rise):
            m.d.sync += bits.eq(below)
        with m.Elif(fall):
            m.d.sync += bits.eq(above)


def _step(m: Module, enable, addr: Signal, size: int) -> Signal:
    """``addr`` steps to the next word of ``size`` with ``enable``."""
    with m.If(enable):
        m.d.sync += addr.eq(Mux(addr == size - 1, 0, addr + 1))
    return addr


def _storage(m: Module, name: str, width: int, size: int, w_addr, w_data, w_en, r_addr):
    """A memory of ``size`` words written at ``w_addr``, read (asynchronously) at ``r_addr``."""
    m.submodules[name] = storage = memory.Memory(shape=width, depth=size, init=[])
    wp, rp = storage.write_port(), storage.read_port(domain="comb")
    m.d.comb += [wp.addr.eq(w_addr), wp.data.eq(w_data), wp.en.eq(w_en), rp.addr.eq(r_addr)]
    return rp.data
