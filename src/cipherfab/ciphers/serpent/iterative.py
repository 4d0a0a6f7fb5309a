"""Iterative Serpent encryption: one round per clock, the key schedule running beside the
rounds (paper 000: the round keys computed while the rounds encrypt).

Theory of operation
-------------------
The state is four 32-bit words ``X0..X3`` (``X0`` least significant; block byte 0
is the low byte of ``X0``: the byte-array convention of :mod:`.model`, while on the
ports byte 0 sits in the top bits, as for every cipherfab core).  Round ``i``
(0..31) computes ``LT(S[i mod 8](X ^ K[i]))`` in bitslice form: 32 four-bit
S-boxes, one per bit position, all eight S-boxes in one 7-input table addressed by
``(i mod 8, nibble)`` (a :class:`~cipherfab.hw.sbox.SubBytes`, style ``lut``,
latency 0).  The last round adds ``K[32]`` instead of LT.

Key lane: a window of eight prekey words ``w[4n-8 .. 4n-1]``.  One *step*
computes the next four, ``w[j] = (w[j-8] ^ w[j-5] ^ w[j-3] ^ w[j-1] ^ phi ^ j) <<< 11``
(a chain of four), and ``K[n] = S[(3-n) mod 8]`` of them, bitslice; the window
moves by four.  ``rk`` holds the round key of the round under way and is always
one step ahead: the load of a block takes the first step from the key (``K[0]``),
round ``i`` takes step ``i + 1``, and round 31 uses step 32's ``K[32]`` directly,
then puts the key back in the window for the next block.

Timing (fixed, whatever the key or data): a block accepted in cycle 0 is in the
output register from cycle 33; the next block may enter in cycle 33 (33 cycles
per block, in ECB and feedback use alike).  A key is taken when no block is in
flight (before a block offered in the same cycle); a block may start the cycle
after.  When the output register is full and not taken, the last round waits.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.words import from_le_words as from_words, le_words as words_of
from ...hw.sbox import SboxTables, SubBytes
from .model import PHI, ROUNDS, SBOXES

#: The eight S-boxes as one table: entry (box << 4) | nibble.
ALL_SBOXES = SboxTables(tuple(v for box in SBOXES for v in box), in_bits=7, out_bits=4)


def bitslice(m, box, ws: list, name: str) -> list:
    """``ws`` (X0..X3) through one S-box per bit position; ``box`` (3 bits) picks the S-box."""
    unit = SubBytes(32, ALL_SBOXES, "lut", latency=0)
    m.submodules[name] = unit
    m.d.comb += unit.x.eq(Cat(*(Cat(ws[0][j], ws[1][j], ws[2][j], ws[3][j], box) for j in range(32))))
    return [Cat(*(unit.y[4 * j + k] for j in range(32))) for k in range(4)]


def lt(ws: list) -> list:
    """The linear transformation LT (rotations by wiring, XORs in logic)."""
    x0, x1, x2, x3 = ws
    x0 = x0.rotate_left(13)
    x2 = x2.rotate_left(3)
    x1 = x1 ^ x0 ^ x2
    x3 = x3 ^ x2 ^ (x0 << 3)[:32]
    x1 = x1.rotate_left(1)
    x3 = x3.rotate_left(7)
    x0 = x0 ^ x1 ^ x3
    x2 = x2 ^ x3 ^ (x1 << 7)[:32]
    return [x0.rotate_left(5), x1, x2.rotate_left(22), x3]


def key_step(window: list, n) -> tuple[list, list]:
    """(the window moved by four, the four new prekeys) for round-key index ``n``."""
    w = list(window)
    for t in range(4):
        j = Cat(Const(t, 2), n)                    # 4n + t
        w.append((w[t] ^ w[t + 3] ^ w[t + 5] ^ w[t + 7] ^ PHI ^ j)[:32].rotate_left(11))
    return w[4:], w[8:]


def padded_key(key, key_bits: int) -> list:
    """The eight words w[-8..-1]: the key, then a 1 bit and zeros up to 256 bits."""
    ws = words_of(key)
    if key_bits < 256:
        ws.append(Const(1, 32))
    return ws + [Const(0, 32)] * (8 - len(ws))


class IterativeSerpent(wiring.Component):
    """Serpent encryption, 128/192/256-bit keys, one round per clock; streams key, block_in,
    block_out."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "lut"):
        self.key_bits = key_bits
        super().__init__(CoreSignature(CoreInfo(
            cipher="serpent", arch="iterative",
            params={"key_bits": key_bits, "direction": direction, "sbox": sbox},
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=("encrypt",),
            latency=ROUNDS + 1,                    # load, 32 rounds; result registered
            cycles_per_block=ROUNDS + 1,
            cycles_per_block_feedback=ROUNDS + 1,
            blocks_in_flight=1,
            key_setup_cycles=1,
            parts={"key_sbox": "key_schedule", "sbox": "datapath"},
        )))

    def elaborate(self, platform):
        m = Module()
        block, _, _ = payload_parts(self)
        key_words = [Signal(32, name=f"key{k}") for k in range(8)]
        window = [Signal(32, name=f"w{k}") for k in range(8)]
        rk = [Signal(32, name=f"rk{k}") for k in range(4)]
        x = [Signal(32, name=f"x{k}") for k in range(4)]
        n = Signal(range(ROUNDS + 1))              # the key lane's next round-key index
        in_flight, have_key = Signal(), Signal()

        last = in_flight & (n == ROUNDS)
        advance = ~(last & self.block_out.valid & ~self.block_out.ready)
        start = self.block_in.valid & self.block_in.ready

        # key lane: one step per cycle while a block is in flight (and at its start)
        new_window, prekeys = key_step(window, n)
        k_next = bitslice(m, (3 - n)[:3], prekeys, "key_sbox")

        # data: round n - 1
        s = bitslice(m, (n - 1)[:3], [a ^ b for a, b in zip(x, rk)], "sbox")
        mixed = lt(s)

        m.d.comb += [
            self.key.ready.eq(~in_flight),
            self.block_in.ready.eq(have_key & ~in_flight & ~self.key.valid),
            self.busy.eq(in_flight | self.block_out.valid),
        ]
        with m.If(self.block_out.valid & self.block_out.ready):
            m.d.sync += self.block_out.valid.eq(0)
        with m.If(self.key.valid & self.key.ready):
            padded = padded_key(self.key.payload, self.key_bits)
            m.d.sync += [*(a.eq(b) for a, b in zip(key_words, padded)),
                         *(a.eq(b) for a, b in zip(window, padded)), have_key.eq(1)]
        with m.Elif(start):
            m.d.sync += [*(a.eq(b) for a, b in zip(x, words_of(block))),
                         *(a.eq(b) for a, b in zip(rk, k_next)),
                         *(a.eq(b) for a, b in zip(window, new_window)),
                         n.eq(1), in_flight.eq(1)]
        with m.Elif(in_flight & advance):
            with m.If(last):
                out = [a ^ b for a, b in zip(s, k_next)]
                m.d.sync += [self.block_out.payload.eq(from_words(out)), self.block_out.valid.eq(1),
                             *(a.eq(b) for a, b in zip(window, key_words)),
                             n.eq(0), in_flight.eq(0)]
            with m.Else():
                m.d.sync += [*(a.eq(b) for a, b in zip(x, mixed)),
                             *(a.eq(b) for a, b in zip(rk, k_next)),
                             *(a.eq(b) for a, b in zip(window, new_window)),
                             n.eq(n + 1)]
        return m
