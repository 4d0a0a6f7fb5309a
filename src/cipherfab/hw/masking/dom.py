"""Domain-oriented masking (DOM): the DOM-indep product of two values in a small field on
``d`` shares (H. Gross, S. Mangard, T. Korak, "Domain-Oriented Masking: Compact Masked
Hardware Implementations with Arbitrary Protection Order", ACM TIS 2016, Fig. 2 and Sec. 4).

With ``x = x_0 ^ .. ^ x_(d-1)``, ``y`` likewise and **independently shared**, and one fresh
field element ``z_ij = z_ji`` for each pair of shares (``d (d - 1) / 2`` elements of n bits)::

    q_i = Reg[x_i y_i]  ^  XOR over j != i of  Reg[x_i y_j ^ z_ij]

so ``q_0 ^ .. ^ q_(d-1) = x y``.  The inner-domain term stays in domain ``i``; each
cross-domain term is re-shared by ``z_ij`` before its register stops the glitches.  The
operands must be registers themselves (a glitch of ``x_i y_j`` then shows ``x_i`` and ``y_j``
only, which are independent of ``x`` and ``y`` when the sharings are), and ``q`` must be
registered again (:func:`compress`) before it is an operand of another product: otherwise a
glitch of the next product shows both ``Reg[x_i y_j ^ z]`` and ``Reg[x_j y_i ^ z]``.

Share tags as in :mod:`.masked`: every share signal carries ``cipherfab_share``; a cross-domain
register is tagged with the share ``i`` it serves.  Its input LUT takes ``x_i`` and ``y_j``
(two shares of two different, independently shared values): the shares check of a placed
design counts such LUTs as merged, by design of DOM.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Signal

from .masked import pairs, share_attrs, xor_all


def bilinear(mul, n: int):
    """The product of two ``n``-bit field elements as a function of two Amaranth values:
    bit ``k`` is the XOR of ``a[p] & b[q]`` over the pairs where ``mul(2^p, 2^q)`` has bit k."""
    terms = [[(p, q) for p in range(n) for q in range(n) if mul(1 << p, 1 << q) >> k & 1]
             for k in range(n)]

    def product(a, b):
        return Cat(*(xor_all([a[p] & b[q] for p, q in t]) for t in terms))
    return product


def linear(rows):
    """A GF(2)-linear map given by its rows (``rows[i]``: the mask of the input bits whose XOR
    is output bit i, as :mod:`cipherfab.hw.gf` writes maps) as a function of an Amaranth value."""
    def apply(v):
        return Cat(*(xor_all([v[j] for j in range(r.bit_length()) if r >> j & 1]) if r else Const(0, 1)
                     for r in rows))
    return apply


def register(m, value, width: int, name: str, share: int | None):
    """``value`` in a register of its own (tagged with ``share``, or untagged)."""
    q = Signal(width, name=name, attrs=share_attrs(share) if share is not None else {})
    m.d.sync += q.eq(value)
    return q


def product(m, name: str, x, y, z, mul, extra=None, unregistered: bool = False):
    """DOM-indep ``x y`` on ``d = len(x)`` shares: ``x``, ``y`` lists of registered n-bit share
    values; ``z`` the list of n-bit fresh elements, one per pair of :func:`.masked.pairs`;
    ``extra`` (optional): per share an n-bit value of that share alone, added into the inner
    register.  Returns the shares of ``x y`` (+ extra), each the XOR of its registers, one
    clock later.  ``unregistered`` (a TEST MODE): each share is one register of the XOR of
    its inner and cross-domain terms, secure at zero delay; its glitches show ``x_i y``."""
    d, n = len(x), len(x[0])
    ps = pairs(d)
    out = []
    for i in range(d):
        inner = mul(x[i], y[i]) ^ (extra[i] if extra is not None else 0)
        cross = [mul(x[i], y[j]) ^ z[ps.index((min(i, j), max(i, j)))] for j in range(d) if j != i]
        if unregistered:
            out.append(register(m, xor_all([inner] + cross), n, f"{name}_s{i}_c", i))
            continue
        terms = [register(m, inner, n, f"{name}_s{i}_in", i)]
        terms += [register(m, c, n, f"{name}_s{i}_x{j}", i)
                  for c, j in zip(cross, [j for j in range(d) if j != i])]
        out.append(xor_all(terms))
    return out


def compress(m, name: str, q, width: int, f=None):
    """Each share of ``q`` (or ``f(q_i)``) in one register: the next product's operand."""
    return [register(m, q[i] if f is None else f(q[i]), width, f"{name}_s{i}", i)
            for i in range(len(q))]


def delay(m, name: str, v, width: int, clocks: int):
    """Each share of ``v`` through ``clocks`` registers."""
    for c in range(clocks):
        v = [register(m, v[i], width, f"{name}_s{i}_d{c}", i) for i in range(len(v))]
    return v
