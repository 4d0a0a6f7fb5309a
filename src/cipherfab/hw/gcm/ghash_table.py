"""GHASH on tables of H in block RAM (Shoup's 8-bit tables): the ``table`` style of
:mod:`.ghash_unit`.

Theory of operation
-------------------
The digit-serial Horner form of :mod:`.ghash` (``Z_(k+1) = Z_k a^d + D_k H``, the block's
rightmost digit first), with the ``d x 128`` product ``D_k H`` read from tables instead
of computed: ``D_k`` is ``d / 8`` bytes ``B_t`` (reflected, bit ``i`` = coefficient of
``a^i``), ``D_k = XOR_t B_t a^(8t)``, so ``D_k H = XOR_t T_t[B_t]`` with
``T_t[b] = b . a^(8t) . H mod P`` (Shoup, "On Fast and Provably Secure Message
Authentication Based on Universal Hashing", CRYPTO '96; the 8-bit tables of McGrew and
Viega's GCM paper, section 4.1).  One table per byte of the digit, each 256 x 128 bits in
one block-RAM memory (four DP16KD on ECP5), read synchronously; a clock of the multiply is
``d / 8`` reads and a ``d / 8 + 1``-term XOR per bit, with ``Z a^d``'s top ``d`` bits
folded back by the sparse ``P`` (:func:`~.ghash.reduce_mod`).  Reduction stays logic, not a
table: each folded bit feeds 4 XOR inputs.

*Filling* (``T_t`` from ``H``): ``T_0[b] = T_0[b >> 1] . a ^ b_0 H`` (``b = (b >> 1) a +
b_0``), ``T_t[b] = T_0[b] . a^(8t)``; one entry of every table per clock, the entry it
needs read back from ``T_0`` (written at least one clock before the read).  Entry 0 is
never written (zero from configuration; a ``b_0`` of 0 reads it as the zero polynomial).
Order: ``b = 1`` at fill clock 0, no write at fill clock 1 (``T_0[1]`` is read at 2), then
``b = 2 .. 255``: 257 clocks after ``clear`` (``busy`` high, no block taken), whatever
``H``.  Every ``clear`` fills the tables from ``h`` as it is then, unless ``keep`` is high
with it (the tables already hold this ``h``'s multiples: the GCM layer says so while ``H`` is
unchanged, the next message under the same key; kept only once the fill is complete, so a
clear in the middle of one fills again); a reset fills too (``h`` is then 0: the
tables are zeroed), and the GCM layer clears without ``keep`` once ``H`` is zeroed (a new
key, or a message whose key changed), so no multiple of an old ``H`` stays in a block RAM.

*A block*: taken while idle, ``X = Y ^ block``; its first digit's addresses go to the
tables in that clock, its product is in ``Z`` ``128 / d`` clocks later and ``y`` shows it
one clock after: ``128 / d + 1`` clocks per block, whatever the data.  ``y`` is ``Y``
only while ``busy`` is low.

Checks: tests/hw/gcm/test_ghash_unit.py simulates every digit against
:func:`~.gf128.ghash` on random messages with gaps and clears (the fill included) and
the exact clocks per block; tests/hw/gcm/test_ghash_table.py checks the fill's tables
and the zeroing.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .gf128 import BITS, GCM
from .ghash import reduce_mod, reflect, xor_tree

DIGITS = (8, 16, 32)            #: bits of X per clock: 1, 2 or 4 tables
ENTRIES = 256                   #: one table per byte: 8-bit indices
FILL_CLOCKS = ENTRIES + 1       #: b = 1, a clock with no write, b = 2 .. 255


def clocks_per_block(digit: int) -> int:
    """A table unit's clocks per block: ``128 / digit`` lookups and the clock ``y`` shows it."""
    return BITS // digit + 1


def times_a_power(v, k: int):
    """``v . a^k mod P`` (reflected): a shift and the sparse fold of its top ``k`` bits."""
    return reduce_mod(Value.cast(v) << k, GCM) if k else Value.cast(v)


class TableGHASH(wiring.Component):
    """GHASH at ``128 / digit + 1`` clocks per block on ``digit / 8`` tables of ``H``."""

    def __init__(self, digit: int = 16):
        if digit not in DIGITS:
            raise ValueError(f"table GHASH digit must be one of {DIGITS}, not {digit}")
        self.digit = digit
        #: the tables T_0 .. T_(d/8 - 1), reflected entries (a test reads them)
        self.table_memories = [Memory(shape=BITS, depth=ENTRIES, init=[]) for _ in range(digit // 8)]
        super().__init__({
            "h": In(BITS), "clear": In(1), "keep": In(1), "count": In(32),
            "block": In(stream.Signature(BITS)), "y": Out(BITS), "busy": Out(1),
        })

    @property
    def tables(self) -> int:
        return self.digit // 8

    @property
    def cycles_per_block(self) -> int:
        return clocks_per_block(self.digit)

    def elaborate(self, platform):
        m = Module()
        d, steps = self.digit, BITS // self.digit
        reads, writes = [], []
        for t, mem in enumerate(self.table_memories):
            m.submodules[f"table{t}"] = mem
            reads.append(mem.read_port(domain="sync"))
            writes.append(mem.write_port())

        # -- the fill: T_0[b] = T_0[b >> 1] . a ^ b_0 H, every table's entry b in one clock
        filling = Signal(init=1)            # a reset fills too (h is 0 then: zeroed tables)
        fill = Signal(range(ENTRIES))       # the fill clock: its entry b, issued this clock
        entry = Signal(8)
        m.d.comb += entry.eq(Mux(fill == 0, 1, fill))
        w_entry, w_en = Signal(8), Signal()  # the entry written this clock (its source read the clock before)
        hr = Signal(BITS, name="h_reflected")
        m.d.comb += hr.eq(reflect(self.h))
        v = Signal(BITS, name="fill_value")
        m.d.comb += v.eq(times_a_power(reads[0].data, 1) ^ Mux(w_entry[0], hr, 0))
        for t, w in enumerate(writes):
            m.d.comb += [w.addr.eq(w_entry), w.en.eq(w_en), w.data.eq(times_a_power(v, 8 * t))]
        m.d.sync += [w_entry.eq(entry), w_en.eq(filling & (fill != 1))]
        filled = Signal()                   # every entry written (from h at the last clear)
        keep = Signal()                     # a clear keeps the tables: asked for, and they are filled
        m.d.comb += keep.eq(self.keep & filled & ~w_en)
        with m.If(filling):
            m.d.sync += fill.eq(fill + 1)
            with m.If(fill == ENTRIES - 1):
                m.d.sync += [filling.eq(0), filled.eq(1)]

        # -- a block: X = Y ^ block, its digits' bytes as the tables' addresses -------------
        z = Signal(BITS, name="z")          # Z_k, reflected; Y between blocks (0 after a clear)
        step = Signal(range(steps + 1))     # the multiply's clocks still to come (0: idle)
        x_rest = Signal(BITS - d)           # the digits not yet addressed, next one low
        busy = Signal()
        m.d.comb += [busy.eq(filling | w_en | (step != 0)), self.busy.eq(busy),
                     self.block.ready.eq(~busy & ~self.clear), self.y.eq(reflect(z))]
        take = Signal()
        m.d.comb += take.eq(self.block.valid & self.block.ready)
        x = self.y ^ self.block.payload
        digit = Signal(d, name="digit")     # D_k, reflected
        m.d.comb += digit.eq(reflect(Mux(take, x[:d], x_rest[:d])))
        for t, r in enumerate(reads):
            m.d.comb += r.addr.eq(digit[8 * t:8 * t + 8])
        with m.If(filling):
            m.d.comb += reads[0].addr.eq(entry >> 1)
        lookups = [r.data for r in reads]
        with m.If(take):                    # X kept; Z_0 = 0 (Y is in X now)
            m.d.sync += [x_rest.eq(x[d:]), step.eq(steps), z.eq(0)]
        with m.Elif(step != 0):
            m.d.sync += [x_rest.eq(x_rest[d:]), step.eq(step - 1),
                         z.eq(reduce_mod((z << d) ^ xor_tree(lookups), GCM))]
        with m.If(self.clear):
            m.d.sync += [z.eq(0), step.eq(0), filling.eq(~keep), fill.eq(0), filled.eq(keep)]
        return m
