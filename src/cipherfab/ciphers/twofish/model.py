"""Twofish (Schneier et al.; AES finalist) in pure Python, after the specification.

Theory of operation
-------------------
Blocks and keys are byte strings; 32-bit words are read little-endian (byte 0
lowest), as in the specification and its AES-submission files.

``q0``/``q1`` are the fixed 8-bit permutations built from four 4-bit tables
each; ``h(X, L)`` runs the bytes of ``X`` through k + 2 layers of q's and key
bytes (k = key bits / 64), then the MDS matrix over GF(2^8) mod x^8+x^6+x^5+x^3+1.
The key schedule splits the key into even and odd words (``Me``, ``Mo``),
computes the S-box key words ``S`` with the Reed-Solomon matrix (GF(2^8) mod
x^8+x^6+x^3+x^2+1) and the 40 expanded words ``K`` with ``h`` and the
pseudo-Hadamard transform.  ``g(X) = h(X, S)`` is the key-dependent S-box layer
the hardware will build.

Encryption: input whitening with K[0..3]; 16 rounds of the F function
(``T0 = g(R0)``, ``T1 = g(R1 <<< 8)``, PHT, + K[2r+8], K[2r+9]) into R2 (then
``>>> 1``) and R3 (after ``<<< 1``) and a swap of the halves; the last swap is
undone and K[4..7] whiten the output.
"""

from __future__ import annotations

from ...errors import CipherfabError
from ...hw.gf import gf256_mul as gf_mul
from ..ecb import MASK, EcbModel, rol, ror

KEY_BITS = (128, 192, 256)
ROUNDS = 16

_Q_T = (
    ((0x8, 0x1, 0x7, 0xD, 0x6, 0xF, 0x3, 0x2, 0x0, 0xB, 0x5, 0x9, 0xE, 0xC, 0xA, 0x4),
     (0xE, 0xC, 0xB, 0x8, 0x1, 0x2, 0x3, 0x5, 0xF, 0x4, 0xA, 0x6, 0x7, 0x0, 0x9, 0xD),
     (0xB, 0xA, 0x5, 0xE, 0x6, 0xD, 0x9, 0x0, 0xC, 0x8, 0xF, 0x3, 0x2, 0x4, 0x7, 0x1),
     (0xD, 0x7, 0xF, 0x4, 0x1, 0x2, 0x6, 0xE, 0x9, 0xB, 0x3, 0x0, 0x8, 0x5, 0xC, 0xA)),
    ((0x2, 0x8, 0xB, 0xD, 0xF, 0x7, 0x6, 0xE, 0x3, 0x1, 0x9, 0x4, 0x0, 0xA, 0xC, 0x5),
     (0x1, 0xE, 0x2, 0xB, 0x4, 0xC, 0x3, 0x7, 0x6, 0xD, 0xA, 0x5, 0xF, 0x9, 0x0, 0x8),
     (0x4, 0xC, 0x7, 0x5, 0x1, 0x6, 0x9, 0xA, 0x0, 0xE, 0xD, 0x8, 0x2, 0xB, 0x3, 0xF),
     (0xB, 0x9, 0x5, 0x1, 0xC, 0x3, 0xD, 0xE, 0x6, 0x4, 0x7, 0xF, 0x2, 0x0, 0x8, 0xA)),
)


def _ror4(x: int, n: int) -> int:
    return ((x >> n) | (x << (4 - n))) & 0xF


def _q(t, x: int) -> int:
    a, b = x >> 4, x & 0xF
    a, b = a ^ b, a ^ _ror4(b, 1) ^ ((8 * a) & 0xF)
    a, b = t[0][a], t[1][b]
    a, b = a ^ b, a ^ _ror4(b, 1) ^ ((8 * a) & 0xF)
    a, b = t[2][a], t[3][b]
    return (b << 4) | a


Q0 = tuple(_q(_Q_T[0], x) for x in range(256))
Q1 = tuple(_q(_Q_T[1], x) for x in range(256))

MDS = ((0x01, 0xEF, 0x5B, 0x5B), (0x5B, 0xEF, 0xEF, 0x01),
       (0xEF, 0x5B, 0x01, 0xEF), (0xEF, 0x01, 0xEF, 0x5B))
RS = ((0x01, 0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E),
      (0xA4, 0x56, 0x82, 0xF3, 0x1E, 0xC6, 0x68, 0xE5),
      (0x02, 0xA1, 0xFC, 0xC1, 0x47, 0xAE, 0x3D, 0x19),
      (0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E, 0x03))
MDS_POLY, RS_POLY = 0x169, 0x14D






def _bytes(w: int) -> list[int]:
    return [(w >> (8 * i)) & 0xFF for i in range(4)]


def _word(bs) -> int:
    return sum(b << (8 * i) for i, b in enumerate(bs))


def mds(y: list[int]) -> int:
    return _word([gf_mul(MDS[i][0], y[0], MDS_POLY) ^ gf_mul(MDS[i][1], y[1], MDS_POLY)
                  ^ gf_mul(MDS[i][2], y[2], MDS_POLY) ^ gf_mul(MDS[i][3], y[3], MDS_POLY)
                  for i in range(4)])


def h(x: int, key_words: list[int]) -> int:
    """The h function: ``key_words`` = L[0..k-1]."""
    y = _bytes(x)
    L = [_bytes(w) for w in key_words]
    k = len(L)
    if k == 4:
        y = [Q1[y[0]] ^ L[3][0], Q0[y[1]] ^ L[3][1], Q0[y[2]] ^ L[3][2], Q1[y[3]] ^ L[3][3]]
    if k >= 3:
        y = [Q1[y[0]] ^ L[2][0], Q1[y[1]] ^ L[2][1], Q0[y[2]] ^ L[2][2], Q0[y[3]] ^ L[2][3]]
    y = [Q1[Q0[Q0[y[0]] ^ L[1][0]] ^ L[0][0]],
         Q0[Q0[Q1[y[1]] ^ L[1][1]] ^ L[0][1]],
         Q1[Q1[Q0[y[2]] ^ L[1][2]] ^ L[0][2]],
         Q0[Q1[Q1[y[3]] ^ L[1][3]] ^ L[0][3]]]
    return mds(y)


def rs(m8: bytes) -> int:
    """An S-box key word: the RS matrix times 8 key bytes."""
    out = []
    for row in RS:
        r = 0
        for c, m in zip(row, m8):
            r ^= gf_mul(c, m, RS_POLY)
        out.append(r)
    return _word(out)


def key_schedule(key: bytes) -> tuple[list[int], list[int]]:
    """(K[0..39], the S-box key words in g's order S_{k-1}, ..., S_0)."""
    if 8 * len(key) not in KEY_BITS:
        raise CipherfabError(f"twofish takes 128/192/256-bit keys, not {8 * len(key)}")
    k = len(key) // 8
    m = [_word(key[4 * i:4 * i + 4]) for i in range(2 * k)]
    me, mo = m[0::2], m[1::2]
    s = [rs(key[8 * i:8 * i + 8]) for i in range(k)]
    rho = 0x01010101
    K = []
    for i in range(20):
        a = h(2 * i * rho & MASK, me)
        b = rol(h((2 * i + 1) * rho & MASK, mo), 8)
        K += [(a + b) & MASK, rol((a + 2 * b) & MASK, 9)]
    return K, s[::-1]


def _f(K, S, r0, r1, rnd):
    t0, t1 = h(r0, S), h(rol(r1, 8), S)
    return (t0 + t1 + K[2 * rnd + 8]) & MASK, (t0 + 2 * t1 + K[2 * rnd + 9]) & MASK


def encrypt_block(ks, block: bytes) -> bytes:
    K, S = ks
    r = [_word(block[4 * i:4 * i + 4]) ^ K[i] for i in range(4)]
    for rnd in range(ROUNDS):
        f0, f1 = _f(K, S, r[0], r[1], rnd)
        r = [ror(r[2] ^ f0, 1), rol(r[3], 1) ^ f1, r[0], r[1]]
    out = [r[(i + 2) % 4] ^ K[i + 4] for i in range(4)]
    return b"".join(w.to_bytes(4, "little") for w in out)


def decrypt_block(ks, block: bytes) -> bytes:
    K, S = ks
    c = [_word(block[4 * i:4 * i + 4]) ^ K[i + 4] for i in range(4)]
    r = [c[2], c[3], c[0], c[1]]                 # the state after the last round's swap
    for rnd in reversed(range(ROUNDS)):
        r = [r[2], r[3], r[0], r[1]]             # undo the swap
        f0, f1 = _f(K, S, r[0], r[1], rnd)
        r = [r[0], r[1], rol(r[2], 1) ^ f0, ror(r[3] ^ f1, 1)]
    return b"".join((w ^ K[i]).to_bytes(4, "little") for i, w in enumerate(r))



class Model(EcbModel):
    """ECB over whole 16-byte blocks."""

    name = "twofish"
    key_schedule = staticmethod(key_schedule)
    encrypt_block = staticmethod(encrypt_block)
    decrypt_block = staticmethod(decrypt_block)
