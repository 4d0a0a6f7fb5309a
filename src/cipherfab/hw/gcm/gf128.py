"""GF(2^128) arithmetic of GCM (NIST SP 800-38D), the reference for the GHASH hardware.

Theory of operation
-------------------
*Bit order* (SP 800-38D Section 6.3): a 128-bit block ``X = x_0 x_1 ... x_127`` is
the polynomial ``x_0 + x_1 a + ... + x_127 a^127`` of GF(2^128) = GF(2)[a] / (a^128 +
a^7 + a^2 + a + 1): the block's *leftmost* bit is the coefficient of ``a^0``.  Here a
block is the integer ``int.from_bytes(block, "big")`` (as read from a hex string), so
bit ``x_i`` of the standard is integer bit ``127 - i``: the integer's most significant
bit is the constant term.  ``R = 11100001 || 0^120`` (the integer ``0xE1 << 120``) is
the reduction polynomial's low terms ``1 + a + a^2 + a^7`` written in that order.

*Algorithm 1* (:func:`mul`), literally: ``Z_0 = 0``, ``V_0 = Y``; for i = 0 .. 127,
``Z_(i+1) = Z_i`` if ``x_i = 0`` else ``Z_i + V_i``; ``V_(i+1) = V_i >> 1`` if
``LSB_1(V_i) = 0`` else ``(V_i >> 1) + R``.  ``V >> 1`` multiplies by ``a`` (every
coefficient moves one place right, towards higher powers), and the bit shifted out,
the coefficient of ``a^127``, comes back as ``a^128 = 1 + a + a^2 + a^7``, i.e. ``R``.

*Reflected form* (:func:`mul_reflected`), written independently for cross-checks:
bit-reverse both operands (then integer bit ``i`` is the coefficient of ``a^i``),
carry-less multiply, reduce modulo ``a^128 + a^7 + a^2 + a + 1`` (:data:`GCM_POLY`)
from the top degree down, reverse back.  :class:`Field` gives the same operation for
any width ``n`` and reduction polynomial in the same reflected bit order, so a small
field (e.g. GF(2^8) modulo 0x11B) exercises the hardware generator of
:mod:`cipherfab.hw.gcm.ghash` exhaustively.

*GHASH* (Algorithm 2, :func:`ghash`): ``Y_0 = 0``, ``Y_i = (Y_(i-1) + X_i) . H``;
the result is ``Y_m``.  :func:`ghash_input` builds the blocks GCM hashes (Algorithm 4
step 5): ``A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64``, lengths in bits.
:func:`pow_h` is ``H^n`` (``H^0`` = the block ``10...0`` = the integer ``1 << 127``).

Checks: tests/hw/gcm/test_gf128.py runs a test-only GCM (AES-ECB from ``cryptography``
plus this module) against every record of NIST CAVP ``gcmEncryptExtIV128.rsp`` and
against ``cryptography``'s AESGCM on random inputs, and compares :func:`mul` with
:func:`mul_reflected`.  This module imports neither Amaranth nor ``cryptography``.
"""

from __future__ import annotations

from dataclasses import dataclass

BITS = 128
MASK = (1 << BITS) - 1
R = 0xE1 << 120
#: a^128 + a^7 + a^2 + a + 1, integer bit i = coefficient of a^i
GCM_POLY = (1 << 128) | 0x87
#: the multiplicative identity, the block 10...0
ONE = 1 << 127


def mul(x: int, y: int) -> int:
    """``X . Y`` by SP 800-38D Algorithm 1 (blocks as big-endian integers)."""
    z, v = 0, y
    for i in range(BITS):
        if (x >> (BITS - 1 - i)) & 1:          # x_i, the i-th bit from the left
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1   # LSB_1(V): the rightmost bit
    return z


def reverse(v: int, n: int) -> int:
    """``v``'s ``n`` low bits in the opposite order."""
    return int(format(v, f"0{n}b")[::-1], 2)


def clmul(a: int, b: int) -> int:
    """Carry-less product of two polynomials over GF(2) (integer bit i = coefficient of a^i)."""
    p = 0
    while b:
        if b & 1:
            p ^= a
        a <<= 1
        b >>= 1
    return p


@dataclass(frozen=True)
class Field:
    """GF(2^n) modulo ``poly`` (``n + 1`` bits) with elements in the GCM bit order:
    integer bit ``n - 1 - i`` is the coefficient of ``a^i``."""

    n: int
    poly: int

    def __post_init__(self):
        if self.poly >> self.n != 1:
            raise ValueError(f"the reduction polynomial must have degree {self.n}")

    def reduce(self, p: int) -> int:
        """``p mod poly`` (integer bit i = coefficient of a^i)."""
        for k in range(p.bit_length() - 1, self.n - 1, -1):
            if (p >> k) & 1:
                p ^= self.poly << (k - self.n)
        return p

    def mul(self, x: int, y: int) -> int:
        """Product of two elements in the GCM bit order (reflect, multiply, reduce, reflect)."""
        n = self.n
        return reverse(self.reduce(clmul(reverse(x, n), reverse(y, n))), n)


GCM = Field(BITS, GCM_POLY)


def mul_reflected(x: int, y: int) -> int:
    """``X . Y`` in the reflected form, independent of :func:`mul`."""
    return GCM.mul(x, y)


def pow_h(h: int, n: int) -> int:
    """``H^n`` (n >= 0) by square-and-multiply."""
    r, p = ONE, h
    while n:
        if n & 1:
            r = mul(r, p)
        p = mul(p, p)
        n >>= 1
    return r


def ghash(h: int, blocks: list[int]) -> int:
    """GHASH_H(X_1 || ... || X_m), SP 800-38D Algorithm 2."""
    y = 0
    for x in blocks:
        y = mul(y ^ x, h)
    return y


def blocks_of(data: bytes) -> list[int]:
    """``data || 0^s`` (zero-padded to whole blocks) as block integers."""
    padded = data + bytes(-len(data) % 16)
    return [int.from_bytes(padded[i:i + 16], "big") for i in range(0, len(padded), 16)]


def ghash_input(aad: bytes, ct: bytes) -> list[int]:
    """``A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64`` (Algorithm 4 step 5)."""
    return blocks_of(aad) + blocks_of(ct) + [(8 * len(aad)) << 64 | 8 * len(ct)]
