"""Iterative AES core: one round per clock, key schedule on the fly (papers 000 and 003).

Theory of operation
-------------------
The state register is the output register of the 16 S-boxes (a
:class:`~cipherfab.hw.sbox.SubBytes`, latency 1), so the same datapath serves logic and
block-RAM S-boxes.  With ``x`` the value addressed into the S-boxes::

    start (load):  x = block ^ rk[first]          (initial AddRoundKey merged into the load)
    round r:       x = MixColumns(ShiftRows(S)) ^ rk[r]          encrypt
                   x = InvMixColumns(InvShiftRows(S) ^ rk[Nr-r])  decrypt
    last round:    out = ShiftRows(S) ^ rk[Nr]   |   InvShiftRows(S) ^ rk[0]

A block accepted in cycle 0 has its result in the output register from cycle
Nr + 1 (latency Nr + 1: 11/13/15 cycles); the last round of one block overlaps the
load of the next, so back-to-back blocks take Nr cycles each (ECB/CTR), and a
feedback mode, whose next input needs this output, Nr + 1.  Key setup: a key is
taken only when no block is in flight (and before any block presented in the same
cycle); an encryption may start 2 cycles after (the key's first step is kept in a
register), a decryption Nr + 1 cycles after (the forward schedule runs once per key to
find the last round keys).  Every count
is fixed by the parameters: none depends on key or data.

``key_add = "folded"`` (one direction): the initial and final key additions are
folded into the round's own AddRoundKey (paper 001's modified sequential core).
One 128-bit XOR adds every round key: the load is ``block ^ rk[first]`` through
it, the last round is ShiftRows(S) ^ rk[Nr] through it with MixColumns bypassed
(decrypting: InvMixColumns after the XOR, bypassed in the load and the last
round).  The key schedule returns to the key after each block
(:class:`~.key_schedule.KeySchedule`, ``folded``), so the last round no longer
overlaps the next load: Nr + 1 cycles per block, the same latency and feedback rate.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from .key_schedule import KeySchedule
from .reference import NR
from .round import final_round, folded_round, key_sbox, middle_round, sub_bytes_unit


class RoundDatapath(wiring.Component):
    """The 128-bit round: S-box state register plus the linear layers around it."""

    def __init__(self, encrypt: bool, decrypt: bool, sbox: str, folded: bool = False):
        self.encrypt, self.decrypt, self.sbox, self.folded = encrypt, decrypt, sbox, folded
        super().__init__({
            "block": In(128), "start": In(1), "start_decrypt": In(1),
            "advance": In(1), "decrypting": In(1), "take": In(1),
            "first_key": In(128), "round_key": In(128), "result": Out(128),
        })

    def elaborate(self, platform):
        m = Module()
        both = self.encrypt and self.decrypt
        m.submodules.sub_bytes = sboxes = sub_bytes_unit(self.sbox, self.encrypt, self.decrypt)
        state, rk, dirs = sboxes.y, self.round_key, (self.decrypting, self.encrypt, self.decrypt)
        if self.folded:
            x, result = folded_round(m, state, rk, self.block, self.start, self.advance, self.encrypt)
            m.d.comb += [sboxes.x.eq(x), sboxes.en.eq(self.start | self.advance),
                         self.result.eq(result)]
            return m
        middle = middle_round(m, state, rk, *dirs)
        final = final_round(state, rk, *dirs)
        # Between blocks the S-box registers take ``block ^ first_key`` on every clock the
        # core allows (``take``: no finished result waits in them), so a start is one of
        # those clocks: the start, decided late by the core's handshake, reaches neither
        # the S-boxes nor their enables.  The input is picked by ``advance`` (a register).
        m.d.comb += [
            sboxes.x.eq(Mux(self.advance, middle, self.block ^ self.first_key)),
            sboxes.en.eq(self.take | self.advance),
            self.result.eq(final),
        ]
        if both:
            m.d.comb += sboxes.inverse.eq(Mux(self.advance, self.decrypting, self.start_decrypt))
        return m


class IterativeAES(wiring.Component):
    """AES-128/192/256 core, one round per clock; streams ``key``, ``block_in``, ``block_out``.

    ``busy`` is high while a key is being set up, a block is in flight, or a result waits
    in the output register.  The cycle counts below are declared once, in :class:`CoreInfo`,
    and checked by the harness.
    """

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "lut",
                 key_add: str = "load"):
        self.key_bits, self.direction, self.sbox = key_bits, direction, sbox
        self.encrypt = direction in ("encrypt", "both")
        self.decrypt = direction in ("decrypt", "both")
        self.folded = folded = key_add == "folded"
        self.nr = nr = NR[key_bits]
        super().__init__(CoreSignature(self.declare(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=tuple(d for d, on in (("encrypt", self.encrypt), ("decrypt", self.decrypt)) if on),
            latency=nr + 1,                    # load, Nr rounds; result registered
            cycles_per_block=nr + folded,      # the last round overlaps the next load (not folded)
            cycles_per_block_feedback=nr + 1,  # the next input waits for this output
            blocks_in_flight=1,
            key_setup_cycles=nr + 1 if self.decrypt else 2,  # decryption runs the schedule once;
                                               # encrypting keeps the first step (enc_first)
            parts={"key_schedule": "key_schedule", "datapath": "datapath"},
        ))))

    def declare(self, info: CoreInfo) -> CoreInfo:
        """The declaration (a key-specific core, :mod:`.key_specific`, changes it)."""
        return info

    def key_schedule(self) -> wiring.Component:
        """The round-key source (:class:`~.key_schedule.KeySchedule`'s ports); a key-specific
        core (:mod:`.key_specific`) gives its own."""
        return KeySchedule(self.key_bits, self.encrypt, self.decrypt, key_sbox(self.sbox),
                           self.folded)

    def datapath(self, m: Module, ks) -> wiring.Component:
        """The round (:class:`RoundDatapath`'s ports)."""
        return RoundDatapath(self.encrypt, self.decrypt, self.sbox, self.folded)

    def elaborate(self, platform):
        m = Module()
        m.submodules.key_schedule = ks = self.key_schedule()
        m.submodules.datapath = dp = self.datapath(m, ks)

        in_flight = Signal()
        last = in_flight & ks.last
        free = ~in_flight if self.folded else ~in_flight | (last & ~self.block_out.valid)
        start = self.block_in.valid & self.block_in.ready
        waits = last & self.block_out.valid     # a finished block waits for the output register
        # Encrypting only, the schedule is between a block's first and last round only while
        # that block is in flight, so ``advance`` is its position flag alone (a register, no
        # AND in front of the round's 128-bit input multiplexer); decrypting, it also counts
        # through the key setup.
        advance = ~ks.last if self.encrypt and not self.decrypt else in_flight & ~ks.last
        block, flag, _ = payload_parts(self)
        start_decrypt = self.decrypt if flag is None else flag
        key = getattr(self, "key", None)                   # no key port: a key-specific core

        m.d.comb += [
            key.ready.eq(~in_flight) if key is not None else [],
            self.block_in.ready.eq(ks.ready & free & (~key.valid if key is not None else 1)),
            ks.key.eq(key.payload) if key is not None else [],
            ks.load.eq(key.valid & key.ready) if key is not None else [],
            ks.start.eq(start), ks.start_decrypt.eq(start_decrypt), ks.hold.eq(waits),
            dp.take.eq(~waits), dp.block.eq(block), dp.start.eq(start), dp.start_decrypt.eq(start_decrypt),
            dp.advance.eq(advance), dp.decrypting.eq(ks.decrypting),
            dp.first_key.eq(ks.first_key), dp.round_key.eq(ks.round_key),
            self.busy.eq(in_flight | ks.busy | self.block_out.valid),
        ]
        with m.If(self.block_out.valid & self.block_out.ready):
            m.d.sync += self.block_out.valid.eq(0)
        with m.If(last & ~self.block_out.valid):
            m.d.sync += [self.block_out.payload.eq(dp.result), self.block_out.valid.eq(1),
                         in_flight.eq(0)]
        with m.If(start):
            m.d.sync += in_flight.eq(1)
        return m
