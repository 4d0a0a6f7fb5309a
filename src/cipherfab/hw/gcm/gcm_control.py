"""The control of the GCM layer: the steps of a message (GCM or CMAC), the block counts, the
handshakes.

Theory of operation
-------------------
:class:`GcmControl` is the sequencing half of :class:`~.gcm.GcmLayer` (as OpenTitan's AES
keeps ``aes_control`` apart from the datapath in ``aes_core``).  It holds the message's
step (:class:`Phase`), its lengths as taken at ``start``, the counts of blocks left in the
input section and still to come out of the engine, and the status (``gcm_error``,
``length_error``, the verdict on a received tag).  It drives every ``valid`` and ``ready``
of the four streams, the engine's ``start`` and ``mode``, and GHASH's feed handshake; it
never sees a block.  What the datapath does with the blocks it says through
:class:`Steer`: which block goes where (the input to the engine or to GHASH, which length
block, the ciphertext, the tag), which section the input belongs to and whether this is
its last block (for the masks), and when each register of the datapath (H, J0, E_K(J0),
the tag) loads or clears.  The datapath answers whether GHASH takes a block, whether it is
still hashing, and whether a received tag differs from the computed one.

CMAC (SP 800-38B) reuses GCM's steps where they are the same: ``L = E_K(0^b)`` is H (kept
while the key stays, as H is), the tag is loaded, sent or compared as GCM's, and between
them three steps of its own: ``MAC_START`` (the engine started in CBC encrypt from a zero
IV, the subkey K1 or K2 made from L), ``MAC`` (the message's blocks into the engine, the
subkey XORed into the last; every output dropped but the last, kept as E_K(J0) is) and
``MAC_DRAIN``.  The tag is loaded as GCM's, ``GHASH ^ E_K(J0)``, with GHASH's part 0 (not
waited for: a table fill after a new L goes on meanwhile).

The counts keep their tests for 1 and 0 in registers beside them (:class:`_Count`), so the
masks and last-block flags that depend on them start from flip-flops, not from a 29-bit
compare (on ECP5 that compare was the system's worst path).
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

from ..modes import Mode

LENGTH_BITS = 32                 #: the byte-count registers (a message of up to 4 GiB - 1)
TAG_BYTES = (4, 8, 12, 13, 14, 15, 16)     #: SP 800-38D 5.2.1.2 (32 and 64 bits: Appendix C)
#: CMAC tag bytes: SP 800-38B leaves Tlen to the application (at least 64 bits recommended,
#: its Appendix A); NIST's CAVP tests 4 to 16 bytes, and so many the system takes
CMAC_TAG_BYTES = tuple(range(4, 17))


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
    MAC_START = 15   # CMAC: the engine idle again: start it in CBC encrypt, the subkey made
    MAC = 16         # CMAC: the message's blocks into the engine
    MAC_DRAIN = 17   # CMAC: every output out of the engine (the last kept)


class Section(enum.Enum, shape=2):
    """The input section the block now offered belongs to (its length sets the mask)."""
    TEXT = 0
    IV = 1
    AAD = 2


class Feed(enum.Enum, shape=3):
    """The block offered to GHASH."""
    NONE = 0
    INPUT = 1        # the input block, masked (IV, AAD; the ciphertext when decrypting)
    IV_LENGTH = 2    # 0 || [len(IV)]64
    LENGTHS = 3      # [len(A)]64 || [len(C)]64
    CIPHERTEXT = 4   # the engine's output, masked (encrypting)


class Steer(wiring.Signature):
    """Between the control (members ``Out``) and the datapath (``In``).

    ``decrypt`` (CMAC: verify), ``mac`` (a CMAC message), ``aad_n``, ``text_n``, ``iv_n``,
    ``tag_n``: the message as taken at start;
    ``section``, ``in_last``, ``out_last``: the input block's section and whether it is the
    section's last, whether the engine's output is the text's last block; ``feed``,
    ``feed_valid`` (``feed_ready`` back): GHASH's feed; ``ghash_clear``; the payloads:
    ``passthrough`` (idle: every payload as it comes), ``e_in_text`` (the input block to
    the engine), ``out_text`` (the engine's output, masked, to the output), ``out_tag`` (the
    tag to the output); ``mac_last``: the block into the engine is CMAC's last (the subkey
    XORed into it), ``k1``: that subkey is K1 (the message is whole blocks, not empty), else
    K2; the registers: ``begin`` (J0 from the IV), ``h_load``, ``sub_load`` (CMAC's
    subkey from H, which is L), ``ej0_load``,
    ``j0_load`` (J0 from GHASH), ``restart`` (the engine's IV is J0; J0 cleared),
    ``tag_load`` (the tag from GHASH and E_K(J0), both of those cleared), ``h_clear`` (H
    zeroed), ``tag_clear``; ``ghash_keep`` (a level): GHASH's powers or tables are of H as
    it is, a clear keeps them.  Back: ``hashing`` (a block queued or being multiplied) and
    ``tag_differs`` (the input block against the tag, on ``tag_n`` bytes)."""

    def __init__(self):
        strobes = ("passthrough", "e_in_text", "mac_last", "out_text", "out_tag", "ghash_clear",
                   "ghash_keep", "begin", "h_load", "h_clear", "sub_load", "ej0_load", "j0_load",
                   "restart", "tag_load", "tag_clear")
        super().__init__({
            "decrypt": Out(1), "mac": Out(1), "k1": Out(1),
            "aad_n": Out(LENGTH_BITS), "text_n": Out(LENGTH_BITS), "iv_n": Out(LENGTH_BITS), "tag_n": Out(5),
            "section": Out(Section), "in_last": Out(1), "out_last": Out(1),
            "feed": Out(Feed), "feed_valid": Out(1), "feed_ready": In(1),
            **{name: Out(1) for name in strobes},
            "hashing": In(1), "tag_differs": In(1),
        })


def block_count(n):
    """ceil(n / 16) of a byte count."""
    return (n >> 4) + (n[:4] != 0)


class _Count:
    """A count of blocks with its tests for 1 and 0 kept in registers beside it.  Every
    change goes through :meth:`load` or :meth:`dec`."""

    def __init__(self, name: str):
        self.value = Signal(LENGTH_BITS - 3, name=name)
        self.one = Signal(name=f"{name}_is_1")
        self.zero = Signal(init=1, name=f"{name}_is_0")

    def load(self, v):
        return [self.value.eq(v), self.one.eq(v == 1), self.zero.eq(v == 0)]

    def dec(self):
        return [self.value.eq(self.value - 1), self.one.eq(self.value == 2), self.zero.eq(self.one)]


class GcmControl(wiring.Component):
    """The steps of a GCM or CMAC message: the layer's registers, the engine's idle and the
    handshakes in; the handshakes, the engine's start and mode, the status and
    :class:`Steer` out."""

    def __init__(self):
        super().__init__({
            "mode": In(Mode), "start": In(1), "e_idle": In(1), "key_changed": In(1),
            "aad_bytes": In(LENGTH_BITS), "text_bytes": In(LENGTH_BITS),
            "iv_bytes": In(LENGTH_BITS), "tag_bytes": In(5),
            "data_in_valid": In(1), "data_in_last": In(1), "data_in_ready": Out(1),
            "e_in_valid": Out(1), "e_in_ready": In(1),
            "e_out_valid": In(1), "e_out_ready": Out(1),
            "data_out_valid": Out(1), "data_out_ready": In(1),
            "e_mode": Out(Mode), "e_start": Out(1),
            "idle": Out(1), "started": Out(1), "gcm": Out(1), "h_kept": Out(1),
            "length_error": Out(1), "gcm_error": Out(1),
            "tag_match": Out(1), "tag_mismatch": Out(1),
            "steer": Out(Steer()),
        })

    def elaborate(self, platform):
        m = Module()
        s = self.steer
        phase = Signal(Phase)
        decrypt, aad_n, text_n, iv_n, tag_n = s.decrypt, s.aad_n, s.text_n, s.iv_n, s.tag_n
        left = _Count("left")                  # blocks left in this input section
        out_left = _Count("out_left")          # text blocks still to come out of the engine
        want_ej0 = Signal()                    # the engine's next output is E_K(J0)
        mac = s.mac                            # the message is CMAC's
        m.d.sync += s.ghash_clear.eq(0)
        self._keep_h(m, phase)
        m.d.comb += [self.gcm.eq(phase != Phase.IDLE), self.idle.eq(phase == Phase.IDLE),
                     s.passthrough.eq(phase == Phase.IDLE),
                     s.in_last.eq(left.one), s.out_last.eq(out_left.one)]
        with m.Switch(phase):
            with m.Case(Phase.IV_HASH):
                m.d.comb += s.section.eq(Section.IV)
            with m.Case(Phase.AAD):
                m.d.comb += s.section.eq(Section.AAD)

        # -- start: a GCM or CMAC mode with possible lengths, or pass the start on ---------
        gcm_mode = (self.mode == Mode.GCM_ENCRYPT) | (self.mode == Mode.GCM_DECRYPT)
        cmac_mode = (self.mode == Mode.CMAC_GENERATE) | (self.mode == Mode.CMAC_VERIFY)
        layer_mode = gcm_mode | cmac_mode
        tag_ok = Signal()
        m.d.comb += tag_ok.eq(0)
        for t in TAG_BYTES:
            with m.If(self.tag_bytes == t):
                m.d.comb += tag_ok.eq(self.iv_bytes != 0)
        with m.If(cmac_mode):
            m.d.comb += tag_ok.eq((self.tag_bytes >= CMAC_TAG_BYTES[0])
                                  & (self.tag_bytes <= CMAC_TAG_BYTES[-1]))
        may_start = self.start & self.e_idle & (phase == Phase.IDLE)
        with m.If(phase == Phase.IDLE):
            m.d.comb += [self.e_mode.eq(self.mode), self.e_start.eq(self.start),
                         self.e_in_valid.eq(self.data_in_valid), self.data_in_ready.eq(self.e_in_ready),
                         self.data_out_valid.eq(self.e_out_valid), self.e_out_ready.eq(self.data_out_ready)]
            with m.If(layer_mode):     # the engine starts only when the layer says so
                m.d.comb += [self.e_start.eq(0), self.e_in_valid.eq(0), self.data_in_ready.eq(0)]
        m.d.comb += [self.started.eq(may_start & (~layer_mode | tag_ok)),
                     s.tag_clear.eq(may_start)]
        with m.If(may_start):
            m.d.sync += [self.length_error.eq(0), self.gcm_error.eq(0),
                         self.tag_match.eq(0), self.tag_mismatch.eq(0)]
            with m.If(layer_mode & ~self.started):
                m.d.sync += self.gcm_error.eq(1)
            with m.If(layer_mode & self.started):
                m.d.comb += s.begin.eq(gcm_mode)
                m.d.sync += [decrypt.eq((self.mode == Mode.GCM_DECRYPT) | (self.mode == Mode.CMAC_VERIFY)),
                             mac.eq(cmac_mode),
                             s.k1.eq((self.text_bytes != 0) & (self.text_bytes[:4] == 0)),
                             aad_n.eq(self.aad_bytes), text_n.eq(self.text_bytes),
                             iv_n.eq(self.iv_bytes), tag_n.eq(self.tag_bytes)]
                with m.If(self.h_kept & ~self.key_changed):      # H of this key: on to J0
                    m.d.sync += [s.ghash_clear.eq(1),
                                 *self._after_h(phase, left, self.iv_bytes, cmac_mode)]
                with m.Else():
                    m.d.comb += [self.e_mode.eq(Mode.ECB_ENCRYPT), self.e_start.eq(1)]
                    m.d.sync += phase.eq(Phase.H_FEED)

        # -- the input side: what the next input block is, and where it goes --------------
        took_in = self.data_in_valid & self.data_in_ready
        more_after_iv = (aad_n != 0) | (text_n != 0) | decrypt
        more_after_aad = (text_n != 0) | decrypt
        final = Signal()                        # the block now offered should be the last
        with m.Switch(phase):
            with m.Case(Phase.H_FEED, Phase.J0_FEED):
                m.d.comb += self.e_in_valid.eq(1)                  # a zero block
            with m.Case(Phase.IV_HASH, Phase.AAD):
                m.d.comb += [s.feed_valid.eq(self.data_in_valid), s.feed.eq(Feed.INPUT),
                             self.data_in_ready.eq(s.feed_ready),
                             final.eq(left.one & Mux(phase == Phase.IV_HASH, ~more_after_iv,
                                                        ~more_after_aad))]
            with m.Case(Phase.IV_LEN):
                m.d.comb += [s.feed_valid.eq(1), s.feed.eq(Feed.IV_LENGTH)]
            with m.Case(Phase.LEN):
                m.d.comb += [s.feed_valid.eq(1), s.feed.eq(Feed.LENGTHS)]
            with m.Case(Phase.TEXT):
                m.d.comb += [s.e_in_text.eq(1), final.eq(left.one & ~decrypt)]
                with m.If(decrypt):             # GHASH takes the ciphertext as it goes in
                    m.d.comb += [self.e_in_valid.eq(self.data_in_valid & s.feed_ready),
                                 s.feed_valid.eq(self.data_in_valid & self.e_in_ready),
                                 s.feed.eq(Feed.INPUT),
                                 self.data_in_ready.eq(self.e_in_ready & s.feed_ready)]
                with m.Else():
                    m.d.comb += [self.e_in_valid.eq(self.data_in_valid),
                                 self.data_in_ready.eq(self.e_in_ready)]
            with m.Case(Phase.MAC):
                m.d.comb += [s.e_in_text.eq(1), s.mac_last.eq(left.one), final.eq(left.one & ~decrypt),
                             self.e_in_valid.eq(self.data_in_valid),
                             self.data_in_ready.eq(self.e_in_ready)]
            with m.Case(Phase.TAG_IN):
                m.d.comb += [self.data_in_ready.eq(1), final.eq(1)]
        with m.If(took_in & (phase != Phase.IDLE) & (self.data_in_last != final)):
            m.d.sync += self.length_error.eq(1)
        took_e = self.e_in_valid & self.e_in_ready
        took_g = s.feed_valid & s.feed_ready

        # -- the output side: H, E_K(J0), then the text; the tag last ---------------------
        text_out = ((phase == Phase.TEXT) | (phase == Phase.DRAIN)) & ~want_ej0
        with m.If(phase != Phase.IDLE):
            m.d.comb += [self.e_out_ready.eq(0), self.data_out_valid.eq(0)]
        with m.If((phase == Phase.H_WAIT) & self.e_out_valid):
            m.d.comb += [self.e_out_ready.eq(1), s.h_load.eq(1)]
            m.d.sync += [s.ghash_clear.eq(1), *self._after_h(phase, left, iv_n, mac)]
        with m.If(want_ej0 & self.e_out_valid):
            m.d.comb += [self.e_out_ready.eq(1), s.ej0_load.eq(1)]
            m.d.sync += want_ej0.eq(0)
        with m.If(text_out & ~out_left.zero):
            m.d.comb += s.out_text.eq(1)
            with m.If(decrypt):
                m.d.comb += [self.data_out_valid.eq(self.e_out_valid),
                             self.e_out_ready.eq(self.data_out_ready)]
            with m.Else():                      # GHASH takes the ciphertext as it comes out
                m.d.comb += [self.data_out_valid.eq(self.e_out_valid & s.feed_ready),
                             s.feed_valid.eq(self.e_out_valid & self.data_out_ready),
                             s.feed.eq(Feed.CIPHERTEXT),
                             self.e_out_ready.eq(self.data_out_ready & s.feed_ready)]
            with m.If(self.e_out_valid & self.e_out_ready):
                m.d.sync += out_left.dec()
        with m.If(((phase == Phase.MAC) | (phase == Phase.MAC_DRAIN)) & self.e_out_valid):
            m.d.comb += [self.e_out_ready.eq(1), s.ej0_load.eq(out_left.one)]   # the last kept
            m.d.sync += out_left.dec()
        with m.If(phase == Phase.TAG_OUT):
            m.d.comb += [self.data_out_valid.eq(1), s.out_tag.eq(1)]

        # -- the steps ---------------------------------------------------------------------
        with m.Switch(phase):
            with m.Case(Phase.H_FEED):
                with m.If(took_e):
                    m.d.sync += phase.eq(Phase.H_WAIT)
            with m.Case(Phase.MAC_START):       # a message of n blocks: max(1, ceil(bytes / 16))
                with m.If(self.e_idle):
                    n = block_count(text_n) + (text_n == 0)
                    m.d.comb += [self.e_start.eq(1), self.e_mode.eq(Mode.CBC_ENCRYPT), s.sub_load.eq(1)]
                    m.d.sync += [phase.eq(Phase.MAC), *left.load(n), *out_left.load(n)]
            with m.Case(Phase.MAC):
                with m.If(took_in):
                    m.d.sync += left.dec()
                    with m.If(left.one):
                        m.d.sync += phase.eq(Phase.MAC_DRAIN)
            with m.Case(Phase.MAC_DRAIN):
                with m.If(out_left.zero):
                    m.d.sync += phase.eq(Phase.TAG_WAIT)
            with m.Case(Phase.IV_HASH):
                with m.If(took_g):
                    m.d.sync += left.dec()
                    with m.If(left.one):
                        m.d.sync += phase.eq(Phase.IV_LEN)
            with m.Case(Phase.IV_LEN):
                with m.If(took_g):
                    m.d.sync += phase.eq(Phase.J0_WAIT)
            with m.Case(Phase.J0_WAIT):
                with m.If(~s.hashing):
                    m.d.comb += s.j0_load.eq(1)
                    m.d.sync += phase.eq(Phase.CTR_START)
            with m.Case(Phase.CTR_START):
                with m.If(self.e_idle):
                    m.d.comb += [self.e_start.eq(1), s.restart.eq(1),
                                 self.e_mode.eq(Mux(decrypt, Mode.GCM_DECRYPT, Mode.GCM_ENCRYPT))]
                    m.d.sync += [phase.eq(Phase.J0_FEED), s.ghash_clear.eq(1), want_ej0.eq(1),
                                 *out_left.load(block_count(text_n))]
            with m.Case(Phase.J0_FEED):
                with m.If(took_e):
                    m.d.sync += [phase.eq(Mux(aad_n != 0, Phase.AAD,
                                              Mux(text_n != 0, Phase.TEXT, Phase.DRAIN))),
                                 *left.load(Mux(aad_n != 0, block_count(aad_n), block_count(text_n)))]
            with m.Case(Phase.AAD):
                with m.If(took_g):
                    m.d.sync += left.dec()
                    with m.If(left.one):
                        m.d.sync += [phase.eq(Mux(text_n != 0, Phase.TEXT, Phase.DRAIN)),
                                     *left.load(block_count(text_n))]
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
            with m.Case(Phase.TAG_WAIT):             # (CMAC's tag needs no GHASH)
                with m.If(~s.hashing | mac):     # H zeroed unless kept: GHASH cleared with it
                    m.d.comb += [s.tag_load.eq(1), s.h_clear.eq(~self.h_kept | self.key_changed)]
                    m.d.sync += s.ghash_clear.eq(1)
                    m.d.sync += phase.eq(Mux(decrypt, Phase.TAG_IN, Phase.TAG_OUT))
            with m.Case(Phase.TAG_OUT):
                with m.If(self.data_out_ready):
                    m.d.sync += phase.eq(Phase.IDLE)
            with m.Case(Phase.TAG_IN):
                with m.If(took_in):
                    m.d.comb += s.tag_clear.eq(1)
                    m.d.sync += [self.tag_match.eq(~s.tag_differs), self.tag_mismatch.eq(s.tag_differs),
                                 phase.eq(Phase.IDLE)]
        return m

    def _after_h(self, phase, left, iv_bytes, mac):
        """The step after H: CMAC's start, the IV's blocks into GHASH, or (a 96-bit IV) the
        counter's start."""
        return [phase.eq(Mux(mac, Phase.MAC_START,
                             Mux(iv_bytes == 12, Phase.CTR_START, Phase.IV_HASH))),
                *left.load(block_count(iv_bytes))]

    def _keep_h(self, m, phase):
        """H kept for the next message while the key stays: ``h_kept`` once H is computed with
        no key taken since its zero block went in; any key taken clears it, and while idle
        zeroes H and GHASH's multiples of it at once (before a message's tag: at the tag).  GHASH's
        powers or tables are of H as it is from the clear after H changed (``ghash_keep``)."""
        s = self.steer
        key_dirty = Signal()               # a key taken since H's zero block went in
        prepared = s.ghash_keep
        with m.If(self.key_changed):
            m.d.sync += [self.h_kept.eq(0), key_dirty.eq(1)]
        with m.Elif((phase == Phase.H_FEED) & self.e_in_valid & self.e_in_ready):
            m.d.sync += key_dirty.eq(0)
        with m.If(s.h_load):
            m.d.sync += self.h_kept.eq(~key_dirty & ~self.key_changed)
        done = (phase == Phase.IDLE) | (phase == Phase.TAG_OUT) | (phase == Phase.TAG_IN)
        with m.If(self.key_changed & done):          # GHASH is not needed again
            m.d.comb += s.h_clear.eq(1)
            m.d.sync += s.ghash_clear.eq(1)
        with m.If(s.h_load | s.h_clear):
            m.d.sync += prepared.eq(0)
        with m.Elif(s.ghash_clear):
            m.d.sync += prepared.eq(1)
