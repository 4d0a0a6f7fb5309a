"""Serpent (Anderson, Biham, Knudsen; AES finalist) in pure Python, bitslice form.

Theory of operation
-------------------
Blocks and keys are byte strings in the byte-array convention of the NESSIE
files: byte 0 is the least significant byte of the 128-bit value the
specification works on.  (The AES-submission files print that value as one
big hex number, so their strings are byte-reversed; ``parse_file(...,
byte_reversed=True)`` turns them round.)  The state is four 32-bit words,
``X0`` = bits 0..31.

Round ``i`` (0..31) adds round key ``K[i]``, applies S-box ``S[i mod 8]`` in
bitslice mode (bit ``j`` of ``X0..X3`` is one 4-bit S-box input, ``X0`` the
least significant) and the linear transformation LT; the last round replaces
LT by adding ``K[32]``.  This is the specification's bitslice description, equal
to the one with the IP/FP permutations.

Key schedule: a key shorter than 256 bits is padded with a 1 bit and then
zeros; the eight words ``w[-8..-1]`` give the prekeys
``w[i] = (w[i-8] ^ w[i-5] ^ w[i-3] ^ w[i-1] ^ phi ^ i) <<< 11`` (``phi`` =
0x9e3779b9, i = 0..131), and ``K[i]`` is ``S[(3 - i) mod 8]`` in bitslice mode on
``w[4i .. 4i+3]``.
"""

from __future__ import annotations

import functools

from ...errors import CipherfabError
from ..ecb import MASK, EcbModel, from_words, rol, ror, words

SBOXES = (
    (3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12),
    (15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4),
    (8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2),
    (0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14),
    (1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13),
    (15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1),
    (7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0),
    (1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6),
)
INV_SBOXES = tuple(tuple(s.index(v) for v in range(16)) for s in SBOXES)
PHI = 0x9E3779B9
ROUNDS = 32
KEY_BITS = (128, 192, 256)




def bitslice(box, words):
    """``box`` applied to the 32 nibbles (bit j of each word, word 0 least significant):
    each output word is the XOR of the monomials (ANDs of input words) of that output bit's
    algebraic normal form, all 32 nibbles at once."""
    mono = [MASK]
    for m in range(1, 16):                      # mono[m]: the AND of the words in m
        low = (m & -m).bit_length() - 1
        mono.append(mono[m & (m - 1)] & words[low])
    out = []
    for terms in _anf(box):
        v = 0
        for m in terms:
            v ^= mono[m]
        out.append(v)
    return out


@functools.cache
def _anf(box: tuple) -> tuple:
    """Per output bit, the monomials (input-bit sets) of its algebraic normal form."""
    out = []
    for k in range(4):
        f = [(box[x] >> k) & 1 for x in range(16)]
        for i in range(4):                      # the Moebius transform
            for x in range(16):
                if x >> i & 1:
                    f[x] ^= f[x ^ (1 << i)]
        out.append(tuple(m for m in range(16) if f[m]))
    return tuple(out)


def lt(x):
    """The linear transformation LT."""
    x0, x1, x2, x3 = x
    x0 = rol(x0, 13)
    x2 = rol(x2, 3)
    x1 ^= x0 ^ x2
    x3 ^= x2 ^ ((x0 << 3) & MASK)
    x1 = rol(x1, 1)
    x3 = rol(x3, 7)
    x0 ^= x1 ^ x3
    x2 ^= x3 ^ ((x1 << 7) & MASK)
    return [rol(x0, 5), x1, rol(x2, 22), x3]


def inv_lt(x):
    x0, x1, x2, x3 = x
    x2, x0 = ror(x2, 22), ror(x0, 5)
    x2 ^= x3 ^ ((x1 << 7) & MASK)
    x0 ^= x1 ^ x3
    x3, x1 = ror(x3, 7), ror(x1, 1)
    x3 ^= x2 ^ ((x0 << 3) & MASK)
    x1 ^= x0 ^ x2
    return [ror(x0, 13), x1, ror(x2, 3), x3]




def round_keys(key: bytes) -> list[list[int]]:
    """The 33 round keys K[0..32], each four words."""
    if 8 * len(key) not in KEY_BITS:
        raise CipherfabError(f"serpent takes 128/192/256-bit keys, not {8 * len(key)}")
    padded = key + (b"\x01" + bytes(31 - len(key)) if len(key) < 32 else b"")
    w = words(padded)                                   # w[-8..-1]
    for i in range(4 * (ROUNDS + 1)):
        w.append(rol(w[i] ^ w[i + 3] ^ w[i + 5] ^ w[i + 7] ^ PHI ^ i, 11))
    pre = w[8:]
    return [bitslice(SBOXES[(3 - i) % 8], pre[4 * i:4 * i + 4]) for i in range(ROUNDS + 1)]


def _add(x, k):
    return [a ^ b for a, b in zip(x, k)]


def encrypt_block(keys, block: bytes) -> bytes:
    x = words(block)
    for i in range(ROUNDS):
        x = bitslice(SBOXES[i % 8], _add(x, keys[i]))
        x = lt(x) if i < ROUNDS - 1 else _add(x, keys[ROUNDS])
    return from_words(x)


def decrypt_block(keys, block: bytes) -> bytes:
    x = words(block)
    for i in reversed(range(ROUNDS)):
        x = _add(x, keys[ROUNDS]) if i == ROUNDS - 1 else inv_lt(x)
        x = _add(bitslice(INV_SBOXES[i % 8], x), keys[i])
    return from_words(x)



class Model(EcbModel):
    """ECB over whole 16-byte blocks (byte-array convention, see the module text)."""

    name = "serpent"
    key_schedule = staticmethod(round_keys)
    encrypt_block = staticmethod(encrypt_block)
    decrypt_block = staticmethod(decrypt_block)
