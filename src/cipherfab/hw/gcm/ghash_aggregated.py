"""GHASH at one block per clock with a pipelined multiplier: ``n`` lanes and the powers
``H, H^2, ..., H^n`` (the ``aggregated`` style of :mod:`.ghash_unit`).

Theory of operation
-------------------
``Y_m = X_1 H^m ^ X_2 H^(m-1) ^ ... ^ X_m H``.  Block ``i`` (from 0) goes to lane
``i mod n``, whose accumulator becomes ``(A ^ X_i) . H^e`` with ``e = min(n, m - i)``:
every block but the last ``n`` is multiplied by ``H^n``, the last ``n`` by
``H^n ... H^1``.  A block's exponent then sums to ``m - i`` over the multiplications it
goes through in its lane, so ``Y_m`` is the XOR of the lanes once the last product is in.
``m`` (``count``) is sampled at ``clear``: a GCM layer knows it from its lengths.

The multiplier is a pipeline over the reflected operands (bit ``i`` = coefficient of
``a^i``, as in :mod:`.ghash`): register 0 holds the operands (the lane's accumulator XOR
the block, and the power its exponent selects; the exponent itself is a register, so no
counter compare sits before the multiplier); each of the ``n - 1`` steps after it XORs
into the running carry-less product the partial products of about ``128 / (n - 1)`` of the
multiplier's bits; the last step also reduces modulo ``P`` and writes the lane.  A lane's
next block comes at least ``n`` clocks after its previous one, when that product is in:
one block per clock, whatever the gaps.  So each clock's logic is a ``128/(n-1)``-term
XOR tree, not the 128-term tree of the ``parallel`` style.

After ``clear`` the unit computes ``H^2 .. H^n`` on the same pipeline (``(n - 1) * n``
clocks, ``busy`` high, no block taken), then takes ``count`` blocks; ``busy`` stays high
until the last product is in (``n`` clocks after the last block), and ``y`` is then
``GHASH_H``.  No count depends on the data.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .gf128 import BITS, GCM
from .ghash import reduce_mod, reflect, xor_tree

LANES = (2, 4, 8)


class AggregatedGHASH(wiring.Component):
    def __init__(self, lanes: int = 4):
        if lanes not in LANES:
            raise ValueError(f"aggregated GHASH lanes must be one of {LANES}, not {lanes}")
        self.lanes = lanes
        super().__init__({
            "h": In(BITS), "clear": In(1), "count": In(32), "block": In(stream.Signature(BITS)),
            "y": Out(BITS), "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n, width = self.lanes, BITS // self.lanes
        lanes = [Signal(BITS, name=f"lane{j}") for j in range(n)]          # reflected
        powers = [Signal(BITS, name=f"h_pow{k + 1}") for k in range(n)]     # reflected H^(k+1)
        left = Signal(32)                  # blocks still to come
        lane = Signal(range(n))            # the next block's lane
        prep = Signal(range(n + 1))        # the power being made (H^prep); 0: done
        prep_wait = Signal(range(n + 1))   # clocks until it is in

        # -- what enters the pipeline this clock: a block, or a power being made --------
        take = Signal()
        more = Signal()                    # left != 0, as a register: no counter compare on ready
        m.d.comb += [self.block.ready.eq((prep == 0) & more & ~self.clear),
                     take.eq(self.block.valid & self.block.ready)]
        e = Signal(range(n + 1))           # the next block's exponent, min(n, left): a register
        x_in, h_in = Signal(BITS), Signal(BITS)
        feed_power = (prep != 0) & (prep_wait == 0)
        with m.If(prep == 0):               # the operands of a block (used when one is taken)
            m.d.comb += [x_in.eq(Cat(lanes).word_select(lane, BITS) ^ reflect(self.block.payload)),
                         h_in.eq(Cat(powers).word_select((e - 1).as_unsigned(), BITS))]
        with m.Else():                      # H^prep = H^(prep-1) . H
            m.d.comb += [x_in.eq(Cat(powers).word_select((prep - 2).as_unsigned(), BITS)),
                         h_in.eq(powers[0])]

        # -- the pipeline: register 0 holds the operands; between register g and g+1 (the
        # last: the lane itself, after the reduction) the partial products of group g of
        # the multiplier's bits are added: n - 1 groups of about 128 / (n - 1) bits
        regs = n - 1
        groups = [range(g * BITS // regs, (g + 1) * BITS // regs) for g in range(regs)]
        valid = [Signal(name=f"s{k}_valid") for k in range(regs)]
        dest = [Signal(range(2 * n), name=f"s{k}_dest") for k in range(regs)]  # lane j, or n+k: H^(k+1)
        xs = [Signal(BITS, name=f"s{k}_x") for k in range(regs)]
        hs = [Signal(BITS, name=f"s{k}_h") for k in range(regs)]
        ps = [Const(0, 2 * BITS - 1)] + [Signal(2 * BITS - 1, name=f"s{k}_p") for k in range(1, regs)]
        m.d.sync += [valid[0].eq(take | feed_power), xs[0].eq(x_in), hs[0].eq(h_in),
                     dest[0].eq(Mux(take, lane, (n + prep - 1).as_unsigned()))]
        for g in range(regs):
            part = xor_tree([ps[g]] + [Mux(hs[g][i], xs[g] << i, 0)[:2 * BITS - 1] for i in groups[g]])
            if g == regs - 1:
                break
            m.d.sync += [valid[g + 1].eq(valid[g]), dest[g + 1].eq(dest[g]), xs[g + 1].eq(xs[g]),
                         hs[g + 1].eq(hs[g]), ps[g + 1].eq(part)]
        product = Signal(BITS)
        m.d.comb += product.eq(reduce_mod(part, GCM))
        with m.If(valid[-1] & ~self.clear):   # the last stage: into its lane, or a power
            with m.Switch(dest[-1]):
                for j in range(n):
                    with m.Case(j):
                        m.d.sync += lanes[j].eq(product)
                for k in range(1, n):
                    with m.Case(n + k):
                        m.d.sync += powers[k].eq(product)

        # -- control ---------------------------------------------------------------------
        with m.If(self.clear):
            m.d.sync += [*(l.eq(0) for l in lanes), *(v.eq(0) for v in valid),
                         left.eq(self.count), more.eq(self.count != 0), lane.eq(0),
                         e.eq(Mux(self.count >= n, n, self.count)),
                         powers[0].eq(reflect(self.h)), prep.eq(2 if n > 1 else 0),
                         prep_wait.eq(0)]
        with m.Else():
            with m.If(take):
                m.d.sync += [left.eq(left - 1), lane.eq(Mux(lane == n - 1, 0, lane + 1)),
                             e.eq(Mux(left > n, n, left - 1)), more.eq(left != 1)]
            with m.If(feed_power):
                m.d.sync += prep_wait.eq(n - 1)
            with m.Elif(prep_wait > 1):
                m.d.sync += prep_wait.eq(prep_wait - 1)
            with m.Elif(prep_wait == 1):      # H^prep is in: the next power, or done
                m.d.sync += [prep_wait.eq(0), prep.eq(Mux(prep == n, 0, prep + 1))]
        in_flight = Signal()
        m.d.comb += in_flight.eq(Cat(valid).any())
        m.d.comb += [self.busy.eq((prep != 0) | in_flight | self.clear),
                     self.y.eq(reflect(xor_tree(lanes)))]
        return m
