"""GCM (NIST SP 800-38D) around the mode engine: H, J0, GHASH over the AAD and the
ciphertext, the length block and the tag.

Theory of operation
-------------------
The layer sits between the accelerator's FIFOs and the :class:`~cipherfab.hw.modes.ModeEngine`::

    input FIFO --data_in--> [GcmLayer] --e_in--> ModeEngine(core) --e_out--> [GcmLayer] --data_out--> output FIFO
                                 \\____ GHASH (style picked to keep up with the core) ____/

In ECB, CBC and CTR it passes everything through.  A GCM message is told by registers,
not by the stream: ``iv_bytes`` (12: J0 = IV || 0^31 || 1 from the IV registers; any other
length >= 1: the IV comes on the stream and J0 = GHASH_H(IV || 0 || [len(IV)]64)),
``aad_bytes``, ``text_bytes`` and ``tag_bytes`` (4, 8, 12..16).  The input stream holds,
each section zero-padded to whole blocks: the IV (when it is not 12 bytes), the AAD, the
text, and for decryption the tag (``tag_bytes`` of it, padded); the message's last input
block carries the stream's ``last``, every other one must not (else ``length_error``).
Impossible lengths at ``start`` raise ``gcm_error`` and start nothing.

A message runs these steps; none takes a number of clocks that depends on key or data:

1. ``H = E_K(0^128)``: the engine runs one ECB block of zeros; its output is kept, not sent.
2. J0: from the IV registers, or GHASH of the IV blocks and their length block.
3. The engine is started again in the GCM mode with J0 as its counter (inc32 per block).
   A zero block goes first: its output, ``E_K(J0)``, is kept for the tag.
4. The AAD blocks go into GHASH (cleared after step 2), the last one masked to its length.
5. The text blocks go through the engine (counter mode); their output goes to
   ``data_out``, the bytes past the text's length zeroed (decrypting, the last block is
   also cut to its length: it ends the output stream).  GHASH takes the
   ciphertext: the engine's output when encrypting, the input when decrypting, masked.
6. The length block ``[len(A)]64 || [len(C)]64`` goes into GHASH; the tag is
   ``GHASH ^ E_K(J0)``.  Encrypting, it is sent as the last output block (``tag_bytes``
   bytes, ``last``) after the ciphertext, whose last block is padded with zero bytes (a
   stream has no gap in the middle: the output is the text padded to whole blocks, then the
   tag, as the decrypting input is), and shown on ``tag``.  Decrypting, the tag block is taken from the
   input and compared on ``tag_bytes`` bytes: ``tag_match`` or ``tag_mismatch`` rises;
   the computed tag is never shown (it would let anyone forge a tag for any ciphertext).
   Decrypted text leaves before the verdict: the host releases it only on a match.

Every block GHASH takes (IV, AAD, ciphertext, length block) goes through one feed, in
order.  In front of a digit GHASH, slower per block than a burst of the core, the feed is a
queue (``queue`` blocks, :data:`QUEUE_BLOCKS` by default): the core's output leaves while
the multiplier works through the blocks before it, and the text starts while the AAD is
still being hashed.  The waits of steps 2 and 6 are for the queue to empty and the
multiplier to finish.

H, J0, E_K(J0) and the tag live in registers of this layer, zeroized by the system's
``clear`` and reset (it resets the whole accelerator); ``tag`` and the verdict are
cleared by the next ``start``.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from .ghash_unit import GHASH
from ..modes import Mode
from ..stream.stream_register import StreamRegister

BITS = 128
LENGTH_BITS = 32                 #: the byte-count registers (a message of up to 4 GiB - 1)
TAG_BYTES = (4, 8, 12, 13, 14, 15, 16)     #: SP 800-38D 5.2.1.2 (32 and 64 bits: Appendix C)
DIGITS = (64, 32, 16, 8)


AGGREGATED_LANES = 4
#: blocks the queue in front of a digit GHASH holds: the blocks a core finishes in one burst
#: (several in flight) and 8 KiB of AAD wait there while the core goes on; 512 x 128 bits
#: are four DP16KD block RAMs on ECP5, as 64 would be
QUEUE_BLOCKS = 512


def queue_for(style: str | None) -> int:
    """Blocks queued ahead of the GHASH multiplier: a digit one is slower than a burst of the
    core; the aggregated and parallel ones take a block every clock (no queue)."""
    return QUEUE_BLOCKS if style == "digit" else 0


def ghash_for(cycles_per_block: int) -> tuple[str, int | None]:
    """The smallest GHASH style that keeps up with a core taking ``cycles_per_block``
    clocks per block: the narrowest digit whose 128/d clocks fit, else (one block per
    clock) the aggregated style, whose pipelined multiplier keeps the clock of a pipelined
    core where the ``parallel`` style's one-clock 128 x 128 product would not."""
    fits = [d for d in DIGITS if BITS // d <= cycles_per_block]
    return ("digit", min(fits)) if fits else ("aggregated", AGGREGATED_LANES)


class Phase(enum.Enum):
    IDLE = 0
    H_FEED = 1       # the zero block into the engine (ECB)
    H_WAIT = 2       # ... and its output, H
    IV_HASH = 3      # IV blocks into GHASH (IV not 96 bits)
    IV_LEN = 4
    J0_WAIT = 5
    CTR_START = 6    # the engine idle again: start it in the GCM mode at J0
    J0_FEED = 7      # the zero block whose output is E_K(J0)
    AAD = 8
    TEXT = 9
    DRAIN = 10       # every text block out (and hashed)
    LEN = 11
    TAG_WAIT = 12
    TAG_OUT = 13     # encrypt: the tag block out
    TAG_IN = 14      # decrypt: the received tag block in


def _blocks(n):
    """ceil(n / 16) of a byte count."""
    return (n >> 4) + (n[:4] != 0)


class _Count:
    """A count of blocks with its tests for 1 and 0 kept in registers beside it, so the
    masks and the last-block flags that depend on them start from flip-flops, not from a
    29-bit compare (on ECP5 that compare was the system's worst path).  Every change goes
    through :meth:`load` or :meth:`dec`."""

    def __init__(self, name: str):
        self.value = Signal(LENGTH_BITS - 3, name=name)
        self.one = Signal(name=f"{name}_is_1")
        self.zero = Signal(init=1, name=f"{name}_is_0")

    def load(self, v):
        return [self.value.eq(v), self.one.eq(v == 1), self.zero.eq(v == 0)]

    def dec(self):
        return [self.value.eq(self.value - 1), self.one.eq(self.value == 2), self.zero.eq(self.one)]


def _mask(m: Module, last, length, name: str):
    """The block as kept: every byte on all blocks but the last of a section (``last``),
    which keeps its first ``length mod 16`` bytes (16 when that is 0)."""
    last_bytes = Signal(range(17), name=f"{name}_last_bytes")
    m.d.comb += last_bytes.eq(Mux(length[:4] == 0, 16, length[:4]))
    keep = Signal(range(17), name=f"{name}_keep")
    m.d.comb += keep.eq(Mux(last, last_bytes, 16))
    mask = Signal(BITS, name=f"{name}_mask")
    m.d.comb += mask.eq(Cat(*[Mux(keep > 15 - i, Const(0xFF, 8), Const(0, 8)) for i in range(16)]))
    return mask, keep


class GcmLayer(wiring.Component):
    """GCM for a 128-bit-block core behind a :class:`~cipherfab.hw.modes.ModeEngine`; ``style`` None
    makes it a wire (no GCM: the engine refuses the GCM modes).  ``queue``: blocks a FIFO
    in front of the GHASH unit holds (0: none), so the core's output (encrypting) or input
    (decrypting) and the AAD never wait for a slower multiplier while it has room."""

    def __init__(self, block_bits: int, side: data.Layout, style: str | None = "parallel",
                 digit: int | None = None, queue: int = 0):
        if style is not None and block_bits != BITS:
            raise ValueError(f"GCM needs a {BITS}-bit block cipher, not {block_bits}-bit blocks")
        self.style, self.digit, self.side, self.queue = style, digit, side, queue
        block = data.StructLayout({"data": block_bits, "side": side})
        super().__init__({
            "mode": In(Mode), "iv": In(block_bits), "start": In(1),
            "aad_bytes": In(LENGTH_BITS), "text_bytes": In(LENGTH_BITS),
            "iv_bytes": In(LENGTH_BITS), "tag_bytes": In(5),
            "data_in": In(stream.Signature(block)), "data_out": Out(stream.Signature(block)),
            "e_mode": Out(Mode), "e_iv": Out(block_bits), "e_start": Out(1),
            "e_in": Out(stream.Signature(block)), "e_out": In(stream.Signature(block)),
            "e_idle": In(1),
            "idle": Out(1), "started": Out(1), "gcm": Out(1),
            "length_error": Out(1), "gcm_error": Out(1),
            "tag": Out(block_bits), "tag_match": Out(1), "tag_mismatch": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        passthrough = [
            self.e_mode.eq(self.mode), self.e_iv.eq(self.iv), self.e_start.eq(self.start),
            self.e_in.payload.eq(self.data_in.payload), self.e_in.valid.eq(self.data_in.valid),
            self.data_in.ready.eq(self.e_in.ready),
            self.data_out.payload.eq(self.e_out.payload), self.data_out.valid.eq(self.e_out.valid),
            self.e_out.ready.eq(self.data_out.ready),
        ]
        if self.style is None:
            m.d.comb += passthrough + [self.idle.eq(1), self.started.eq(self.start & self.e_idle)]
            return m
        m.submodules.ghash = gh = GHASH(self.style, self.digit)
        phase = Signal(Phase)
        decrypt = Signal()
        aad_n, text_n, iv_n = (Signal(LENGTH_BITS, name=n) for n in ("aad_n", "text_n", "iv_n"))
        tag_n = Signal(5)
        h, j0, ej0, tag = (Signal(BITS, name=n) for n in ("h", "j0", "ej0", "tag_reg"))
        left = _Count("left")                  # blocks left in this input section
        out_left = _Count("out_left")          # text blocks still to come out of the engine
        want_ej0 = Signal()                    # the engine's next output is E_K(J0)
        gclear = Signal()
        m.d.sync += gclear.eq(0)
        m.d.comb += [gh.h.eq(h), gh.clear.eq(gclear), self.gcm.eq(phase != Phase.IDLE),
                     gh.count.eq(Mux(phase == Phase.IV_HASH, _blocks(iv_n) + 1,      # at its clear
                                     _blocks(aad_n) + _blocks(text_n) + 1)),
                     self.idle.eq(phase == Phase.IDLE), self.tag.eq(tag)]
        feed = stream.Signature(BITS).create(path=("ghash_feed",))   # every block GHASH takes
        hashing = Signal()                     # a block queued or being multiplied
        if self.queue:
            # registers on both sides of the block RAM: the feed's muxes and masks before its
            # write port, its read data before the multiplier
            m.submodules.ghash_feed_reg = fr = StreamRegister(BITS)
            m.submodules.ghash_queue = q = SyncFIFOBuffered(width=BITS, depth=self.queue)
            m.submodules.ghash_queue_reg = qr = StreamRegister(BITS)
            wiring.connect(m, feed, fr.i)
            m.d.comb += [q.w_en.eq(fr.o.valid), q.w_data.eq(fr.o.payload), fr.o.ready.eq(q.w_rdy),
                         qr.i.valid.eq(q.r_rdy), qr.i.payload.eq(q.r_data), q.r_en.eq(qr.i.ready),
                         gh.block.valid.eq(qr.o.valid), gh.block.payload.eq(qr.o.payload),
                         qr.o.ready.eq(gh.block.ready),
                         hashing.eq(gh.busy | fr.o.valid | (q.level != 0) | qr.o.valid)]
        else:
            wiring.connect(m, feed, gh.block)
            m.d.comb += hashing.eq(gh.busy)

        # -- start: a GCM mode with possible lengths, or pass the start on ---------------
        gcm_mode = (self.mode == Mode.GCM_ENCRYPT) | (self.mode == Mode.GCM_DECRYPT)
        tag_ok = Signal()
        m.d.comb += tag_ok.eq(0)
        for t in TAG_BYTES:
            with m.If(self.tag_bytes == t):
                m.d.comb += tag_ok.eq(1)
        may_start = self.start & self.e_idle & (phase == Phase.IDLE)
        with m.If(phase == Phase.IDLE):
            m.d.comb += passthrough
            with m.If(gcm_mode):       # the engine starts only when the layer says so
                m.d.comb += [self.e_start.eq(0), self.e_in.valid.eq(0), self.data_in.ready.eq(0)]
        m.d.comb += self.started.eq(may_start & (~gcm_mode | (tag_ok & (self.iv_bytes != 0))))
        with m.If(may_start):
            m.d.sync += [self.length_error.eq(0), self.gcm_error.eq(0), tag.eq(0),
                         self.tag_match.eq(0), self.tag_mismatch.eq(0)]
            with m.If(gcm_mode & ~self.started):
                m.d.sync += self.gcm_error.eq(1)
            with m.If(gcm_mode & self.started):
                m.d.comb += [self.e_mode.eq(Mode.ECB_ENCRYPT), self.e_start.eq(1)]
                m.d.sync += [phase.eq(Phase.H_FEED), decrypt.eq(self.mode == Mode.GCM_DECRYPT),
                             aad_n.eq(self.aad_bytes), text_n.eq(self.text_bytes),
                             iv_n.eq(self.iv_bytes), tag_n.eq(self.tag_bytes),
                             j0.eq(Cat(Const(1, 32), self.iv[32:]))]

        # -- the input side: what the next input block is, and where it goes --------------
        gcm_len = Signal(BITS)                 # the length block of step 2 or step 6
        a_bits, c_bits = Signal(64), Signal(64)
        m.d.comb += [a_bits.eq(aad_n * 8), c_bits.eq(text_n * 8),
                     gcm_len.eq(Mux(phase == Phase.IV_LEN, iv_n * 8, Cat(c_bits, a_bits)))]
        section_len = Mux(phase == Phase.IV_HASH, iv_n, Mux(phase == Phase.AAD, aad_n, text_n))
        in_mask, _ = _mask(m, left.one, section_len, "in")
        given = self.data_in.payload.data
        last_in = self.data_in.payload.side.last
        took_in = self.data_in.valid & self.data_in.ready
        more_after_iv = (aad_n != 0) | (text_n != 0) | decrypt
        more_after_aad = (text_n != 0) | decrypt
        final = Signal()                        # the block now offered should be the last
        with m.Switch(phase):
            with m.Case(Phase.H_FEED, Phase.J0_FEED):
                m.d.comb += [self.e_in.valid.eq(1), self.e_in.payload.eq(0)]
            with m.Case(Phase.IV_HASH, Phase.AAD):
                m.d.comb += [feed.valid.eq(self.data_in.valid), feed.payload.eq(given & in_mask),
                             self.data_in.ready.eq(feed.ready),
                             final.eq(left.one & Mux(phase == Phase.IV_HASH, ~more_after_iv,
                                                        ~more_after_aad))]
            with m.Case(Phase.IV_LEN, Phase.LEN):
                m.d.comb += [feed.valid.eq(1), feed.payload.eq(gcm_len)]
            with m.Case(Phase.TEXT):
                m.d.comb += [self.e_in.payload.data.eq(given), final.eq(left.one & ~decrypt)]
                with m.If(decrypt):             # GHASH takes the ciphertext as it goes in
                    m.d.comb += [self.e_in.valid.eq(self.data_in.valid & feed.ready),
                                 feed.valid.eq(self.data_in.valid & self.e_in.ready),
                                 feed.payload.eq(given & in_mask),
                                 self.data_in.ready.eq(self.e_in.ready & feed.ready)]
                with m.Else():
                    m.d.comb += [self.e_in.valid.eq(self.data_in.valid),
                                 self.data_in.ready.eq(self.e_in.ready)]
            with m.Case(Phase.TAG_IN):
                m.d.comb += [self.data_in.ready.eq(1), final.eq(1)]
        with m.If(took_in & (phase != Phase.IDLE) & (last_in != final)):
            m.d.sync += self.length_error.eq(1)
        took_e = self.e_in.valid & self.e_in.ready
        tag_mask, _ = _mask(m, Const(1), tag_n, "tag")
        took_g = feed.valid & feed.ready

        # -- the output side: H, E_K(J0), then the text; the tag last ---------------------
        out_mask, out_keep = _mask(m, out_left.one, text_n, "out")
        ct = Signal(BITS)
        m.d.comb += ct.eq(self.e_out.payload.data & out_mask)
        text_out = ((phase == Phase.TEXT) | (phase == Phase.DRAIN)) & ~want_ej0
        with m.If(phase != Phase.IDLE):
            m.d.comb += [self.e_out.ready.eq(0), self.data_out.valid.eq(0)]
        with m.If((phase == Phase.H_WAIT) & self.e_out.valid):
            m.d.comb += self.e_out.ready.eq(1)
            m.d.sync += [h.eq(self.e_out.payload.data), gclear.eq(1),
                         phase.eq(Mux(iv_n == 12, Phase.CTR_START, Phase.IV_HASH)),
                         *left.load(_blocks(iv_n))]
        with m.If(want_ej0 & self.e_out.valid):
            m.d.comb += self.e_out.ready.eq(1)
            m.d.sync += [ej0.eq(self.e_out.payload.data), want_ej0.eq(0)]
        with m.If(text_out & ~out_left.zero):
            m.d.comb += [self.data_out.payload.data.eq(ct),
                         self.data_out.payload.side.bytes.eq(Mux(decrypt, out_keep, 16)),
                         self.data_out.payload.side.last.eq(decrypt & out_left.one)]
            with m.If(decrypt):
                m.d.comb += [self.data_out.valid.eq(self.e_out.valid),
                             self.e_out.ready.eq(self.data_out.ready)]
            with m.Else():                      # GHASH takes the ciphertext as it comes out
                m.d.comb += [self.data_out.valid.eq(self.e_out.valid & feed.ready),
                             feed.valid.eq(self.e_out.valid & self.data_out.ready),
                             feed.payload.eq(ct),
                             self.e_out.ready.eq(self.data_out.ready & feed.ready)]
            with m.If(self.e_out.valid & self.e_out.ready):
                m.d.sync += out_left.dec()
        with m.If(phase == Phase.TAG_OUT):
            m.d.comb += [self.data_out.valid.eq(1), self.data_out.payload.data.eq(tag),
                         self.data_out.payload.side.bytes.eq(tag_n),
                         self.data_out.payload.side.last.eq(1)]

        # -- the steps ---------------------------------------------------------------------
        with m.Switch(phase):
            with m.Case(Phase.H_FEED):
                with m.If(took_e):
                    m.d.sync += phase.eq(Phase.H_WAIT)
            with m.Case(Phase.IV_HASH):
                with m.If(took_g):
                    m.d.sync += left.dec()
                    with m.If(left.one):
                        m.d.sync += phase.eq(Phase.IV_LEN)
            with m.Case(Phase.IV_LEN):
                with m.If(took_g):
                    m.d.sync += phase.eq(Phase.J0_WAIT)
            with m.Case(Phase.J0_WAIT):
                with m.If(~hashing):
                    m.d.sync += [j0.eq(gh.y), phase.eq(Phase.CTR_START)]
            with m.Case(Phase.CTR_START):
                with m.If(self.e_idle):
                    m.d.comb += [self.e_start.eq(1), self.e_iv.eq(j0),
                                 self.e_mode.eq(Mux(decrypt, Mode.GCM_DECRYPT, Mode.GCM_ENCRYPT))]
                    m.d.sync += [phase.eq(Phase.J0_FEED), gclear.eq(1), want_ej0.eq(1),
                                 j0.eq(0), *out_left.load(_blocks(text_n))]
            with m.Case(Phase.J0_FEED):
                with m.If(took_e):
                    m.d.sync += [phase.eq(Mux(aad_n != 0, Phase.AAD,
                                              Mux(text_n != 0, Phase.TEXT, Phase.DRAIN))),
                                 *left.load(Mux(aad_n != 0, _blocks(aad_n), _blocks(text_n)))]
            with m.Case(Phase.AAD):
                with m.If(took_g):
                    m.d.sync += left.dec()
                    with m.If(left.one):
                        m.d.sync += [phase.eq(Mux(text_n != 0, Phase.TEXT, Phase.DRAIN)),
                                     *left.load(_blocks(text_n))]
            with m.Case(Phase.TEXT):
                with m.If(took_in):
                    m.d.sync += left.dec()
                    with m.If(left.one):
                        m.d.sync += phase.eq(Phase.DRAIN)
            with m.Case(Phase.DRAIN):
                with m.If(out_left.zero & ~want_ej0):
                    m.d.sync += phase.eq(Phase.LEN)
            with m.Case(Phase.LEN):
                with m.If(took_g):
                    m.d.sync += phase.eq(Phase.TAG_WAIT)
            with m.Case(Phase.TAG_WAIT):
                with m.If(~hashing):
                    m.d.sync += [tag.eq(gh.y ^ ej0), ej0.eq(0), h.eq(0),
                                 phase.eq(Mux(decrypt, Phase.TAG_IN, Phase.TAG_OUT))]
            with m.Case(Phase.TAG_OUT):
                with m.If(self.data_out.ready):
                    m.d.sync += phase.eq(Phase.IDLE)
            with m.Case(Phase.TAG_IN):
                with m.If(took_in):
                    differs = ((given ^ tag) & tag_mask).any()
                    m.d.sync += [self.tag_match.eq(~differs), self.tag_mismatch.eq(differs),
                                 tag.eq(0), phase.eq(Phase.IDLE)]
        return m
