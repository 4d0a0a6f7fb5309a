"""AES encryption with k rounds per clock: paper 003's Unrolled-k loop.

Theory of operation
-------------------
One loop register holds the state after AddRoundKey (``x``) and the key window
``W`` (Nk expanded-key words, round key ``n`` = ``W[0:4]``, as in
:mod:`.key_schedule`).  In each clock ``k`` copies of the round run one after
another in logic, each beside its key step::

    x --SubBytes--ShiftRows--MixColumns--^rk(n+1)--> ... (k times) --> x
    W --KeyExpansion step (SubWord in logic)-------> ... (k times) --> W

Round ``Nr`` has no MixColumns: in a block's last clock the k-th copy gives the
final round instead, and its result goes to the output register.  Cycle by
cycle: the handshake loads ``x = block ^ rk0`` and ``W = key`` (the key register,
loaded from the key stream in one clock); clocks 1..Nr/k run the rounds; the
result is registered at the end of clock Nr/k, in the same edge that may load
the next block.  So latency = Nr/k + 1, cycles per block Nr/k in ECB use and
Nr/k + 1 in feedback use, whatever the key or data.

The S-boxes are logic (no register may sit inside a round): styles whose
S-box has no register of its own (``lut``, and ``composite`` when present).
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import wiring

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.sbox import SboxTables, SubBytes
from .key_step import WindowStep, first_round_key
from .reference import NK, NR, SBOX
from .round import mix_columns, shift_rows


class RoundChain(wiring.Component):
    """``k`` rounds and key steps in logic, from window position ``n`` (a multiple of k)."""

    def __init__(self, key_bits: int, k: int, sbox: str):
        self.nk, self.nr, self.k, self.sbox = NK[key_bits], NR[key_bits], k, sbox
        wb = 32 * self.nk
        super().__init__({"x": wiring.In(128), "w": wiring.In(wb), "n": wiring.In(range(self.nr + 1)),
                          "x_next": wiring.Out(128), "w_next": wiring.Out(wb),
                          "final": wiring.Out(128)})

    def elaborate(self, platform):
        m = Module()
        step = WindowStep(self.nk, self.nr, forward=True)
        x, w = self.x, self.w
        for j in range(self.k):
            n = Signal(range(self.nr + 1), name=f"n{j}")
            m.d.comb += n.eq(self.n + j)
            sub_word = SubBytes(4, SboxTables(SBOX), self.sbox, latency=0)
            sub_bytes = SubBytes(16, SboxTables(SBOX), self.sbox, latency=0)
            m.submodules[f"sub_word{j}"], m.submodules[f"sub_bytes{j}"] = sub_word, sub_bytes
            w_new = Signal.like(w, name=f"w{j + 1}")
            m.d.comb += [sub_word.x.eq(step(w, n, Const(0, 32))[1]), w_new.eq(step(w, n, sub_word.y)[0])]
            m.d.comb += sub_bytes.x.eq(x)
            y, rk = shift_rows(sub_bytes.y), first_round_key(w_new)
            x_new = Signal(128, name=f"x{j + 1}")
            m.d.comb += x_new.eq(mix_columns(m, y, f"mix{j}") ^ rk)
            if j == self.k - 1:
                m.d.comb += self.final.eq(y ^ rk)
            x, w = x_new, w_new
        m.d.comb += [self.x_next.eq(x), self.w_next.eq(w)]
        return m


class UnrolledAES(wiring.Component):
    """AES-128/192/256 encryption, ``rounds_per_clock`` rounds per clock; a key stream."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "lut",
                 rounds_per_clock: int = 2):
        self.key_bits, self.sbox, self.k = key_bits, sbox, rounds_per_clock
        self.clocks = clocks = NR[key_bits] // rounds_per_clock
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=("encrypt",),
            latency=clocks + 1, cycles_per_block=clocks, cycles_per_block_feedback=clocks + 1,
            blocks_in_flight=1, key_setup_cycles=1,
            parts={"rounds": "datapath"},
        )))

    def elaborate(self, platform):
        m = Module()
        nr, k = NR[self.key_bits], self.k
        m.submodules.rounds = chain = RoundChain(self.key_bits, k, self.sbox)
        block, _, _ = payload_parts(self)
        key, have_key = Signal(32 * NK[self.key_bits]), Signal()
        x, w, n, busy = Signal(128), Signal.like(key), Signal(range(nr + 1)), Signal()
        last = busy & (n == nr - k)
        # the output register can take a result while its current one is being taken: with
        # k = Nr (one clock per block) a result is written every clock
        out_free = ~self.block_out.valid | self.block_out.ready
        free = ~busy | (last & out_free)
        start = self.block_in.valid & self.block_in.ready
        m.d.comb += [
            self.key.ready.eq(~busy),
            self.block_in.ready.eq(have_key & free & ~self.key.valid),
            chain.x.eq(x), chain.w.eq(w), chain.n.eq(n),
            self.busy.eq(busy | self.block_out.valid),
        ]
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += [key.eq(self.key.payload), have_key.eq(1)]
        with m.If(self.block_out.valid & self.block_out.ready):
            m.d.sync += self.block_out.valid.eq(0)
        with m.If(busy & ~last):
            m.d.sync += [x.eq(chain.x_next), w.eq(chain.w_next), n.eq(n + k)]
        with m.If(last & out_free):
            m.d.sync += [self.block_out.payload.eq(chain.final), self.block_out.valid.eq(1),
                         busy.eq(0)]
        with m.If(start):
            m.d.sync += [x.eq(block ^ first_round_key(key)), w.eq(key), n.eq(0), busy.eq(1)]
        return m
