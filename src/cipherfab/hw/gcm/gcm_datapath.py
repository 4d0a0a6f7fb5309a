"""The datapath of the GCM layer: the blocks, GHASH and the registers H, J0, E_K(J0), tag,
and CMAC's subkey.

Theory of operation
-------------------
:class:`GcmDatapath` is the block half of :class:`~.gcm.GcmLayer`; it holds no step of its
own and does what :class:`~.gcm_control.Steer` says.  It masks each block to its section's
length (:func:`_mask`: every byte of a section's blocks but the last, whose first
``length mod 16`` bytes are kept), builds the length blocks ``0 || [len(IV)]64`` and
``[len(A)]64 || [len(C)]64``, picks the block GHASH takes (:class:`~.gcm_control.Feed`),
and picks each payload: the engine's input (the input block, or a zero block for H and
E_K(J0)), the output (the engine's output masked to the text, or the tag), the engine's IV
(J0).  GHASH (:class:`~.ghash_unit.GHASH`, cleared and counted as the control says) takes
its blocks through one feed, behind a queue in front of a digit multiplier (the queue in
block RAM with a register on each side: the feed's muxes and masks before its write port,
its read data before the multiplier).  ``tag = GHASH ^ E_K(J0)``; a received tag is
compared on ``tag_n`` bytes (``tag_differs``), never shown.

CMAC (SP 800-38B 6.1): H is ``L = E_K(0^128)``; at the message's start the subkey register
takes ``K1 = dbl(L)`` (a message of whole blocks, not empty) or ``K2 = dbl(K1)``
(:func:`dbl`: a left shift, ``0x87`` folded in when the top bit falls out), and the last
block into the engine is the input block XOR that subkey (the host pads a partial or empty
last block with ``10*``).  The engine's last output loads the E_K(J0) register, and the tag
is loaded from it as GCM's is, with GHASH's part 0; the subkey is zeroed with it.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from ..stream_register import StreamRegister
from .gcm_control import Feed, Section, Steer, block_count
from .gf128 import BITS
from .ghash_unit import GHASH


def dbl(x):
    """SP 800-38B's doubling in GF(2^128) on a block read big-endian (its first byte the top
    bits): ``x << 1``, XOR ``R_128 = 0x87`` when the top bit falls out."""
    return Cat(Const(0, 1), x[:BITS - 1]) ^ Mux(x[BITS - 1], 0x87, 0)


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


class GcmDatapath(wiring.Component):
    """The blocks of a GCM message, steered by :class:`~.gcm_control.GcmControl`: the IV
    registers and the payloads of the layer's input and of the engine's output in; the
    payloads of the engine's input and of the layer's output, the engine's IV and the tag
    out.  ``block``: a payload's layout (``data`` and the ``side`` it carries)."""

    def __init__(self, block: data.StructLayout, style: str, digit: int | None, queue: int):
        self.style, self.digit, self.queue = style, digit, queue
        super().__init__({
            "steer": In(Steer()), "iv": In(BITS),
            "data_in": In(block), "e_in": Out(block), "e_out": In(block), "data_out": Out(block),
            "e_iv": Out(BITS), "tag": Out(BITS),
        })

    def elaborate(self, platform):
        m = Module()
        s = self.steer
        m.submodules.ghash = gh = GHASH(self.style, self.digit)
        h, j0, ej0, tag, sub = (Signal(BITS, name=n) for n in ("h", "j0", "ej0", "tag_reg", "subkey"))
        m.d.comb += [gh.h.eq(h), gh.clear.eq(s.ghash_clear), gh.keep.eq(s.ghash_keep), self.tag.eq(tag),
                     gh.count.eq(Mux(s.mac, 0,                     # at its clear; CMAC: no block
                                     Mux(s.section == Section.IV, block_count(s.iv_n) + 1,
                                         block_count(s.aad_n) + block_count(s.text_n) + 1)))]
        feed = stream.Signature(BITS).create(path=("ghash_feed",))   # every block GHASH takes
        if self.queue:
            m.submodules.ghash_feed_reg = fr = StreamRegister(BITS)
            m.submodules.ghash_queue = q = SyncFIFOBuffered(width=BITS, depth=self.queue)
            m.submodules.ghash_queue_reg = qr = StreamRegister(BITS)
            wiring.connect(m, feed, fr.i)
            m.d.comb += [q.w_en.eq(fr.o.valid), q.w_data.eq(fr.o.payload), fr.o.ready.eq(q.w_rdy),
                         qr.i.valid.eq(q.r_rdy), qr.i.payload.eq(q.r_data), q.r_en.eq(qr.i.ready),
                         gh.block.valid.eq(qr.o.valid), gh.block.payload.eq(qr.o.payload),
                         qr.o.ready.eq(gh.block.ready),
                         s.hashing.eq(gh.busy | fr.o.valid | (q.level != 0) | qr.o.valid)]
        else:
            wiring.connect(m, feed, gh.block)
            m.d.comb += s.hashing.eq(gh.busy)
        m.d.comb += [feed.valid.eq(s.feed_valid), s.feed_ready.eq(feed.ready)]

        # -- the blocks: masked to their sections, the length blocks, the ciphertext -------
        given = self.data_in.data
        a_bits, c_bits = Signal(64), Signal(64)
        m.d.comb += [a_bits.eq(s.aad_n * 8), c_bits.eq(s.text_n * 8)]
        section_len = Mux(s.section == Section.IV, s.iv_n,
                          Mux(s.section == Section.AAD, s.aad_n, s.text_n))
        in_mask, _ = _mask(m, s.in_last, section_len, "in")
        tag_mask, _ = _mask(m, Const(1), s.tag_n, "tag")
        out_mask, out_keep = _mask(m, s.out_last, s.text_n, "out")
        ct = Signal(BITS)
        m.d.comb += ct.eq(self.e_out.data & out_mask)
        with m.Switch(s.feed):
            with m.Case(Feed.INPUT):
                m.d.comb += feed.payload.eq(given & in_mask)
            with m.Case(Feed.IV_LENGTH):
                m.d.comb += feed.payload.eq(s.iv_n * 8)
            with m.Case(Feed.LENGTHS):
                m.d.comb += feed.payload.eq(Cat(c_bits, a_bits))
            with m.Case(Feed.CIPHERTEXT):
                m.d.comb += feed.payload.eq(ct)

        # -- the payloads: passed through while idle, else as steered (zero otherwise) -----
        with m.If(s.passthrough):
            m.d.comb += [self.e_in.eq(self.data_in), self.data_out.eq(self.e_out), self.e_iv.eq(self.iv)]
        with m.If(s.e_in_text):
            m.d.comb += self.e_in.data.eq(given ^ Mux(s.mac_last, sub, 0))
        with m.If(s.out_text):
            m.d.comb += [self.data_out.data.eq(ct),
                         self.data_out.side.bytes.eq(Mux(s.decrypt, out_keep, 16)),
                         self.data_out.side.last.eq(s.decrypt & s.out_last)]
        with m.If(s.out_tag):
            m.d.comb += [self.data_out.data.eq(tag), self.data_out.side.bytes.eq(s.tag_n),
                         self.data_out.side.last.eq(1)]
        with m.If(s.restart):
            m.d.comb += self.e_iv.eq(j0)

        # -- the registers ------------------------------------------------------------------
        m.d.comb += s.tag_differs.eq(((given ^ tag) & tag_mask).any())
        with m.If(s.begin):
            m.d.sync += j0.eq(Cat(Const(1, 32), self.iv[32:]))
        with m.If(s.h_load):
            m.d.sync += h.eq(self.e_out.data)
        with m.If(s.sub_load):
            m.d.sync += sub.eq(Mux(s.k1, dbl(h), dbl(dbl(h))))
        with m.If(s.ej0_load):
            m.d.sync += ej0.eq(self.e_out.data)
        with m.If(s.j0_load):
            m.d.sync += j0.eq(gh.y)
        with m.If(s.restart):
            m.d.sync += j0.eq(0)
        with m.If(s.tag_load):
            m.d.sync += [tag.eq(Mux(s.mac, 0, gh.y) ^ ej0), ej0.eq(0), sub.eq(0)]
        with m.If(s.h_clear):
            m.d.sync += h.eq(0)
        with m.If(s.tag_clear):
            m.d.sync += tag.eq(0)
        return m
