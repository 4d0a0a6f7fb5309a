"""GF(2^8) arithmetic for the AES S-box, and its composite-field (tower) form.

Theory of operation
-------------------
*AES field*: GF(2^8) = GF(2)[x] / (x^8 + x^4 + x^3 + x + 1), a byte's bit i the
coefficient of x^i.  :func:`aes_sbox` computes the S-box from its definition
(FIPS-197 Section 5.1.1): the multiplicative inverse (0 -> 0) followed by the affine
map ``A`` and the constant 0x63; :func:`aes_inv_sbox` is its inverse.  cipherfab.hw
does not import cipherfab.ciphers, so the tables are computed here.

*Tower field* (D. Canright, "A Very Compact S-box for AES", CHES 2005), normal
bases at every level::

    GF(2^2) = GF(2)[W]   / (W^2 + W + 1)     basis (W^2, W)       1 = W^2 + W
    GF(2^4) = GF(2^2)[Z] / (Z^2 + Z + N)     basis (Z^4, Z)       1 = Z^4 + Z
    GF(2^8) = GF(2^4)[Y] / (Y^2 + Y + nu)    basis (Y^16, Y)      1 = Y^16 + Y

An element of each level is a pair ``(hi, lo)`` of the level below (the coefficients
of the conjugate ``W^2``/``Z^4``/``Y^16`` and of ``W``/``Z``/``Y``), packed as an
integer with ``hi`` in the upper half.  With the same rule at every level (``s`` the
scalar of the level: 1, N, nu)::

    (a1, a0) * (b1, b0) = (a1 b1 + e, a0 b0 + e),   e = s (a1 + a0)(b1 + b0)
    (a1, a0)^-1        = (d a0, d a1),              d = (a1 a0 + s (a1 + a0)^2)^-1

and in GF(2^2) squaring (hence inversion) swaps the two bits.  So an inversion in
GF(2^8) is one GF(2^4) inversion, three GF(2^4) multiplications and a linear
"square-scale" map; each GF(2^4) operation likewise reduces to GF(2^2).  Operands
are used *expanded*: a GF(2^2) value as (a1, a0, a1+a0) and a GF(2^4) value as the
expansions of hi, lo and hi+lo, so a multiplier is nine AND gates plus XORs, and an
operand that enters two multipliers (Canright's "shared factors") is expanded once.

N must be W or W^2 and nu one of the 8 elements of GF(2^4) of trace 1 (else
``Y^2 + Y + nu`` has a root in GF(2^4)).  For each (N, nu), the roots ``g`` of the
AES polynomial in the tower give the isomorphisms ``X: a -> sum a_i g^i`` (8 roots,
conjugates of each other); X is GF(2)-linear, so the S-box becomes::

    S(a)    = (A X^-1) inv_tower(X a) + 0x63
    S^-1(b) = X^-1 inv_tower((X A^-1) b + X A^-1 0x63)

with the basis change merged into the affine maps, as Canright does.
:func:`best_tower` searches all 2 x 8 x 8 = 128 normal-basis cases and keeps the one
whose linear maps need the fewest two-input XORs (row weight - 1, no sharing), for
the tables actually built.

*Circuits*: :func:`inverse_circuit` and :func:`linear` work on lists of bits (bit 0
first) of any type that has ``^`` and ``&``: Python ints (the tests run the circuit
on every input) or Amaranth values (:mod:`cipherfab.hw.sbox` builds the hardware from
the same code).  ``keep(bits, name)`` is called on every intermediate value worth
sharing; the hardware names it with a signal, Python returns it as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, reduce
from typing import Callable, Sequence

AES_POLY = 0x11B


def gf256_mul(a: int, b: int, poly: int) -> int:
    """Product in GF(2^8) modulo ``poly`` (9 bits: the AES field's 0x11B, Twofish's 0x169 ...)."""
    p = 0
    while b:
        if b & 1:
            p ^= a
        a <<= 1
        if a & 0x100:
            a ^= poly
        b >>= 1
    return p


def aes_mul(a: int, b: int) -> int:
    """Product in the AES field."""
    return gf256_mul(a, b, AES_POLY)


def aes_inv(a: int) -> int:
    """Multiplicative inverse in the AES field (0 -> 0): a^254."""
    r, p = 1, a
    for bit in range(8):           # 254 = 0b11111110
        if (254 >> bit) & 1:
            r = aes_mul(r, p)
        p = aes_mul(p, p)
    return r if a else 0


def affine(a: int) -> int:
    """The S-box affine map A (no constant): bit i = a_i + a_(i+4) + a_(i+5) + a_(i+6) + a_(i+7)."""
    out = 0
    for i in range(8):
        bit = 0
        for k in (0, 4, 5, 6, 7):
            bit ^= (a >> ((i + k) % 8)) & 1
        out |= bit << i
    return out


@cache
def aes_sbox() -> tuple[int, ...]:
    """SubBytes (FIPS-197 Figure 7), computed from its definition."""
    return tuple(affine(aes_inv(a)) ^ 0x63 for a in range(256))


@cache
def aes_inv_sbox() -> tuple[int, ...]:
    """InvSubBytes (FIPS-197 Figure 14): the inverse permutation of :func:`aes_sbox`."""
    inv = [0] * 256
    for a, s in enumerate(aes_sbox()):
        inv[s] = a
    return tuple(inv)


# --- GF(2) linear maps as row masks ------------------------------------------------------

def rows_of(f: Callable[[int], int], bits: int = 8) -> tuple[int, ...]:
    """Rows of the linear map ``f`` (``rows[i]`` = mask of input bits that feed output bit i)."""
    cols = [f(1 << j) for j in range(bits)]
    return tuple(sum(((cols[j] >> i) & 1) << j for j in range(bits)) for i in range(bits))


def apply_rows(rows: Sequence[int], v: int) -> int:
    return sum((bin(r & v).count("1") & 1) << i for i, r in enumerate(rows))


def invert_rows(rows: Sequence[int]) -> tuple[int, ...]:
    """The inverse of an invertible square GF(2) matrix (Gauss-Jordan on [M | I])."""
    n = len(rows)
    aug = [r | (1 << (n + i)) for i, r in enumerate(rows)]
    for col in range(n):
        pivot = next(i for i in range(col, n) if (aug[i] >> col) & 1)
        aug[col], aug[pivot] = aug[pivot], aug[col]
        for i in range(n):
            if i != col and (aug[i] >> col) & 1:
                aug[i] ^= aug[col]
    return tuple(r >> n for r in aug)


def xor_cost(rows: Sequence[int]) -> int:
    """Two-input XORs of the map computed row by row (no sharing)."""
    return sum(bin(r).count("1") - 1 for r in rows)


# --- The tower field on integers -------------------------------------------------------

def _split(v: int, half: int) -> tuple[int, int]:
    return v >> half, v & ((1 << half) - 1)


def gf4_mul(a: int, b: int) -> int:
    a1, a0 = _split(a, 1)
    b1, b0 = _split(b, 1)
    e = (a1 ^ a0) & (b1 ^ b0)
    return ((a1 & b1 ^ e) << 1) | (a0 & b0 ^ e)


W, W2 = 0b01, 0b10          # W and W^2 in the basis (W^2, W); 1 = 0b11


@dataclass(frozen=True)
class Tower:
    """One normal-basis tower: ``n`` (N in GF(2^2)), ``nu`` (in GF(2^4)), ``root`` (the image
    of x, a root of the AES polynomial in this tower)."""

    n: int
    nu: int
    root: int

    def mul4(self, a: int, b: int) -> int:
        a1, a0 = _split(a, 2)
        b1, b0 = _split(b, 2)
        e = gf4_mul(self.n, gf4_mul(a1 ^ a0, b1 ^ b0))
        return ((gf4_mul(a1, b1) ^ e) << 2) | (gf4_mul(a0, b0) ^ e)

    def mul8(self, a: int, b: int) -> int:
        a1, a0 = _split(a, 4)
        b1, b0 = _split(b, 4)
        e = self.mul4(self.nu, self.mul4(a1 ^ a0, b1 ^ b0))
        return ((self.mul4(a1, b1) ^ e) << 4) | (self.mul4(a0, b0) ^ e)

    def to_tower(self, a: int) -> int:
        """X: AES field -> tower."""
        out, p = 0, 0xFF            # p = root^i, starting from 1
        for i in range(8):
            if (a >> i) & 1:
                out ^= p
            p = self.mul8(p, self.root)
        return out

    # The linear maps of the circuit, as row masks.
    def scale_n(self) -> tuple[int, ...]:
        return rows_of(lambda v: gf4_mul(self.n, v), 2)

    def square_scale_n(self) -> tuple[int, ...]:
        return rows_of(lambda v: gf4_mul(self.n, gf4_mul(v, v)), 2)

    def square_scale_nu(self) -> tuple[int, ...]:
        return rows_of(lambda v: self.mul4(self.nu, self.mul4(v, v)), 4)

    @property
    def x(self) -> tuple[int, ...]:
        return rows_of(self.to_tower)

    @property
    def x_inv(self) -> tuple[int, ...]:
        return invert_rows(self.x)

    def maps(self, table: str) -> tuple[tuple[int, ...], int, tuple[int, ...], int]:
        """``(in_rows, in_const, out_rows, out_const)`` of ``table`` ("forward" = S, "inverse" = S^-1)."""
        x_inv = self.x_inv
        if table == "forward":
            return self.x, 0, rows_of(lambda t: affine(apply_rows(x_inv, t))), 0x63
        a_inv = _affine_inverse()
        m = rows_of(lambda v: self.to_tower(apply_rows(a_inv, v)))
        return m, apply_rows(m, 0x63), x_inv, 0

    def cost(self, tables: Sequence[str]) -> int:
        total = xor_cost(self.square_scale_nu()) + xor_cost(self.scale_n()) + xor_cost(self.square_scale_n())
        for t in tables:
            in_rows, _, out_rows, _ = self.maps(t)
            total += xor_cost(in_rows) + xor_cost(out_rows)
        return total


@cache
def _affine_inverse() -> tuple[int, ...]:
    return invert_rows(rows_of(affine))


def _has_root(poly: Callable[[int], int], size: int) -> bool:
    return any(poly(v) == 0 for v in range(size))


@cache
def towers() -> tuple[Tower, ...]:
    """Every normal-basis tower: 2 choices of N x 8 of nu x 8 roots."""
    out = []
    for n in (W, W2):
        probe = Tower(n, 0, 0)
        for nu in range(1, 16):
            t = Tower(n, nu, 0)
            if _has_root(lambda v: probe.mul4(v, v) ^ v ^ nu, 16):
                continue                       # Y^2 + Y + nu reducible over GF(2^4)
            for g in range(256):
                p = [0xFF]
                for _ in range(8):
                    p.append(t.mul8(p[-1], g))
                if p[8] ^ p[4] ^ p[3] ^ p[1] ^ p[0] == 0:
                    out.append(Tower(n, nu, g))
    return tuple(out)


@cache
def best_tower(tables: tuple[str, ...]) -> Tower:
    """The tower whose linear maps for ``tables`` (names as in :meth:`Tower.maps`) are cheapest."""
    return min(towers(), key=lambda t: (t.cost(tables), t.n, t.nu, t.root))


# --- The circuit on bit lists ----------------------------------------------------------

Keep = Callable[[list, str], list]


def _plain(bits, name):
    return bits


def xor(a: list, b: list) -> list:
    return [p ^ q for p, q in zip(a, b)]


def linear(rows: Sequence[int], bits: list, const: int = 0) -> list:
    """Output bit i = XOR of ``bits[j]`` for the j set in ``rows[i]``, then XOR ``const`` bit i."""
    out = []
    for i, r in enumerate(rows):
        picked = [bits[j] for j in range(len(bits)) if (r >> j) & 1]
        assert picked, "a linear map with an empty row"
        v = reduce(lambda p, q: p ^ q, picked)
        out.append(v ^ 1 if (const >> i) & 1 else v)
    return out


def _expand2(a: list) -> list:
    """GF(2^2) operand for multiplication: [a0, a1, a0+a1] (bit lists are low bit first)."""
    return [a[0], a[1], a[0] ^ a[1]]


def _mul2(a: list, b: list) -> list:
    """Product of two expanded GF(2^2) operands: 3 ANDs, 2 XORs."""
    e = a[2] & b[2]
    return [a[0] & b[0] ^ e, a[1] & b[1] ^ e]


class _Circuit:
    def __init__(self, tower: Tower, keep: Keep):
        self.t, self.keep = tower, keep

    def expand4(self, a: list, name: str) -> list:
        """GF(2^4) operand (4 bits: lo = a[0:2], hi = a[2:4]) expanded: lo, hi, lo+hi, each expanded."""
        s = self.keep(xor(a[0:2], a[2:4]), name + "_s")
        sums = self.keep([a[0] ^ a[1], a[2] ^ a[3], s[0] ^ s[1]], name + "_x")
        return [a[0], a[1], sums[0], a[2], a[3], sums[1], s[0], s[1], sums[2]]

    def mul4(self, a: list, b: list, name: str) -> list:
        """Product of two expanded GF(2^4) operands: 9 ANDs."""
        e = linear(self.t.scale_n(), _mul2(a[6:9], b[6:9]))
        return self.keep(xor(_mul2(a[0:3], b[0:3]), e) + xor(_mul2(a[3:6], b[3:6]), e), name)

    def inv4(self, a: list, name: str) -> list:
        lo, hi = a[0:2], a[2:4]
        s = xor(lo, hi)
        theta = xor(_mul2(_expand2(hi), _expand2(lo)), linear(self.t.square_scale_n(), s))
        d = self.keep([theta[1], theta[0]], name + "_d")      # inverse in GF(2^2) = swap
        de = _expand2(d)
        return self.keep(_mul2(de, _expand2(hi)) + _mul2(de, _expand2(lo)), name)

    def inv8(self, a: list, name: str, cut=None) -> list:
        lo, hi = a[0:4], a[4:8]
        he, le = self.expand4(hi, name + "_h"), self.expand4(lo, name + "_l")
        s = self.keep(xor(hi, lo), name + "_s")
        theta = self.keep(xor(self.mul4(he, le, name + "_hl"), linear(self.t.square_scale_nu(), s)),
                          name + "_theta")
        if cut is not None:                  # a register here: theta and the halves it meets again
            held = cut(lo + hi + theta)
            lo, hi, theta = held[0:4], held[4:8], held[8:12]
            he, le = self.expand4(hi, name + "_hc"), self.expand4(lo, name + "_lc")
        d = self.expand4(self.inv4(theta, name + "_d"), name + "_d")
        return self.mul4(d, he, name + "_lo") + self.mul4(d, le, name + "_hi")


def inverse_circuit(tower: Tower, bits: list, keep: Keep = _plain, name: str = "inv",
                    cut=None) -> list:
    """The tower-field inversion of ``bits`` (8, low bit first) as a circuit (0 -> 0).
    ``cut(bits) -> bits``, if given, registers the 12 bits (low half, high half, theta)
    in the middle of the circuit."""
    return _Circuit(tower, keep).inv8(bits, name, cut)
