"""Key-specific AES-128 encryption cores: one circuit per key (paper 004).

Theory of operation
-------------------
Each variant is the iterative core (:class:`~.iterative.IterativeAES`: load, ten
rounds, result registered; 11 clocks latency, 10 per block back to back) with the
key built into the circuit instead of taken on a port.  Paper 004's variants differ
only in how the HDL states the key, which is what decides how much the tools can
fold away:

``fixed_key``
    the generic on-the-fly key schedule with its key input tied to the constant (a
    one-cycle load after reset); optimization is left to the tools.
``fixed_round_key``
    the key schedule replaced by a multiplexer of the 11 precomputed round keys,
    selected by the round counter.
``fixed_round_key_rom``
    the 11 round keys in a block-RAM ROM instead of a multiplexer (beyond the paper): one
    read port follows the round counter a cycle ahead, a second one holds round key 0 for
    the load, so the key lives in ROM contents alone and ``cipherfab rekey`` can change it.
``xor_collapse``
    AddRoundKey written per bit as a wire or an inverter: bit i of a round's output
    is ``y[i]`` or ``~y[i]`` by the constant bit ``k[n][i]``, the round-key multiplexer
    folded into that choice.
``xor_by_rom_all`` / ``xor_by_rom_partial``
    AddRoundKey in block RAM: each of the 16 S-box ROMs is indexed by (round, byte)
    and holds ``S(byte ^ k[n][lane])``, so a round's key addition and SubBytes are
    one synchronous look-up (page n for the S-boxes that start round n + 1).  ``all``:
    pages 0-9 carry round keys 0-9 (the load's key addition is in page 0) and page 9
    also round key 10 (the last round has no MixColumns, so its key addition moves
    before ShiftRows: each lane adds the key byte its ShiftRows position needs).  The
    key then lives only in ROM contents: the design for another key differs in
    block-RAM initial values alone (the re-keying of the key-specific issue).
    ``partial``: rounds 1-9 in pages 1-9, rounds 0 and 10 collapsed into wires and
    inverters (the load path and the output), page 0 the plain S-box.

:class:`KeySpecificPipelinedAES` gives the pipelined ``pl_`` forms of the first
three (paper 004 left out the ROM ones: too many block RAMs).  The variants are
checked against the reference for their key; the key is part of the top-module name.  Decryption and the other key sizes are not built (paper 004
built AES-128 encryption).
"""

from __future__ import annotations

from dataclasses import replace

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.collapse import collapse, key_bits, round_masks
from ...hw.info import CoreInfo
from .iterative import IterativeAES, RoundDatapath
from .key_schedule import KeySchedule
from .pipeline import PipelinedAES
from .reference import SBOX, _shift_rows, round_keys
from .round import bytes_of, from_bytes, key_sbox, mix_columns, shift_rows, sub_bytes_unit
from .round_keys import RoundKeyRegisters

NR = 10


def as_int(k: bytes) -> int:
    """A round key as the 128-bit value of the datapath (byte 0 in the top bits)."""
    return int.from_bytes(k, "big")


class ConstantKeySchedule(wiring.Component):
    """:class:`~.key_schedule.KeySchedule`'s ports for one built-in key (encrypt)."""

    def __init__(self, key: bytes, variant: str, sbox: str):
        self.key_value, self.variant, self.sbox = key, variant, sbox
        self.rks = [as_int(k) for k in round_keys(key)]
        super().__init__({
            "key": In(128), "load": In(1), "start": In(1), "start_decrypt": In(1), "hold": In(1),
            "first_key": Out(128), "round_key": Out(128), "ready": Out(1), "busy": Out(1),
            "last": Out(1), "decrypting": Out(1), "n": Out(range(NR + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        if self.variant == "fixed_key":   # the generic schedule, its key tied to the constant
            m.submodules.schedule = ks = KeySchedule(128, True, False, key_sbox(self.sbox))
            loaded = Signal()
            m.d.sync += loaded.eq(1)
            m.d.comb += [ks.key.eq(as_int(self.key_value)), ks.load.eq(~loaded),
                         ks.start.eq(self.start), ks.start_decrypt.eq(0), ks.hold.eq(self.hold)]
            for name in ("first_key", "round_key", "ready", "busy", "last", "decrypting"):
                m.d.comb += getattr(self, name).eq(getattr(ks, name))
            return m
        n = self.n              # r in round r (1..Nr); 0 after reset; stays at Nr until a start
        mid = (n != 0) & (n != NR)
        with m.If(self.start):
            m.d.sync += n.eq(1)
        with m.Elif(mid):
            m.d.sync += n.eq(n + 1)
        m.d.comb += self.last.eq(~mid)
        if self.variant != "fixed_round_key_rom":
            m.d.comb += [self.ready.eq(1), self.first_key.eq(self.rks[0])]
        if self.variant == "fixed_round_key":
            m.d.comb += self.round_key.eq(Array(Const(k, 128) for k in self.rks)[n])
        if self.variant == "fixed_round_key_rom":
            m.submodules.round_key_rom = rom = Memory(shape=128, depth=16, init=self.rks,
                                                      attrs={"ram_style": "block"})
            ahead = rom.read_port(domain="sync", transparent_for=())    # round key n, a cycle ahead
            first = rom.read_port(domain="sync", transparent_for=())    # round key 0, for the load
            loaded = Signal()   # round key 0 read out once after reset
            m.d.sync += loaded.eq(1)
            m.d.comb += [ahead.addr.eq(Mux(self.start, 1, Mux(mid, n + 1, n))), first.addr.eq(0),
                         self.round_key.eq(ahead.data), self.first_key.eq(first.data),
                         self.ready.eq(loaded)]
        # xor_collapse and the ROM variants add round keys by collapse (in the datapath)
        return m


class CollapsedRound(RoundDatapath):
    """The round with AddRoundKey as wires and inverters chosen by the round counter."""

    def __init__(self, rks: list[int], sbox: str, n):
        self.rks, self.n = rks, n
        super().__init__(True, False, sbox)

    def add_key(self, y, r: int):
        """``y ^`` round key ``r`` (a constant) as wires and inverters."""
        return collapse(y, key_bits(self.rks[r], 128))

    def elaborate(self, platform):
        m = Module()
        m.submodules.sub_bytes = sboxes = sub_bytes_unit(self.sbox, True, False)
        state = sboxes.y
        middle = collapse(mix_columns(m, shift_rows(state)), round_masks(self.rks, 128), self.n)
        m.d.comb += [
            sboxes.x.eq(Mux(self.start, self.add_key(self.block, 0), middle)),
            sboxes.en.eq(self.start | self.advance),
            self.result.eq(self.add_key(shift_rows(state), NR)),
        ]
        return m


class KeyedRomRound(CollapsedRound):
    """The round with AddRoundKey inside the S-box ROMs (xor_by_rom_all / _partial)."""

    def __init__(self, rks: list[int], n, partial: bool):
        self.partial = partial
        super().__init__(rks, "rom", n)

    def pages(self, lane: int) -> list[int]:
        """ROM contents of one byte lane: page p holds S(x ^ k[p][lane]) (partial: page 0
        is the plain S-box)."""
        def key_byte(r, i):
            return (self.rks[r] >> (8 * (15 - i))) & 0xFF
        # all: the last page also adds round key 10 (ShiftRows moves lane L to position j)
        j = _shift_rows(list(range(16))).index(lane)
        last = 0 if self.partial else key_byte(NR, j)
        out = []
        for p in range(NR):
            kb = 0 if (p == 0 and self.partial) else key_byte(p, lane)
            out += [SBOX[x ^ kb] ^ (last if p == NR - 1 else 0) for x in range(256)]
        return out

    def elaborate(self, platform):
        m = Module()
        pre = Signal(128)
        state = Signal(128)
        page = Signal(range(16))
        load = self.add_key(self.block, 0) if self.partial else self.block
        m.d.comb += [pre.eq(Mux(self.start, load, mix_columns(m, shift_rows(state)))),
                     page.eq(Mux(self.start, 0, self.n))]
        lanes_in, lanes_out = bytes_of(pre), []
        for lane in range(16):
            rom = Memory(shape=8, depth=NR * 256, init=self.pages(lane))
            m.submodules[f"keyed_sbox{lane}"] = rom
            port = rom.read_port(domain="sync", transparent_for=())
            m.d.comb += [port.addr.eq(Cat(lanes_in[lane], page)), port.en.eq(self.start | self.advance)]
            lanes_out.append(port.data)
        final = shift_rows(state)
        if self.partial:
            final = self.add_key(final, NR)
        m.d.comb += [state.eq(from_bytes(lanes_out)), self.result.eq(final)]
        return m


class KeySpecificAES(IterativeAES):
    """AES-128 encryption for one built-in key, as one of paper 004's variants."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "rom",
                 variant: str = "xor_collapse", key: str = "000102030405060708090a0b0c0d0e0f"):
        self.key_bytes, self.variant, self.key_hex = bytes.fromhex(key), variant, key.lower()
        super().__init__(128, "encrypt", sbox)

    def declare(self, info: CoreInfo) -> CoreInfo:
        return info.with_built_in_key(self.key_hex, self.variant)

    def key_schedule(self):
        return ConstantKeySchedule(self.key_bytes, self.variant, self.sbox)

    def datapath(self, m, ks):
        rks = [as_int(k) for k in round_keys(self.key_bytes)]
        if self.variant == "xor_collapse":
            return CollapsedRound(rks, self.sbox, ks.n)
        if self.variant.startswith("xor_by_rom"):
            return KeyedRomRound(rks, ks.n, self.variant.endswith("partial"))
        return RoundDatapath(True, False, self.sbox)


class KeySpecificPipelinedAES(PipelinedAES):
    """The full pipeline (:class:`~.pipeline.PipelinedAES`, fixed round keys) for one
    built-in key: paper 004's ``pl_`` variants.  ``fixed_key``: the round-key registers
    filled once after reset from the constant key; ``fixed_round_key``: each round reads
    its constant round key; ``xor_collapse``: each round's key added as wires and
    inverters after the round (the rounds add nothing)."""

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "rom",
                 stages: int = 1, variant: str = "xor_collapse",
                 key: str = "000102030405060708090a0b0c0d0e0f"):
        self.key_bytes, self.variant, self.key_hex = bytes.fromhex(key), variant, key.lower()
        self.rks = [as_int(k) for k in round_keys(self.key_bytes)]
        super().__init__(128, "encrypt", sbox, stages, keys="fixed")

    def declare(self, info: CoreInfo) -> CoreInfo:
        info = info.with_built_in_key(self.key_hex, f"pl_{self.variant}")
        if self.variant == "fixed_key":
            return info
        # only fixed_key keeps the round-key registers; the others have no key-schedule part
        return replace(info, parts={k: v for k, v in info.parts.items() if k != "round_keys"})

    def _round_key_registers(self, m: Module):
        if self.variant == "fixed_key":   # the generic registers, loaded once from the constant
            m.submodules.round_keys = keys = self._keys = RoundKeyRegisters(128, key_sbox(self.sbox))
            loaded = Signal()
            m.d.sync += loaded.eq(1)
            m.d.comb += [keys.key.eq(self.rks[0]), keys.load.eq(~loaded)]
            return (lambda r: keys.first_enc if r == 0 else keys.round_keys[r]), keys.ready
        if self.variant == "fixed_round_key":
            return (lambda r: Const(self.rks[r], 128)), Const(1)
        return (lambda r: Const(self.rks[0], 128) if r == 0 else Const(0, 128)), Const(1)

    def add_key(self, r: int, x_next):
        if self.variant != "xor_collapse":
            return x_next
        return collapse(x_next, key_bits(self.rks[r], 128))
