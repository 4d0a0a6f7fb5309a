"""The accelerator system: :class:`~.accelerator.Accelerator` with an AXI4-Lite register
interface for key, mode, IV, status and counters (paper 003's card, SPEC section 4).

Register map (32-bit words, byte addresses; keys and IVs big-endian: word 0 holds the
first four bytes)::

    0x00  CTRL        W   bit 0 start (takes MODE and the IV, clears the counters),
                          bit 1 clear (zeroize), bits 8:4 mode (hw.modes.Mode)
    0x04  STATUS      R   bit 0 idle, 1 mode_error, 2 axis_error, 3 length_error,
                          4 key_pending (a loaded key not yet taken by the core),
                          5 tag_match, 6 tag_mismatch (GCM decrypt, CMAC verify: the
                          verdict on the received tag; both 0 until it is known),
                          7 gcm_error (lengths that cannot be: GCM's TAG_BYTES not 4, 8,
                          12..16 or IV_BYTES 0; CMAC's TAG_BYTES not 4..16);
                          with a seed port: 8 seed_pending (a loaded seed not yet taken),
                          9 seeded (the core took a seed since reset or clear)
    0x08  INFO        R   bits 7:0 block bytes, 15:8 key bytes, 22:16 modes 0..6 the
                          system runs (bit = Mode value; 5 and 6: GCM; every mode: MODES),
                          25:24 key interface (0 none, 1 stream, 2 per block), 26 the core
                          needs a seed, 30:27 its words (SEED[0..n-1])
    0x0C  MODES       R   every mode the system runs (bit = Mode value: 7 OFB, 8 and 9 CFB,
                          10 and 11 CMAC generate and verify, 12 and 13 XTS encrypt and
                          decrypt, 14 and 15 CFB8, 16 and 17 CFB1 encrypt and decrypt)
    0x10  BLOCKS_IN   R   blocks into the core since start
    0x14  BLOCKS_OUT  R   blocks out of the core since start
    0x18  STARVED     R   clocks the core waited for input (input FIFO empty)
    0x1C  BLOCKED     R   clocks a result waited for room (output FIFO full)
    0x20-0x3C KEY[0..7]   W   the key, word 0 first (reads return 0); write while
                          STATUS.key_pending is 0 (a pending key is being offered)
    0x40  KEY_LOAD    W   any write: offer the key to the core
    0x44  SEED_LOAD   W   with a seed port: any write offers the seed to the core
    0x50-0x5C IV[0..3]    W   the IV or initial counter (reads return 0); GCM with a
                          12-byte IV: its bytes in IV[0..2]; XTS: the data unit's encrypted
                          tweak T (its whole blocks follow on the stream)
    0x60  AAD_BYTES   RW  GCM: bytes of AAD on the stream (after the IV, if any)
    0x64  TEXT_BYTES  RW  GCM: bytes of plaintext (ciphertext) on the stream; CMAC: the
                          message's bytes; XTS: a data unit's bytes (whole blocks, at most
                          2^24) when each unit's encrypted tweak comes on the stream ahead
                          of its blocks (0: one unit, its tweak in IV; else length_error)
    0x68  IV_BYTES    RW  GCM: the IV's length (reset 12: from IV[0..2]; any other
                          length >= 1: the IV comes first on the stream)
    0x6C  TAG_BYTES   RW  GCM: the tag's length, 4, 8 or 12..16 (reset 16); CMAC: 4..16
    0x70-0x7C TAG[0..3]   R   GCM encrypt, CMAC generate: the tag, word 0 first (0 until the message
                          ends, when decrypting, and after the next start)
    0x80-0x9C SEED[0..7]  W   with a seed port: the seed, word 0 first (its top bits;
                          reads return 0); write while STATUS.seed_pending is 0

GCM (:mod:`cipherfab.hw.gcm.gcm`): the lengths are set before ``start``.  The input stream holds the IV
(when IV_BYTES is not 12), the AAD, the text and, decrypting, the tag: each padded with
zero bytes to whole blocks but the stream's last, whose ``tlast`` ends the message.  The
output holds the text (encrypting: padded to whole blocks) and, encrypting, the tag.

CMAC (SP 800-38B, the same layer): TEXT_BYTES and TAG_BYTES are set before ``start``.  The
input stream holds the message, its last block padded with ``10*`` (a 0x80 byte, then zero
bytes) when it is partial, an empty message as one such block, and, verifying, the tag
(TAG_BYTES of it) last.  Generating, the output is the tag alone (TAG_BYTES, ``tlast``);
verifying, nothing: the verdict is STATUS.tag_match or tag_mismatch, the computed tag is
never shown.

CFB8 and CFB1 (SP 800-38A with s = 8 and 1): a segment a block.  The input stream holds one
block per segment, the segment in its top bits (CFB8: byte 0; CFB1: bit 7 of byte 0), the
other bits ignored; the output holds one block per segment likewise, the other bits zero.
Every segment costs a block operation of the core (encrypting, one in flight), so the stream
is never the narrow part.  A partial last block is taken as a whole one (its first byte holds
the segment).

Key hygiene (as OpenTitan's AES promises): the key and IV registers are write-only;
``clear`` (and reset) zeroizes them and resets the accelerator (FIFOs, mode engine, core
registers) for one clock, so every block in flight is dropped.  A reset does not clear a
RAM, and a core may keep its round keys in one (the interleaved core's round-key memory),
so clear and reset then load the all-zero key (``key_pending`` rises): the core expands
it over every round key it kept; STATUS.idle rises when that is done.
``m_axis_tdata``/``tkeep``/``tlast`` are zero whenever ``tvalid`` is low (no stale block
shows on the port).

Entropy (a core that declares ``seed_bits``: a masked core's generators): after reset and
after ``clear`` the core takes no key and no block until it has taken a seed, so the host
writes SEED and SEED_LOAD first (STATUS.seeded rises), then the key, which the core takes once
its generators are warm (``key_pending`` falls).  ``clear`` zeroizes the seed registers and
lowers ``seeded``: a clear needs a fresh seed, never the last one again.  A later seed reseeds
the core between messages.  Around a core without a seed port none of this exists: the
Verilog is the same as before the seed registers were added.

"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, ResetInserter, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .accelerator import Accelerator
from ..stream.axis import axis_signature, connect_axis
from ..stream.axil import AxiLiteSlave, axil_members
from ..modes import Mode, modes_of

CTRL, STATUS, INFO, MODES = 0x00, 0x04, 0x08, 0x0C
BLOCKS_IN, BLOCKS_OUT, STARVED, BLOCKED = 0x10, 0x14, 0x18, 0x1C
KEY, KEY_LOAD, IV = 0x20, 0x40, 0x50
SEED_LOAD, SEED = 0x44, 0x80
AAD_BYTES, TEXT_BYTES, IV_BYTES, TAG_BYTES, TAG = 0x60, 0x64, 0x68, 0x6C, 0x70
KEY_INTERFACE_CODE = {"none": 0, "stream": 1, "per_block": 2}
ADDR_BITS = 8


def system_top(core_top: str, width: int, depth: int, modes: tuple[str, ...] | None = None) -> str:
    """The system's top-module (and FuseSoC core) name: the core's name and every parameter
    that changes the design, as the cores' own names carry theirs (``modes``: the mode names
    of a system built with fewer than all, :data:`~cipherfab.hw.modes.FAMILIES`)."""
    return f"cf_system_{core_top}_axis{width}_fifo{depth}" + ("_" + "_".join(modes) if modes else "")


def seed_words(info) -> int:
    """The SEED registers a core's seed takes (0: no seed port)."""
    return -(-info.seed_bits // 32)


def modes_word(modes) -> int:
    """The MODES register: bit ``m.value`` for every mode the system runs."""
    return sum(1 << m.value for m in modes)


def info_word(info, modes=None) -> int:
    """The INFO register (``modes``: the system's, default every one the core can run with
    GCM)."""
    modes = modes_word(modes_of(info, True) if modes is None else modes) & 0x7F   # modes 0..6
    return (info.block_bits // 8 | (info.key_bits // 8) << 8 | modes << 16
            | KEY_INTERFACE_CODE[info.key_interface] << 24
            | (1 << 26 | seed_words(info) << 27 if info.seed_bits else 0))


class AcceleratorSystem(wiring.Component):
    """``core`` as a system: AXI4-Stream data ports ``s_axis``/``m_axis`` of ``width``
    bits (AXI signal names: ``s_axis_tdata`` ... in Verilog), FIFOs of ``depth`` blocks,
    registers on the AXI4-Lite port ``ctrl`` (``ctrl_awaddr`` ...).  ``ghash``: the GCM
    layer's GHASH style as :class:`.accelerator.Accelerator` takes it ("auto", a style, or
    None for a system without GCM); ``modes``: the modes built (None: every one the core
    can run), as the accelerator takes them."""

    def __init__(self, core: wiring.Component, width: int = 128, depth: int = 512,
                 ghash="auto", modes=None):
        self.accelerator = Accelerator(core, width=width, depth=depth, ghash=ghash, modes=modes)
        acc = self.accelerator
        self.info = acc.info
        if self.info.key_bits > 256 or self.info.block_bits > 128 or self.info.seed_bits > 256:
            raise ValueError("the register map holds keys and seeds up to 256 bits and blocks up to 128")
        super().__init__({
            "s_axis": In(axis_signature(width)), "m_axis": Out(axis_signature(width)),
            "ctrl": Out(wiring.Signature(axil_members(ADDR_BITS))),
        })
        #: the registers that hold key material (write-only; zeroized by clear and reset)
        self.key_words = [Signal(32, name=f"key{i}") for i in range(8)]
        self.iv_words = [Signal(32, name=f"iv{i}") for i in range(4)]
        # after reset the all-zero key is pending: the core expands it over whatever round
        # keys it kept (a RAM is not cleared by reset)
        self.key_pending = Signal(init=1)
        #: with a seed port: the seed registers, a loaded seed not yet taken, a seed taken
        self.seed_words = [Signal(32, name=f"seed{i}") for i in range(seed_words(self.info))]
        self.seed_pending, self.seeded = Signal(), Signal()

    def elaborate(self, platform):
        m = Module()
        info = self.info
        clear = Signal()
        m.submodules.accelerator = ResetInserter(clear)(self.accelerator)
        m.submodules.axil = axil = AxiLiteSlave(ADDR_BITS)
        wiring.connect(m, wiring.flipped(self.ctrl), axil.bus)
        connect_axis(m, self.s_axis, self.accelerator.s_axis, into_design=True)
        connect_axis(m, self.m_axis, self.accelerator.m_axis, into_design=False)

        key_words, iv_words, key_pending = self.key_words, self.iv_words, self.key_pending
        mode, start = Signal(Mode), Signal()
        lengths = {AAD_BYTES: Signal(32, name="aad_bytes"), TEXT_BYTES: Signal(32, name="text_bytes"),
                   IV_BYTES: Signal(32, name="iv_bytes", init=12),
                   TAG_BYTES: Signal(5, name="tag_bytes", init=16)}
        kb, bb = info.key_bits, info.block_bits
        key_value = Cat(*reversed(key_words))[256 - kb:] if kb else None   # word 0 = top bits
        iv_value = Cat(*reversed(iv_words))[128 - bb:]
        a = self.accelerator
        m.d.comb += [a.mode.eq(mode), a.iv.eq(iv_value), a.start.eq(start),
                     a.aad_bytes.eq(lengths[AAD_BYTES]), a.text_bytes.eq(lengths[TEXT_BYTES]),
                     a.iv_bytes.eq(lengths[IV_BYTES]), a.tag_bytes.eq(lengths[TAG_BYTES])]
        if "key" in a.signature.members:
            m.d.comb += [a.key.payload.eq(key_value), a.key.valid.eq(key_pending)]
            with m.If(a.key.valid & a.key.ready):
                m.d.sync += key_pending.eq(0)

        m.d.sync += [start.eq(0), clear.eq(0)]
        addr = axil.w_addr * 4
        with m.If(axil.w_en):
            with m.If(addr == CTRL):
                m.d.sync += [start.eq(axil.w_data[0]), clear.eq(axil.w_data[1]),
                             mode.as_value().eq(axil.w_data[4:4 + len(mode.as_value())])]
            with m.If(addr == KEY_LOAD):
                m.d.sync += key_pending.eq(1)
            for i, w in enumerate(key_words):
                with m.If(addr == KEY + 4 * i):
                    m.d.sync += w.eq(axil.w_data)
            for i, w in enumerate(iv_words):
                with m.If(addr == IV + 4 * i):
                    m.d.sync += w.eq(axil.w_data)
            for where, reg in lengths.items():
                with m.If(addr == where):
                    m.d.sync += reg.eq(Mux(axil.w_data >= 1 << len(reg), (1 << len(reg)) - 1,
                                           axil.w_data) if len(reg) < 32 else axil.w_data)
        with m.If(clear):      # zeroize; then the zero key overwrites the core's round keys
            m.d.sync += [*(w.eq(0) for w in key_words + iv_words), key_pending.eq(1)]

        status = Cat(a.idle, a.mode_error, a.axis_error, a.length_error, key_pending,
                     a.tag_match, a.tag_mismatch, a.gcm_error)
        if "seed" in a.signature.members:
            status = Cat(status, self._seed(m, axil, clear))
        reads = {STATUS: status, INFO: info_word(info, a.modes),
                 MODES: modes_word(a.modes), BLOCKS_IN: a.blocks_in,
                 BLOCKS_OUT: a.blocks_out, STARVED: a.starved, BLOCKED: a.blocked, **lengths}
        if "tag" in a.signature.members and info.block_bits == 128:
            reads.update({TAG + 4 * i: a.tag[96 - 32 * i:128 - 32 * i] for i in range(4)})
        with m.Switch(axil.r_addr * 4):
            for where, value in reads.items():
                with m.Case(where):
                    m.d.comb += axil.r_data.eq(value)
            with m.Default():                               # CTRL, KEY, IV, SEED: write-only
                m.d.comb += axil.r_data.eq(0)
        return m

    def _seed(self, m, axil, clear):
        """The seed registers and SEED_LOAD to the core's seed stream; STATUS bits 8 and 9."""
        a, words, pending, seeded = self.accelerator, self.seed_words, self.seed_pending, self.seeded
        m.d.comb += [a.seed.payload.eq(Cat(*reversed(words))[32 * len(words) - self.info.seed_bits:]),
                     a.seed.valid.eq(pending)]
        with m.If(a.seed.valid & a.seed.ready):
            m.d.sync += [pending.eq(0), seeded.eq(1)]
        addr = axil.w_addr * 4
        with m.If(axil.w_en):
            with m.If(addr == SEED_LOAD):
                m.d.sync += pending.eq(1)
            for i, w in enumerate(words):
                with m.If(addr == SEED + 4 * i):
                    m.d.sync += w.eq(axil.w_data)
        with m.If(clear):      # a clear resets the core: it needs a fresh seed
            m.d.sync += [*(w.eq(0) for w in words), pending.eq(0), seeded.eq(0)]
        return Cat(pending, seeded)
