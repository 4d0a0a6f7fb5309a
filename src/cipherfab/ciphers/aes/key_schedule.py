"""On-the-fly AES key schedule, forward and inverse (FIPS-197 Section 5.2).

Theory of operation
-------------------
The schedule keeps a *window* of Nk expanded-key words and moves it one round key per
cycle, in either direction, with :class:`~.key_step.WindowStep` (round key ``n`` is
``window[0:4]``); a step needs at most one SubWord, i.e. four S-boxes.

The S-boxes are registered (:class:`~cipherfab.hw.sbox.SubBytes`, latency 1), so their
address is computed one clock ahead: SubWord of the word a step needs is ready the
cycle the step happens, in both the logic and the block-RAM style.  A block's first
step (from the cipher key at ``n = 0`` encrypting, from the last round keys at
``n = Nr`` decrypting) depends on the key alone, so it is not computed per block:

- encrypting, the window after that step (``enc_first``) is the window's own step in
  the cycle after the key is loaded (``loaded``: the window holds the key at ``n = 0``
  and the lane the SubWord of its start word), kept in a register; a block's start
  loads it, so no second copy of the step's XORs exists (one clock more of key setup);
- decrypting, the SubWord of the start word is looked up once, the cycle after the key
  is set up (``primed``), and kept in a 32-bit register (``sub0``).

Between blocks the lane therefore looks up what a block's *second* step will need, so
whether a block starts this cycle reaches only the window's register, never a lane
address (the start, decided by the core's control and fanned out to hundreds of bits,
used to run through the SubWord logic: the iterative core's critical path, see
docs/results/key-schedule-start).  A both-directions core keeps one SubWord lane per
direction.

Keys: ``enc_key`` holds the cipher key (its first round key); for decryption the forward schedule is
run once per key (``Nr`` cycles of key setup) and its final window ``w[4Nr ..]``
kept as ``dec_key`` (for 192/256 it runs a few words past the standard
expansion, which the recurrence defines just the same).  Blocks start from
these registers, so no restore cycle is ever needed.  Reset clears every key
register.
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw.sbox import SboxTables, SubBytes
from .key_step import RegisteredPosition, WindowStep, first_round_key
from .reference import NK, NR, SBOX
from .round import select


class KeySchedule(wiring.Component):
    """On-the-fly round keys for one AES key size.

    ``load`` takes ``key`` (a new cipher key; decryption needs ``Nr`` cycles of setup
    while ``busy`` is high; ``ready`` says a key is loaded and set up).  ``start`` begins a
    block (``start_decrypt`` picks the direction) with ``first_key`` as its first round key;
    the schedule then steps by itself every cycle, ``round_key`` following, until ``last``
    (the window holds the block's final round key: Nr when encrypting, 0 when decrypting),
    where it waits for the next start.  ``hold`` (from the core: the block's result waits
    for the output register) keeps that final round key; an encrypt-only schedule that is
    not folded otherwise leaves it at once, for the first step's window, on every clock.

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
            "start": In(1), "start_decrypt": In(1), "hold": In(1),
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
        loaded = Signal() if self.encrypt else Const(0)  # the window holds a key just loaded
        primed = Signal()       # the inverse lane's output is the SubWord of the start word
        window_next, n_next = Signal(bits), Signal(range(nr + 1))
        decrypting_next = Signal()
        forward, inverse = WindowStep(nk, nr, True), WindowStep(nk, nr, False)

        # One SubWord lane per direction that can be pending between blocks.
        lane_f = SubBytes(4, SboxTables(SBOX), self.sbox, latency=1)
        m.submodules.subword = lane_f
        lane_i = lane_f
        if both:
            lane_i = SubBytes(4, SboxTables(SBOX), self.sbox, latency=1)
            m.submodules.subword_inv = lane_i

        # n's decodes (and the steps' Rcon) are registers, computed from n_next a clock ahead
        n_up_next, n_down_next = Signal.like(n), Signal.like(n)
        m.d.comb += [n_up_next.eq(n_next + 1), n_down_next.eq(n_next - 1)]
        pos = RegisteredPosition(m, n_next, 0, "n")
        pos_up, pos_down = (RegisteredPosition(m, n_up_next, 1, "n_up"),
                            RegisteredPosition(m, n_down_next, -1, "n_down"))
        mid = ~pos.in_([0, nr])                  # a block is between its first and last round
        setup_ends = setup & pos.in_([nr - 1])
        m.d.comb += [
            self.ready.eq(have_key & ~setup & ~loaded),
            self.busy.eq(setup | loaded),
            self.last.eq(~mid),
            self.decrypting.eq(decrypting),
        ]

        src_key = select(self.start_decrypt if both else self.decrypt, dec_key, enc_key)
        m.d.comb += [self.first_key.eq(first_round_key(src_key)),
                     self.round_key.eq(first_round_key(window))]

        # --- the step taken this cycle ---
        fwd_from_window, _ = forward(window, pos, lane_f.y)
        inv_from_window, _ = inverse(window, pos, lane_i.y)

        # --- a block's first step comes from registers (see the module docstring) ---
        # An idle lane looks up what the block's *second* step needs, so no lane address
        # depends on whether a block starts this cycle.
        enc_first = Signal(bits)        # the window after step 1 from the cipher key
        if self.encrypt:
            m.d.sync += loaded.eq(self.load)
            with m.If(loaded):
                m.d.sync += enc_first.eq(fwd_from_window)
        if self.decrypt:
            sub0_i = Signal(32)
            sub_i = Mux(primed, lane_i.y, sub0_i)
            with m.If(primed):
                m.d.sync += sub0_i.eq(lane_i.y)
            dec_first, _ = inverse(dec_key, Const(nr, n.shape()), sub_i)
        idle_n, end_n = (nr, 0) if self.decrypt else (0, nr)     # (folded)
        at_end = pos.in_([end_n]) if self.folded else None  # (before the If chain: a register)
        # Encrypting only (not folded), the window takes ``enc_first`` on every clock between
        # blocks but the one after a load and those where ``hold`` keeps the final round key,
        # so it never waits for a start: the start, decided late by the core's handshake,
        # reaches only the position counter, not the window's 128 enables.
        free_running = self.encrypt and not self.decrypt and not self.folded

        def to(value):
            return [] if free_running else window_next.eq(value)

        m.d.comb += [window_next.eq(window), n_next.eq(n), decrypting_next.eq(decrypting)]
        if free_running:
            with m.If(self.load):
                m.d.comb += window_next.eq(self.key)
            with m.Elif(mid):
                m.d.comb += window_next.eq(fwd_from_window)
            with m.Elif(~loaded & ~self.hold):
                m.d.comb += window_next.eq(enc_first)
        with m.If(self.load):
            m.d.comb += [to(self.key), n_next.eq(0)]
        if self.decrypt:        # (no constant condition in the chain: Verilator's CASEOVERLAP)
            with m.Elif(setup):
                m.d.comb += [to(fwd_from_window), n_next.eq(n + 1)]
        if self.folded:
            # after a block's last round the window goes back to the key, so round_key is
            # the first round key when the next block starts (folded key additions)
            with m.Elif(at_end):
                m.d.comb += [window_next.eq(dec_key if self.decrypt else enc_key), n_next.eq(idle_n)]
        with m.Elif(self.start):
            if self.encrypt:
                m.d.comb += [to(enc_first), n_next.eq(1)]
            if self.decrypt:
                with m.If(self.start_decrypt if both else 1):
                    m.d.comb += [window_next.eq(dec_first), n_next.eq(nr - 1)]
            if both:
                m.d.comb += decrypting_next.eq(self.start_decrypt)
        with m.Elif(mid):
            m.d.comb += [to(Mux(decrypting, inv_from_window, fwd_from_window)),
                         n_next.eq(Mux(decrypting, n - 1, n + 1))]

        m.d.sync += [window.eq(window_next), n.eq(n_next), decrypting.eq(decrypting_next) if both else [],
                     primed.eq(~self.load & setup_ends) if self.decrypt else []]
        with m.If(self.load):
            m.d.sync += [enc_key.eq(self.key), have_key.eq(1)]
        if self.decrypt:
            m.d.sync += setup.eq(Mux(self.load, 1, setup & ~setup_ends))
            with m.If(setup_ends & ~self.load):
                m.d.sync += dec_key.eq(fwd_from_window)

        # --- SubWord lanes, addressed one clock ahead, from registers and lane outputs ---
        _, fwd_ahead = forward(fwd_from_window, pos_up, lane_f.y)      # the next step's word
        _, inv_ahead = inverse(inv_from_window, pos_down, lane_i.y)
        # (the word a step needs never depends on that step's SubWord: one word per step does)
        _, enc_start = forward(self.key, Const(0, n.shape()), lane_f.y)   # at a load
        goes_on_f = (setup | (mid & ~decrypting)) & ~pos.in_([nr - 1])   # the next cycle steps too
        if self.decrypt:
            _, dec_second = inverse(dec_first, Const(nr - 1, n.shape()), sub_i)
            _, dec_start = inverse(fwd_from_window, Const(nr, n.shape()), sub_i)  # dec_key, set up
            goes_on_i = mid & decrypting & ~pos.in_([1])
            inv_addr = Mux(setup_ends, dec_start, Mux(goes_on_i, inv_ahead, dec_second))
        if self.encrypt:
            _, enc_second = forward(enc_first, Const(1, n.shape()), lane_f.y)
            m.d.comb += lane_f.x.eq(Mux(self.load, enc_start, Mux(goes_on_f, fwd_ahead, enc_second)))
        if both:
            m.d.comb += lane_i.x.eq(inv_addr)
        elif not self.encrypt:       # the one lane runs the forward schedule during setup
            m.d.comb += lane_f.x.eq(Mux(self.load, enc_start,
                                        Mux(setup & ~setup_ends, fwd_ahead, inv_addr)))
        return m
