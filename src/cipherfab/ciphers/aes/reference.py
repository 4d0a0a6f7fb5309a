"""AES (FIPS-197) reference model in pure Python.

This module is the single source of the S-box, inverse S-box and Rcon tables:
the hardware generators import them from here.  Conventions follow FIPS-197:
blocks and keys are ``bytes``; the state is column-major (byte ``i`` of the
input is row ``i % 4``, column ``i // 4``); a word is four bytes, big-endian
when shown as an integer (``w[0]`` of the key is its first four bytes).
"""

from __future__ import annotations

__all__ = [
    "SBOX", "INV_SBOX", "RCON", "NK", "NR",
    "xtime", "gmul", "sub_word", "rot_word",
    "expand_key", "round_keys", "key_words_from_bytes",
    "encrypt_block", "decrypt_block", "decrypt_block_equivalent",
]

#: Nk (key words) and Nr (rounds) per key size in bits.
NK = {128: 4, 192: 6, 256: 8}
NR = {128: 10, 192: 12, 256: 14}


def xtime(a: int) -> int:
    """Multiply by x (0x02) in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1."""
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def gmul(a: int, b: int) -> int:
    """Multiply two elements of GF(2^8)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = xtime(a)
        b >>= 1
    return r


def _inverse(a: int) -> int:
    if a == 0:
        return 0
    # a^254 = a^-1 in GF(2^8)
    r, p, e = 1, a, 254
    while e:
        if e & 1:
            r = gmul(r, p)
        p = gmul(p, p)
        e >>= 1
    return r


def _affine(b: int) -> int:
    r = 0x63
    for i in range(8):
        bit = ((b >> i) ^ (b >> ((i + 4) % 8)) ^ (b >> ((i + 5) % 8))
               ^ (b >> ((i + 6) % 8)) ^ (b >> ((i + 7) % 8))) & 1
        r ^= bit << i
    return r


#: SubBytes table, FIPS-197 Figure 7 (computed from its definition, Section 5.1.1).
SBOX: tuple[int, ...] = tuple(_affine(_inverse(a)) for a in range(256))
#: InvSubBytes table, FIPS-197 Figure 14.
INV_SBOX: tuple[int, ...] = tuple(SBOX.index(v) for v in range(256))


def _rcon() -> tuple[int, ...]:
    r, c = [], 1
    for _ in range(14):
        r.append(c)
        c = xtime(c)
    return tuple(r)


#: Rcon[i] for i = 1..14 stored at index i - 1 (only the first byte; the rest are 0).
RCON: tuple[int, ...] = _rcon()


def sub_word(w: int) -> int:
    return int.from_bytes(bytes(SBOX[b] for b in w.to_bytes(4, "big")), "big")


def rot_word(w: int) -> int:
    return ((w << 8) | (w >> 24)) & 0xFFFFFFFF


def key_words_from_bytes(key: bytes) -> list[int]:
    if len(key) * 8 not in NK:
        raise ValueError(f"AES key must be 16, 24 or 32 bytes, not {len(key)}")
    return [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(len(key) // 4)]


def expand_key(key: bytes, words: int | None = None) -> list[int]:
    """KeyExpansion (FIPS-197 Section 5.2): ``4 * (Nr + 1)`` words, or ``words`` if given.

    Asking for more words than the standard uses simply runs the same recurrence
    further; the on-the-fly hardware key schedule relies on this.
    """
    w = key_words_from_bytes(key)
    nk = len(w)
    total = 4 * (NR[nk * 32] + 1) if words is None else words
    for i in range(nk, total):
        t = w[i - 1]
        if i % nk == 0:
            t = sub_word(rot_word(t)) ^ (RCON[i // nk - 1] << 24)
        elif nk > 6 and i % nk == 4:
            t = sub_word(t)
        w.append(w[i - nk] ^ t)
    return w


def round_keys(key: bytes) -> list[bytes]:
    """The Nr + 1 round keys as 16-byte strings."""
    w = expand_key(key)
    return [b"".join(x.to_bytes(4, "big") for x in w[4 * r:4 * r + 4])
            for r in range(len(w) // 4)]


# --- round functions on a 16-byte state (byte i = row i % 4, column i // 4) ---

def _sub_bytes(s: list[int], box=SBOX) -> list[int]:
    return [box[b] for b in s]


def _shift_rows(s: list[int]) -> list[int]:
    return [s[(r + 4 * (c + r)) % 16] for c in range(4) for r in range(4)]


def _inv_shift_rows(s: list[int]) -> list[int]:
    return [s[(r + 4 * (c - r)) % 16] for c in range(4) for r in range(4)]


def _mix_column(col: list[int], m: tuple[int, int, int, int]) -> list[int]:
    return [gmul(col[0], m[(0 - r) % 4]) ^ gmul(col[1], m[(1 - r) % 4])
            ^ gmul(col[2], m[(2 - r) % 4]) ^ gmul(col[3], m[(3 - r) % 4]) for r in range(4)]


_MIX = (2, 3, 1, 1)
_INV_MIX = (14, 11, 13, 9)


def _mix_columns(s: list[int], m=_MIX) -> list[int]:
    out: list[int] = []
    for c in range(4):
        out += _mix_column(s[4 * c:4 * c + 4], m)
    return out


def _add_round_key(s: list[int], k: bytes) -> list[int]:
    return [a ^ b for a, b in zip(s, k)]


def _check_block(block: bytes) -> list[int]:
    if len(block) != 16:
        raise ValueError(f"AES block must be 16 bytes, not {len(block)}")
    return list(block)


def encrypt_block(key: bytes, block: bytes) -> bytes:
    """Cipher (FIPS-197 Section 5.1)."""
    rk = round_keys(key)
    nr = len(rk) - 1
    s = _add_round_key(_check_block(block), rk[0])
    for r in range(1, nr):
        s = _add_round_key(_mix_columns(_shift_rows(_sub_bytes(s))), rk[r])
    return bytes(_add_round_key(_shift_rows(_sub_bytes(s)), rk[nr]))


def decrypt_block(key: bytes, block: bytes) -> bytes:
    """InvCipher (FIPS-197 Section 5.3)."""
    rk = round_keys(key)
    nr = len(rk) - 1
    s = _add_round_key(_check_block(block), rk[nr])
    for r in range(nr - 1, 0, -1):
        s = _sub_bytes(_inv_shift_rows(s), INV_SBOX)
        s = _mix_columns(_add_round_key(s, rk[r]), _INV_MIX)
    return bytes(_add_round_key(_sub_bytes(_inv_shift_rows(s), INV_SBOX), rk[0]))


def decrypt_block_equivalent(key: bytes, block: bytes) -> bytes:
    """EqInvCipher (FIPS-197 Section 5.3.5): InvMixColumns applied to round keys 1..Nr-1."""
    rk = round_keys(key)
    nr = len(rk) - 1
    dk = [rk[0]] + [bytes(_mix_columns(list(k), _INV_MIX)) for k in rk[1:nr]] + [rk[nr]]
    s = _add_round_key(_check_block(block), dk[nr])
    for r in range(nr - 1, 0, -1):
        s = _mix_columns(_inv_shift_rows(_sub_bytes(s, INV_SBOX)), _INV_MIX)
        s = _add_round_key(s, dk[r])
    return bytes(_add_round_key(_inv_shift_rows(_sub_bytes(s, INV_SBOX)), dk[0]))
