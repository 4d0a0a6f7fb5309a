"""GHASH at one block per clock with a pipelined multiplier: ``n`` lanes and the powers
``H, H^2, ..., H^n`` (the ``aggregated`` style of :mod:`.ghash_unit`).

Theory of operation
-------------------
``Y_m = X_0 H^m ^ X_1 H^(m-1) ^ ... ^ X_(m-1) H``.  Block ``i`` goes to lane ``i mod n``,
whose accumulator becomes ``A . H^n ^ X_i`` (multiply, then add: every block meets the
same power).  A block followed by ``c`` more in its lane ends up multiplied by
``H^(n c)``; it needs ``H^(m - i)``, ``n c + r`` with ``r = m - i_last`` the distance of its
lane's last block from the end, ``1 <= r <= n``.  So after the last block the unit goes
once more round the lanes with no block (``finish``, ``n`` steps), multiplying lane
``(m + s) mod n`` at step ``s`` by ``H^(n - s)`` (that lane's ``r``, whatever ``m``); ``Y``
is then the XOR of the lanes.  ``m`` (``count``) is sampled at ``clear``: a GCM layer knows
it from its lengths.

The multiplier is Karatsuba's, two levels deep (:mod:`.karatsuba`), cut by registers so
that each clock holds two or three LUT levels::

    s0    the operands: the lane's accumulator, the power (both from registers)
    s1    their nine 32-bit parts (XORs of at most four bits)
    s2    the nine 32 x 32 carry-less products as partial sums of eight terms each
    s3    the nine products (each bit the XOR of its partial sums)
    s4    the 255-bit product (Karatsuba's recombination)
    s5    reduced modulo P, the block added (the block rides beside s0 .. s4)
    lane  s5 written to its lane (or a power), the enables one-hot flip-flops

A block taken at clock ``t`` is in its lane after clock ``t + 6``; the lane's next block
comes ``n = 8`` clocks later or more.  So the accumulators of the next block's two possible
lanes (``acc_cur``: the lane pointer's, ``acc_next``: the one after) are read into
registers every clock, and ``s0`` takes one of them by whether a step was taken last
clock: a block's handshake drives no enable of a 128-bit register.  The power comes a
clock ahead too (``h_next``: a one-hot select over ``H .. H^n`` in four copies, each for a
quarter of the bits): ``H`` while the powers are made, ``H^n`` for every block, then
``H^n, H^(n-1) .. H`` as the finishing steps go.  One block per clock, whatever the gaps;
the counts' tests (``left`` is 1, is 0) are flip-flops beside the count.

After ``clear`` the unit computes ``H^2 .. H^n`` on the same pipeline (``H^k = H^(k-1) . H``,
:func:`prepare_clocks`: ``busy`` high, no block taken), unless ``keep`` is high with the clear
(the powers are already those of ``h``: the layer says so while ``H`` is unchanged; kept only
once all of them were made, so a clear in the middle of making them starts again; a block
may then come two clocks after the clear), then takes ``count`` blocks, then
finishes (``n`` clocks and the pipeline's); ``busy`` stays high until the last product is in
and ``y`` (a register: the XOR of the lanes) shows it.  No count depends on the data.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .gf128 import BITS, GCM
from .ghash import reduce_mod, reflect, xor_tree
from .karatsuba import PART_BITS, PARTS, PRODUCT_BITS, operands, partial_products, product

LANES = (8,)
STAGES = 6                      #: registers from the operands to the lane: s0 .. s5
COPIES = 4                      #: copies of a control register that drives 128 bits


def prepare_clocks(lanes: int) -> int:
    """Clocks from ``clear`` to the first block taken: ``H^2 .. H^n``, one at a time."""
    return (STAGES + 1) * (lanes - 1) + 1


class AggregatedGHASH(wiring.Component):
    def __init__(self, lanes: int = 8):
        if lanes not in LANES:
            raise ValueError(f"aggregated GHASH lanes must be one of {LANES}, not {lanes}")
        self.lanes = lanes
        super().__init__({
            "h": In(BITS), "clear": In(1), "keep": In(1), "count": In(32),
            "block": In(stream.Signature(BITS)), "y": Out(BITS), "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n = self.lanes
        lanes = [Signal(BITS, name=f"lane{j}") for j in range(n)]          # reflected
        powers = [Signal(BITS, name=f"h_pow{k + 1}") for k in range(n)]     # reflected H^(k+1)
        left = Signal(32)                  # blocks still to come
        lane = Signal(range(n))            # the next block's lane
        lane_after = Signal(range(n))      # the lane after it (lane + 1 mod n)
        acc_cur = Signal(BITS)             # lanes[lane] as of the last clock
        acc_next = Signal(BITS)            # lanes[lane_after] as of the last clock
        stepped = Signal()                 # a step last clock: lane is lane_after then
        ready = Signal()                   # a block may be taken (but not with a clear)
        last = Signal()                    # left == 1, as a register
        none = Signal()                    # left == 0, as a register
        finishing = Signal()               # a finishing step this clock
        fin = Signal(range(n + 1))         # finishing steps still to come
        prepping = Signal()                # making the powers
        prep = Signal(range(n + 1))        # the power being made (H^prep)
        prep_wait = Signal(range(STAGES + 1))
        chain = Signal(BITS)               # the last power made: H^(prep - 1)
        load = Signal()                    # the powers are in: h_next takes H^n
        made = Signal()                    # H^2 .. H^n are all made (from h at the last clear)
        keep = Signal()                    # a clear keeps them: asked for, and they are made
        m.d.comb += keep.eq(self.keep & made)
        # copies of the one-hot power select, each for a quarter of h_next (a fan-out of
        # 32, not 128); their reset values differ so that synthesis keeps them apart, and
        # every one is set by a clear before it is read
        sels = [Signal(n, init=q, name=f"sel_{q}") for q in range(COPIES)]
        h_next = Signal(BITS)              # the next step's power

        # -- what enters the pipeline this clock: a block, a finishing step, a power -------
        take, step = Signal(), Signal()
        m.d.comb += [self.block.ready.eq(ready & ~self.clear),
                     take.eq(self.block.valid & self.block.ready),
                     step.eq(take | finishing)]
        feed_power = prepping & (prep_wait == 0)
        valid = [Signal(name=f"s{k}_valid") for k in range(STAGES)]
        dest = [Signal(range(2 * n), name=f"s{k}_dest") for k in range(STAGES)]  # lane j, or n+k: H^(k+1)
        add = [Signal(name=f"s{k}_add") for k in range(STAGES)]                  # a block to add
        xadd = [Signal(BITS, name=f"s{k}_block") for k in range(STAGES)]
        x0, h0 = Signal(BITS, name="s0_x"), Signal(BITS, name="s0_h")
        xs = [Signal(PARTS * PART_BITS, name="s1_x"), Signal(PARTS * PART_BITS, name="s1_h")]
        groups = [partial_products(xs[0].word_select(k, PART_BITS), xs[1].word_select(k, PART_BITS))
                  for k in range(PARTS)]
        partials = Signal(sum(len(g) for prod in groups for g in prod), name="s2_partials")
        parts = Signal(PARTS * PRODUCT_BITS, name="s3_parts")
        full = Signal(2 * BITS - 1, name="s4_product")
        sums, at = [], 0                    # each product bit: the XOR of its partials in s2
        for prod in groups:
            for g in prod:
                sums.append(xor_tree([partials[at + i] for i in range(len(g))]))
                at += len(g)
        m.d.sync += [valid[0].eq(step | feed_power), add[0].eq(take),
                     xadd[0].eq(reflect(self.block.payload)),
                     x0.eq(Mux(prepping, chain, Mux(stepped, acc_next, acc_cur))), h0.eq(h_next),
                     stepped.eq(step & ~self.clear),
                     acc_cur.eq(Cat(lanes).word_select(lane, BITS)),
                     acc_next.eq(Cat(lanes).word_select(lane_after, BITS)),
                     dest[0].eq(Mux(prepping, (n + prep - 1).as_unsigned(), lane)),
                     xs[0].eq(Cat(*operands(x0))), xs[1].eq(Cat(*operands(h0))),
                     partials.eq(Cat(*(v for prod in groups for g in prod for v in g))),
                     parts.eq(Cat(*sums)),
                     full.eq(product([parts.word_select(k, PRODUCT_BITS) for k in range(PARTS)]))]
        for k in range(STAGES - 1):
            m.d.sync += [valid[k + 1].eq(valid[k]), dest[k + 1].eq(dest[k]),
                         add[k + 1].eq(add[k]), xadd[k + 1].eq(xadd[k])]
        result = Signal(BITS, name="s5_result")
        m.d.sync += result.eq(reduce_mod(full, GCM) ^ Mux(add[-2], xadd[-2], 0))
        # the last stage writes its lane or power: one-hot enables made a clock ahead, so
        # each register's enable is a flip-flop (a clear, which zeroes the lanes, wins)
        we = Signal(2 * n, name="s5_we")
        m.d.sync += we.eq(Mux(valid[-2] & ~self.clear, 1 << dest[-2], 0))
        for j in range(n):
            with m.If(we[j]):
                m.d.sync += lanes[j].eq(result)
        for k in range(1, n):
            with m.If(we[n + k]):
                m.d.sync += [powers[k].eq(result), chain.eq(result)]
        # the power of the next step, a clock ahead: H while the powers are made, H^n for
        # every block, then H^n .. H as the finishing steps go (a one-hot select)
        quarter = BITS // COPIES
        m.d.sync += h_next.eq(Cat(*(xor_tree([Mux(sq[k], powers[k][q * quarter:(q + 1) * quarter], 0)
                                              for k in range(n)]) for q, sq in enumerate(sels))))

        # -- control ---------------------------------------------------------------------
        with m.If(self.clear):
            m.d.sync += [*(l.eq(0) for l in lanes), *(v.eq(0) for v in valid), we.eq(0),
                         left.eq(self.count), lane.eq(0), lane_after.eq(1),
                         powers[0].eq(reflect(self.h)), chain.eq(reflect(self.h)),
                         prepping.eq(~keep), prep.eq(2), prep_wait.eq(0), ready.eq(0),
                         finishing.eq(0), fin.eq(n), load.eq(keep), h_next.eq(reflect(self.h)),
                         last.eq(self.count == 1), none.eq(self.count == 0), made.eq(keep),
                         # kept powers: straight to the blocks (H^n next), as after the last power
                         *(c.eq(Mux(keep, 1 << (n - 1), 1)) for c in sels)]
        with m.Else():
            with m.If(step):                  # the next lane's accumulator, read ahead
                m.d.sync += [lane.eq(lane_after),
                             lane_after.eq(Mux(lane_after == n - 1, 0, lane_after + 1))]
            with m.If(take):
                m.d.sync += [left.eq(left - 1), last.eq(left == 2), none.eq(last), finishing.eq(last),
                             ready.eq(~last)]
            with m.If(finishing):             # H^(n - s) at step s: the next one down
                m.d.sync += [fin.eq(fin - 1), finishing.eq(fin != 1)]
            with m.If((take & last) | (finishing & (fin != 1)) | (load & none)):
                m.d.sync += [sq.eq(sq >> 1) for sq in sels]   # a finishing step next clock: the power after it
            with m.If(feed_power):
                m.d.sync += prep_wait.eq(STAGES)
            with m.Elif(prep_wait > 1):
                m.d.sync += prep_wait.eq(prep_wait - 1)
            with m.Elif(prep_wait == 1):      # H^prep is in: the next power, or the blocks
                m.d.sync += [prep_wait.eq(0), prep.eq(prep + 1), prepping.eq(prep != n)]
                with m.If(prep == n):
                    m.d.sync += [load.eq(1), made.eq(1), *(sq.eq(1 << (n - 1)) for sq in sels)]
            with m.If(load):
                m.d.sync += [load.eq(0), finishing.eq(none),
                             ready.eq(~none)]
        settle = Signal()                     # the last product written: y shows it next clock
        y = Signal(BITS, name="y_reg")
        m.d.sync += [settle.eq(valid[-1]), y.eq(Mux(self.clear, 0, reflect(xor_tree(lanes))))]
        m.d.comb += [self.busy.eq(prepping | load | ready | finishing | Cat(valid).any() | settle
                                  | self.clear),
                     self.y.eq(y)]
        return m
