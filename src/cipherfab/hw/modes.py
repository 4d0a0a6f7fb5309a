"""Block-cipher modes around any cipherfab core: ECB, CBC (encrypt, decrypt), CTR, OFB, CFB
(full-block segments: CFB128 for a 128-bit block), XTS's blocks, and the counter part of GCM
(:mod:`cipherfab.hw.gcm.gcm` adds the rest: H, J0, GHASH and the tag, and runs CMAC on
the engine's CBC encrypt).

Theory of operation
-------------------
The mode layer of the accelerator system (SPEC section 4, paper 003).  It drives a
core through the core's own stream ports and reads nothing but its declaration
(:class:`~cipherfab.hw.info.CoreInfo`), so it works for every cipher and
architecture.  Every mode is one shape::

    core input   x = data            ECB, CBC decrypt
                   = data ^ chain    CBC encrypt (chain: IV, then the last ciphertext);
                                     XTS encrypt and decrypt (chain: the IV is the data
                                     unit's encrypted tweak T, times alpha after each
                                     block, IEEE 1619 5.3)
                   = counter         CTR (the IV, +1 per block, modulo 2^block_bits);
                                     GCM (the IV is J0; inc32: +1 modulo 2^32 in the low
                                     32 bits, SP 800-38D)
                   = chain           OFB (chain: IV, then the last core output), CFB
                                     encrypt (IV, then the last ciphertext out), CFB
                                     decrypt (IV, then the last ciphertext in)
    operand FIFO  pushed with the block: 0 (ECB, CBC encrypt), chain (CBC decrypt: the
                  previous ciphertext; XTS: the block's T), data (CTR, GCM, OFB, CFB)
    output        core output ^ operand popped beside it

The core keeps order and never drops or duplicates a block, so the operand FIFO pops
in step with it; its depth covers every block the core can hold (the declared
ceil(latency / cycles per block), plus two, plus the two of the skid register below),
and a block enters only when the FIFO has room.  Whether a block may enter is decided a
clock ahead, into flip-flops (the mode allows it and no start is settling; the count
leaves room), and a core that takes a block every clock takes it from a skid register
(:class:`~cipherfab.hw.stream_register.SkidRegister`): at a pipelined core's clock the
decision made in its own clock from the mode, the counts and the core's ``ready`` was
the system's slowest path.  A pipelined or interleaved core keeps many blocks in flight in ECB, CBC
decrypt, CFB decrypt and CTR; CBC encrypt, OFB and CFB encrypt need the previous block's
result, so a block enters only when no block is in flight (the core's feedback rate).
CTR, OFB and CFB take a partial last block (the stream modes: the output is cut to it).
XTS runs whole blocks at the core's full rate (no feedback: T for every block is known
ahead); the host encrypts the tweaks under the second key (ECB) and steals ciphertext for
a data unit that is not whole blocks (:meth:`cipherfab.host.driver.Accelerator.run_xts`).
With ``unit_blocks`` set at the start, many data units follow each other in one message:
each unit's encrypted tweak comes on the stream ahead of its ``unit_blocks`` blocks, loads
the chain register and takes no core slot (0: one unit, its tweak the IV).

A block may carry ``sideband`` bits (e.g. the last-block flag and byte count of a
stream whose length is not a whole number of blocks): they travel in the operand FIFO
and come out with the block.

``start`` begins a message while the engine is idle: it takes ``mode`` and ``iv`` (they
are loaded a clock later, and the first block enters two clocks after the start at the
earliest, for every message alike: at a pipelined core's clock, a start that loaded 300
flip-flops in its own clock and a 128-bit counter carry were the system's slowest paths).
A mode the core cannot run (a direction it does not have) raises ``mode_error`` and
takes no block, rather than giving a wrong result.  Keys go to the core as its key
interface wants: a key stream passes through; a per-block key (key-agile pipeline)
is held and sent with every block; a key-specific core has no key port.  A core with an
entropy input (``seed_bits``) has its ``seed`` stream passed through as ``seed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.wiring import In, Out

from .info import block_in_layout, info_of
from .block_ram_fifo import stream_fifo
from .stream_register import SkidRegister


#: XTS: the data unit's length in blocks when the tweaks come on the stream (IEEE 1619: at
#: most 2^20 blocks)
UNIT_BITS = 21


class Mode(enum.Enum, shape=5):
    ECB_ENCRYPT = 0
    ECB_DECRYPT = 1
    CBC_ENCRYPT = 2
    CBC_DECRYPT = 3
    CTR = 4
    GCM_ENCRYPT = 5
    GCM_DECRYPT = 6
    OFB = 7             # SP 800-38A 6.4: encrypt and decrypt alike
    CFB_ENCRYPT = 8     # SP 800-38A 6.3 with s = the block size (CFB128 for AES)
    CFB_DECRYPT = 9
    CMAC_GENERATE = 10  # SP 800-38B: the GCM layer runs it on the engine's CBC encrypt
    CMAC_VERIFY = 11
    XTS_ENCRYPT = 12    # IEEE 1619 / SP 800-38E, one data unit's whole blocks from its tweak T
    XTS_DECRYPT = 13
    CFB8_ENCRYPT = 14   # SP 800-38A 6.3 with s = 8 and 1: a segment a block on the stream (its
    CFB8_DECRYPT = 15   # top bits; the rest ignored in, zero out), the chain shifted by s bits
    CFB1_ENCRYPT = 16
    CFB1_DECRYPT = 17

    @property
    def gcm(self) -> bool:
        return self in (Mode.GCM_ENCRYPT, Mode.GCM_DECRYPT)

    @property
    def cmac(self) -> bool:
        return self in (Mode.CMAC_GENERATE, Mode.CMAC_VERIFY)

    @property
    def xts(self) -> bool:
        return self in (Mode.XTS_ENCRYPT, Mode.XTS_DECRYPT)

    @property
    def segment_bits(self) -> int | None:
        """CFB with segments narrower than a block: s (8 or 1); None for every other mode."""
        return {Mode.CFB8_ENCRYPT: 8, Mode.CFB8_DECRYPT: 8,
                Mode.CFB1_ENCRYPT: 1, Mode.CFB1_DECRYPT: 1}.get(self)

    @property
    def layer(self) -> bool:
        """Run by the GCM layer (:mod:`cipherfab.hw.gcm.gcm`), which drives the engine in
        the modes it needs: GCM (ECB for H, then the counter) and CMAC (ECB for the
        subkeys' L, then CBC encrypt)."""
        return self.gcm or self.cmac

    @property
    def feedback(self) -> bool:
        """A block needs the previous block's result: one block in flight."""
        return self in (Mode.CBC_ENCRYPT, Mode.OFB, Mode.CFB_ENCRYPT, Mode.CFB8_ENCRYPT,
                        Mode.CFB1_ENCRYPT)

    @property
    def stream(self) -> bool:
        """A message of any length (the last block may be partial; CFB8 and CFB1, which the
        engine keeps as CFB: a partial block still holds its segment in its first byte)."""
        return self in (Mode.CTR, Mode.OFB, Mode.CFB_ENCRYPT, Mode.CFB_DECRYPT) or bool(self.segment_bits)

    @property
    def direction(self) -> str:
        """The core direction this mode runs."""
        return "decrypt" if self in (Mode.ECB_DECRYPT, Mode.CBC_DECRYPT, Mode.XTS_DECRYPT) else "encrypt"


#: the modes a system is built with, by name (``generate --system --modes``): each name's
#: members (those of them the core can run); GCM's layer runs CMAC too, so "gcm" is both
FAMILIES = {
    "ecb": (Mode.ECB_ENCRYPT, Mode.ECB_DECRYPT), "cbc": (Mode.CBC_ENCRYPT, Mode.CBC_DECRYPT),
    "ctr": (Mode.CTR,), "ofb": (Mode.OFB,), "cfb": (Mode.CFB_ENCRYPT, Mode.CFB_DECRYPT),
    "cfb8": (Mode.CFB8_ENCRYPT, Mode.CFB8_DECRYPT), "cfb1": (Mode.CFB1_ENCRYPT, Mode.CFB1_DECRYPT),
    "xts": (Mode.XTS_ENCRYPT, Mode.XTS_DECRYPT),
    "gcm": (Mode.GCM_ENCRYPT, Mode.GCM_DECRYPT, Mode.CMAC_GENERATE, Mode.CMAC_VERIFY),
}


def family_of(md: Mode) -> str:
    """The name of the family ``md`` is built with (:data:`FAMILIES`)."""
    return next(name for name, members in FAMILIES.items() if md in members)


def modes_of(info, gcm: bool = False) -> tuple[Mode, ...]:
    """The modes a core with this declaration can run; the GCM layer's (GCM, CMAC) only
    with ``gcm`` (a system with that layer) and a 128-bit block (SP 800-38D); XTS with a
    128-bit block, a key port (two keys) and the encrypt direction (the tweak is encrypted
    under the second key, decrypting too)."""
    return tuple(m for m in Mode if m.direction in info.directions
                 and (not m.layer or (gcm and info.block_bits == 128))
                 and (not m.xts or (info.block_bits == 128 and info.key_interface != "none"
                                    and "encrypt" in info.directions)))


def one_of(m: Module, mode: Value, modes, name: str) -> Signal:
    """A signal (``name``) that is 1 while ``mode`` is one of ``modes`` (none: always 0)."""
    hit = Signal(name=name)
    m.d.comb += hit.eq(0)
    for md in modes:
        with m.If(mode == md):
            m.d.comb += hit.eq(1)
    return hit


def xts_alpha(t: Value) -> Value:
    """The tweak times alpha in GF(2^128) (IEEE 1619 5.2): the 16 bytes read as a
    little-endian number (byte 0 the lowest), shifted left one bit, 0x87 folded into byte 0
    when bit 127 falls out; ``t`` has byte 0 in its top bits, as every block here."""
    le = Cat(*(t[120 - 8 * k:128 - 8 * k] for k in range(16)))
    doubled = Cat(Const(0, 1), le[:127]) ^ Mux(le[127], 0x87, 0)
    return Cat(*(doubled[8 * k:8 * k + 8] for k in reversed(range(16))))


class ModeEngine(wiring.Component):
    """``core`` (a cipherfab core component) behind ECB, CBC and CTR (and GCM's counter,
    with ``gcm``)."""

    def __init__(self, core: wiring.Component, sideband: int | data.Layout = 0, gcm: bool = False,
                 modes=None):
        self.core, self.info, self.sideband = core, info_of(core), sideband
        self.side_bits = sideband.size if isinstance(sideband, data.Layout) else sideband
        info = self.info
        if info.clocks:
            raise ValueError(f"the mode engine drives single-clock cores; this core also has "
                             f"{', '.join(c + '_clk' for c in info.clocks)}")
        # the modes it runs itself (CMAC is the GCM layer's, on CBC encrypt): every one the
        # core can run, or those of ``modes`` (ECB encrypt always: GCM, CMAC and XTS use it);
        # the logic of a mode left out is not built
        self.modes = tuple(m for m in modes_of(info, gcm) if not m.cmac and (
            modes is None or m in modes or m == Mode.ECB_ENCRYPT))
        # a core that takes a block every clock takes it from a skid register: its ``ready``,
        # far away in a large core, then meets none of the engine's decisions in one clock
        self.skid = info.cycles_per_block == 1
        self.depth = math.ceil(info.latency / info.cycles_per_block) + 2 + 2 * self.skid
        block = (data.StructLayout({"data": info.block_bits, "side": sideband}) if self.side_bits
                 else info.block_bits)
        members = {
            "mode": In(Mode), "iv": In(info.block_bits), "start": In(1),
            "unit_blocks": In(UNIT_BITS),  # XTS: blocks a data unit, tweaks on the stream (0: none)
            "data_in": In(stream.Signature(block)),
            "data_out": Out(stream.Signature(block)),
            "idle": Out(1), "mode_error": Out(1),
            "active_mode": Out(Mode),      # the mode of the message under way
            "accepting": Out(1),           # a block offered now would be taken
            "started": Out(1),             # start took effect this clock
            "empty": Out(1),               # no block in flight: a start now takes effect
        }
        if info.key_interface != "none":
            members["key"] = In(stream.Signature(info.key_bits))
        if info.seed_bits:                 # the core's entropy input, passed through
            members["seed"] = In(stream.Signature(info.seed_bits))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        info, n = self.info, self.info.block_bits
        side = self.side_bits
        # a block enters only when the count says there is room (``fits`` below): the FIFO,
        # as deep as the blocks in flight, then always has room
        m.submodules.operand = operand = stream_fifo(n + side, self.depth, self.skid)
        mode, chain, counter = Signal(Mode), Signal(n), Signal(n)
        in_flight = Signal(range(self.depth + 1))
        idle = Signal(init=1)          # in_flight == 0, kept as a flip-flop beside the count
        # start: mode and iv are sampled every clock, loaded a clock after the start, and a
        # clock later blocks may enter (the counter's high part + 1 is then ready): two clocks
        # a message, always, and no start fans out to the loaded registers in its own clock
        mode_in, iv_in, load, prep = Signal(Mode), Signal(n), Signal(), Signal()
        m.d.sync += [mode_in.eq(self.mode), iv_in.eq(self.iv), load.eq(self.started), prep.eq(load)]
        # the mode asked for is one the engine runs: decided with the mode, at the load (the
        # register keeps CFB8 and CFB1 as CFB, which need not be built beside them)
        supported = Signal(init=Mode.ECB_ENCRYPT in self.modes)
        with m.If(load):
            m.d.sync += supported.eq(one_of(m, mode_in, self.modes, "asked"))
        settling = load | prep
        m.d.comb += [self.idle.eq(idle & ~settling & ~core.busy), self.empty.eq(idle),
                     self.mode_error.eq(~supported)]

        m.d.comb += self.started.eq(self.start & idle)
        lo_bits = min(n, 32)                       # inc32 (GCM) and the counter's fast part
        lo_full = Signal()                         # counter[:lo_bits] is all ones
        with m.If(load):
            m.d.sync += [mode.as_value()[:BASE_BITS].eq(_base(m, mode_in)), chain.eq(iv_in),
                         counter.eq(iv_in), lo_full.eq(iv_in[:lo_bits] == (1 << lo_bits) - 1)]
        tweak_next, units = self._xts_units(m, mode_in, load)

        port = core.block_in                        # where the engine offers its blocks
        if self.skid:
            m.submodules.skid = skid = SkidRegister(core.block_in.payload.shape())
            wiring.connect(m, skid.o, core.block_in)
            port = skid.i
        block, decrypt, block_key = _parts(info, port.payload)
        have_key = self._keys(m, core, idle, block_key)
        if "seed" in self.signature.members:
            wiring.connect(m, wiring.flipped(self.seed), core.seed)
        given = self.data_in.payload.data if side else self.data_in.payload
        x, pushed = Signal(n), Signal(n)
        runs = {_base_mode(md) for md in self.modes}     # as the mode register keeps them

        def among(*modes):
            """The modes of these the engine runs (a case of none is not built)."""
            return [md for md in modes if md in runs]
        with m.Switch(mode):
            for case, core_in, operand_in in (
                    (among(Mode.CBC_ENCRYPT), given ^ chain, 0),
                    (among(Mode.CBC_DECRYPT), given, chain),
                    (among(Mode.XTS_ENCRYPT, Mode.XTS_DECRYPT), given ^ chain, chain),
                    (among(Mode.CTR, Mode.GCM_ENCRYPT, Mode.GCM_DECRYPT), counter, given),
                    (among(Mode.OFB, Mode.CFB_ENCRYPT, Mode.CFB_DECRYPT), chain, given)):
                if case:
                    with m.Case(*case):
                        m.d.comb += [x.eq(core_in), pushed.eq(operand_in)]
            with m.Default():
                m.d.comb += [x.eq(given), pushed.eq(0)]
        if decrypt is not None:
            m.d.comb += decrypt.eq(one_of(m, mode, among(Mode.ECB_DECRYPT, Mode.CBC_DECRYPT,
                                                         Mode.XTS_DECRYPT), "decrypting"))

        accepted, taken = Signal(), Signal()
        m.d.comb += [accepted.eq(port.valid & port.ready),
                     taken.eq(self.data_out.valid & self.data_out.ready)]
        # "a block may enter" is decided a clock ahead into two flip-flops, from the next
        # values of what it depends on (at a pipelined core's clock the decision, made from
        # the mode and the counts in its own clock, was the system's slowest path): ``allowed``
        # (the mode is supported, no start is settling) and ``fits`` (room for a block, and
        # in a feedback mode nothing in flight: the core's feedback rate).  While ``load``
        # is set the mode changes; ``allowed`` stays low then and the clock after.
        allowed, fits = Signal(init=Mode.ECB_ENCRYPT in self.modes), Signal(init=1)
        next_in_flight = in_flight + accepted - taken
        feedback = one_of(m, mode, [md for md in runs if md.feedback], "feedback")
        allowed_next = supported & ~self.started & ~load
        m.d.sync += [allowed.eq(allowed_next),
                     fits.eq((next_in_flight < self.depth) & (~feedback | (next_in_flight == 0)))]
        # XTS with the tweaks on the stream: a tweak block takes no core slot, it loads chain.
        # Whether the next block is a tweak is known a clock ahead too (``tweak_next``'s next
        # value), so "a block may enter" and "a tweak may be taken" are flip-flops as well
        if units is None:
            block_ok, tweak_ok = allowed, Const(0)
        else:
            block_ok, tweak_ok = Signal(init=Mode.ECB_ENCRYPT in self.modes), Signal()
            m.d.sync += [block_ok.eq(allowed_next & ~units.tweak_d), tweak_ok.eq(allowed_next & units.tweak_d)]
        may_enter = block_ok & fits & have_key & ~self.start
        take_tweak = tweak_ok & ~self.start
        ready = take_tweak | (port.ready & may_enter)
        m.d.comb += [
            self.active_mode.eq(mode), self.accepting.eq(ready),
            block.eq(x),
            port.valid.eq(self.data_in.valid & may_enter),
            self.data_in.ready.eq(ready),
            operand.w_data.eq(Cat(pushed, Value.cast(self.data_in.payload.side)) if side else pushed),
            operand.w_en.eq(accepted),
        ]
        # the counter: +1 modulo 2^n (CTR) or modulo 2^32 in its low 32 bits (GCM's inc32);
        # the high part takes hi + 1 from a register (it changes at most once in 2^32 blocks),
        # so no carry runs through all n bits in one clock
        lo = counter[:lo_bits]
        counts = one_of(m, mode, among(Mode.CTR, Mode.GCM_ENCRYPT, Mode.GCM_DECRYPT), "counts")
        with m.If(accepted):
            with m.If(one_of(m, mode, among(Mode.CBC_DECRYPT, Mode.CFB_DECRYPT), "takes_given")):
                m.d.sync += chain.eq(given)
            if units is not None:
                with m.If((mode == Mode.XTS_ENCRYPT) | (mode == Mode.XTS_DECRYPT)):
                    m.d.sync += chain.eq(xts_alpha(chain))
                with m.If(units.streams):          # the unit's last block: a tweak comes next
                    m.d.sync += units.left.eq(units.left - 1)
                    m.d.comb += units.tweak_d.eq(units.left == 1)
            with m.If(counts):
                m.d.sync += [lo.eq(lo + 1), lo_full.eq(lo == (1 << lo_bits) - 2)]
        if units is not None:
            with m.If(self.data_in.valid & take_tweak):
                m.d.sync += [chain.eq(given), units.left.eq(units.length)]
                m.d.comb += units.tweak_d.eq(0)
            m.d.sync += tweak_next.eq(units.tweak_d)
        if n > lo_bits:
            hi, hi_next = counter[lo_bits:], Signal(n - lo_bits)
            m.d.sync += hi_next.eq(hi + 1)
            if Mode.CTR in runs:
                with m.If(accepted & (mode == Mode.CTR) & lo_full):
                    m.d.sync += hi.eq(hi_next)

        # CFB with s-bit segments: the output's bits below the segment are zero (they would
        # show keystream no segment uses); ``narrow``: 01 CFB8, 11 CFB1, 00 any other mode,
        # set with the mode, as ``seg_decrypt`` (CFB8 or CFB1 decrypt)
        result, narrow, seg_decrypt = Signal(n), Signal(2), Signal()
        segmented = [md for md in self.modes if md.segment_bits]
        if segmented:
            with m.If(load):
                m.d.sync += [narrow.eq(0), seg_decrypt.eq(0)]
                for md in segmented:
                    with m.If(mode_in == md):
                        m.d.sync += [narrow.eq(0b11 if md.segment_bits == 1 else 0b01),
                                     seg_decrypt.eq(not md.feedback)]
        out = core.block_out.payload ^ operand.r_data[:n]
        keep = Cat(*(~narrow[0] if i < n - 8 else (~narrow[1] if i < n - 1 else Const(1))
                     for i in range(n))) if segmented else Const((1 << n) - 1, n)
        m.d.comb += result.eq(out & keep)
        m.d.comb += [
            self.data_out.valid.eq(core.block_out.valid & operand.r_rdy),
            (self.data_out.payload.data if side else self.data_out.payload).eq(result),
            core.block_out.ready.eq(self.data_out.ready & operand.r_rdy),
            operand.r_en.eq(taken),
        ]
        if side:
            m.d.comb += self.data_out.payload.side.eq(operand.r_data[n:])
        with m.If(taken & one_of(m, mode, among(Mode.CBC_ENCRYPT, Mode.OFB), "takes_output")):
            m.d.sync += chain.eq(core.block_out.payload)
        if Mode.CFB_ENCRYPT in runs:
            with m.If(taken & (mode == Mode.CFB_ENCRYPT)):     # the ciphertext just out
                m.d.sync += chain.eq(out)
        if segmented:   # the ciphertext segment shifted in: the one taken in (decrypting) or out
            source = Mux(seg_decrypt, given, out)
            with m.If(narrow[0] & Mux(seg_decrypt, accepted, taken)):
                m.d.sync += chain.eq(Mux(narrow[1], _shifted_in(chain, source, 1),
                                         _shifted_in(chain, source, 8)))
        m.d.sync += [in_flight.eq(next_in_flight), idle.eq(next_in_flight == 0)]
        return m

    def _xts_units(self, m, mode_in, load):
        """XTS's data units on the stream (``unit_blocks`` sampled with the mode, loaded at
        the start): each unit's encrypted tweak comes first, loads the chain register and
        takes no core slot, then ``unit_blocks`` blocks.  (tweak_next: the next block is a
        tweak, a flip-flop; the unit registers, or None where the engine runs no XTS.)"""
        if not any(md.xts for md in self.modes):
            return Const(0), None
        units = _Units(length=Signal(UNIT_BITS), left=Signal(UNIT_BITS), streams=Signal(),
                       tweak_d=Signal())
        unit_in, tweak_next = Signal(UNIT_BITS), Signal()
        xts_in = (mode_in == Mode.XTS_ENCRYPT) | (mode_in == Mode.XTS_DECRYPT)
        m.d.sync += unit_in.eq(self.unit_blocks)
        m.d.comb += units.tweak_d.eq(tweak_next)          # tweak_next's next value: kept
        with m.If(load):
            m.d.sync += [units.length.eq(unit_in), units.left.eq(0),
                         units.streams.eq(xts_in & (unit_in != 0))]
            m.d.comb += units.tweak_d.eq(xts_in & (unit_in != 0))
        return tweak_next, units

    def _keys(self, m, core, idle, block_key):
        """Connect the key port as the core's key interface wants (``block_key``: the
        per-block key field of the blocks offered to it); return 'a key is set'."""
        kind = self.info.key_interface
        if kind == "none":
            return Const(1)
        if kind == "stream":
            wiring.connect(m, wiring.flipped(self.key), core.key)
            return Const(1)
        held, have = Signal(self.info.key_bits), Signal()     # per_block: sent with every block
        m.d.comb += [self.key.ready.eq(idle), block_key.eq(held)]
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += [held.eq(self.key.payload), have.eq(1)]
        return have & ~self.key.valid


#: the bits of the mode the engine keeps: CFB8 and CFB1 are kept as CFB (their segment in
#: ``narrow``), so every mode it runs is under 16 and its mode register's top bit a constant 0
#: (a five-bit mode in every decision cost the iterative lut system about 1,500 LUT4)
BASE_BITS = 4


def _base_mode(md: Mode) -> Mode:
    """The mode as the engine's mode register keeps it (CFB8 and CFB1 as CFB)."""
    if md.segment_bits:
        return Mode.CFB_ENCRYPT if md.feedback else Mode.CFB_DECRYPT
    return md


def _base(m, mode_in) -> Value:
    """The mode as the engine keeps it: CFB8 and CFB1 as CFB, any mode of 16 or over that
    is not one of them as 15 (no mode: ``mode_error``)."""
    base = Signal(BASE_BITS)
    m.d.comb += base.eq(Mux(mode_in.as_value() < 1 << BASE_BITS, mode_in.as_value()[:BASE_BITS], 15))
    for md in Mode:
        if md.segment_bits:
            with m.If(mode_in == md):
                m.d.comb += base.eq(_base_mode(md).value)
    return base


def _shifted_in(chain: Value, block: Value, s: int) -> Value:
    """SP 800-38A 6.3: the next input block is LSB_(b-s)(chain) || the segment (``block``'s
    top s bits)."""
    n = len(chain)
    return Cat(block[n - s:], chain[:n - s])


@dataclass
class _Units:
    length: Signal            # blocks a data unit
    left: Signal              # blocks left in the unit under way
    streams: Signal           # this message's tweaks come on the stream
    tweak_d: Signal           # tweak_next's next value (comb)


def _parts(info, payload):
    """(block, decrypt flag or None, per-block key or None) of a core's block payload
    (:func:`~cipherfab.hw.info.payload_parts` on a payload of the same layout)."""
    if isinstance(block_in_layout(info), int):
        return payload, None, None
    return (payload.data, payload.decrypt if info.direction_input else None,
            payload.key if info.key_interface == "per_block" else None)
