"""Iterative Serpent encryption: one round per clock, or eight (``rounds_per_clock``), the
key schedule running beside the rounds (paper 000: the round keys computed while the
rounds encrypt; its Table 9: Elbirt et al.'s eight unrolled rounds, 3x faster).

Theory of operation
-------------------
The state is four 32-bit words ``X0..X3`` (``X0`` least significant; block byte 0
is the low byte of ``X0``: the byte-array convention of :mod:`.model`, while on the
ports byte 0 sits in the top bits, as for every cipherfab core).  Round ``i``
(0..31) computes ``LT(S[i mod 8](X ^ K[i]))`` in bitslice form (:func:`serpent_round`):
32 four-bit S-boxes, one per bit position.  With one round per clock all eight
S-boxes are one 7-input table addressed by ``(i mod 8, nibble)`` (a
:class:`~cipherfab.hw.sbox.SubBytes`, style ``lut``, latency 0); with eight, round
``t`` of a clock is always round ``i = 8c + t``, so it uses the fixed S-box
``S[t]`` (a 4-input table; each of the eight S-boxes once per clock).  The last
round adds ``K[32]`` instead of LT.

Key lane: a window of eight prekey words ``w[4n-8 .. 4n-1]``.  One *step*
computes the next four, ``w[j] = (w[j-8] ^ w[j-5] ^ w[j-3] ^ w[j-1] ^ phi ^ j) <<< 11``
(a chain of four), and ``K[n] = S[(3-n) mod 8]`` of them, bitslice (:func:`round_key`);
the window moves by four.  Per clock the lane takes as many steps as the data takes
rounds (eight steps: a chain of 32 prekeys, each S-box again fixed, ``S[(3-t) mod 8]``).
``rk`` holds the round keys of the rounds under way and is always one clock ahead:
the load of a block takes the first step(s) from the key (``K[0]``, or ``K[0..7]``),
each clock of rounds takes the next, and the last clock uses the lane's first
step, ``K[32]``, directly, then puts the key back in the window for the next block.
So no subkey memory is needed at either width.

Timing (fixed, whatever the key or data), with ``R`` rounds per clock: a block
accepted in cycle 0 is in the output register from cycle ``32/R + 1`` (33 or 5);
the next block may enter in that cycle (33 or 5 cycles per block, in ECB and
feedback use alike).  A key is taken when no block is in flight (before a block
offered in the same cycle); a block may start the cycle after.  When the output
register is full and not taken, the last clock of rounds waits.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.single_block import drive_ports, handshake
from ...hw.words import from_le_words as from_words, le_words as words_of
from ...hw.sbox import SboxTables, SubBytes
from .model import PHI, ROUNDS, SBOXES

#: The eight S-boxes as one table: entry (box << 4) | nibble.
ALL_SBOXES = SboxTables(tuple(v for box in SBOXES for v in box), in_bits=7, out_bits=4)
#: Each S-box alone (for a round whose S-box is fixed).
BOX_TABLES = tuple(SboxTables(box, in_bits=4, out_bits=4) for box in SBOXES)
ROUNDS_PER_CLOCK = (1, 8)


def bitslice(m, box, ws: list, name: str) -> list:
    """``ws`` (X0..X3) through one S-box per bit position; ``box`` picks the S-box: a 3-bit
    value (the eight S-boxes as one 7-input table) or an int (that S-box's 4-input table)."""
    fixed = isinstance(box, int)
    unit = SubBytes(32, BOX_TABLES[box] if fixed else ALL_SBOXES, "lut", latency=0)
    m.submodules[name] = unit
    m.d.comb += unit.x.eq(Cat(*(Cat(ws[0][j], ws[1][j], ws[2][j], ws[3][j], *(() if fixed else (box,)))
                                for j in range(32))))
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


def serpent_round(m, box, x: list, k: list, name: str) -> tuple[list, list]:
    """One round on the state ``x`` with round key ``k``: ``(s, LT(s))`` for
    ``s = S[box](x ^ k)`` (the last round uses ``s ^ K[32]`` instead of ``LT(s)``).
    ``LT(s)`` is kept in named signals: the next round takes it apart bit by bit, and each
    bit would otherwise repeat the whole expression (and with eight rounds per clock, every
    round before it), which made elaboration slow."""
    s = bitslice(m, box, [a ^ b for a, b in zip(x, k)], name)
    mixed = [Signal(32, name=f"{name}_lt{w}") for w in range(4)]
    m.d.comb += [a.eq(b) for a, b in zip(mixed, lt(s))]
    return s, mixed


def round_key(m, window: list, n, box, name: str, keep: bool = False) -> tuple[list, list]:
    """One key-schedule step: (the window moved by four, round key ``K[n]``, S-box ``box``).
    ``keep``: the four new prekeys as named signals (a chain of steps in one clock would
    otherwise be one expression tree per word, each repeating the whole chain before it)."""
    new_window, prekeys = key_step(window, n)
    if keep:
        kept = [Signal(32, name=f"{name}_w{t}") for t in range(4)]
        m.d.comb += [a.eq(b) for a, b in zip(kept, prekeys)]
        new_window, prekeys = new_window[:4] + kept, kept
    return new_window, bitslice(m, box, prekeys, name)


def padded_key(key, key_bits: int) -> list:
    """The eight words w[-8..-1]: the key, then a 1 bit and zeros up to 256 bits."""
    ws = words_of(key)
    if key_bits < 256:
        ws.append(Const(1, 32))
    return ws + [Const(0, 32)] * (8 - len(ws))


class IterativeSerpent(wiring.Component):
    """Serpent encryption, 128/192/256-bit keys, one or eight rounds per clock; streams key,
    block_in, block_out."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "lut",
                 rounds_per_clock: int = 1):
        if rounds_per_clock not in ROUNDS_PER_CLOCK:
            raise ValueError(f"rounds_per_clock must be one of {ROUNDS_PER_CLOCK}")
        self.key_bits, self.rpc = key_bits, rounds_per_clock
        clocks = ROUNDS // rounds_per_clock + 1    # load, 32 rounds; result registered
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=("encrypt",),
            latency=clocks,
            cycles_per_block=clocks,
            cycles_per_block_feedback=clocks,
            blocks_in_flight=1,
            key_setup_cycles=1,
            parts={"key_sbox": "key_schedule", "sbox": "datapath"},
        )))

    def elaborate(self, platform):
        m = Module()
        rpc = self.rpc
        block, _, _ = payload_parts(self)
        key_words = [Signal(32, name=f"key{k}") for k in range(8)]
        window = [Signal(32, name=f"w{k}") for k in range(8)]
        rk = [[Signal(32, name=f"rk{k}" if rpc == 1 else f"rk{t}_{k}") for k in range(4)]
              for t in range(rpc)]
        x = [Signal(32, name=f"x{k}") for k in range(4)]
        groups = ROUNDS // rpc
        n = Signal(range(groups + 1))              # the key lane's next round key (or group of 8)
        in_flight, have_key = Signal(), Signal()

        last = in_flight & (n == groups)
        start, advance = handshake(self, last)

        def name(part, t):
            return part if rpc == 1 else f"{part}{t}"

        # key lane: rpc steps per cycle while a block is in flight (and at its start); with 8,
        # step t makes K[8n + t] through the fixed S-box (3 - t) mod 8
        new_window, k_next = window, []
        for t in range(rpc):
            index, box = (n, (3 - n)[:3]) if rpc == 1 else (Cat(Const(t, 3), n), (3 - t) % 8)
            new_window, k = round_key(m, new_window, index, box, name("key_sbox", t), keep=rpc > 1)
            k_next.append(k)

        # data: rounds rpc * (n - 1) + t, t = 0 .. rpc - 1 (with 8: S-box t)
        mixed = x
        for t in range(rpc):
            s, mixed = serpent_round(m, (n - 1)[:3] if rpc == 1 else t, mixed, rk[t], name("sbox", t))
        rk_now = [w for ws in rk for w in ws]
        rk_next = [w for ws in k_next for w in ws]

        drive_ports(m, self, in_flight, have_key)
        with m.If(self.key.valid & self.key.ready):
            padded = padded_key(self.key.payload, self.key_bits)
            m.d.sync += [*(a.eq(b) for a, b in zip(key_words, padded)),
                         *(a.eq(b) for a, b in zip(window, padded)), have_key.eq(1)]
        with m.Elif(start):
            m.d.sync += [*(a.eq(b) for a, b in zip(x, words_of(block))),
                         *(a.eq(b) for a, b in zip(rk_now, rk_next)),
                         *(a.eq(b) for a, b in zip(window, new_window)),
                         n.eq(1), in_flight.eq(1)]
        with m.Elif(in_flight & advance):
            with m.If(last):
                out = [a ^ b for a, b in zip(s, k_next[0])]      # K[32]: the lane's first step
                m.d.sync += [self.block_out.payload.eq(from_words(out)), self.block_out.valid.eq(1),
                             *(a.eq(b) for a, b in zip(window, key_words)),
                             n.eq(0), in_flight.eq(0)]
            with m.Else():
                m.d.sync += [*(a.eq(b) for a, b in zip(x, mixed)),
                             *(a.eq(b) for a, b in zip(rk_now, rk_next)),
                             *(a.eq(b) for a, b in zip(window, new_window)),
                             n.eq(n + 1)]
        return m
