"""The pieces of DES (FIPS 46-3) the cores share: permutations, S-boxes, key schedule, round.

Bit numbering
-------------
FIPS 46-3 numbers bits 1..n from the left (bit 1 is the most significant).  On
every cipherfab port byte 0 sits in the top bits, so FIPS bit ``i`` of an n-bit
value is Amaranth bit ``n - i``.  Every table below is written exactly as printed
in the standard (1-based positions, output bit 1 first); :func:`permute` does the
renumbering, so IP, FP, E, P, PC-1 and PC-2 are pure wiring.

Keys
----
A DES key is 64 bits with a parity bit in every byte (FIPS bits 8, 16, ..., 64);
PC-1 never selects them, so parity is ignored, not checked.  Triple DES (SP
800-67) is EDE: ``E_K3(D_K2(E_K1(x)))``, decryption ``D_K1(E_K2(D_K3(y)))``; on the
key port a 128-bit key is K1 K2 (K3 = K1), a 192-bit key K1 K2 K3, and a 64-bit
key is single DES (EDE with K1 = K2 = K3).  :func:`tdes_keys` splits the port.

Key schedule
------------
``C0 D0 = PC-1(K)``; before round i both 28-bit halves rotate left by
``SHIFTS[i]``, and ``K_i = PC-2(C_i D_i)``.  The shifts add up to 28, so
``C16 D16 = C0 D0``: decryption uses K16 first, which is ``PC-2(PC-1(K))``, and
then rotates *right* by ``SHIFTS[16], SHIFTS[15], ..., SHIFTS[2]``
(:data:`DECRYPT_SHIFTS`, a 0 before the first round), so either direction's
subkeys come out of two rotating registers, on the fly.

Round
-----
``f(R, K) = P(S1..S8(E(R) ^ K))``; a round maps ``(L, R)`` to ``(R, L ^ f(R, K))``
except the last of a DES pass, which does not swap (``(L ^ f(R, K), R)``), so
that after 16 rounds ``L R`` is the preoutput ``R16 L16`` and ``FP`` of it is the
result.  Since ``IP(FP(x)) = x``, the next pass of EDE starts from the preoutput
as it is: FP and IP are applied once per block, not once per pass.

:func:`des_block` is the same in plain Python (integers), for the tests.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw.sbox import SboxTables, SubBytes

IP = (58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
      62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
      57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
      61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7)

FP = tuple(IP.index(i) + 1 for i in range(1, 65))   # IP^-1: 40 8 48 16 56 24 64 32 ...

E = (32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
     16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1)

P = (16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
     2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25)

PC1 = (57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,       # C
       10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
       63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,       # D
       14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4)

PC2 = (14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
       41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32)

#: left rotations of C and D before rounds 1..16 (encryption)
SHIFTS = (1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1)
#: right rotations before rounds 1..16 of a decryption (subkeys K16 .. K1)
DECRYPT_SHIFTS = (0,) + SHIFTS[:0:-1]

#: S1..S8 as printed: 4 rows (bits 1 and 6 of the input) of 16 columns (bits 2..5)
S = (
    ((14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7),
     (0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8),
     (4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0),
     (15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13)),
    ((15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10),
     (3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5),
     (0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15),
     (13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9)),
    ((10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8),
     (13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1),
     (13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7),
     (1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12)),
    ((7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15),
     (13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9),
     (10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4),
     (3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14)),
    ((2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9),
     (14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6),
     (4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14),
     (11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3)),
    ((12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11),
     (10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8),
     (9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6),
     (4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13)),
    ((4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1),
     (13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6),
     (1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2),
     (6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12)),
    ((13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7),
     (1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2),
     (7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8),
     (2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11)),
)


def sbox_table(n: int) -> tuple[int, ...]:
    """S-box ``n`` (0..7) as a 64-entry table indexed by its 6-bit input (bit 1 the MSB)."""
    return tuple(S[n][(x >> 4 & 2) | (x & 1)][x >> 1 & 15] for x in range(64))


# ------------------------------------------------------------------------------- hardware

def permute(x, table, in_bits: int):
    """``table`` (FIPS positions, output bit 1 first) applied to an ``in_bits`` value: wiring."""
    return Cat(*(x[in_bits - t] for t in reversed(table)))


def tdes_keys(key, key_bits: int) -> tuple:
    """(K1, K2, K3) of a 64/128/192-bit key port value (K1 in the top bits)."""
    k = [key[64 * (key_bits // 64 - 1 - i):64 * (key_bits // 64 - i)] for i in range(key_bits // 64)]
    return (k[0], k[1], k[0]) if key_bits == 128 else tuple(k) if key_bits == 192 else (k[0],) * 3


def pc1(key):
    """(C0, D0) = PC-1(key), 28 bits each."""
    cd = permute(key, PC1, 64)
    return cd[28:56], cd[0:28]


def pc2(c, d):
    """The 48-bit subkey PC-2(C D)."""
    return permute(Cat(d, c), PC2, 56)


def subkey_table(n: int) -> tuple[int, ...]:
    """The key bits (FIPS positions 1..64) K_n (1..16) selects: PC-2 of PC-1 rotated left
    by the first n shifts, composed into one table."""
    s = sum(SHIFTS[:n]) % 28
    cd = [PC1[(j + s) % 28] for j in range(28)] + [PC1[28 + (j + s) % 28] for j in range(28)]
    return tuple(cd[t - 1] for t in PC2)


def subkey(key, n: int):
    """K_n (1..16) of a 64-bit key as wiring (one bit selection, :func:`subkey_table`)."""
    return permute(key, subkey_table(n), 64)


class FeistelFunction(wiring.Component):
    """``f = P(S(E(r) ^ k))``: the cipher function, eight 6->4 S-boxes as logic tables."""

    def __init__(self):
        super().__init__({"r": In(32), "k": In(48), "f": Out(32)})

    def elaborate(self, platform):
        m = Module()
        x = self.add_key(permute(self.r, E, 32))
        out = []
        for n in range(8):                       # S1 reads E bits 1..6, the top of x
            m.submodules[f"s{n + 1}"] = s = SubBytes(1, SboxTables(sbox_table(n), in_bits=6,
                                                                    out_bits=4), "lut", latency=0)
            m.d.comb += s.x.eq(x[42 - 6 * n:48 - 6 * n])
            out.append(s.y)
        m.d.comb += self.f.eq(permute(Cat(*reversed(out)), P, 32))
        return m

    def add_key(self, e):
        """``E(r) ^ k`` (a hook: a key-specific core adds a constant key as wiring)."""
        return e ^ self.k


class KeyStream:
    """The cores' key port (a ``key`` stream into a register, each core's ``key_register``),
    as hooks a key-specific core (no key port) replaces."""

    def key_ready(self, idle) -> list:
        """Statements: a key is taken while ``idle``."""
        return [self.key.ready.eq(idle)]

    def key_gate(self, ready):
        """``ready`` (a block may enter) as far as the key port goes."""
        return ready & ~self.key.valid

    def take_key(self, m: Module, key, have_key):
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += [key.eq(self.key.payload), have_key.eq(1)]


def feistel_round(m: Module, f: FeistelFunction, left, right, k, swap=True):
    """One round's new (L, R): ``(R, L ^ f(R, K))``, or ``(L ^ f(R, K), R)`` without the swap
    (``swap`` may be a signal: the last round of a pass does not swap)."""
    mixed = Signal(32)
    m.d.comb += [f.r.eq(right), f.k.eq(k), mixed.eq(left ^ f.f)]
    if swap is True:
        return right, mixed
    if swap is False:
        return mixed, right
    return Mux(swap, right, mixed), Mux(swap, mixed, right)


# ------------------------------------------------------------------------------- software

def _permute_int(x: int, table, in_bits: int) -> int:
    out = 0
    for t in table:
        out = out << 1 | (x >> (in_bits - t) & 1)
    return out


def _rol28(x: int, s: int) -> int:
    return (x << s | x >> (28 - s)) & 0xFFFFFFF


def des_block(key: bytes, block: bytes, decrypt: bool = False) -> bytes:
    """Single DES of one 8-byte block with the tables above (plain Python, for the tests)."""
    cd = _permute_int(int.from_bytes(key, "big"), PC1, 64)
    c, d, keys = cd >> 28, cd & 0xFFFFFFF, []
    for s in SHIFTS:
        c, d = _rol28(c, s), _rol28(d, s)
        keys.append(_permute_int(c << 28 | d, PC2, 56))
        assert keys[-1] == _permute_int(int.from_bytes(key, "big"), subkey_table(len(keys)), 64)
    x = _permute_int(int.from_bytes(block, "big"), IP, 64)
    left, right = x >> 32, x & 0xFFFFFFFF
    for i, k in enumerate(reversed(keys) if decrypt else keys):
        e = _permute_int(right, E, 32) ^ k
        s = 0
        for n in range(8):
            s = s << 4 | sbox_table(n)[e >> (42 - 6 * n) & 63]
        left, right = right, left ^ _permute_int(s, P, 32)
    return _permute_int(right << 32 | left, FP, 64).to_bytes(8, "big")
