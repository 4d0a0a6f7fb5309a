"""Iterative Twofish encryption: one round per clock, the expanded key words computed
beside the rounds (paper 000: key setup concurrent with encryption).

Theory of operation
-------------------
Words are little-endian (:mod:`cipherfab.hw.words`).  ``h`` is built as in the
specification (:mod:`.model`): per byte k + 2 look-ups in ``q0``/``q1`` (each a
:class:`~cipherfab.hw.sbox.SubBytes` lane, style ``lut``, latency 0) with key
bytes added between them, then the MDS matrix.  The round's two ``g`` functions
are ``h`` with the S-box key words ``S`` (computed from the key by the
Reed-Solomon matrix when the key is loaded); the key lane has two more ``h``
units (even and odd key words) and the PHT, making one pair ``K[2i], K[2i+1]``
per clock.

The constant GF(2^8) multiplications of the MDS and RS matrices (parameter
``mds``): ``logic`` builds each as an XOR network (every output bit a parity of
input bits, :func:`const_mul`); ``rom`` uses tables, paper 000's choice ("the
best known implementation of a constant coefficient multiplier in Virtex FPGAs
is by using a look-up table"): per input byte a 256-entry table of the 32-bit
product of that byte with its matrix column, so ``MDS(y) = T0[y0] ^ T1[y1] ^
T2[y2] ^ T3[y3]`` (four tables per ``h``) and each RS word is the XOR of eight
column tables.  The tables are *combinational* (:class:`SubBytes` style
``lut``, latency 0: a case statement that Yosys maps to LUTs), not
``Memory`` read ports: ``h`` sits inside the one-clock round and inside the
one-pair-per-clock key lane, and a synchronous read port (ECP5 block RAM has no
other) would put a register in the middle of both, doubling the clocks per
round.  So both styles have the same cycle counts.

Key setup: the key is taken, then the lane makes the whitening pairs i = 0..3
into registers (4 clocks).  A block's load XORs ``K[0..3]`` in while the lane makes
pair 4 (round 0's keys); round r runs while the lane makes pair r + 5; the round
after the 16th writes ``R ^ K[4..7]`` (halves swapped back) to the output.  So a
block takes 18 clocks (load, 16 rounds, output), whatever the key or data.

Area split (paper 000 Table 8): the key lane's two ``h`` units, its PHT and the RS
matrix are the submodule ``key_schedule``; the round's two ``g`` functions and their PHT
``round``; the registers (key words, whitening words, state) sit in the top module.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.single_block import drive_ports, handshake
from ...hw.sbox import SboxTables, SubBytes
from ...hw.words import from_le_words, le_words
from .model import MDS, MDS_POLY, Q0, Q1, ROUNDS, RS, RS_POLY, gf_mul

Q = {0: SboxTables(Q0), 1: SboxTables(Q1)}
#: q0/q1 per byte position and level, outermost level last (the specification's h).
LEVEL4 = (1, 0, 0, 1)
LEVEL3 = (1, 1, 0, 0)
LEVEL2 = ((0, 0, 1), (1, 0, 0), (0, 1, 1), (1, 1, 0))   # the three q's of each byte, in order


def const_mul(x, c: int, poly: int):
    """``c · x`` in GF(2^8) mod ``poly``: an XOR network (each output bit a parity of inputs)."""
    cols = [gf_mul(c, 1 << b, poly) for b in range(8)]
    bits = []
    for o in range(8):
        terms = [x[b] for b in range(8) if (cols[b] >> o) & 1]
        v = terms[0]
        for t in terms[1:]:
            v = v ^ t
        bits.append(v)
    return Cat(*bits)


def column_tables(m_rows, poly) -> list[SboxTables]:
    """Per column j of a matrix of constants: the 256-entry table y -> (column j) · y, row i's
    product in bits 8i..8i+7 (so the matrix times a vector is the XOR of the columns' entries)."""
    return [SboxTables(tuple(sum(gf_mul(row[j], y, poly) << (8 * i) for i, row in enumerate(m_rows))
                             for y in range(256)), out_bits=8 * len(m_rows))
            for j in range(len(m_rows[0]))]


MDS_TABLES = column_tables(MDS, MDS_POLY)
RS_TABLES = column_tables(RS, RS_POLY)


def matrix_times(m_rows, ys, poly):
    """A matrix of constants times the byte vector ``ys`` over GF(2^8): the output bytes."""
    out = []
    for row in m_rows:
        v = const_mul(ys[0], row[0], poly)
        for c, y in zip(row[1:], ys[1:]):
            v = v ^ const_mul(y, c, poly)
        out.append(v)
    return out


class H:
    """Builds ``h(x, L)`` circuits in module ``m`` (look-ups as named SubBytes lanes)."""

    def __init__(self, m: Module, mds: str = "logic"):
        self.m, self.n, self.mds = m, 0, mds
        self.tables = 0

    def table(self, tables: SboxTables, x):
        """``tables[x]`` as a combinational look-up (a named SubBytes lane, style lut)."""
        unit = SubBytes(1, tables, "lut", latency=0)
        self.m.submodules[f"t{self.tables}"] = unit
        self.tables += 1
        self.m.d.comb += unit.x.eq(x)
        return unit.y

    def times(self, tables: list, m_rows, poly, ys):
        """The matrix ``m_rows`` times the bytes ``ys``: XOR networks or column tables."""
        if self.mds == "logic":
            return Cat(*matrix_times(m_rows, ys, poly))
        v = self.table(tables[0], ys[0])
        for t, y in zip(tables[1:], ys[1:]):
            v = v ^ self.table(t, y)
        return v

    def q(self, which: int, x):
        unit = SubBytes(1, Q[which], "lut", latency=0)
        self.m.submodules[f"q{which}_{self.n}"] = unit
        self.n += 1
        self.m.d.comb += unit.x.eq(x)
        return unit.y

    def __call__(self, x, key_words: list):
        ys = [x[8 * b:8 * b + 8] for b in range(4)]
        L = [[w[8 * b:8 * b + 8] for b in range(4)] for w in key_words]
        k = len(L)
        if k == 4:
            ys = [self.q(LEVEL4[b], ys[b]) ^ L[3][b] for b in range(4)]
        if k >= 3:
            ys = [self.q(LEVEL3[b], ys[b]) ^ L[2][b] for b in range(4)]
        out = []
        for b in range(4):
            a, c, d = LEVEL2[b]
            out.append(self.q(d, self.q(c, self.q(a, ys[b]) ^ L[1][b]) ^ L[0][b]))
        return self.times(MDS_TABLES, MDS, MDS_POLY, out)


class IterativeTwofish(wiring.Component):
    """Twofish encryption, 128/192/256-bit keys, one round per clock."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", mds: str = "logic"):
        self.key_bits, self.mds = key_bits, mds
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=("encrypt",),
            latency=ROUNDS + 2, cycles_per_block=ROUNDS + 2, cycles_per_block_feedback=ROUNDS + 2,
            blocks_in_flight=1,
            key_setup_cycles=5,                  # the four whitening pairs, then blocks enter
            parts={"key_schedule": "key_schedule", "round": "datapath"},
        )))

    def elaborate(self, platform):
        m = Module()
        m.submodules.key_schedule = ks = Module()       # the key lane and the RS matrix
        m.submodules.round = rnd = Module()             # the round's two g functions
        h_key, h = H(ks, self.mds), H(rnd, self.mds)
        block, _, _ = payload_parts(self)
        k = self.key_bits // 64
        key_in = le_words(self.key.payload)
        m_words = [Signal(32, name=f"m{i}") for i in range(2 * k)]
        s_words = [Signal(32, name=f"s{i}") for i in range(k)]         # S_{k-1}, ..., S_0
        white = [Signal(32, name=f"kw{i}") for i in range(8)]
        rk = [Signal(32, name=f"rk{i}") for i in range(2)]
        i = Signal(range(ROUNDS + 5))            # the key lane's next pair
        r = Signal(range(ROUNDS + 1))            # round under way
        x = [Signal(32, name=f"r{q}") for q in range(4)]
        setup, have_key, in_flight = Signal(), Signal(), Signal()

        # key lane: pair i = (A + B, (A + 2B) <<< 9), A = h(2iρ, Me), B = h((2i+1)ρ, Mo) <<< 8
        even, odd = Signal(8), Signal(8)                # 2i and 2i + 1, as bytes
        m.d.comb += [even.eq(Cat(Const(0, 1), i)), odd.eq(Cat(Const(1, 1), i))]
        a = h_key(Cat(even, even, even, even), m_words[0::2])
        b = h_key(Cat(odd, odd, odd, odd), m_words[1::2]).rotate_left(8)
        pair = [Signal(32, name=f"pair{j}") for j in range(2)]
        ks.d.comb += [pair[0].eq(a + b), pair[1].eq((a + (b << 1))[:32].rotate_left(9))]

        # round: F0 = T0 + T1 + K[2r+8], F1 = T0 + 2T1 + K[2r+9]
        t0 = h(x[0], s_words)
        t1 = h(x[1].rotate_left(8), s_words)
        f0, f1 = Signal(32), Signal(32)
        rnd.d.comb += [f0.eq(t0 + t1 + rk[0]), f1.eq(t0 + (t1 << 1) + rk[1])]
        nxt = [(x[2] ^ f0).rotate_right(1), x[3].rotate_left(1) ^ f1, x[0], x[1]]

        last = in_flight & (r == ROUNDS)
        start, advance = handshake(self, last)
        drive_ports(m, self, in_flight, have_key, setup)
        key_bytes = [self.key.payload[8 * (2 * 4 * k - 1 - n):8 * (2 * 4 * k - n)] for n in range(8 * k)]
        s_vals = [Signal(32, name=f"rs{j}") for j in range(k)]
        ks.d.comb += [v.eq(h_key.times(RS_TABLES, RS, RS_POLY, key_bytes[8 * j:8 * j + 8]))
                      for j, v in enumerate(s_vals)]
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += [*(w.eq(v) for w, v in zip(m_words, key_in)),
                         *(w.eq(v) for w, v in zip(s_words, reversed(s_vals))),
                         i.eq(0), setup.eq(1), have_key.eq(1)]
        with m.Elif(setup):                      # the whitening pairs 0..3
            for n in range(4):
                with m.If(i == n):
                    m.d.sync += [white[2 * n].eq(pair[0]), white[2 * n + 1].eq(pair[1])]
            m.d.sync += i.eq(i + 1)
            with m.If(i == 3):
                m.d.sync += [setup.eq(0), i.eq(4)]
        with m.Elif(start):
            m.d.sync += [*(w.eq(v ^ kw) for w, v, kw in zip(x, le_words(block), white[:4])),
                         *(w.eq(v) for w, v in zip(rk, pair)), i.eq(5), r.eq(0), in_flight.eq(1)]
        with m.Elif(in_flight & advance):
            with m.If(last):
                out = [x[(q + 2) % 4] ^ white[q + 4] for q in range(4)]
                m.d.sync += [self.block_out.payload.eq(from_le_words(out)), self.block_out.valid.eq(1),
                             in_flight.eq(0), i.eq(4)]
            with m.Else():
                m.d.sync += [*(w.eq(v) for w, v in zip(x, nxt)), *(w.eq(v) for w, v in zip(rk, pair)),
                             i.eq(i + 1), r.eq(r + 1)]
        return m
