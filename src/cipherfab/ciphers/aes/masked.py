"""AES-128 encryption on two shares, first-order secure with glitches (issue 20).

Theory of operation
-------------------
Every secret value lives as two shares whose XOR is the value: the state ``(s0, s1)`` and
the key ``(k0, k1)``.  ShiftRows, MixColumns, AddRoundKey and the key schedule's XORs act
on each share alone (a round constant goes into share 0).  SubBytes and the key schedule's
SubWord are 16 + 4 masked S-boxes (:class:`~cipherfab.hw.masked.MaskedCircuit` over
Boyar and Peralta's circuit, :mod:`.sbox_circuit`): HPC2 gadgets, one fresh random bit per
AND gate, a pipeline of ``L`` = 7 clocks.  The two shares meet only in the output register,
``out = s0 ^ s1`` of the last round.

The round is the S-box pipeline closed on itself::

    accept (cycle 0):   s = (block ^ m ^ k0', m ^ k1'),  k' = (k0 ^ r, k1 ^ r)   (fresh m, r)
    round 1 (cycle 1):  S-boxes <- s;  SubWord <- RotWord(w3 of k')
    round r + 1 (cycle 1 + rL):  S-boxes <- MixColumns(ShiftRows(y)) ^ rk_r;  SubWord <- ...
    last (cycle 1 + 10L):  out <- ShiftRows(y0) ^ rk0_10 ^ ShiftRows(y1) ^ rk1_10

where ``y`` is the S-box output (two shares) and ``rk_r`` the round key made from
``rk_(r-1)`` and SubWord's output in the same clock.  Between feeds the S-boxes take zero
shares, so no value of a block is ever computed twice.  The key's shares are refreshed
with fresh randomness at every block (``k'``) and kept.

Randomness comes from a bank of Trivium generators (:mod:`cipherfab.hw.trivium`) through one
register, a fresh bit for every gadget every clock (20 x 34) plus 256 bits for the block's
mask and the key refresh.  A key on the key port reseeds the bank (its bits XOR the bank's current output,
so a reseed mixes the new key into the old state), then, after the warm-up, the key is
split into shares with fresh randomness; until then share 1 is zero.  ``prng="off"`` is a
**test mode**: every random bit is zero, the shares are ``(x, 0)``, the core computes AES
unmasked (its leakage assessment must fail; that shows the assessment can fail).

Timing (the same for every key and data): latency ``2 + 10 L`` = 72 clocks; a block is
accepted when none is in flight and the output register is free (or being read), so 72
clocks per block, in a feedback mode too; the key setup is the bank's warm-up.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring

from ...hw.info import CoreInfo, CoreSignature
from ...hw.masked import MaskedCircuit, Schedule
from ...registry import Architecture, Param
from ...hw.trivium import MAX_WIDTH, WARMUP, TriviumBank
from .reference import RCON
from .round import bytes_of, from_bytes, from_words, mix_columns, rot_word, shift_rows, words_of
from .sbox_circuit import GATES, INPUTS, OUTPUTS

NR = 10
STATE_SBOXES, KEY_SBOXES = 16, 4
SCHEDULE = Schedule(GATES, INPUTS, OUTPUTS)
L = SCHEDULE.latency
GADGET_BITS = (STATE_SBOXES + KEY_SBOXES) * SCHEDULE.random_bits
MASK_BITS = 256                                     # the block's mask and the key refresh
LATENCY = 2 + NR * L
KEY_SETUP = -(-WARMUP // MAX_WIDTH) + 3    # seed, the bank's warm-up, its output register, split


def random_bits_per_block() -> dict:
    """Fresh bits the core uses for one block, and bits its generators make meanwhile."""
    return {"used": MASK_BITS + NR * GADGET_BITS, "generated": LATENCY * (GADGET_BITS + MASK_BITS)}


class MaskedAES(wiring.Component):
    """AES-128 encryption, two shares, HPC2 S-boxes, Trivium randomness (``prng="off"``:
    a test mode with no randomness, which leaks)."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", prng: str = "on"):
        if key_bits != 128 or direction != "encrypt":
            raise ValueError("the masked core is AES-128 encryption")
        if prng not in ("on", "off"):
            raise ValueError(f"prng is 'on' or 'off' (a test mode), not {prng!r}")
        self.prng = prng
        bits = random_bits_per_block()
        super().__init__(CoreSignature(CoreInfo(
            cipher="aes", arch="masked", params={"key_bits": 128, "direction": "encrypt", "prng": prng},
            block_bits=128, key_bits=128, key_bits_effective=128, key_interface="stream",
            directions=("encrypt",), latency=LATENCY, cycles_per_block=LATENCY,
            cycles_per_block_feedback=LATENCY, blocks_in_flight=1, key_setup_cycles=KEY_SETUP,
            parts={"sbox": "datapath", "key_sbox": "key_schedule", **({"prng": "prng"} if prng == "on" else {})},
            notes=(f"first-order masked (2 shares, HPC2 S-boxes); random bits per block: "
                   f"{bits['used']} used, {bits['generated']} generated"
                   + ("; TEST MODE prng=off: no randomness, unmasked" if prng == "off" else ""),),
        )))

    def elaborate(self, platform):
        m = Module()
        rand = self._randomness(m)
        gadget, mask, refresh = rand[:GADGET_BITS], rand[GADGET_BITS:GADGET_BITS + 128], \
            rand[GADGET_BITS + 128:]

        k = [Signal(128, name=f"k{i}") for i in range(2)]            # the key's shares
        rk = [Signal(128, name=f"rk{i}") for i in range(2)]          # this round's key
        s = [Signal(128, name=f"s{i}") for i in range(2)]            # the state after loading
        sbox_in = [Signal(128, name=f"sbox_in{i}") for i in range(2)]
        word_in = [Signal(32, name=f"word_in{i}") for i in range(2)]
        y, sw = self._sboxes(m, sbox_in, word_in, gadget)

        # -- control: the clock within the round and the round -------------------------
        busy = Signal()
        phase = Signal(range(L))                        # clocks since round 1 went in, mod L
        rnd = Signal(range(NR + 1))                     # round whose S-box output is awaited
        feed_first = Signal()                           # the loaded state goes in now
        out_valid, out_data = self.block_out.valid, self.block_out.payload
        keyed, key_wait = Signal(), Signal(range(KEY_SETUP + 1))
        taking = out_valid & self.block_out.ready
        m.d.comb += [
            self.block_in.ready.eq(keyed & (key_wait == 0) & ~busy & ~self.key.valid
                                   & (~out_valid | self.block_out.ready)),
            self.key.ready.eq(~busy),
            self.busy.eq(busy | out_valid | (key_wait != 0)),
        ]
        with m.If(taking):
            m.d.sync += out_valid.eq(0)
        arrived = Signal()                              # y holds round rnd's S-box output
        m.d.comb += arrived.eq(busy & ~feed_first & (phase == 0))

        # -- the round key made from rk and SubWord's output ---------------------------
        rk_next = [self._next_round_key(rk[i], sw[i], i, rnd) for i in range(2)]
        middle = [mix_columns(m, shift_rows(y[i]), f"mix{i}") ^ rk_next[i] for i in range(2)]
        last = [shift_rows(y[i]) ^ rk_next[i] for i in range(2)]

        # -- what the S-boxes take this clock ------------------------------------------
        for i in range(2):
            with m.If(feed_first):
                m.d.comb += [sbox_in[i].eq(s[i]), word_in[i].eq(rot_word(words_of(rk[i])[3]))]
            with m.Elif(arrived & (rnd != NR)):
                m.d.comb += [sbox_in[i].eq(middle[i]), word_in[i].eq(rot_word(words_of(rk_next[i])[3]))]
        m.d.sync += feed_first.eq(0)

        # -- a block in, the rounds, the result out ------------------------------------
        start = self.block_in.valid & self.block_in.ready
        with m.If(start):
            for i in range(2):
                kr = k[i] ^ refresh
                m.d.sync += [k[i].eq(kr), rk[i].eq(kr),
                             s[i].eq((self.block_in.payload if i == 0 else 0) ^ mask ^ kr)]
            m.d.sync += [busy.eq(1), feed_first.eq(1), phase.eq(0), rnd.eq(1)]
        with m.Elif(busy):
            m.d.sync += phase.eq(Mux(phase == L - 1, 0, phase + 1))
            with m.If(arrived):
                m.d.sync += [rk[i].eq(rk_next[i]) for i in range(2)]
                with m.If(rnd == NR):
                    m.d.sync += [busy.eq(0), out_valid.eq(1), out_data.eq(last[0] ^ last[1]),
                                 s[0].eq(0), s[1].eq(0)]
                with m.Else():
                    m.d.sync += rnd.eq(rnd + 1)
        self._key_load(m, k, keyed, key_wait, rand)
        return m

    def _sboxes(self, m, sbox_in, word_in, gadget):
        """16 state S-boxes and 4 SubWord S-boxes, each with its 34 fresh bits."""
        bits = SCHEDULE.random_bits
        y = [Signal(128, name=f"y{i}") for i in range(2)]
        sw = [Signal(32, name=f"sw{i}") for i in range(2)]
        lanes = [(bytes_of(sbox_in[0])[b], bytes_of(sbox_in[1])[b]) for b in range(16)] + \
                [(bytes_of(word_in[0])[b], bytes_of(word_in[1])[b]) for b in range(4)]
        outs = []
        for n, (x0, x1) in enumerate(lanes):
            box = MaskedCircuit(GATES, INPUTS, OUTPUTS)
            m.submodules[f"sbox{n}" if n < 16 else f"key_sbox{n - 16}"] = box
            m.d.comb += [box.x[0].eq(x0), box.x[1].eq(x1), box.rand.eq(gadget[bits * n:bits * (n + 1)])]
            outs.append(box.y)
        for i in range(2):
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
        """Every clock: the gadgets' bits, then 128 for the block mask, 128 for the key refresh."""
        width = GADGET_BITS + MASK_BITS
        bits = Signal(width)
        if self.prng == "off":
            return bits                                            # all zero: the test mode
        m.submodules.prng = bank = TriviumBank(width)
        self._bank = bank
        m.d.sync += bits.eq(bank.bits)          # one register: every S-box takes a slice of it
        return bits

    def _key_load(self, m, k, keyed, key_wait, rand):
        """A key reseeds the bank (the key XOR the bank's output) and, after its warm-up,
        is split into shares with the bank's next bits; with prng off, after the same wait."""
        took = self.key.valid & self.key.ready
        split = rand[GADGET_BITS:GADGET_BITS + 128]
        if self.prng == "on":
            bank = self._bank
            m.d.comb += [bank.key.eq(self.key.payload[:80] ^ bank.bits[:80]),
                         bank.iv.eq(self.key.payload[48:] ^ bank.bits[80:160]),
                         bank.seed.eq(took)]
        with m.If(took):
            m.d.sync += [k[0].eq(self.key.payload), k[1].eq(0), keyed.eq(1),
                         key_wait.eq(KEY_SETUP - 1)]
        with m.Elif(key_wait != 0):
            m.d.sync += key_wait.eq(key_wait - 1)
            with m.If(key_wait == 1):
                m.d.sync += [k[0].eq(k[0] ^ split), k[1].eq(split)]


MASKED = Architecture(
    name="masked",
    summary="first-order masked (2 shares): 16 + 4 HPC2 S-boxes closed on themselves, on-core "
            "Trivium randomness, shares recombined only in the output register",
    core="cipherfab.ciphers.aes.masked:MaskedAES",
    params=(
        Param("key_bits", (128,), 128, "key size in bits (the masked core: AES-128)"),
        Param("direction", ("encrypt",), "encrypt", "encrypt only"),
        Param("prng", ("on", "off"), "on",
              "on: fresh randomness from the on-core Trivium bank; off: a TEST MODE with no "
              "randomness (the shares are (x, 0): unmasked, it leaks)"),
    ),
    # the prng-off test mode runs in verify --all (each masked point compiles for about a minute)
    test_points=({"key_bits": 128, "direction": "encrypt", "prng": "on"},),
    paper="beyond the papers: issue 20 (HPC2, Cassiers et al. 2021; Boyar-Peralta S-box circuit)",
)
