"""On-the-fly AES key schedule, forward and inverse (FIPS-197 Section 5.2).

Theory of operation
-------------------
The schedule keeps a *window* of Nk expanded-key words ``w[4n .. 4n+Nk-1]``;
round key ``n`` is always ``window[0:4]``.  One *step* moves the window by one
round key in either direction, producing four new words with the KeyExpansion
recurrence ``w[i] = w[i-Nk] ^ t(w[i-1])`` run forward or solved backward.  Which
of the four words needs ``t`` (RotWord+SubWord+Rcon, or SubWord alone for
AES-256) depends only on ``n``, so every key size shares this one module; a step
needs at most one SubWord, i.e. four S-boxes.

The S-boxes are registered (:class:`~cipherfab.hw.sbox.SubBytes`, latency 1), so their
address is computed one clock ahead: SubWord of the word a step needs is ready the
cycle the step happens, in both the logic and the block-RAM style.  A block's first
step (from the cipher key at ``n = 0`` encrypting, from the last round keys at
``n = Nr`` decrypting) needs a SubWord that depends on the key alone: it is looked
up once per key, the cycle after the key is set up (``primed``), and kept in a
32-bit register (``sub0``).  Between blocks the lane therefore looks up what a
block's *second* step will need, so whether a block starts this cycle reaches only
the window's register, never a lane address (the start, decided by the core's
control and fanned out to hundreds of bits, used to run through the SubWord logic:
the iterative core's critical path, see docs/results/aes-space).  A both-directions
core keeps one SubWord lane per direction.

Keys: ``enc_key`` holds the cipher key; for decryption the forward schedule is
run once per key (``Nr`` cycles of key setup) and its final window ``w[4Nr ..]``
kept as ``dec_key`` (for 192/256 it runs a few words past the standard
expansion, which the recurrence defines just the same).  Blocks start from
these registers, so no restore cycle is ever needed.  Reset clears every key
register.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw.sbox import SboxTables, SubBytes
from .reference import NK, NR, RCON, SBOX
from .round import from_words, rot_word, select, words_of


def _special_rounds(nk: int, nr: int, forward: bool) -> list[dict]:
    """For each word k of a step: the window positions n where it needs t, and Rcon."""
    ns = range(0, nr) if forward else range(1, nr + 1)
    table = []
    for k in range(4):
        full, sub, rcon = [], [], [0] * (nr + 1)
        for n in ns:
            i = 4 * n + nk + k if forward else 4 * n - 4 + k + nk  # index of the word t feeds
            if i % nk == 0:
                full.append(n)
                rcon[n] = RCON[i // nk - 1]
            elif nk == 8 and i % nk == 4:
                sub.append(n)
        table.append({"full": full, "sub": sub, "rcon": rcon})
    return table


class _Step:
    """The combinational step of the window for one key size and direction."""

    def __init__(self, nk: int, nr: int, forward: bool):
        self.nk, self.forward = nk, forward
        self.special = _special_rounds(nk, nr, forward)

    def _t(self, k, n, prev, sub):
        spec = self.special[k]
        t = prev
        if spec["full"]:
            rcon = Array(Const(v, 8) for v in spec["rcon"])[n]
            t = Mux(n.matches(*spec["full"]), rot_word(sub) ^ Cat(Const(0, 24), rcon), t)
        if spec["sub"]:
            t = Mux(n.matches(*spec["sub"]), sub, t)
        return t

    def __call__(self, window, n, sub):
        """Returns (next window value, the word whose SubWord this step needs)."""
        w, nk = words_of(window), self.nk
        new = [None] * 4
        sub_input = Const(0, 32)
        order = range(4) if self.forward else range(3, -1, -1)
        for k in order:
            if self.forward:
                prev = w[nk - 1] if k == 0 else new[k - 1]
                base = w[k]
            else:
                prev = w[nk - 5 + k] if nk - 5 + k >= 0 else new[3]
                base = w[nk - 4 + k]
            spec = self.special[k]
            if spec["full"] or spec["sub"]:
                sub_input = Mux(n.matches(*spec["full"], *spec["sub"]), prev, sub_input)
            new[k] = base ^ self._t(k, n, prev, sub)
        words = w[4:] + new if self.forward else new + w[:nk - 4]
        return from_words(words), sub_input


class KeySchedule(wiring.Component):
    """On-the-fly round keys for one AES key size.

    ``load`` takes ``key`` (a new cipher key; decryption needs ``Nr`` cycles of setup
    while ``busy`` is high; ``ready`` says a key is loaded and set up).  ``start`` begins a
    block (``start_decrypt`` picks the direction) with ``first_key`` as its first round key;
    the schedule then steps by itself every cycle, ``round_key`` following, until ``last``
    (the window holds the block's final round key: Nr when encrypting, 0 when decrypting),
    where it waits for the next start.

    ``folded`` (one direction only): after the last round the window goes back to the
    key (n = 0 encrypting, Nr decrypting), so ``round_key`` is the block's first round
    key when the next block starts and the start is an ordinary step: the datapath adds
    every round key with one XOR, and a block takes one cycle more.
    """

    def __init__(self, key_bits: int, encrypt: bool, decrypt: bool, sbox: str, folded: bool = False):
        self.nk, self.nr = NK[key_bits], NR[key_bits]
        self.encrypt, self.decrypt, self.sbox = encrypt, decrypt, sbox
        self.folded = folded
        assert not (folded and encrypt and decrypt), "a folded schedule idles in one direction"
        super().__init__({
            "key": In(key_bits), "load": In(1),
            "start": In(1), "start_decrypt": In(1),
            "first_key": Out(128), "round_key": Out(128), "ready": Out(1), "busy": Out(1), "last": Out(1),
            "decrypting": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        nk, nr, bits = self.nk, self.nr, 32 * self.nk
        both = self.encrypt and self.decrypt
        window, n = Signal(bits), Signal(range(nr + 1))
        enc_key, dec_key = Signal(bits), Signal(bits)
        # setup only exists where decryption needs it (an encrypt-only core never sets up)
        setup = Signal() if self.decrypt else Const(0)
        have_key = Signal()
        decrypting = Signal() if both else Const(int(not self.encrypt))
        primed = Signal()       # the lanes' outputs are the SubWords of the start words
        window_next, n_next = Signal(bits), Signal(range(nr + 1))
        decrypting_next = Signal()
        forward, inverse = _Step(nk, nr, True), _Step(nk, nr, False)

        # One SubWord lane per direction that can be pending between blocks.
        lane_f = SubBytes(4, SboxTables(SBOX), self.sbox, latency=1)
        m.submodules.subword = lane_f
        lane_i = lane_f
        if both:
            lane_i = SubBytes(4, SboxTables(SBOX), self.sbox, latency=1)
            m.submodules.subword_inv = lane_i

        mid = (n != 0) & (n != nr)               # a block is between its first and last round
        setup_ends = setup & (n == nr - 1)
        m.d.comb += [
            self.ready.eq(have_key & ~setup),
            self.busy.eq(setup),
            self.last.eq(~mid),
            self.decrypting.eq(decrypting),
        ]

        src_key = select(self.start_decrypt if both else self.decrypt, dec_key, enc_key)
        m.d.comb += [self.first_key.eq(first_round_key(src_key)),
                     self.round_key.eq(first_round_key(window))]

        # --- a block's first step takes its SubWord from a register (``sub0``) ---
        # The SubWord of the start word (n = 0 encrypting, Nr decrypting) depends only on
        # the key, so it is looked up once after the key is set up (the cycle marked
        # ``primed``, when the lane's output is that SubWord) and kept.  An idle lane
        # looks up what the block's *second* step needs, so no lane address depends on
        # whether a block starts this cycle.
        sub0_f, sub0_i = Signal(32), Signal(32)
        sub_f = Mux(primed, lane_f.y, sub0_f)
        sub_i = Mux(primed, lane_i.y, sub0_i)
        with m.If(primed):
            m.d.sync += [sub0_f.eq(lane_f.y), sub0_i.eq(lane_i.y)]
        enc_first, _ = forward(enc_key, Const(0, n.shape()), sub_f)    # window after step 1
        dec_first, _ = inverse(dec_key, Const(nr, n.shape()), sub_i)

        # --- the step taken this cycle ---
        fwd_from_window, _ = forward(window, n, lane_f.y)
        inv_from_window, _ = inverse(window, n, lane_i.y)
        m.d.comb += [window_next.eq(window), n_next.eq(n), decrypting_next.eq(decrypting)]
        with m.If(self.load):
            m.d.comb += [window_next.eq(self.key), n_next.eq(0)]
        if self.decrypt:        # (no constant condition in the chain: Verilator's CASEOVERLAP)
            with m.Elif(setup):
                m.d.comb += [window_next.eq(fwd_from_window), n_next.eq(n + 1)]
        if self.folded:
            # after a block's last round the window goes back to the key, so round_key is
            # the first round key when the next block starts (folded key additions)
            idle_n, end_n = (nr, 0) if self.decrypt else (0, nr)
            with m.Elif(n == end_n):
                m.d.comb += [window_next.eq(dec_key if self.decrypt else enc_key), n_next.eq(idle_n)]
        with m.Elif(self.start):
            if self.encrypt:
                m.d.comb += [window_next.eq(enc_first), n_next.eq(1)]
            if self.decrypt:
                with m.If(self.start_decrypt if both else 1):
                    m.d.comb += [window_next.eq(dec_first), n_next.eq(nr - 1)]
            if both:
                m.d.comb += decrypting_next.eq(self.start_decrypt)
        with m.Elif(mid):
            m.d.comb += [window_next.eq(Mux(decrypting, inv_from_window, fwd_from_window)),
                         n_next.eq(Mux(decrypting, n - 1, n + 1))]

        m.d.sync += [window.eq(window_next), n.eq(n_next), decrypting.eq(decrypting_next) if both else [],
                     primed.eq(Mux(self.load, not self.decrypt, setup_ends))]
        with m.If(self.load):
            m.d.sync += [enc_key.eq(self.key), have_key.eq(1)]
        if self.decrypt:
            m.d.sync += setup.eq(Mux(self.load, 1, setup & ~setup_ends))
            with m.If(setup_ends & ~self.load):
                m.d.sync += dec_key.eq(fwd_from_window)

        # --- SubWord lanes, addressed one clock ahead, from registers and lane outputs ---
        n_up, n_down = Signal.like(n), Signal.like(n)
        m.d.comb += [n_up.eq(n + 1), n_down.eq(n - 1)]
        _, fwd_ahead = forward(fwd_from_window, n_up, lane_f.y)      # the next step's word
        _, inv_ahead = inverse(inv_from_window, n_down, lane_i.y)
        _, enc_second = forward(enc_first, Const(1, n.shape()), sub_f)
        _, dec_second = inverse(dec_first, Const(nr - 1, n.shape()), sub_i)
        _, enc_start = forward(Mux(self.load, self.key, enc_key), Const(0, n.shape()), sub_f)
        _, dec_start = inverse(fwd_from_window, Const(nr, n.shape()), sub_i)  # dec_key, set up
        goes_on_f = (setup | (mid & ~decrypting)) & (n != nr - 1)   # the next cycle steps too
        goes_on_i = mid & decrypting & (n != 1)
        inv_addr = Mux(setup_ends, dec_start, Mux(goes_on_i, inv_ahead, dec_second))
        if both:
            m.d.comb += [lane_f.x.eq(Mux(self.load | setup_ends, enc_start,
                                         Mux(goes_on_f, fwd_ahead, enc_second))),
                         lane_i.x.eq(inv_addr)]
        elif self.encrypt:
            m.d.comb += lane_f.x.eq(Mux(self.load, enc_start, Mux(goes_on_f, fwd_ahead, enc_second)))
        else:       # the one lane runs the forward schedule during setup
            m.d.comb += lane_f.x.eq(Mux(self.load, enc_start,
                                        Mux(setup & ~setup_ends, fwd_ahead, inv_addr)))
        return m


def first_round_key(key_window):
    """The round key a window (or key register) starts with: its first four words."""
    return from_words(words_of(key_window)[:4])
