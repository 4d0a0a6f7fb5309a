"""GHASH over a stream of blocks (NIST SP 800-38D Algorithm 2), on one multiplier style.

Theory of operation
-------------------
``Y_0 = 0`` and ``Y_i = (Y_(i-1) ^ X_i) . H``; after a message's last block (for GCM:
the AAD, the ciphertext, each zero-padded, then the length block) ``y`` is GHASH_H of it.
Blocks arrive on the ``block`` stream (128-bit payload, GCM bit order as in
:mod:`cipherfab.hw.gcm.gf128`); ``h`` is the hash subkey, held for the whole message.
``clear`` begins a message: ``y`` reads 0 and the next block starts from ``Y_0``; no
block is taken in the clock of a clear.  ``keep`` with a clear says ``h`` is the one of the
last clear without it: the ``aggregated`` and ``table`` styles then keep their powers or
tables of it instead of making them again (the next message under the same key).

``parallel``
    one block per clock: the block taken this clock is multiplied in the same clock
    (:func:`~cipherfab.hw.gcm.ghash.gf_mul_comb`) into the ``Y`` register, which the next
    block reads.  ``busy`` is never high.
``aggregated``
    one block per clock on a pipelined Karatsuba multiplier with ``n`` lanes and the
    powers ``H .. H^n`` (:mod:`.ghash_aggregated`; ``digit`` is ``n``): it needs the
    message's block count (``count``, sampled at ``clear``), spends
    :func:`~.ghash_aggregated.prepare_clocks` after ``clear`` on the powers, and ``y`` is
    ready ``n`` finishing steps and the pipeline's clocks after the last block.
``table``
    ``digit`` bits a clock from ``digit / 8`` tables of ``H`` in block RAM (Shoup's 8-bit
    tables, :mod:`.ghash_table`): ``128 / digit + 1`` clocks per block; every ``clear``
    spends 257 clocks filling the tables from ``h`` (``busy`` high, no block taken).
``digit``
    a :class:`~cipherfab.hw.gcm.ghash.GF128Mul` of the same digit size: a block is taken
    while the multiplier is idle and starts it on ``Y ^ X``; ``busy`` is high for the
    ``128 / digit - 1`` clocks after, and the next block may be taken in the clock the
    product is ready, so a message of ``m`` blocks offered back to back takes exactly
    ``m * 128 / digit`` clocks.  ``y`` is ``Y`` only while ``busy`` is low.

No count depends on the data.  tests/hw/gcm/test_ghash_unit.py checks every style and digit
size against :func:`cipherfab.hw.gcm.gf128.ghash` on random messages (empty ones included)
with random gaps, clears between messages, and the exact clocks per block.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ...errors import CipherfabError
from .gf128 import BITS, GCM
from .ghash import GF128Mul, check, gf_mul_comb
from .ghash_aggregated import LANES, AggregatedGHASH
from .ghash_table import DIGITS as TABLE_DIGITS, TableGHASH, clocks_per_block


def check_style(style: str, digit: int | None) -> None:
    """Refuse a GHASH unit style (or its digit size / lanes) that is not built, in one line."""
    if style == "aggregated":
        if digit not in LANES:
            raise CipherfabError(f"aggregated GHASH lanes must be one of "
                                 f"{', '.join(map(str, LANES))}, not {digit!r}")
    elif style == "table":
        if digit not in TABLE_DIGITS:
            raise CipherfabError(f"table GHASH digit size must be one of "
                                 f"{', '.join(map(str, TABLE_DIGITS))}, not {digit!r}")
    else:
        check(style, digit, GCM)


class GHASH(wiring.Component):
    """``y = GHASH_H(blocks since the last clear)`` on a ``style`` multiplier."""

    def __init__(self, style: str = "parallel", digit: int | None = None):
        self._MustUse__silence = True      # a refused one is not an unused design
        check_style(style, digit)
        self._MustUse__silence = False
        self.style, self.digit = style, digit
        super().__init__({
            "h": In(BITS), "clear": In(1), "keep": In(1), "count": In(32),
            "block": In(stream.Signature(BITS)), "y": Out(BITS), "busy": Out(1),
        })

    @property
    def cycles_per_block(self) -> int:
        """Clocks between blocks offered back to back."""
        if self.style == "table":
            return clocks_per_block(self.digit)
        return 1 if self.style in ("parallel", "aggregated") else BITS // self.digit

    def elaborate(self, platform):
        m = Module()
        if self.style in ("aggregated", "table"):
            unit = AggregatedGHASH(self.digit) if self.style == "aggregated" else TableGHASH(self.digit)
            m.submodules["agg" if self.style == "aggregated" else "table"] = unit
            m.d.comb += [unit.h.eq(self.h), unit.clear.eq(self.clear), unit.keep.eq(self.keep),
                         unit.count.eq(self.count),
                         self.y.eq(unit.y), self.busy.eq(unit.busy)]
            wiring.connect(m, wiring.flipped(self.block), unit.block)
            return m
        fresh = Signal(init=1)             # Y = Y_0 = 0: cleared, no block taken since
        take = Signal()
        m.d.comb += take.eq(self.block.valid & self.block.ready)
        with m.If(self.clear):
            m.d.sync += fresh.eq(1)
        with m.Elif(take):
            m.d.sync += fresh.eq(0)
        if self.style == "parallel":
            y = Signal(BITS, name="y_reg")
            acc = Mux(fresh, 0, y)
            m.d.comb += [self.block.ready.eq(~self.clear), self.y.eq(acc)]
            with m.If(take):
                m.d.sync += y.eq(gf_mul_comb(m, acc ^ self.block.payload, self.h, name="ghash"))
            return m
        m.submodules.mul = mul = GF128Mul("digit", self.digit)
        acc = Mux(fresh, 0, mul.y)
        m.d.comb += [
            self.block.ready.eq(~mul.busy & ~self.clear),
            mul.start.eq(take), mul.x.eq(acc ^ self.block.payload), mul.h.eq(self.h),
            self.y.eq(acc), self.busy.eq(mul.busy),
        ]
        return m
