"""AES with an s-stage round and s blocks interleaved, round keys from a memory (paper 002).

Theory of operation
-------------------
The round is cut into ``stages`` register stages that form a ring::

    stage A: x = load ? block ^ rk(first) : x_loop  --SubBytes (L registers)--> R0
    stage B: R0 --(Inv)ShiftRows, (Inv)MixColumns, ^rk--> x_loop   (stages = 1)
             R0 --(Inv)ShiftRows, (Inv)MixColumns, ^rk--> R1 = x_loop (stages = 2, 3, 4)

L = 1, or 2 with 3 stages (a fabric register after the S-box output: with ``rom``
the block-RAM output register, then one in the logic), or 3 with 4 stages (also a
register inside the S-box; with ``rom``/``tbox`` a second one after the block RAM,
:func:`~.round.sbox_cuts`).

Each register carries a slot: valid, the round it is in, and its direction.
A block enters stage A when the slot arriving there is free, and leaves from
stage B after round Nr (no MixColumns) into the output register, freeing its
slot.  With s stages s independent blocks share the round logic, one in
each stage, so it never idles in non-feedback use (paper 002: 2-stage round,
2 blocks, offline round keys); feedback use cannot interleave.

Round keys come from :class:`~.round_keys.RoundKeyMemory`, addressed one register
before R0 (at stage A when L = 1) with the round the block will finish at stage B
(``n`` encrypting, ``Nr - n`` decrypting), so the synchronous read lands with R0.  A new key waits
until no block is in flight and rewrites the memory in 2·Nr+1 clocks (3·Nr+1 with
block-RAM S-boxes, whose SubWord read is registered again before each step).  With
``key_clock="separate"`` the memory is filled on a clock of its own (``key_clk``,
:mod:`.key_clock`): the key setup goes at the key schedule's rate, not the round's.

Timing without output backpressure, whatever the key or data: latency Nr + 1
(1 stage) or s·Nr (s = 2, 3, 4 stages); ``s`` blocks every ``s·Nr`` clocks, so Nr clocks
per block on average (the ring takes its blocks in a burst of ``s``).  When the
output register is full and not taken, the whole ring holds.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from .reference import NR
from .round import final_round, key_sbox, middle_round, sbox_cuts, sub_bytes_unit
from .key_clock import KeyClockRoundKeyMemory, key_clock_cycles
from .round_keys import RoundKeyMemory, expansion_cycles, expansion_phases

#: sync clocks of a separate-clock key setup: the load and the two synchronizer stages of
#: the handshake's return (the first block is taken in the clock the return arrives)
SYNC_SIDE_CYCLES = 3


def slot_layout(nr: int) -> data.StructLayout:
    """What travels beside a block: valid, the round being finished, the direction."""
    return data.StructLayout({"valid": 1, "n": range(nr + 1), "decrypt": 1})


class InterleavedAES(wiring.Component):
    """AES-128/192/256, ``stages`` register stages per round, as many blocks in flight."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "rom",
                 stages: int = 2, key_clock: str = "shared"):
        self.key_bits, self.direction, self.sbox, self.stages = key_bits, direction, sbox, stages
        self.key_clock = key_clock
        self.encrypt = direction in ("encrypt", "both")
        self.decrypt = direction in ("decrypt", "both")
        self.nr = nr = NR[key_bits]
        latency = nr + 1 if stages == 1 else stages * nr
        self.phases = phases = expansion_phases(key_sbox(sbox))
        key_setup, clocks = {"key_setup_cycles": expansion_cycles(nr, phases) + 1}, {}  # then blocks
        if key_clock == "separate":
            key_setup = {"key_setup_cycles": key_clock_cycles(nr, phases) + SYNC_SIDE_CYCLES,
                         "key_clock_cycles": key_clock_cycles(nr, phases)}
            clocks = {"clocks": ("key",)}
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=key_bits, key_bits_effective=key_bits, key_interface="stream",
            directions=tuple(d for d, on in (("encrypt", self.encrypt), ("decrypt", self.decrypt)) if on),
            latency=latency,
            cycles_per_block=nr,                 # s blocks per s*Nr clocks
            cycles_per_block_feedback=latency,   # one block at a time
            blocks_in_flight=stages,
            parts={"round_keys": "key_schedule", "sub_bytes": "datapath"},
            **key_setup, **clocks,
        )))

    def elaborate(self, platform):
        m = Module()
        nr, dirs = self.nr, (self.encrypt, self.decrypt)
        memory = KeyClockRoundKeyMemory if self.key_clock == "separate" else RoundKeyMemory
        m.submodules.round_keys = keys = memory(self.key_bits, key_sbox(self.sbox),
                                                phases=self.phases)
        cuts = sbox_cuts(self.stages, self.sbox)
        lat = cuts["latency"]                               # S-box registers (L)
        m.submodules.sub_bytes = sboxes = sub_bytes_unit(self.sbox, *dirs, **cuts)
        block, flag, _ = payload_parts(self)
        new_decrypt = Const(int(self.decrypt)) if flag is None else flag

        slots = [Signal(slot_layout(nr), name=f"slot_s{i}") for i in range(lat - 1)]
        slot0 = Signal(slot_layout(nr))                        # beside R0 (the S-box output)
        finishing = slot0.valid & (slot0.n == nr)
        advance = ~(finishing & self.block_out.valid & ~self.block_out.ready)
        rk = keys.read_data[0]
        x_loop = Signal(128)
        loop = Signal(slot_layout(nr))                         # the slot arriving at stage A
        middle = middle_round(m, sboxes.y, rk, slot0.decrypt, *dirs)
        back = Signal(slot_layout(nr))
        m.d.comb += [back.valid.eq(slot0.valid & ~finishing), back.n.eq(slot0.n + 1),
                     back.decrypt.eq(slot0.decrypt)]
        if self.stages == 1:
            m.d.comb += [x_loop.eq(middle), loop.eq(back)]
        else:
            with m.If(advance):
                m.d.sync += [x_loop.eq(middle), loop.eq(back)]

        in_flight = Signal(range(self.stages + 2))
        start = self.block_in.valid & self.block_in.ready
        first = Mux(new_decrypt, keys.first_dec, keys.first_enc)
        entering = Signal(slot_layout(nr))
        reading = ([entering] + slots)[-1]                     # the slot one register before R0
        m.d.comb += [
            self.key.ready.eq((in_flight == 0) & ~keys.busy),
            keys.key.eq(self.key.payload), keys.load.eq(self.key.valid & self.key.ready),
            self.block_in.ready.eq(keys.ready & ~self.key.valid & advance & ~loop.valid),
            entering.eq(Mux(loop.valid, loop, Cat(start, Const(1, range(nr + 1)), new_decrypt))),
            sboxes.x.eq(Mux(loop.valid, x_loop, block ^ first)),
            sboxes.en.eq(advance),
            keys.read_en[0].eq(advance),
            self.busy.eq((in_flight != 0) | keys.busy | self.block_out.valid),
        ]
        m.d.comb += keys.read_addr[0].eq(self._read_address(m, reading, back, advance))
        if self.encrypt and self.decrypt:
            m.d.comb += sboxes.inverse.eq(entering.decrypt)
        with m.If(advance):                                    # slots move with the S-box registers
            for src, dst in zip([entering, *slots], [*slots, slot0]):
                m.d.sync += dst.eq(src)

        done = finishing & advance
        with m.If(self.block_out.valid & self.block_out.ready):
            m.d.sync += self.block_out.valid.eq(0)
        with m.If(done):
            m.d.sync += [self.block_out.valid.eq(1),
                         self.block_out.payload.eq(final_round(sboxes.y, rk, slot0.decrypt, *dirs))]
        m.d.sync += in_flight.eq(in_flight + start - done)
        return m

    def _read_address(self, m, reading, back, advance):
        """The round-key address of the slot one register before R0.  A one-direction core
        with 2 stages knows it a clock ahead, in a register beside ``loop``: the round
        ``back`` returns with, else the first round (a new block, or an idle read), so
        neither the ring's valid flag nor the start reaches the memory's address."""
        nr = self.nr
        if (self.encrypt and self.decrypt) or self.stages != 2:
            return Mux(reading.decrypt, nr - reading.n, reading.n)
        first = 1 if self.encrypt else nr - 1
        addr = Signal(range(nr + 1), init=first)
        with m.If(advance):
            m.d.sync += addr.eq(Mux(back.valid, back.n if self.encrypt else nr - back.n, first))
        return addr
