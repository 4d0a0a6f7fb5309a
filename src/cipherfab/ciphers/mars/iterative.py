"""Iterative MARS encryption: one round per clock (8 forward mixing, 16 core, 8 backward
mixing rounds), the 40 expanded key words in a memory filled by the key schedule.

Theory of operation
-------------------
Words are little-endian (:mod:`cipherfab.hw.words`); the steps are those of
:mod:`.model`.

S-boxes: the 512x32 table ``S`` (``S0`` = its first half, ``S1`` the second) sits
in two synchronous ROMs with two read ports each, so four look-ups per clock (a
mixing round needs four, a core round one, a key-schedule step one).  As logic a
256x32 table costs thousands of LUT4s and a mixing round needs four of them; as
ROMs they take block RAM (16 Kbit each: ECP5 DP16KD) and no logic.  A ROM's
read port is a register, so every address is computed one clock ahead from the
value being written into the register it looks up: port ``k`` reads byte ``k``
of the next ``D[0]``, in ``S0`` or ``S1`` (forward: ``S0, S1, S0, S1``; backward:
``S1, S0, S1, S0``), or, port 0 in a core round, ``S[(D[0] + K[2i+4]) mod 512]``,
or, in the key schedule, ``S[T[i-1] mod 512]``.

Key setup: the 15 words ``T`` sit in a ring of registers turned one place per
clock, so the word being updated, ``T[i]``, is always in slot 0 and ``T[i-1]``,
``T[i-2]``, ``T[i-4]``, ``T[i-7]`` in slots 14, 13, 11, 8.  Each clock takes one
step: a linear-transformation step ``T[i] ^= ((T[i-7] ^ T[i-2]) <<< 3) ^ (4i + j)``
or a stirring step ``T[i] = (T[i] + S[T[i-1] mod 512]) <<< 9``; per ``j`` 15 + 4·15
steps.  In the fourth stirring pass the new ``T[i]`` is final and is written to
``K[10j + (4i mod 15)]`` when that index is below 10 (``K[10j + i'] = T[4i' mod
15]``): no extra clocks.  The fix-up of a multiplication key ``K[g]`` (odd ``g``,
5..35) needs ``K[g-1] = T[i-4]``, which the same pass finished 4 steps earlier
(slot 11), so it is applied on the way into the memory: ``w = K | 3``, the run
mask ``M`` (bits 2..30 inside a run of >= 10 equal bits, both neighbours equal)
as logic, ``K = w ^ ((B[K & 3] <<< K[g-1]) & M)``.  The last word, ``K[37]``, is
written in step i = 13 of the last pass (``4·13 mod 15 = 7``), the 299th step; the whitening
words ``K[0..3]``, ``K[36..39]`` are also kept in registers as they are written (a
block's load needs four words at once).  A key is set up 300 clocks after it is
taken (paper 000 found MARS' key setup the slowest of the finalists', without
the fix-up; here the fix-up costs logic, not clocks).

Encryption: the load (the block handshake) adds ``K[0..3]``.  Forward mixing
rounds 1..8, core rounds 9..24 and backward mixing rounds 25..32 each take one
clock and turn the words one place.  A core round's E function: ``M = D0 +
K[2i+4]`` (the key register, read from the memory a round ahead so the S-box
address can be formed a clock ahead), ``R = ((D0 <<< 13) · K[2i+5]) <<< 5`` (the
shared multiplier, :mod:`cipherfab.hw.mul`: ``dsp`` or ``logic``, as RC6's),
``L = S[M]``, data-dependent rotations.  The subtractions that open backward
rounds 2, 3, 6, 7 are made at the end of the round before, so the S-box addresses
see them.  The last backward round subtracts ``K[36..39]`` into the output
register.  A block takes 33 clocks (load, 32 rounds), whatever the key or data
(paper 000 reports 32 clocks per block; here the load is a clock of its own).

Area split (paper 000 Table 8): the key expansion, the whitening words and the
round-key memory are the submodule ``key_schedule``; the rounds, the S-box ROMs (shared:
the key schedule's stirring reads S too) and the multiplier sit in the top module.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.single_block import drive_ports, handshake
from ...hw.mul import mul_low
from ...hw.words import from_le_words as from_words, le_words as words_of
from .model import B, S

ROUNDS = 32                          # 8 forward mixing, 16 core, 8 backward mixing
FWD, CORE, BACK = range(1, 9), range(9, 25), range(25, 33)
PASS = 15                            # steps per pass over T
STEPS_PER_J = 5 * PASS               # linear transformation + 4 stirring passes
#: step i of the last stirring pass writes K[10j + (4i mod 15)] when that is below 10
WRITE_AT = {i: (4 * i) % 15 for i in range(PASS) if (4 * i) % 15 < 10}
LAST_I = max(WRITE_AT)               # 13: the last word written
LAST_STEP = 3 * STEPS_PER_J + 4 * PASS + LAST_I      # 298 (from 0): the last step taken
KEY_SETUP = LAST_STEP + 2            # key handshake, steps 0..298, first block handshake


def rol(x, n):
    """``x <<< n`` for a data-dependent ``n`` (low 5 bits)."""
    return (Cat(x, x) << n[:5])[32:64]


def run_mask(w):
    """The fix-up's mask: bits 2..30 of ``w`` inside a run of >= 10 equal bits whose two
    neighbours equal them (logic: a 10-bit window of equal bits covers the bit)."""
    eq = [~(w[k] ^ w[k + 1]) for k in range(31)]            # bits k and k+1 equal
    win = []
    for s in range(23):                                     # bits s .. s+9 equal
        v = eq[s]
        for k in range(s + 1, s + 9):
            v = v & eq[k]
        win.append(v)
    bits = [Const(0, 1)] * 32
    for l in range(2, 31):
        covered = win[max(0, l - 9)]
        for s in range(max(0, l - 9) + 1, min(l, 22) + 1):
            covered = covered | win[s]
        bits[l] = covered & eq[l - 1] & eq[l]
    return Cat(*bits)


class IterativeMARS(wiring.Component):
    """MARS encryption, 128/192/256-bit keys, one round per clock."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", mul: str = "dsp"):
        self.key_bits, self.mul = key_bits, mul
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=("encrypt",),
            latency=ROUNDS + 1,                  # load, 32 rounds (the last writes the output)
            cycles_per_block=ROUNDS + 1,
            cycles_per_block_feedback=ROUNDS + 1,
            blocks_in_flight=1,
            key_setup_cycles=KEY_SETUP,
            parts={"key_schedule": "key_schedule"},  # expansion + round-key memory; the rest: rounds
        )))

    def elaborate(self, platform):
        m = Module()
        block, _, _ = payload_parts(self)
        n = self.key_bits // 32

        # --- memories: round keys (written by the key schedule), two S-box ROMs ---
        m.submodules.key_schedule = ks = Module()      # key expansion and the round-key memory
        keys = Memory(shape=32, depth=40, init=[])
        ks.submodules.round_keys = keys
        kw = keys.write_port()
        ka, kb = (keys.read_port(domain="sync", transparent_for=()) for _ in range(2))
        roms = []
        for h in range(2):
            rom = Memory(shape=32, depth=512, init=S, attrs={"rom_style": "block"})
            m.submodules[f"sbox{h}"] = rom
            roms += [rom.read_port(domain="sync") for _ in range(2)]
        q = [p.data for p in roms]

        # --- key schedule ---
        ring = [Signal(32, name=f"t{k}") for k in range(PASS)]
        j = Signal(2)
        p = Signal(range(5))                                # 0: linear, 1..4: stirring
        i = Signal(range(PASS))
        setup, have_key = Signal(), Signal()
        new = Signal(32)
        ks.d.comb += new.eq(Mux(p == 0,
                               ring[0] ^ (ring[8] ^ ring[13]).rotate_left(3) ^ Cat(j, i),   # 4i + j
                               (ring[0] + q[0])[:32].rotate_left(9)))
        last_step = setup & (j == 3) & (p == 4) & (i == LAST_I)
        # where the final T[i] goes: K[10j + (4i mod 15)], fixed up if a multiplication key
        local = Signal(4)
        writes = Signal()
        with ks.Switch(i):
            for step, k in WRITE_AT.items():
                with ks.Case(step):
                    ks.d.comb += [local.eq(k), writes.eq(1)]
        index = Signal(range(40))
        ks.d.comb += index.eq((j << 3) + (j << 1) + local)  # 10j: shifts, no $mul cell (DSP)
        mult_key = local[0] & (index >= 5) & (index <= 35)
        w = new | 3
        bword = Signal(32)
        with ks.Switch(new[:2]):
            for k in range(4):
                with ks.Case(k):
                    ks.d.comb += bword.eq(B[k])
        fixed = Signal(32)
        ks.d.comb += fixed.eq(w ^ (rol(bword, ring[11]) & run_mask(w)))
        kdata = Signal(32)
        ks.d.comb += [kdata.eq(Mux(mult_key, fixed, new)),
                     kw.addr.eq(index), kw.data.eq(kdata), kw.en.eq(setup & (p == 4) & writes)]
        white = [Signal(32, name=f"kw{k}") for k in range(8)]        # K[0..3], K[36..39]
        with ks.If(setup & (p == 4) & writes):
            for k, g in enumerate((0, 1, 2, 3, 36, 37, 38, 39)):
                with ks.If(index == g):
                    ks.d.sync += white[k].eq(kdata)

        # --- data ---
        d = [Signal(32, name=f"d{k}") for k in range(4)]
        k1 = Signal(32)                                      # K[2i+4] of the core round
        r = Signal(range(ROUNDS + 2))
        in_flight = Signal()
        last = in_flight & (r == ROUNDS)
        start, advance = handshake(self, last)

        def within(rng):
            return (r >= rng.start) & (r < rng.stop)

        D0, D1, D2, D3 = d
        # forward mixing round r (i = r - 1)
        f1 = ((D1 ^ q[0]) + q[1])[:32]
        f2 = (D2 + q[2])[:32]
        f3 = D3 ^ q[3]
        f0 = D0.rotate_right(24)
        f0 = Mux((r == 1) | (r == 5), (f0 + f3)[:32], Mux((r == 2) | (r == 6), (f0 + f1)[:32], f0))
        # core round r (i = r - 9): the E function
        mm = Signal(32)
        m.d.comb += mm.eq((D0 + k1)[:32])
        r1 = Signal(32)
        m.d.comb += r1.eq(mul_low(m, D0.rotate_left(13), kb.data, self.mul, name="mul_e")
                          .rotate_left(5))
        r2 = r1.rotate_left(5)
        e_m = rol(mm, r1)
        e_l = rol(q[0] ^ r1 ^ r2, r2)
        fwd_mode = r < CORE.start + 8
        c1 = Mux(fwd_mode, (D1 + e_l)[:32], D1 ^ r2)
        c2 = (D2 + e_m)[:32]
        c3 = Mux(fwd_mode, D3 ^ r2, (D3 + e_l)[:32])
        c0 = D0.rotate_left(13)
        # backward mixing round r (i = r - 25), and the subtraction opening the next one
        b1 = D1 ^ q[0]
        b2 = (D2 - q[3])[:32]
        b3 = (D3 - q[2])[:32] ^ q[1]
        b0 = D0.rotate_left(24)
        b1 = Mux((r == 26) | (r == 30), (b1 - b0)[:32], Mux((r == 27) | (r == 31), (b1 - b2)[:32], b1))

        nd = [Signal(32, name=f"nd{k}") for k in range(4)]   # the words after this round
        with m.If(within(FWD)):
            m.d.comb += [nd[0].eq(f1), nd[1].eq(f2), nd[2].eq(f3), nd[3].eq(f0)]
        with m.Elif(within(CORE)):
            m.d.comb += [nd[0].eq(c1), nd[1].eq(c2), nd[2].eq(c3), nd[3].eq(c0)]
        with m.Else():
            m.d.comb += [nd[0].eq(b1), nd[1].eq(b2), nd[2].eq(b3), nd[3].eq(b0)]
        loaded = [(x + k)[:32] for x, k in zip(words_of(block), white[:4])]

        # read addresses, one clock ahead: the next round's (nxt) look-ups and round keys
        nxt = Signal(range(ROUNDS + 2))
        m.d.comb += nxt.eq(Mux(start, 1, Mux(in_flight & ~last, r + 1, 0)))
        next_d0 = Signal(32)
        m.d.comb += next_d0.eq(Mux(start, loaded[0], nd[0]))
        backward = nxt >= BACK.start
        with m.If(setup):
            m.d.comb += [roms[0].addr.eq(new[:9]), roms[0].en.eq(1)]
        with m.Else():
            m.d.comb += [roms[0].addr.eq(Mux((nxt >= CORE.start) & (nxt < CORE.stop),
                                             (next_d0 + ka.data)[:9],
                                             Cat(next_d0[0:8], backward))),
                         roms[0].en.eq(advance)]
        for k in range(1, 4):
            m.d.comb += [roms[k].addr.eq(Cat(next_d0[8 * k:8 * k + 8], backward ^ (k & 1))),
                         roms[k].en.eq(advance)]
        # port a: K[2i+4] of core round i = nxt - 8, a round early (clock nxt); port b: K[2i+5]
        m.d.comb += [ka.addr.eq(Mux((nxt >= 8) & (nxt < 24), (nxt << 1) - 12, 0)),
                     kb.addr.eq(Mux((nxt >= 9) & (nxt < 25), (nxt << 1) - 13, 0)),
                     ka.en.eq(advance), kb.en.eq(advance)]

        drive_ports(m, self, in_flight, have_key, setup)
        with ks.If(self.key.valid & self.key.ready):
            kws = words_of(self.key.payload)
            tinit = kws + [Const(n, 32)] + [Const(0, 32)] * (14 - n)
            ks.d.sync += [*(t.eq(v) for t, v in zip(ring, tinit)),
                         j.eq(0), p.eq(0), i.eq(0), setup.eq(1), have_key.eq(1)]
        with ks.Elif(setup):
            ks.d.sync += [*(t.eq(v) for t, v in zip(ring, ring[1:] + [new])),
                         i.eq(Mux(i == PASS - 1, 0, i + 1))]
            with ks.If(i == PASS - 1):
                ks.d.sync += p.eq(Mux(p == 4, 0, p + 1))
                with ks.If(p == 4):
                    ks.d.sync += j.eq(j + 1)
            with ks.If(last_step):
                ks.d.sync += setup.eq(0)

        with m.If(start):
            m.d.sync += [*(x.eq(v) for x, v in zip(d, loaded)), r.eq(1), in_flight.eq(1)]
        with m.Elif(in_flight & advance):
            m.d.sync += k1.eq(ka.data)
            with m.If(last):
                m.d.sync += [self.block_out.payload.eq(
                                 from_words([(x - k)[:32] for x, k in zip(nd, white[4:])])),
                             self.block_out.valid.eq(1), in_flight.eq(0), r.eq(0)]
            with m.Else():
                m.d.sync += [*(x.eq(v) for x, v in zip(d, nd)), r.eq(r + 1)]
        return m
