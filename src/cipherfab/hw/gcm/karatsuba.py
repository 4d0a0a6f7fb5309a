"""Karatsuba's method, two levels deep, over GF(2)[a]: a 128 x 128-bit carry-less product
as nine 32 x 32-bit ones (the pipelined multiplier of :mod:`.ghash_aggregated`).

Operands are reflected (bit ``i`` = coefficient of ``a^i``, as in :mod:`.ghash`).  One
level: ``A = A0 + A1 a^w``, ``B = B0 + B1 a^w``,
``AB = A0B0 + ((A0 + A1)(B0 + B1) + A0B0 + A1B1) a^w + A1B1 a^(2w)``: three products of
half the width instead of four.  Two levels (``w = 64``, then ``w = 32``) make nine
32 x 32 products (each a 32-term XOR per bit, not 128), for the price of the operands'
sums (:func:`operands`: XORs of at most four bits) and the products' recombination
(:func:`product`: XORs of a few bits per output bit).

Checks: tests/hw/gcm/test_karatsuba.py against :func:`.ghash.clmul` on random operands;
tests/hw/gcm/test_ghash_unit.py (the aggregated unit built on it) against
:func:`.gf128.ghash`.
"""

from __future__ import annotations

from amaranth.hdl import Value

from .ghash import xor_tree

PARTS = 9                       #: 32 x 32-bit products
PART_BITS = 32                  #: their operands' width
PRODUCT_BITS = 2 * PART_BITS - 1   #: their width


def _split(a, w: int) -> list:
    """The three operands of one level over a ``2w``-bit ``a``: ``A0``, ``A1``, ``A0 + A1``."""
    a0, a1 = a[:w], a[w:2 * w]
    return [a0, a1, a0 ^ a1]


def operands(v) -> list[Value]:
    """The nine 32-bit operands of a 128-bit ``v``, in the order :func:`product` reads the
    products: for each of ``V0``, ``V1``, ``V0 + V1`` (64 bits), its ``low``, ``high``,
    ``low + high``."""
    v = Value.cast(v)
    return [part for half in _split(v, 2 * PART_BITS) for part in _split(half, PART_BITS)]


def partial_products(a, b, group: int = 8) -> list[list[Value]]:
    """The carry-less product of ``a`` and ``b`` as partial sums: for each output bit ``k``,
    the XORs of its terms ``a_i b_(k-i)`` in groups of ``group`` (so each is two LUT levels
    and a register can sit between them and the rest of the sum)."""
    a, b = Value.cast(a), Value.cast(b)
    out = []
    for k in range(len(a) + len(b) - 1):
        terms = [a[i] & b[k - i] for i in range(max(0, k - len(b) + 1), min(k, len(a) - 1) + 1)]
        out.append([xor_tree(terms[g:g + group]) for g in range(0, len(terms), group)])
    return out


def _combine(p0, p1, pm, w: int) -> Value:
    """One level's product, ``4w - 1`` bits, from ``A0B0``, ``A1B1``, ``(A0+A1)(B0+B1)``."""
    width = 4 * w - 1
    wide = [Value.cast(p)[:width] for p in (p0, p1, pm)]
    return xor_tree([wide[0], (wide[2] ^ wide[0] ^ wide[1]) << w, wide[1] << 2 * w])[:width]


def product(parts: list) -> Value:
    """The 255-bit carry-less product from the nine 63-bit products of :func:`operands`'
    pairs (the two operands' parts multiplied in the same order)."""
    if len(parts) != PARTS:
        raise ValueError(f"Karatsuba's two levels need {PARTS} products, not {len(parts)}")
    halves = [_combine(*parts[3 * k:3 * k + 3], PART_BITS) for k in range(3)]   # 127 bits each
    return _combine(*halves, 2 * PART_BITS)
