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
   H stays for the next message while no key is taken (``key_changed``, the core's key
   stream handshake): that message starts at step 2, and GHASH keeps its powers or tables
   of H (``h_kept`` shows it).  Whether a message computes H depends on what the host did
   before (a key load), never on the key's or the data's value.
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

CMAC (SP 800-38B) runs in the same layer, since its ``L = E_K(0^128)`` is H: step 1 as
above (kept while the key stays), then the engine in CBC encrypt from a zero IV over the
message's blocks (padded ``10*`` by the host), the last one XORed with the subkey K1 or K2
made from L; every output is dropped but the last, which is the tag, sent (generate) or
compared with the received one (verify) as in step 6 (:mod:`.gcm_control` has the steps).

Every block GHASH takes (IV, AAD, ciphertext, length block) goes through one feed, in
order.  In front of a table or digit GHASH, slower per block than a burst of the core, the feed is a
queue (``queue`` blocks, :data:`QUEUE_BLOCKS` by default): the core's output leaves while
the multiplier works through the blocks before it, and the text starts while the AAD is
still being hashed.  The waits of steps 2 and 6 are for the queue to empty and the
multiplier to finish.

H, J0, E_K(J0) and the tag live in registers of this layer, zeroized by the system's
``clear`` and reset (it resets the whole accelerator); ``tag`` and the verdict are
cleared by the next ``start``; J0 and E_K(J0) after each message.  H and GHASH's multiples
of it (the powers, the block-RAM tables) live as long as the key they come from: a key
taken zeroes them (at once while no message runs, else at the message's tag).

The layer is two parts, as OpenTitan's AES keeps ``aes_control`` apart from its datapath:
:class:`~.gcm_control.GcmControl` runs the steps (the phase, the block counts, every
handshake, the status) and :class:`~.gcm_datapath.GcmDatapath` holds the blocks (the masks,
the length blocks, GHASH and its queue, the registers, the tag and its comparison),
connected by :class:`~.gcm_control.Steer`.  The control sees no block; the datapath makes
no decision.
"""

from __future__ import annotations

from amaranth.hdl import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..modes import Mode
from .gcm_control import LENGTH_BITS, GcmControl
from .gcm_datapath import GcmDatapath
from .gf128 import BITS
from .ghash_table import DIGITS as TABLE_DIGITS, clocks_per_block

DIGITS = (64, 32, 16, 8)
#: block RAMs one 256 x 128-bit table occupies where none is declared (an 18-kbit block
#: as 512 x 36: ECP5's DP16KD, Nexus's DP16K, Gowin's BSRAM)
TABLE_BLOCKS = 4


AGGREGATED_LANES = 8
#: blocks the queue in front of a digit GHASH holds: the blocks a core finishes in one burst
#: (several in flight) and 8 KiB of AAD wait there while the core goes on; 512 x 128 bits
#: are four DP16KD block RAMs on ECP5, as 64 would be
QUEUE_BLOCKS = 512


def queue_for(style: str | None) -> int:
    """Blocks queued ahead of the GHASH multiplier: a digit or table one is slower than a
    burst of the core; the aggregated and parallel ones take a block every clock (no queue)."""
    return QUEUE_BLOCKS if style in ("digit", "table") else 0


def ghash_for(cycles_per_block: int, blocks_free: int | None = None,
              table_blocks: int = TABLE_BLOCKS) -> tuple[str, int | None]:
    """The smallest GHASH style that keeps up with a core taking ``cycles_per_block``
    clocks per block: tables of H in block RAM (``128/d + 1`` clocks, ``d / 8`` tables of
    ``table_blocks`` each) while they fit in ``blocks_free`` (None: no limit), else the
    narrowest digit whose 128/d clocks fit, else (one block per clock) the aggregated
    style, whose pipelined multiplier keeps the clock of a pipelined core where the
    ``parallel`` style's one-clock 128 x 128 product would not."""
    tables = [d for d in TABLE_DIGITS if clocks_per_block(d) <= cycles_per_block
              and (blocks_free is None or d // 8 * table_blocks <= blocks_free)]
    if tables:
        return "table", min(tables)
    fits = [d for d in DIGITS if BITS // d <= cycles_per_block]
    return ("digit", min(fits)) if fits else ("aggregated", AGGREGATED_LANES)


class GcmLayer(wiring.Component):
    """GCM and CMAC for a 128-bit-block core behind a :class:`~cipherfab.hw.modes.ModeEngine`; ``style`` None
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
            "e_idle": In(1), "key_changed": In(1),
            "idle": Out(1), "started": Out(1), "gcm": Out(1), "h_kept": Out(1),
            "length_error": Out(1), "gcm_error": Out(1),
            "tag": Out(block_bits), "tag_match": Out(1), "tag_mismatch": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        if self.style is None:
            m.d.comb += [
                self.e_mode.eq(self.mode), self.e_iv.eq(self.iv), self.e_start.eq(self.start),
                self.e_in.payload.eq(self.data_in.payload), self.e_in.valid.eq(self.data_in.valid),
                self.data_in.ready.eq(self.e_in.ready),
                self.data_out.payload.eq(self.e_out.payload), self.data_out.valid.eq(self.e_out.valid),
                self.e_out.ready.eq(self.data_out.ready),
                self.idle.eq(1), self.started.eq(self.start & self.e_idle)]
            return m
        m.submodules.control = c = GcmControl()
        m.submodules.datapath = d = GcmDatapath(self.data_in.payload.shape(), self.style,
                                                self.digit, self.queue)
        wiring.connect(m, c.steer, d.steer)
        m.d.comb += [
            # the control: the registers, the engine's idle, every handshake, the status
            c.mode.eq(self.mode), c.start.eq(self.start), c.e_idle.eq(self.e_idle),
            c.key_changed.eq(self.key_changed), self.h_kept.eq(c.h_kept),
            c.aad_bytes.eq(self.aad_bytes), c.text_bytes.eq(self.text_bytes),
            c.iv_bytes.eq(self.iv_bytes), c.tag_bytes.eq(self.tag_bytes),
            c.data_in_valid.eq(self.data_in.valid), c.data_in_last.eq(self.data_in.payload.side.last),
            self.data_in.ready.eq(c.data_in_ready),
            self.e_in.valid.eq(c.e_in_valid), c.e_in_ready.eq(self.e_in.ready),
            c.e_out_valid.eq(self.e_out.valid), self.e_out.ready.eq(c.e_out_ready),
            self.data_out.valid.eq(c.data_out_valid), c.data_out_ready.eq(self.data_out.ready),
            self.e_mode.eq(c.e_mode), self.e_start.eq(c.e_start),
            self.idle.eq(c.idle), self.started.eq(c.started), self.gcm.eq(c.gcm),
            self.length_error.eq(c.length_error), self.gcm_error.eq(c.gcm_error),
            self.tag_match.eq(c.tag_match), self.tag_mismatch.eq(c.tag_mismatch),
            # the datapath: the payloads, the IV, the tag
            d.iv.eq(self.iv), d.data_in.eq(self.data_in.payload), self.e_in.payload.eq(d.e_in),
            d.e_out.eq(self.e_out.payload), self.data_out.payload.eq(d.data_out),
            self.e_iv.eq(d.e_iv), self.tag.eq(d.tag),
        ]
        return m
