"""AES-128 encryption on ``d`` shares (2 to 4), secure at order ``d - 1`` with glitches,
20 S-boxes (issues 20, 36; the 4- and 1-S-box cores: :mod:`.masked_column`).

Theory of operation
-------------------
Every secret value lives as ``d`` shares whose XOR is the value (below for two shares: the
state ``(s0, s1)`` and the key ``(k0, k1)``; with more, a sharing of zero takes the place of
each refresh: ``r_1 .. r_(d-1)`` fresh, ``r_0`` their XOR).  ShiftRows, MixColumns, AddRoundKey and the key schedule's XORs act
on each share alone (a round constant goes into share 0).  SubBytes and the key schedule's
SubWord are 16 + 4 masked S-boxes (:mod:`.masked_sbox`: HPC2 gadgets on Boyar and Peralta's
circuit, a pipeline of ``L`` = 7 clocks, or DOM products in the tower field, ``L`` = 9).  The two shares meet only at the output: the
last round's shares go into two registers ``ct0``, ``ct1`` (written only when a block
finishes), and the next clock ``ct0 ^ ct1`` (the public ciphertext) goes into the output
buffer; no other logic takes both shares of a value.

The round is the S-box pipeline closed on itself, and it holds up to ``L`` blocks, one in
each stage (as paper 002's interleaved round)::

    a new block (stage 0 free):  S-boxes <- (block ^ k0', k1');  SubWord <- RotWord(w3 of k')
                                 with k' = (k0 ^ r, k1 ^ r) kept as the key's shares (fresh r)
    its round r's output arrives L clocks later, with its round and round key beside it:
        round < 10:  S-boxes <- MixColumns(ShiftRows(y)) ^ rk_r;  SubWord <- RotWord(w3 of rk_r)
        round 10:    ct_i <- ShiftRows(y_i) ^ rk_i_10 (i = 0, 1);  the next clock: buffer <- ct0 ^ ct1

where ``y`` is the S-box output (two shares) and ``rk_r`` the block's round key, made from
``rk_(r-1)`` (which travelled beside it) and SubWord's output in the same clock.  A stage no
block enters takes zero shares, so no value of a block is computed twice.

Randomness comes from a bank of Trivium generators (:mod:`cipherfab.hw.masking.trivium`) through one
register, fresh bits for every gadget every clock (20 x 34 x d (d - 1) / 2 with HPC2, 20 x 18
x d (d - 1) / 2 with DOM) plus 128 (d - 1)
bits for the key refresh; the bank is sized to that width
(:func:`~cipherfab.hw.masking.trivium.bank_shape`).  The bank is seeded from the ``seed`` port only (the entropy
input, 160 bits: generator i takes key ``seed[:80]`` and IV ``seed[80:] ^ i``), so its
state never depends on the cipher key.  After reset the core takes no key and no block
until a seed has been taken and the bank has warmed up (:func:`seed_setup` clocks from the seed
handshake to the first key handshake); a later seed reseeds it between blocks (``seed.ready``
while no block is in flight; a seed offered with a key or a block goes first).  A key is
split into shares at its handshake, ``(key ^ r, r)`` with the register's refresh bits, and
refreshed with fresh bits at every block (as SMAesH refreshes its key shares after every
use).  The refreshed key's shares are the block's mask: the first state ``(block ^ k0',
k1')`` is a fresh sharing of ``block ^ key`` (a public value XORed into share 0 of a fresh
sharing), as in the 4- and 1-S-box cores; a mask of its own (another 128 (d - 1) bits a
clock, which this core took until issue 36) adds nothing.
``prng="off"`` is a **test mode**: every random
bit is zero, the shares are ``(x, 0)``, the core computes AES unmasked (its leakage
assessment must fail; that shows the assessment can fail); it keeps the seed port and its
wait, with no other effect.

``glitch_test`` names more **test modes** (with the generators on), masked in every
settled value but not with glitches, for a glitch-robust evaluation to fail: each gadget's
own, ``hpc2-unregistered`` (every HPC2 gadget without its product registers, :mod:`cipherfab.
hw.masking.masked`) or ``dom-unregistered`` (every DOM product's terms in one register a
share, :mod:`cipherfab.hw.masking.dom`), and ``refresh-recombined`` (at a new block the key's share 0 is refreshed as
``k0 ^ k1 ^ r`` in one LUT per bit, share 1 as ``r``).  Every signal holding one share
carries the attribute ``cipherfab_share`` (``"0"``/``"1"``); the randomness, control and
``ct0``/``ct1`` carry none.

Timing (the same for every key and data): latency ``10 L + 2`` = 72 clocks (HPC2; 92 with DOM).  A block enters
when stage 0 is free (no block arrives there to go on) and fewer than ``L + 2`` blocks are
owed (or one is being read), so the ring fills with ``L`` blocks in ``L`` clocks and each
leaves for the ciphertext registers as the next enters: 10 clocks per block back to back,
``10 L + 2`` in a feedback mode.  A key waits until no block is in the ring; a block can follow it at the
next clock (``KEY_SETUP`` = 1).
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFO

from ...hw.info import CoreInfo, CoreSignature
from ...hw.masking.masked import share_attrs, xor_all
from ...hw.masking.trivium import TriviumBank, bank_warmup, seed_port
from .reference import RCON
from .round import bytes_of, from_bytes, from_words, mix_columns, rot_word, shift_rows, words_of
from . import masked_sbox

NR = 10
STATE_SBOXES, KEY_SBOXES = 16, 4
REFRESH_BITS = 128                                  # the key refresh (it masks the block too)
SEED_BITS = 160                                     # the bank's 80-bit key, then its 80-bit IV
KEY_SETUP = 1                              # the key is split at its handshake: a block next clock


GLITCH_NEEDS_PRNG = ("--glitch-test needs --prng on (a glitch test mode shows what glitches reveal "
                     "of masked values; with prng off nothing is masked)")
GLITCH_TESTS = {
    "none": "",
    "hpc2-unregistered": "every HPC2 gadget without its three product registers (one LUT4 of a_i, "
                         "Reg b_i, Reg r, Reg(b_j ^ r) into one register): masked at zero delay, its "
                         "glitches show a_i & b",
    "dom-unregistered": "every DOM product's inner and cross-domain terms XORed into one register a "
                        "share: masked at zero delay, its glitches show x_i y",
    "refresh-recombined": "the key refresh at a new block makes share 0 as k0 ^ k1 ^ refresh in one LUT "
                          "(share 1: refresh): masked at zero delay, its glitches show the key",
}


def glitch_test_gadget(glitch_test: str) -> str | None:
    """The gadget whose glitch test mode ``glitch_test`` is (None: any gadget's)."""
    return next((g for g, t in masked_sbox.UNREGISTERED.items() if t == glitch_test), None)


def check_glitch_test(glitch_test: str, gadget: str) -> None:
    """Refuse a gadget's glitch test mode on a core with another gadget."""
    masked_sbox.check(gadget)
    owner = glitch_test_gadget(glitch_test)
    if owner not in (None, gadget):
        raise ValueError(f"--glitch-test {glitch_test} is the {owner} gadget's test mode; "
                         f"with --gadget {gadget} use {masked_sbox.UNREGISTERED[gadget]}")


def latency(gadget: str = "hpc2", shares: int = 2) -> int:
    """Block in to block out: the last round's arrival, its shares' registers, the buffer."""
    return NR * masked_sbox.schedule(gadget, shares).latency + 2


def random_bits_per_block(shares: int = 2, gadget: str = "hpc2") -> dict:
    """Fresh bits the core uses for one block, and bits its generators make meanwhile."""
    gadgets, refresh = gadget_bits(shares, gadget), REFRESH_BITS * (shares - 1)
    return {"used": refresh + NR * gadgets, "generated": NR * (gadgets + refresh),
            "per_clock": gadgets + refresh}


def seed_setup(width: int) -> int:
    """Seed handshake to the first key handshake: the bank's warm-up, its first bits into
    the randomness register."""
    return bank_warmup(width) + 2


def gadget_bits(shares: int, gadget: str = "hpc2") -> int:
    """The 20 S-boxes' fresh bits a clock on ``shares`` shares."""
    return (STATE_SBOXES + KEY_SBOXES) * masked_sbox.schedule(gadget, shares).random_bits


class MaskedAES(wiring.Component):
    """AES-128 encryption, ``shares`` shares, 20 masked S-boxes (``gadget``), Trivium randomness (``prng="off"``:
    a test mode with no randomness, which leaks)."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", prng: str = "on",
                 glitch_test: str = "none", shares: int = 2, gadget: str = "hpc2"):
        if key_bits != 128 or direction != "encrypt":
            raise ValueError("the masked core is AES-128 encryption")
        if prng not in ("on", "off"):
            raise ValueError(f"prng is 'on' or 'off' (a test mode), not {prng!r}")
        if glitch_test not in GLITCH_TESTS:
            raise ValueError(f"glitch_test is one of {', '.join(GLITCH_TESTS)}, not {glitch_test!r}")
        if glitch_test != "none" and prng == "off":
            raise ValueError(GLITCH_NEEDS_PRNG)
        check_glitch_test(glitch_test, gadget)
        self.prng, self.glitch_test, self.d, self.gadget = prng, glitch_test, shares, gadget
        self.L = L = masked_sbox.schedule(gadget, shares).latency
        self.latency = latency(gadget, shares)
        self.gadget_bits = gadget_bits(shares, gadget)
        bits = random_bits_per_block(shares, gadget)
        self.width = bits["per_clock"]
        self.seed_setup = seed_setup(self.width)
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=128, key_bits_effective=128, key_interface="stream",
            directions=("encrypt",), latency=self.latency, cycles_per_block=NR,
            cycles_per_block_feedback=self.latency, blocks_in_flight=L, key_setup_cycles=KEY_SETUP,
            seed_bits=SEED_BITS, seed_setup_cycles=self.seed_setup,
            random_bits_per_clock=self.width if prng == "on" else 0,
            parts={"sbox": "datapath", "key_sbox": "key_schedule", **({"prng": "prng"} if prng == "on" else {})},
            notes=(f"masked at order {shares - 1} ({shares} shares, 20 {gadget.upper()} S-boxes); random bits per block: "
                   f"{bits['used']} used, {bits['generated']} generated"
                   + ("; TEST MODE prng=off: no randomness, unmasked" if prng == "off" else "")
                   + (f"; TEST MODE glitch-test={glitch_test}: {GLITCH_TESTS[glitch_test]}"
                      if glitch_test != "none" else ""),),
        )))

    def elaborate(self, platform):
        m = Module()
        d, G, L = self.d, self.gadget_bits, self.L
        BUFFER = L + 2                # every block in flight, one in ct0/ct1 and one being read
        rand = self._randomness(m)
        gadget = rand[:G]
        chunk = lambda j: rand[G + 128 * j:G + 128 * (j + 1)]              # noqa: E731
        refreshes = [chunk(j) for j in range(d - 1)]                       # the key's refresh
        refresh = [xor_all(refreshes)] + refreshes                         # a sharing of zero

        k = [Signal(128, name=f"k{i}", attrs=share_attrs(i)) for i in range(d)]   # the key's shares
        sbox_in = [Signal(128, name=f"sbox_in{i}", attrs=share_attrs(i)) for i in range(d)]
        word_in = [Signal(32, name=f"word_in{i}", attrs=share_attrs(i)) for i in range(d)]
        y, sw = self._sboxes(m, sbox_in, word_in, gadget)

        # -- the ring: what travels beside each S-box stage ------------------------------
        # stage j holds what went into the S-boxes j clocks ago; the last one arrives now
        valid = [Signal(name=f"valid_s{j}") for j in range(L)]
        rnd = [Signal(range(NR + 1), name=f"round_s{j}") for j in range(L)]
        rk = [[Signal(128, name=f"rk{i}_s{j}", attrs=share_attrs(i)) for i in range(d)] for j in range(L)]
        here_valid, here_rnd, here_rk = valid[-1], rnd[-1], rk[-1]
        rk_next = [self._next_round_key(here_rk[i], sw[i], i, here_rnd) for i in range(d)]
        middle = [mix_columns(m, shift_rows(y[i]), f"mix{i}") ^ rk_next[i] for i in range(d)]
        last = [shift_rows(y[i]) ^ rk_next[i] for i in range(d)]
        going_on = here_valid & (here_rnd != NR)
        finishing = here_valid & (here_rnd == NR)
        # the ciphertext's shares, each in its own register; they meet the next clock
        ct = [Signal(128, name=f"ct{i}") for i in range(d)]
        ct_full = Signal()
        with m.If(finishing):
            m.d.sync += [ct[i].eq(last[i]) for i in range(d)]
        m.d.sync += ct_full.eq(finishing)

        # -- blocks out: a buffer with room for every block in flight; a block is taken
        # while fewer than BUFFER are owed, or one is being read ---------------------------
        m.submodules.buffer = buffer = SyncFIFO(width=128, depth=BUFFER)
        held = Signal(range(BUFFER + 1))                # accepted, not yet taken
        in_flight = Signal(range(L + 1))
        seeded, keyed = Signal(name="seeded"), Signal(name="keyed")
        seed_wait = Signal(range(self.seed_setup), name="seed_wait")
        start = self.block_in.valid & self.block_in.ready
        given = self.block_out.valid & self.block_out.ready
        warm = seeded & (seed_wait == 0)
        m.d.comb += [
            self.block_in.ready.eq(warm & keyed & ~self.seed.valid & ~self.key.valid & ~going_on
                                   & ((held < BUFFER) | given)),
            self.key.ready.eq(warm & ~self.seed.valid & (in_flight == 0)),
            self.seed.ready.eq(in_flight == 0),
            buffer.w_data.eq(xor_all(ct)), buffer.w_en.eq(ct_full),
            self.block_out.payload.eq(buffer.r_data), self.block_out.valid.eq(buffer.r_rdy),
            buffer.r_en.eq(self.block_out.ready),
            self.busy.eq((held != 0) | (seed_wait != 0)),
        ]
        m.d.sync += [held.eq(held + start - given), in_flight.eq(in_flight + start - finishing)]

        # -- what the S-boxes take this clock: the arriving block's next round, or a new
        # block (its shares and the key's, refreshed), or zero shares --------------------
        fresh = [k[i] ^ refresh[i] for i in range(d)]
        if self.glitch_test == "refresh-recombined":      # TEST MODE: one LUT sees every share
            fresh = [Signal(128, name="fresh0", attrs={**share_attrs(0), "keep": 1}), *refreshes]
            m.d.comb += fresh[0].eq(xor_all(k) ^ refresh[0])
        with m.If(going_on):
            for i in range(d):
                m.d.comb += [sbox_in[i].eq(middle[i]), word_in[i].eq(rot_word(words_of(rk_next[i])[3]))]
        with m.Elif(start):
            for i in range(d):
                m.d.comb += [sbox_in[i].eq((self.block_in.payload if i == 0 else 0) ^ fresh[i]),
                             word_in[i].eq(rot_word(words_of(fresh[i])[3]))]
            m.d.sync += [k[i].eq(fresh[i]) for i in range(d)]
        m.d.sync += [valid[0].eq(going_on | start), rnd[0].eq(Mux(going_on, here_rnd + 1, 1))]
        for i in range(d):
            m.d.sync += rk[0][i].eq(Mux(going_on, rk_next[i], Mux(start, fresh[i], 0)))
        for j in range(1, L):
            m.d.sync += [valid[j].eq(valid[j - 1]), rnd[j].eq(rnd[j - 1])]
            m.d.sync += [rk[j][i].eq(rk[j - 1][i]) for i in range(d)]
        self._seed_and_key(m, k, seeded, keyed, seed_wait, refreshes)
        self.probes = {"k": k, "rand": rand}      # for tests in Amaranth's simulator
        return m

    def _sboxes(self, m, sbox_in, word_in, gadget):
        """16 state S-boxes and 4 SubWord S-boxes, each with its own fresh bits."""
        d = self.d
        bits = self.gadget_bits // (STATE_SBOXES + KEY_SBOXES)
        y = [Signal(128, name=f"y{i}", attrs=share_attrs(i)) for i in range(d)]
        sw = [Signal(32, name=f"sw{i}", attrs=share_attrs(i)) for i in range(d)]
        lanes = [[bytes_of(sbox_in[i])[b] for i in range(d)] for b in range(16)] + \
                [[bytes_of(word_in[i])[b] for i in range(d)] for b in range(4)]
        outs = []
        for n, xs in enumerate(lanes):
            box = masked_sbox.sbox(self.gadget, d, self.glitch_test == masked_sbox.UNREGISTERED[self.gadget])
            m.submodules[f"sbox{n}" if n < 16 else f"key_sbox{n - 16}"] = box
            m.d.comb += [box.x[i].eq(xs[i]) for i in range(d)]
            m.d.comb += box.rand.eq(gadget[bits * n:bits * (n + 1)])
            outs.append(box.y)
        for i in range(d):
            m.d.comb += [y[i].eq(from_bytes([o[i] for o in outs[:16]])),
                         sw[i].eq(from_bytes([o[i] for o in outs[16:]]))]
        return y, sw

    @staticmethod
    def _next_round_key(rk, sw, share: int, rnd):
        """AES-128's round key ``rnd`` from round key ``rnd - 1`` on one share (``sw``: its
        SubWord(RotWord(w3)) share); the round constant goes into share 0."""
        w = words_of(rk)
        rcon = Const(0, 32)
        if share == 0:
            for r in range(1, NR + 1):
                rcon = Mux(rnd == r, Const(RCON[r - 1] << 24, 32), rcon)
        out = [w[0] ^ sw ^ rcon]
        for j in range(1, 4):
            out.append(w[j] ^ out[-1])
        return from_words(out)

    def _randomness(self, m):
        """Every clock: the gadgets' bits, then 128 (d - 1) for the key refresh."""
        width = self.width
        bits = Signal(width)
        self._bank = None
        if self.prng == "off":
            return bits                                            # all zero: the test mode
        m.submodules.prng = bank = TriviumBank(width)
        self._bank = bank
        m.d.sync += bits.eq(bank.bits)          # one register: every S-box takes a slice of it
        return bits

    def _seed_and_key(self, m, k, seeded, keyed, seed_wait, split):
        """A seed (re)seeds the bank (instance i: key ``seed[:80]``, IV ``seed[80:] ^ i``);
        keys and blocks wait ``seed_setup`` clocks for its warm-up (with prng off, the same
        wait).  A key is split into shares at its handshake with the bank's bits in the
        randomness register; the key never enters the bank."""
        seed_port(m, self._bank, self.seed, seeded, seed_wait, self.seed_setup)
        took_key = self.key.valid & self.key.ready
        with m.If(took_key):
            m.d.sync += [k[0].eq(self.key.payload ^ xor_all(split)), keyed.eq(1)]
            m.d.sync += [k[i].eq(split[i - 1]) for i in range(1, self.d)]
