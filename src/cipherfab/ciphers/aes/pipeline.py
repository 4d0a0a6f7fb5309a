"""Fully pipelined AES encryption: every round unrolled, one block per clock; key-agile
(paper 001, Fig. 7: the key schedule pipelined beside the data) or with fixed round keys.

Theory of operation
-------------------
Each block travels with its own key.  The input register holds ``x0 = block ^ rk0``.
Round ``r`` (1..Nr) is a :class:`KeyStep` beside a :class:`DataRound`::

    x(r-1) --SubBytes (L registers)--> y(r) --ShiftRows, MixColumns, ^rk(r)--> x(r)
    W(r-1) --SubWord (registered)----> s    --KeyExpansion step with s------> W(r), rk(r) = W(r)[0:4]
           --register----------------> W(r-1)'

``stages`` = registers per round:

- 1: the S-box output register only (L = 1); ``x(r)`` feeds the next round's
  S-boxes directly.  The key lane's input register holds ``W0`` (the cipher key)
  and ``W(r)`` goes straight into the next step, so round key ``r`` is ready in
  the cycle ``y(r)`` is.
- 2: also a register on ``x(r)``: "Mixadd" (MixColumns + AddRoundKey) in its own
  stage (paper 001's 3-cycle round).  L = 1.
- 3: also a fabric register after the S-box output (L = 2; with ``rom`` the
  block-RAM output register and then a register in the logic, paper 001's 4-cycle
  round with a register after the RAM S-box).
- 4: also a register inside the S-box (L = 3, ``split``; see
  :class:`~cipherfab.hw.sbox.SubBytes`): paper 001's S-box cut so that each part
  stays within a slice; with ``rom``/``tbox`` a second register after the block RAM
  instead (:func:`~.round.sbox_cuts`), in the key lane's SubWord too.

``sbox_input = "registered"`` (2 stages or more) puts one register more between each
round's Mixadd register ``x(r)`` and round ``r+1``'s S-boxes, and in the key lane between
window ``W(r)`` (round key ``r``'s register) and step ``r+1``'s SubWord: no logic, only the
wire from one round to the next gets a clock of its own, so neither the Mixadd register
nor the S-box inputs must sit where the other's logic is (on ECP5 with 3 stages the worst
paths were that wire plus two LUT levels, docs/decisions.md).  Rounds 2..Nr take one clock
more; the output buffer's read address is copied once per 32 bits of the block (its
fan-out was the next worst path).

With 2 stages or more the key lane runs one stage ahead of the data: round 1's SubWord
is looked up on the input key, and each window ``W(r)`` is registered, then
delayed by ``stages - 2`` registers, so its round key meets Mixadd from a register
(the key-expansion XORs are never in the data lane's path).  With 3 stages or more
SubWord's output is registered too (one of those delays moved before the step), so
the step's XORs start from a register, as the data lane's Mixadd does: with ``rom`` the
block RAM's output register, and no path runs from one block RAM to the next's address
through logic and routing alone.  Every round, key
and data lanes alike, takes ``stages`` clocks; the last round has no MixColumns
(its result is written into the output buffer) and one register fewer.

``keys = "fixed"`` drops the key lane: a key arrives on the ``key`` stream, is
expanded once into Nr+1 round-key registers (:class:`~.round_keys.RoundKeyRegisters`,
2·Nr+1 clocks, two per round key as in paper 002's round-key memory) and every
round reads its own.  A new key waits until no block is in the pipeline (blocks
already in the output buffer keep their results) and the first block after it
may enter 2·Nr+2 clocks after the key handshake.  The data lane is the same.

No enable reaches the pipeline registers (they load every clock, which keeps
clock-enable fan-out off the critical path).  Instead the core gives credits
(:class:`~cipherfab.hw.credit_buffer.CreditBuffer`): the output buffer has room
for every block that can be in flight, and ``block_in.ready`` is high while (blocks in
the pipeline + blocks in the buffer) is below its depth.  So a block is never dropped, duplicated or reordered under
backpressure, and with ``block_out.ready`` high the latency is a constant
(declared in :class:`~cipherfab.hw.info.CoreInfo`, measured by the harness).
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.sbox import SboxTables, SubBytes
from ...hw.credit_buffer import CreditBuffer
from .key_step import WindowStep, first_round_key
from .reference import NK, NR, SBOX
from .round import IN_BLOCK_RAM, final_round, key_sbox, middle_round, sbox_cuts, sub_bytes_unit
from .round_keys import RoundKeyRegisters

KEYS = ("agile", "fixed")
SBOX_INPUT = ("direct", "registered")


class KeyStep(wiring.Component):
    """Round ``r``'s key lane: ``w_next`` (window ``W(r)``) ``latency`` clocks after ``w``
    (``W(r-1)``): SubWord's ``latency`` registers (2: its output registered too, so the
    step's XORs start from a register, a block RAM's output register with ``rom``), the
    window held beside it."""

    def __init__(self, r: int, key_bits: int, sbox: str, latency: int = 1):
        self.r, self.nk, self.nr, self.sbox, self.latency = r, NK[key_bits], NR[key_bits], sbox, latency
        super().__init__({"w": In(32 * self.nk), "w_next": Out(32 * self.nk)})

    def elaborate(self, platform):
        m = Module()
        step = WindowStep(self.nk, self.nr, forward=True)
        n = Const(self.r - 1, range(self.nr + 1))     # the window position before this step
        m.submodules.sub_word = sub_word = SubBytes(4, SboxTables(SBOX), self.sbox, latency=self.latency)
        m.d.comb += sub_word.x.eq(step(self.w, n, Const(0, 32))[1])
        held = self.w
        for i in range(self.latency):
            held = _register(m, held, "w_held" + (f"{i}" if i else ""))
        m.d.comb += self.w_next.eq(step(held, n, sub_word.y)[0])
        return m


class DataRound(wiring.Component):
    """Round ``r``'s data lane: ``y = SubBytes(x)`` registered, then ``x_next = MixColumns(
    ShiftRows(y)) ^ rk`` (no MixColumns in the last round)."""

    def __init__(self, r: int, key_bits: int, sbox: str, latency: int = 1, split: bool = False):
        self.last, self.sbox, self.latency, self.split = r == NR[key_bits], sbox, latency, split
        super().__init__({"x": In(128), "rk": In(128), "x_next": Out(128)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.sub_bytes = sub_bytes = sub_bytes_unit(self.sbox, latency=self.latency,
                                                            split=self.split)
        m.d.comb += sub_bytes.x.eq(self.x)
        dirs = (None, True, False)
        m.d.comb += self.x_next.eq(final_round(sub_bytes.y, self.rk, *dirs) if self.last
                                   else middle_round(m, sub_bytes.y, self.rk, *dirs))
        return m


class PipelinedAES(wiring.Component):
    """AES-128/192/256 encryption, all rounds unrolled and pipelined; a key with every block
    (``keys="agile"``) or round keys expanded once per key into registers (``"fixed"``)."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "lut",
                 stages: int = 1, keys: str = "agile", sbox_input: str = "direct"):
        self.key_bits, self.sbox, self.stages, self.keys = key_bits, sbox, stages, keys
        self.feed = feed = sbox_input == "registered"     # a register before rounds 2..Nr (docstring)
        self.agile = agile = keys == "agile"
        # SubWord registered (module docstring); from a block RAM twice with 4 stages, as the data lane
        self.key_latency = 1 if stages < 3 else 3 if stages >= 4 and key_sbox(sbox) in IN_BLOCK_RAM else 2
        nr = NR[key_bits]
        # input register, Nr - 1 rounds of `stages` registers, the last round without Mixadd's
        self.depth = depth = 1 + stages * (nr - 1) + max(1, stages - 1) + (nr - 1) * feed
        self.buffer_depth = depth + 3   # every block from its handshake until it is taken
        super().__init__(CoreSignature(self.declare(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits,
            key_interface="per_block" if agile else "stream", directions=("encrypt",),
            latency=depth + 2,                       # pipeline, then the buffer (write, output register)
            cycles_per_block=1,
            cycles_per_block_feedback=depth + 2,     # the next input offered as this output is taken
            blocks_in_flight=depth,
            key_setup_cycles=0 if agile else 2 * nr + 2,   # the registers are filled, then blocks enter
            parts={"key" if agile else "round_keys": "key_schedule", "data": "datapath",
                   "buffer": "buffer"},
        ))))

    def declare(self, info: CoreInfo) -> CoreInfo:
        """The declaration (a key-specific pipeline, :mod:`.key_specific`, changes it)."""
        return info

    def elaborate(self, platform):
        # Built in the order of the key-agile core before --keys existed (key step r, then
        # data round r), so its netlist, and every cached build of it, is unchanged.
        m = Module()
        block, _, key = payload_parts(self)
        nr = NR[self.key_bits]

        # credits: blocks in the pipeline or the buffer never exceed the buffer's depth
        m.submodules.buffer = buffer = CreditBuffer(128, self.buffer_depth,
                                                    **({"read_copies": 4} if self.feed else {}))
        take = self.block_in.valid & self.block_in.ready
        m.d.comb += buffer.take.eq(take)
        if self.agile:
            m.d.comb += self.block_in.ready.eq(buffer.room)
        else:
            fixed_keys, keys_ready = self._round_key_registers(m)
            m.d.comb += self.block_in.ready.eq(buffer.room & keys_ready)

        # input register, then the rounds; a valid bit travels beside each stage
        lead = self.stages >= 2          # the key lane one stage ahead (module docstring)
        x, w, valid = Signal(128), Signal(32 * NK[self.key_bits]), Signal()
        if self.agile:
            m.d.sync += [x.eq(block ^ first_round_key(key)), *([] if lead else [w.eq(key)]),
                         valid.eq(take)]
            if lead:
                w = key
        else:
            m.d.sync += [x.eq(block ^ fixed_keys(0)), valid.eq(take)]
        for r in range(1, nr + 1):
            if self.agile:
                m.submodules[f"key{r}"] = key_step = KeyStep(r, self.key_bits, key_sbox(self.sbox),
                                                             latency=self.key_latency)
            m.submodules[f"data{r}"] = data_round = DataRound(r, self.key_bits, self.sbox,
                                                              **sbox_cuts(self.stages, self.sbox))
            if self.agile:
                w_in, w = w, key_step.w_next
                for i in range(self.stages - self.key_latency if lead else 0):
                    w = _register(m, w, f"w{r}_{i}")
                m.d.comb += [key_step.w.eq(w_in), data_round.x.eq(x),
                             data_round.rk.eq(first_round_key(w))]
                if self.feed and r != nr:                # W(r) on to step r+1's SubWord
                    w = _register(m, w, f"w{r}_feed")
            else:
                m.d.comb += [data_round.x.eq(x), data_round.rk.eq(fixed_keys(r))]
            x = self.add_key(r, data_round.x_next)
            for i in range(max(1, self.stages - 1)):
                valid = _register(m, valid, f"valid{r}" + (f"_{i}" if i else ""))
            if self.stages >= 2 and r != nr:             # Mixadd in its own stage
                x, valid = _register(m, x, f"x{r}"), _register(m, valid, f"valid{r}_mix")
            if self.feed and r != nr:                    # the wire to round r+1's S-boxes
                x, valid = _register(m, x, f"x{r}_feed"), _register(m, valid, f"valid{r}_feed")

        m.d.comb += [
            buffer.w_data.eq(x), buffer.w_en.eq(valid),
            self.block_out.payload.eq(buffer.r.payload), self.block_out.valid.eq(buffer.r.valid),
            buffer.r.ready.eq(self.block_out.ready),
            self.busy.eq(buffer.held),
        ]
        if not self.agile and hasattr(self, "key"):      # (no key port: key-specific)
            in_pipe = Signal(range(self.depth + 1))       # blocks between input and buffer
            m.d.sync += in_pipe.eq(in_pipe + take - valid)
            m.d.comb += [self.key.ready.eq((in_pipe == 0) & ~self._keys.busy),
                         self.busy.eq(buffer.held | self._keys.busy)]
        return m

    def add_key(self, r: int, x_next):
        """Round r's output (its key added by the round); a key-specific core may add it
        itself, as wires and inverters (:mod:`.key_specific`)."""
        return x_next

    def _round_key_registers(self, m: Module):
        """Fixed keys: the key stream fills the round-key registers while no block is in the
        pipeline (``key.ready`` is set in :meth:`elaborate`); blocks wait for a pending key."""
        m.submodules.round_keys = keys = self._keys = RoundKeyRegisters(self.key_bits,
                                                                        key_sbox(self.sbox))
        m.d.comb += [keys.key.eq(self.key.payload), keys.load.eq(self.key.valid & self.key.ready)]
        return (lambda r: keys.first_enc if r == 0 else keys.round_keys[r]), \
            keys.ready & ~self.key.valid


def _register(m: Module, value, name: str) -> Signal:
    reg = Signal(len(value), name=name)
    m.d.sync += reg.eq(value)
    return reg

