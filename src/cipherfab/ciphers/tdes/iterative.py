"""Iterative DES / Triple DES (EDE): one round per clock, subkeys on the fly.

Theory of operation
-------------------
One Feistel round (:class:`~.des.FeistelFunction`: E, eight 6->4 S-box tables, P)
sits between the ``L R`` state register and itself.  A block accepted in cycle 0
is loaded as ``IP(block)``; rounds run in cycles 1..N, N = 16 per DES pass: 16
for a 64-bit key (single DES: EDE with K1 = K2 = K3 is one DES pass), 48 for
128/192-bit keys (three passes: E_K1 D_K2 E_K3, decrypting D_K3 E_K2 D_K1).  The
last round of each pass does not swap, so after it ``L R`` is the preoutput: the
next pass starts from it directly (``IP(FP(x)) = x``), and the last round of the
block writes ``FP`` of it into the output register.  That round overlaps the load
of the next block: back to back, a block takes N cycles; its result is valid
N + 1 cycles after it was accepted (latency N + 1), and a feedback mode, whose
next input is this output, takes N + 1 per block.

Subkeys: the halves C, D sit in two 28-bit registers.  In the first round of a
pass they are taken from PC-1 of that pass's key (K1, K2 or K3 from the key
register, wiring); every round rotates them by ``SHIFTS`` (left, encrypting) or
``DECRYPT_SHIFTS`` (right, decrypting: 0 before the first round, whose subkey
K16 is PC-2(PC-1(K))) and uses ``PC-2`` of the rotated value, which is also what
the registers keep.  No key memory and no key setup: a key is taken when no
block is in flight (before a block offered in the same cycle) and a block may
enter the next cycle, in either direction.  Every count is fixed by the
parameters.

Parity: the key port carries 64 bits per DES key; PC-1 drops every byte's parity
bit, which is ignored, not checked.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from .des import (DECRYPT_SHIFTS, FP, IP, SHIFTS, FeistelFunction, KeyStream, feistel_round, pc1,
                  pc2, permute, tdes_keys)

NOTES = ("DES key parity bits (bit 0 of every key byte) are ignored, not checked",
         "key port: 64 bits = single DES (EDE with K1 = K2 = K3), 128 = K1 K2 (K3 = K1), "
         "192 = K1 K2 K3; K1 in the top bits")


def rotate(x, amount, right):
    """``x`` rotated by ``amount`` (0, 1 or 2; a signal) left, or right when ``right``."""
    left_ = Mux(amount[1], x.rotate_left(2), Mux(amount[0], x.rotate_left(1), x))
    right_ = Mux(amount[1], x.rotate_right(2), Mux(amount[0], x.rotate_right(1), x))
    return right_ if right is True else left_ if right is False else Mux(right, right_, left_)


def directions_of(direction: str) -> tuple[str, ...]:
    return {"encrypt": ("encrypt",), "decrypt": ("decrypt",),
            "both": ("encrypt", "decrypt")}[direction]


class IterativeTDES(KeyStream, wiring.Component):
    """DES (64-bit key) or EDE Triple DES (128/192-bit key), one round per clock."""

    def __init__(self, key_bits: int = 192, direction: str = "encrypt"):
        self.key_bits, self.direction = key_bits, direction
        self.passes = 1 if key_bits == 64 else 3
        n = 16 * self.passes
        super().__init__(CoreSignature(self.declare(CoreInfo(
            block_bits=64, key_bits=key_bits, key_bits_effective=key_bits // 8 * 7,
            key_interface="stream", directions=directions_of(direction),
            latency=n + 1,                   # load, N rounds, the last into the output register
            cycles_per_block=n,              # the last round overlaps the next load
            cycles_per_block_feedback=n + 1,
            blocks_in_flight=1,
            key_setup_cycles=1,              # subkeys come from the key register directly
            parts={"f": "datapath"},
            notes=NOTES,
        ))))

    def elaborate(self, platform):
        m = Module()
        block, flag, _ = payload_parts(self)
        m.submodules.f = f = self.feistel_function()

        key, have_key = self.key_register()
        left, right = Signal(32), Signal(32)
        r = Signal(range(1, 17))                 # round of the pass under way, 1..16
        p = Signal(range(max(2, self.passes)))   # pass, 0..2 (a bit that stays 0 for single DES:
                                                 # a 0-bit signal would print as wire [-1:0])
        decrypt = Signal()                       # the block's direction
        in_flight = Signal()

        last_of_pass = r == 16
        last = in_flight & last_of_pass & (p == self.passes - 1)
        advance = in_flight & ~last
        start = self.block_in.valid & self.block_in.ready
        free = ~in_flight | (last & ~self.block_out.valid)

        subkey, on_advance = self.round_key(m, key, r, p, decrypt)
        new_left, new_right = feistel_round(m, f, left, right, subkey, swap=~last_of_pass)

        m.d.comb += [
            *self.key_ready(~in_flight),
            self.block_in.ready.eq(self.key_gate(have_key & free)),
            self.busy.eq(in_flight | self.block_out.valid),
        ]
        self.take_key(m, key, have_key)

        with m.If(self.block_out.valid & self.block_out.ready):
            m.d.sync += self.block_out.valid.eq(0)
        with m.If(last & ~self.block_out.valid):
            m.d.sync += [self.block_out.payload.eq(permute(Cat(new_right, new_left), FP, 64)),
                         self.block_out.valid.eq(1), in_flight.eq(0)]
        with m.If(advance):
            m.d.sync += [left.eq(new_left), right.eq(new_right), *on_advance,
                         r.eq(Mux(last_of_pass, 1, r + 1))]
            if self.passes > 1:
                with m.If(last_of_pass):
                    m.d.sync += p.eq(p + 1)
        with m.If(start):
            x = permute(block, IP, 64)
            m.d.sync += [left.eq(x[32:64]), right.eq(x[0:32]), r.eq(1), p.eq(0),
                         in_flight.eq(1)]
            if flag is not None:
                m.d.sync += decrypt.eq(flag)
        if flag is None:
            m.d.comb += decrypt.eq(self.direction == "decrypt")
        return m

    # hooks (a key-specific core replaces the key port, the subkeys or the key addition)

    def declare(self, info: CoreInfo) -> CoreInfo:
        """The core's declaration (a key-specific subclass changes its key interface)."""
        return info

    def feistel_function(self) -> FeistelFunction:
        return FeistelFunction()

    def key_register(self):
        """(key register, a key was given)."""
        key, have_key = Signal(self.key_bits), Signal()
        return key, have_key

    def round_key(self, m: Module, key, r, p, decrypt):
        """(this round's 48-bit subkey, register updates for a round) from round ``r`` (1..16)
        of pass ``p`` for a block in direction ``decrypt``: on the fly, C, D from PC-1 of the
        pass's key at its first round, rotated every round."""
        k1, k2, k3 = tdes_keys(key, self.key_bits)
        c, d = Signal(28), Signal(28)
        # this pass: direction (EDE: the middle pass the other way) and key
        pass_decrypt = decrypt ^ (p == 1) if self.passes == 3 else decrypt
        pass_key = Signal(64)                    # named: the lowering copies no sub-expression
        if self.passes == 1:
            m.d.comb += pass_key.eq(k1)
        else:                                    # encrypting K1 K2 K3, decrypting K3 K2 K1
            m.d.comb += pass_key.eq(Mux(p == 1, k2, Mux((p == 0) ^ decrypt, k1, k3)))

        amount = Signal(2)
        with m.Switch(r):
            for i in range(1, 17):
                with m.Case(i):
                    m.d.comb += amount.eq(Mux(pass_decrypt, DECRYPT_SHIFTS[i - 1], SHIFTS[i - 1]))
        c0, d0 = pc1(pass_key)
        c_in, d_in, c_next, d_next = (Signal(28, name=n) for n in ("c_in", "d_in", "c_next", "d_next"))
        m.d.comb += [c_in.eq(Mux(r == 1, c0, c)), d_in.eq(Mux(r == 1, d0, d)),
                     c_next.eq(rotate(c_in, amount, pass_decrypt)),
                     d_next.eq(rotate(d_in, amount, pass_decrypt))]
        return pc2(c_next, d_next), [c.eq(c_next), d.eq(d_next)]
