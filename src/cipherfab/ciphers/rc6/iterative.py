"""Iterative RC6-32/20 encryption: one round per clock, round keys from a 44-word memory
filled by the key schedule (one mixing step per clock).

Theory of operation
-------------------
Key setup: the key words ``L`` sit in a ring of c registers (c = 4, 6, 8); the 44
round-key words ``S`` in a memory.  Each clock takes one of the 3·44 = 132 mixing
steps ``A = S[i] = (S[i] + A + B) <<< 3``, ``B = L[j] = (L[j] + A + B) <<< (A + B)``:
in the first pass ``S[i]`` is its initial value ``P32 + i·Q32`` (a register
stepping by Q32), later it is read from the memory, addressed one clock ahead.
So a key is set up 132 clocks after it is taken (paper 000 reports RC6's key setup
as the slowest of the finalists' for the same reason: it cannot run beside the
rounds, whose keys come out of its last pass).

Encryption: the load adds ``S[0]``, ``S[1]`` to B and D; each of the 20 rounds
computes ``t = (B(2B+1)) <<< 5``, ``u = (D(2D+1)) <<< 5`` (two 32x32 multipliers
keeping the low 32 bits, :mod:`cipherfab.hw.mul`), the data-dependent
rotations and the additions of ``S[2r]``, ``S[2r+1]`` (two read ports, addressed a
round ahead), and turns the registers; a last clock adds ``S[42]``, ``S[43]`` into
the output register.  A block takes 22 clocks, whatever the key or data.

The multipliers (``mul``): ``dsp`` (the default) writes ``*`` and Yosys maps each onto
ECP5 MULT18X18D blocks; ``logic`` is paper 000's choice, a partial-product multiplier
that builds only the terms of the low 32 bits and sums them in an explicit adder tree
(no DSP blocks: for FPGAs without them, or to compare).  Both are combinational, so
the cycle counts are the same; the default's Verilog is unchanged by the option.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.single_block import drive_ports, handshake
from ...hw.mul import mul_low
from ...hw.words import from_le_words as from_words, le_words as words_of
from .model import P32, Q32, R

T = 2 * R + 4            # 44 round-key words
STEPS = 3 * T            # mixing steps (3·max(c, 44) = 132 for keys up to 44 words)


def rol(x, n) -> "Value":
    """``x <<< n`` for a data-dependent ``n`` (low 5 bits)."""
    return (Cat(x, x) << n[:5])[32:64]


def f(m, x, style: str, name: str):
    """``(x(2x+1)) <<< 5``: the multiply keeps the low 32 bits."""
    return mul_low(m, x, Cat(Const(1, 1), x), style, name=name).rotate_left(5)


class IterativeRC6(wiring.Component):
    """RC6-32/20 encryption, 128/192/256-bit keys, one round per clock."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", mul: str = "dsp"):
        self.key_bits, self.mul = key_bits, mul
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=("encrypt",),
            latency=R + 2,                       # load, 20 rounds, output whitening
            cycles_per_block=R + 2,
            cycles_per_block_feedback=R + 2,
            blocks_in_flight=1,
            key_setup_cycles=STEPS + 1,          # 132 mixing steps; S[0], S[1] are read in the last
            parts={"key_schedule": "key_schedule"},
        )))

    def elaborate(self, platform):
        m = Module()
        block, _, _ = payload_parts(self)
        c = self.key_bits // 32
        m.submodules.key_schedule = ks = Module()    # mixing steps and the round-key memory
        mem = Memory(shape=32, depth=T, init=[])
        ks.submodules.round_keys = mem
        write = mem.write_port()
        read = [mem.read_port(domain="sync", transparent_for=()) for _ in range(2)]

        # --- key schedule ---
        ring = [Signal(32, name=f"l{k}") for k in range(c)]
        a, b = Signal(32), Signal(32)
        k, i = Signal(range(STEPS + 1)), Signal(range(T))
        init = Signal(32)                                  # P32 + i·Q32 in the first pass
        setup, have_key = Signal(), Signal()
        a_new, b_new = Signal(32), Signal(32)
        s_old = Mux(k < T, init, read[0].data)
        ks.d.comb += [a_new.eq((s_old + a + b)[:32].rotate_left(3)),
                      b_new.eq(rol((ring[0] + a_new + b)[:32], (a_new + b)[:5]))]
        last_step = setup & (k == STEPS - 1)
        ks.d.comb += [write.addr.eq(i), write.data.eq(a_new), write.en.eq(setup)]

        # --- data ---
        x = [Signal(32, name=f"x{q}") for q in range(4)]   # A, B, C, D
        r = Signal(range(R + 2))                           # round under way (1..20), 21: whitening
        in_flight = Signal()
        last = in_flight & (r == R + 1)
        start, advance = handshake(self, last)
        s0, s1 = read[0].data, read[1].data

        # read addresses, one clock ahead: the next mixing step's S[i], or the next round's keys
        nxt = Signal(range(R + 2))
        m.d.comb += nxt.eq(Mux(start, 1, Mux(in_flight & ~last, r + 1, 0)))
        with m.If(setup):
            m.d.comb += [read[0].addr.eq(Mux(i == T - 1, 0, i + 1)), read[1].addr.eq(1),
                         read[0].en.eq(1), read[1].en.eq(1)]
        with m.Else():
            m.d.comb += [read[0].addr.eq(Mux(last_step | ~in_flight & ~start, 0, 2 * nxt)),
                         read[1].addr.eq(Mux(~in_flight & ~start, 1, 2 * nxt + 1)),
                         read[0].en.eq(advance), read[1].en.eq(advance)]

        drive_ports(m, self, in_flight, have_key, setup)
        with ks.If(self.key.valid & self.key.ready):
            ks.d.sync += [*(w.eq(v) for w, v in zip(ring, words_of(self.key.payload))),
                          a.eq(0), b.eq(0), k.eq(0), i.eq(0), init.eq(P32), setup.eq(1),
                          have_key.eq(1)]
        with ks.Elif(setup):
            ks.d.sync += [a.eq(a_new), b.eq(b_new),
                          *(w.eq(v) for w, v in zip(ring, ring[1:] + [b_new])),
                          k.eq(k + 1), i.eq(Mux(i == T - 1, 0, i + 1)), init.eq(init + Q32)]
            with ks.If(last_step):
                ks.d.sync += setup.eq(0)

        A, B, C, D = x
        t, u = f(m, B, self.mul, "mul_t"), f(m, D, self.mul, "mul_u")
        with m.If(start):
            w = words_of(block)
            m.d.sync += [A.eq(w[0]), B.eq(w[1] + s0), C.eq(w[2]), D.eq(w[3] + s1),
                         r.eq(1), in_flight.eq(1)]
        with m.Elif(in_flight & advance):
            with m.If(last):
                m.d.sync += [self.block_out.payload.eq(from_words([A + s0, B, C + s1, D])),
                             self.block_out.valid.eq(1), in_flight.eq(0), r.eq(0)]
            with m.Else():
                m.d.sync += [A.eq(B), B.eq(rol(C ^ u, t) + s1), C.eq(D), D.eq(rol(A ^ t, u) + s0),
                             r.eq(r + 1)]
        return m
