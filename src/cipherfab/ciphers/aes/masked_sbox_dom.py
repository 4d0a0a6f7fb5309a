"""The AES S-box on ``d`` shares with DOM-indep products in the tower field (H. Gross, S.
Mangard, T. Korak, "An Efficient Side-Channel Protected AES Implementation with Arbitrary
Protection Order", CT-RSA 2017: Canright's S-box, its GF(2^4) and GF(2^2) products
DOM-indep, everything else share by share): ``18 d (d - 1) / 2`` fresh bits an evaluation,
against HPC2's ``34 d (d - 1) / 2`` (:mod:`cipherfab.hw.masking.masked`).

The tower and its maps are :mod:`cipherfab.hw.gf`'s (Canright's normal bases, the cheapest
for the forward S-box), where ``(a1, a0)^-1 = (D a0, D a1)`` with ``D = (a1 a0 + s (a1 +
a0)^2)^-1`` at each level.  The pipeline, one stage a clock (``x`` at clock 0, ``y`` at 9)::

    1  A = X x                                             registered: the products' operands
    2  a1 * a0   (GF(2^4), 4 bits of z a pair) + nu (a1 + a0)^2      = D'
    3  D'                                                  compressed: (d1, d0)
    4  d1 * d0   (GF(2^2), 2 bits)  + N (d1 + d0)^2                  = T
    5  T^-1 = T^2 (a swap of T's bits)                     compressed
    6  T^-1 * d0, T^-1 * d1   (GF(2^2), 2 + 2 bits)                  = D = D'^-1
    7  D                                                   compressed
    8  D * a0, D * a1   (GF(2^4), 4 + 4 bits)                        = A^-1
    9  y = (affine X^-1) A^-1  (+ 0x63 in share 0)         registered

Every product's operands are registers (stages 1, 3, 5, 7 and the delayed ``A`` and ``D'``)
and independently shared: ``a1``, ``a0`` are halves of a uniform mask; ``D'``, ``T^-1`` and
``D`` each carry the fresh ``z`` of the product before.  The pipeline runs every clock; a
product's bits of ``rand`` are taken at its clock (:attr:`DomSchedule.rand_clocks`).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw import gf
from ...hw.masking import dom
from ...hw.masking.masked import check_shares, pairs, share_attrs

#: (name, field bits, clock its z is taken) of each product, in the order of their bits in ``rand``
PRODUCTS = (("d", 4, 1), ("t", 2, 3), ("e1", 2, 5), ("e0", 2, 5), ("o1", 4, 7), ("o0", 4, 7))
LATENCY = 9

TOWER = gf.best_tower(("forward",))
IN_ROWS, _, OUT_ROWS, OUT_CONST = TOWER.maps("forward")
_mul2, _mul4 = dom.bilinear(gf.gf4_mul, 2), dom.bilinear(TOWER.mul4, 4)
_to_tower, _from_tower = dom.linear(IN_ROWS), dom.linear(OUT_ROWS)
_square_scale_nu, _square_scale_n = dom.linear(TOWER.square_scale_nu()), dom.linear(TOWER.square_scale_n())


class DomSchedule:
    """Latency and fresh bits of the DOM S-box on ``shares`` shares (no hardware)."""

    def __init__(self, shares: int):
        check_shares(shares)
        self.shares, self.latency = shares, LATENCY

    @property
    def random_bits(self) -> int:
        """``18 d (d - 1) / 2``: each product's field bits for each pair of shares."""
        return sum(n for _, n, _ in PRODUCTS) * len(pairs(self.shares))

    @property
    def rand_clocks(self) -> list[tuple[int, int, int]]:
        """``(first bit, bits, clock)`` of each product's part of ``rand``."""
        out, at = [], 0
        for _, n, clock in PRODUCTS:
            bits = n * len(pairs(self.shares))
            out.append((at, bits, clock))
            at += bits
        return out


class MaskedSboxDOM(wiring.Component):
    """``x`` (shares) to ``y = S(x)`` (shares) after :data:`LATENCY` clocks; ``rand``: the
    products' fresh bits, every clock.  ``unregistered`` (a TEST MODE): every product's terms
    in one register a share, secure at zero delay, not with glitches."""

    def __init__(self, shares: int = 2, unregistered: bool = False):
        self.schedule = DomSchedule(shares)
        self.shares, self.unregistered = shares, unregistered
        super().__init__({"x": In(8).array(shares), "y": Out(8).array(shares),
                          "rand": In(self.schedule.random_bits)})
        for i in range(shares):
            self.x[i].attrs.update(share_attrs(i))
            self.y[i].attrs.update(share_attrs(i))

    def elaborate(self, platform):
        m = Module()
        d = self.shares
        z = {}
        for (name, n, _), (at, bits, _) in zip(PRODUCTS, self.schedule.rand_clocks):
            z[name] = [self.rand[at + n * p:at + n * (p + 1)] for p in range(bits // n)]

        def prod(name, x, y, mul, extra=None):
            return dom.product(m, name, x, y, z[name], mul, extra, self.unregistered)

        def halves(v, n):
            return [s[n:] for s in v], [s[:n] for s in v]

        a = dom.compress(m, "a", [self.x[i] for i in range(d)], 8, _to_tower)                 # 1
        a1, a0 = halves(a, 4)
        dd = prod("d", a1, a0, _mul4, [_square_scale_nu(a1[i] ^ a0[i]) for i in range(d)])  # 2
        a1, a0 = dom.delay(m, "a1", a1, 4, 2), dom.delay(m, "a0", a0, 4, 2)
        dd = dom.compress(m, "dd", dd, 4)                                                    # 3
        d1, d0 = halves(dd, 2)
        t = prod("t", d1, d0, _mul2, [_square_scale_n(d1[i] ^ d0[i]) for i in range(d)])    # 4
        d1, d0 = dom.delay(m, "d1", d1, 2, 2), dom.delay(m, "d0", d0, 2, 2)
        a1, a0 = dom.delay(m, "a1_5", a1, 4, 2), dom.delay(m, "a0_5", a0, 4, 2)
        t_inv = dom.compress(m, "tinv", [Cat(v[1], v[0]) for v in t], 2)                     # 5
        e1, e0 = prod("e1", t_inv, d0, _mul2), prod("e0", t_inv, d1, _mul2)                  # 6
        a1, a0 = dom.delay(m, "a1_7", a1, 4, 2), dom.delay(m, "a0_7", a0, 4, 2)
        inv = dom.compress(m, "dinv", [Cat(e0[i], e1[i]) for i in range(d)], 4)             # 7
        o1, o0 = prod("o1", inv, a0, _mul4), prod("o0", inv, a1, _mul4)                      # 8
        for i in range(d):                                                                   # 9
            m.d.sync += self.y[i].eq(_from_tower(Cat(o0[i], o1[i])) ^ (OUT_CONST if i == 0 else 0))
        return m
