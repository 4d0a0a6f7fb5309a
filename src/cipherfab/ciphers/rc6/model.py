"""RC6-32/20/b (Rivest, Robshaw, Sidney, Yin; AES finalist) in pure Python.

Theory of operation
-------------------
Blocks and keys are byte strings; the four 32-bit registers A, B, C, D and the
key words are read little-endian (byte 0 lowest), as in the RC6 paper and the
NESSIE files.  Key schedule: ``S[0] = P32``, ``S[i] = S[i-1] + Q32`` for the
2r + 4 = 44 round-key words, then 3·max(c, 44) mixing steps with the key words
``L``.  Encryption: ``B += S[0]``, ``D += S[1]``; each of the 20 rounds computes
``t = (B(2B+1)) <<< 5``, ``u = (D(2D+1)) <<< 5`` (the 32x32 multiply keeps the
low 32 bits), ``A = ((A ^ t) <<< u) + S[2i]``, ``C = ((C ^ u) <<< t) + S[2i+1]``
and rotates (A, B, C, D) one register; finally ``A += S[42]``, ``C += S[43]``.
Rotation amounts are the low 5 bits.
"""

from __future__ import annotations

from ...errors import CipherfabError
from ..ecb import MASK, EcbModel, rol, ror

W, R = 32, 20
P32, Q32 = 0xB7E15163, 0x9E3779B9
KEY_BITS = (128, 192, 256)




def key_schedule(key: bytes) -> list[int]:
    """The 2r + 4 = 44 round-key words S[0..43]."""
    if 8 * len(key) not in KEY_BITS:
        raise CipherfabError(f"rc6 takes 128/192/256-bit keys, not {8 * len(key)}")
    c = len(key) // 4
    L = [int.from_bytes(key[4 * k:4 * k + 4], "little") for k in range(c)]
    t = 2 * R + 4
    S = [(P32 + i * Q32) & MASK for i in range(t)]
    a = b = i = j = 0
    for _ in range(3 * max(c, t)):
        a = S[i] = rol((S[i] + a + b) & MASK, 3)
        b = L[j] = rol((L[j] + a + b) & MASK, a + b)
        i, j = (i + 1) % t, (j + 1) % c
    return S


def _f(x: int) -> int:
    return rol((x * (2 * x + 1)) & MASK, 5)


def encrypt_block(S, block: bytes) -> bytes:
    a, b, c, d = (int.from_bytes(block[4 * k:4 * k + 4], "little") for k in range(4))
    b, d = (b + S[0]) & MASK, (d + S[1]) & MASK
    for i in range(1, R + 1):
        t, u = _f(b), _f(d)
        a = (rol(a ^ t, u) + S[2 * i]) & MASK
        c = (rol(c ^ u, t) + S[2 * i + 1]) & MASK
        a, b, c, d = b, c, d, a
    a, c = (a + S[2 * R + 2]) & MASK, (c + S[2 * R + 3]) & MASK
    return b"".join(v.to_bytes(4, "little") for v in (a, b, c, d))


def decrypt_block(S, block: bytes) -> bytes:
    a, b, c, d = (int.from_bytes(block[4 * k:4 * k + 4], "little") for k in range(4))
    c, a = (c - S[2 * R + 3]) & MASK, (a - S[2 * R + 2]) & MASK
    for i in range(R, 0, -1):
        a, b, c, d = d, a, b, c
        u, t = _f(d), _f(b)
        c = ror((c - S[2 * i + 1]) & MASK, t) ^ u
        a = ror((a - S[2 * i]) & MASK, u) ^ t
    d, b = (d - S[1]) & MASK, (b - S[0]) & MASK
    return b"".join(v.to_bytes(4, "little") for v in (a, b, c, d))



class Model(EcbModel):
    """ECB over whole 16-byte blocks."""

    name = "rc6"
    key_schedule = staticmethod(key_schedule)
    encrypt_block = staticmethod(encrypt_block)
    decrypt_block = staticmethod(decrypt_block)
