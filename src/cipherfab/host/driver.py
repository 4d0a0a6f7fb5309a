"""``Accelerator``: the host's view of a simulated cipherfab system (SPEC section 4).

It generates the system around a core point (:class:`~cipherfab.hw.system.system.AcceleratorSystem`),
compiles it with its C++ host side (:mod:`.model`), programs the registers as a driver
would, streams a message through a link model in chunks, and returns the output with
the cycle counts and where the time went.

A core with an entropy input (``seed_bits``: a masked core's generators) takes nothing after
reset until it has taken a seed: every time the driver opens the system it first sends one
(:meth:`Accelerator.seed`), from ``os.urandom``, or the fixed ``entropy`` given for a
reproducible run, then the key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import CipherfabError
from ..hw.system import system as regs
from ..hw.modes import Mode, modes_of
from .mode_reference import packed, segments
from ..registry import CoreParams
from .link import Link, fmax_problem, get_link
from .model import SystemModel

CHUNK = 1 << 20   #: bytes per harness call (progress is reported between chunks)


def cmac_padded(data: bytes, block_bytes: int = 16) -> bytes:
    """CMAC's message as the system takes it (SP 800-38B 6.2 step 3): whole blocks as they
    are; a partial or empty last block padded with ``10*`` (0x80, then zero bytes)."""
    if data and len(data) % block_bytes == 0:
        return data
    tail = data + b"\x80"
    return tail + bytes(-len(tail) % block_bytes)


XTS_UNIT_MAX = 16 << 20     #: IEEE 1619 5.1: a data unit is at most 2^20 blocks


def xts_units(top: str, info, key: bytes, decrypt: bool, tweak: bytes, data: bytes,
              unit_bytes: int | None) -> list[bytes]:
    """XTS's input checked (one line each) and cut into data units (``unit_bytes``; None:
    one unit): the core runs it, the key is two different halves, every unit 16 bytes or
    more."""
    mode = Mode.XTS_DECRYPT if decrypt else Mode.XTS_ENCRYPT
    if mode not in modes_of(info):
        raise CipherfabError(f"{top} cannot run xts {'decryption' if decrypt else 'encryption'}: "
                             f"XTS needs a 128-bit block cipher with a key port that encrypts "
                             f"(its tweaks){' and decrypts' if decrypt else ''} (this core: "
                             f"{info.block_bits}-bit blocks, {', '.join(info.directions)}, "
                             f"key interface {info.key_interface})")
    half = info.key_bits // 8
    if len(key) != 2 * half:
        raise CipherfabError(f"the XTS key is two {half}-byte keys, {2 * half} bytes, not {len(key)}")
    if key[:half] == key[half:]:
        raise CipherfabError("the XTS key's two halves are equal (IEEE 1619-2018 5.1 refuses it)")
    if len(tweak) != 16:
        raise CipherfabError(f"the XTS tweak is 16 bytes, not {len(tweak)}")
    if len(data) < 16:
        raise CipherfabError(f"an XTS data unit is at least 16 bytes; the input has {len(data)}")
    unit_bytes = unit_bytes or len(data)
    if not 16 <= unit_bytes <= XTS_UNIT_MAX:
        raise CipherfabError(f"an XTS data unit is 16 bytes to 16 MiB (2^20 blocks), not {unit_bytes}")
    units = [data[i:i + unit_bytes] for i in range(0, len(data), unit_bytes)]
    if len(units[-1]) < 16:
        raise CipherfabError(f"the last XTS data unit would be {len(units[-1])} bytes ({len(data)} "
                             f"bytes in units of {unit_bytes}); a unit is at least 16")
    return units


def _verdict(status: int, words: list[int], checking: bool, streamed: bytes, tag_bytes: int,
             doing: str) -> tuple[bool | None, bytes | None]:
    """(authentic, tag) after a GCM or CMAC message: checking a received tag, the system's
    verdict (STATUS tag_match or tag_mismatch, exactly one; no tag shown); else the tag it
    streamed, which must be TAG[0..3]'s first ``tag_bytes``."""
    if checking:
        if not status >> 5 & 1 ^ status >> 6 & 1:
            raise misbehaved("the system gave no verdict on the tag")
        if any(words):
            raise misbehaved(f"the system showed a tag while {doing}")
        return bool(status >> 5 & 1), None
    shown = b"".join(w.to_bytes(4, "big") for w in words)
    if len(streamed) != tag_bytes or streamed != shown[:tag_bytes]:
        raise misbehaved("the tag on the stream differs from the TAG registers")
    return None, streamed


def _write_words(hw, base: int, data: bytes) -> None:
    """``data`` into the 32-bit registers from ``base`` on (key, IV, seed: word 0 its first
    four bytes, big-endian; a last word of fewer bytes zero-padded)."""
    for i in range(0, len(data), 4):
        hw.write(base + i, int.from_bytes(data[i:i + 4].ljust(4, b"\0"), "big"))


def _cycles(stats) -> int:
    """Clocks from a message's first input to its last output (or, with no output, to the
    end of its stream)."""
    first = stats.first_in
    return (stats.last_out if stats.last_out >= first else stats.cycles) - first + 1


def misbehaved(message: str) -> CipherfabError:
    """The system did something the driver's protocol rules out: a failed check (exit 1),
    not bad input (exit 2)."""
    return CipherfabError(message, exit_code=1)


@dataclass
class Run:
    out: bytes
    cycles: int                  # the stream's start (link latency included) to the last output transfer
    blocks: int
    counters: dict               # the system's own: blocks_in, blocks_out, starved, blocked
    in_link_wait: int
    out_link_wait: int
    fmax_mhz: float
    fmax_source: str
    core_cycles_per_block: int
    block_bits: int
    link: Link
    notes: list = field(default_factory=list)
    tag: bytes | None = None           # GCM encrypt: the tag (also in the TAG registers)
    authentic: bool | None = None      # GCM decrypt, CMAC verify: the system's verdict on the tag
    message_bytes: int | None = None   # CMAC: the message's bytes (its output is the tag alone)

    @property
    def seconds(self) -> float:
        return self.cycles / (self.fmax_mhz * 1e6)

    @property
    def system_mbps(self) -> float:
        n = len(self.out) if self.message_bytes is None else self.message_bytes
        return n * 8 / self.seconds / 1e6 if self.cycles else 0.0

    @property
    def core_mbps(self) -> float:
        return self.block_bits * self.fmax_mhz / self.core_cycles_per_block


class Accelerator:
    """A core point as a simulated accelerator system: ``width``-bit AXI4-Stream (default:
    the block's size, at most 128), FIFOs of ``depth`` blocks (default 512), clocked at
    ``fmax_mhz`` (from a build record, or a stated assumption)."""

    def __init__(self, params: CoreParams, width: int | None = None, depth: int | None = None,
                 fmax_mhz: float | None = None, fmax_source: str | None = None,
                 entropy: bytes | None = None, modes: tuple[str, ...] | None = None):
        """``entropy``: the seed sent after every reset to a core with a seed port (its
        ``seed_bits / 8`` bytes); None: a fresh one from ``os.urandom`` each time.
        ``modes``: the system built with these modes only (:func:`cipherfab.generate.system_modes`;
        None: every one the core can run); a mode left out is refused in one line."""
        from ..generate import declaration
        from .system_cache import system_verilog
        if fmax_mhz is not None and fmax_problem(fmax_mhz):
            raise CipherfabError(f"fmax: {fmax_problem(fmax_mhz)}")
        self.params, self.info, self.entropy = params, declaration(params), entropy
        if entropy is not None:
            self._check_seed(entropy)
        # the same file `generate --system` writes; width and depth checked before elaborating
        verilog, top, facts = system_verilog(params, width, depth, modes)
        self.width, self.depth = facts["axis_width"], facts["fifo_depth"]
        #: the modes the system runs (its MODES register)
        self.modes = frozenset(m for m in Mode if facts["modes_register"] >> m.value & 1)
        self.mode_names = tuple(facts["modes"])
        self.fmax_mhz = fmax_mhz or 100.0
        self.fmax_source = fmax_source or ("given with --fmax" if fmax_mhz else "an assumption: no --fmax given")
        self.ghash = facts.get("ghash")          # the GHASH style of its GCM, None: no GCM
        self.model = SystemModel(verilog, top, self.width)

    def run(self, key: bytes | None, mode: Mode, data: bytes, iv: bytes | None = None,
            link: str | Link = "axi-dma", progress=None, seed: int = 1,
            bits: int | None = None) -> Run:
        """A message through the system in ``mode``.  CFB8 and CFB1 (``mode.segment_bits``):
        ``data`` is the message's bytes (CFB1: its bits, most significant first, ``bits`` of
        them, default all), streamed a segment a block as the register map says; the output
        is packed back the same way."""
        info = self.info
        if mode not in modes_of(info):
            raise CipherfabError(f"{self.params.top} cannot run {mode.name.lower()} "
                                 f"(it has {', '.join(info.directions)})")
        self._built(mode)
        bb = info.block_bits // 8
        s = mode.segment_bits
        if bits is not None and (s != 1 or len(data) != -(-bits // 8)):
            raise CipherfabError(f"a bit count ({bits}) is for cfb1 messages, in "
                                 f"ceil(bits / 8) bytes; not {len(data)} bytes of {mode.name.lower()}")
        if s:
            segs = segments(data, s, bits)
            wire = b"".join(bytes([v << (8 - s)]) + bytes(bb - 1) for v in segs)
            per_byte = bb * 8 // s                       # streamed bytes a message byte
            shown = progress and (lambda done: progress(done // per_byte))
            result = self._run_wire(key, mode, wire, iv, link, shown, seed)
            result.out = packed([b >> (8 - s) for b in result.out[::bb]], s)
            result.blocks = len(segs)
            return result
        return self._run_wire(key, mode, data, iv, link, progress, seed)

    def _run_wire(self, key, mode, data, iv, link, progress, seed) -> Run:
        """``data`` through the system as it is streamed."""
        info = self.info
        if not data:
            raise CipherfabError("nothing to stream: the input is empty")
        link = get_link(link) if isinstance(link, str) else link
        bb = info.block_bits // 8
        if iv is not None and len(iv) != bb:            # the IV registers would take it cut or padded
            raise CipherfabError(f"the IV must be one block, {bb} bytes, not {len(iv)}")
        per_clock = link.per_clock(self.fmax_mhz, self.width // 8)
        with self._open(seed) as hw:
            self._load_key(hw, key)
            _write_words(hw, regs.IV, iv if iv is not None else bytes(bb))
            hw.write(regs.CTRL, 1 | mode.value << 4)
            stats = self._stream(hw, data, per_clock, progress)
            _, counters = self._finish(hw)
        result = stats.out
        if len(result) != len(data):
            raise misbehaved(f"the system returned {len(result)} bytes for {len(data)}")
        cpb = info.cycles_per_block_feedback if mode.feedback else info.cycles_per_block
        return Run(out=result, cycles=stats.last_out - stats.first_in + 1,
                   blocks=-(-len(data) // bb), counters=counters, in_link_wait=stats.in_link_wait,
                   out_link_wait=stats.out_link_wait, fmax_mhz=self.fmax_mhz,
                   fmax_source=self.fmax_source, core_cycles_per_block=cpb,
                   block_bits=info.block_bits, link=link)

    def run_gcm(self, key: bytes | None, decrypt: bool, iv: bytes, aad: bytes, data: bytes,
                tag: bytes | None = None, tag_bytes: int = 16, link: str | Link = "axi-dma",
                progress=None, seed: int = 1, messages: int = 1) -> Run:
        """GCM (SP 800-38D) through the system: ``data`` is the plaintext (encrypt) or the
        ciphertext (decrypt, with the received ``tag``).  The output is the text; the tag
        (encrypt) or the system's verdict on the received one (decrypt: ``authentic``).
        The stream is laid out as hw.system.system's register map says.  ``messages``: the
        message is sent that many times under one key load (the system keeps H while the
        key stays); the Run is the last one's."""
        from ..hw.gcm.gcm_model import TAG_BYTES
        info = self.info
        mode = Mode.GCM_DECRYPT if decrypt else Mode.GCM_ENCRYPT
        if mode not in modes_of(info, True):
            raise CipherfabError(f"{self.params.top} cannot run gcm: GCM needs a 128-bit block "
                                 f"cipher that encrypts (this system: {info.block_bits}-bit "
                                 f"blocks, {', '.join(info.directions)})")
        self._built(mode)
        if not iv:
            raise CipherfabError("the GCM IV must be at least one byte")
        if tag_bytes not in TAG_BYTES:
            raise CipherfabError(f"a GCM tag is {', '.join(map(str, TAG_BYTES))} bytes, not {tag_bytes}")
        if decrypt and (tag is None or len(tag) != tag_bytes):
            raise CipherfabError(f"decrypting needs the received tag, {tag_bytes} bytes")
        if messages < 1:
            raise CipherfabError(f"messages must be at least 1, not {messages}")
        if max(len(iv), len(aad), len(data)) >= 1 << 32:
            raise CipherfabError("the system's length registers hold at most 4 GiB - 1 per part")
        link = get_link(link) if isinstance(link, str) else link
        pad = lambda b: b + bytes(-len(b) % 16)
        stream = ((pad(iv) if len(iv) != 12 else b"") + pad(aad)
                  + (pad(data) + tag if decrypt else data))
        per_clock = link.per_clock(self.fmax_mhz, self.width // 8)
        with self._open(seed) as hw:
            self._load_key(hw, key)
            for _ in range(messages):
                if len(iv) == 12:
                    _write_words(hw, regs.IV, iv)
                for where, value in ((regs.AAD_BYTES, len(aad)), (regs.TEXT_BYTES, len(data)),
                                     (regs.IV_BYTES, len(iv)), (regs.TAG_BYTES, tag_bytes)):
                    hw.write(where, value)
                hw.write(regs.CTRL, 1 | mode.value << 4)
                stats = self._stream(hw, stream, per_clock, progress, no_output=decrypt and not data)
                status, counters = self._finish(hw)
                words = [hw.read(regs.TAG + 4 * i) for i in range(4)]
        out = stats.out
        authentic, got_tag = _verdict(status, words, decrypt, out[len(pad(data)):], tag_bytes,
                                      "decrypting")
        out = out if decrypt else out[:len(data)]
        if len(out) != len(data):
            raise misbehaved(f"the system returned {len(out)} bytes of text for {len(data)}")
        return Run(out=out, cycles=_cycles(stats), blocks=-(-len(data) // 16), counters=counters,
                   in_link_wait=stats.in_link_wait, out_link_wait=stats.out_link_wait,
                   fmax_mhz=self.fmax_mhz, fmax_source=self.fmax_source,
                   core_cycles_per_block=info.cycles_per_block, block_bits=info.block_bits,
                   link=link, tag=got_tag, authentic=authentic)

    def run_cmac(self, key: bytes | None, data: bytes, tag: bytes | None = None,
                 tag_bytes: int = 16, link: str | Link = "axi-dma", progress=None, seed: int = 1,
                 messages: int = 1) -> Run:
        """CMAC (SP 800-38B) through the system: the tag of ``data`` (``tag`` None), or the
        system's verdict on the received ``tag`` (``authentic``).  The stream is the
        message padded ``10*`` when its last block is partial or empty, then the tag to
        verify, as hw.system.system's register map says.  ``messages``: sent that many
        times under one key load (L = E_K(0) kept); the Run is the last one's."""
        from ..hw.gcm.gcm_control import CMAC_TAG_BYTES
        info = self.info
        verify = tag is not None
        mode = Mode.CMAC_VERIFY if verify else Mode.CMAC_GENERATE
        if mode not in modes_of(info, True):
            raise CipherfabError(f"{self.params.top} cannot run cmac: the system's CMAC needs a "
                                 f"128-bit block cipher that encrypts (this system: "
                                 f"{info.block_bits}-bit blocks, {', '.join(info.directions)})")
        self._built(mode)
        if tag_bytes not in CMAC_TAG_BYTES:
            raise CipherfabError(f"a CMAC tag is {CMAC_TAG_BYTES[0]} to {CMAC_TAG_BYTES[-1]} bytes, "
                                 f"not {tag_bytes}")
        if verify and len(tag) != tag_bytes:
            raise CipherfabError(f"the tag to verify must be {tag_bytes} bytes, not {len(tag)}")
        if messages < 1:
            raise CipherfabError(f"messages must be at least 1, not {messages}")
        if len(data) >= 1 << 32:
            raise CipherfabError("the system's length registers hold at most 4 GiB - 1")
        link = get_link(link) if isinstance(link, str) else link
        padded = cmac_padded(data)
        stream = padded + (tag if verify else b"")
        per_clock = link.per_clock(self.fmax_mhz, self.width // 8)
        with self._open(seed) as hw:
            self._load_key(hw, key)
            for _ in range(messages):
                hw.write(regs.TEXT_BYTES, len(data))
                hw.write(regs.TAG_BYTES, tag_bytes)
                hw.write(regs.CTRL, 1 | mode.value << 4)
                stats = self._stream(hw, stream, per_clock, progress, no_output=verify)
                status, counters = self._finish(hw)
                words = [hw.read(regs.TAG + 4 * i) for i in range(4)]
        if verify and stats.out:
            raise misbehaved("the system showed a tag while verifying")
        authentic, got_tag = _verdict(status, words, verify, stats.out, tag_bytes, "verifying")
        return Run(out=b"", cycles=_cycles(stats), blocks=len(padded) // 16, counters=counters,
                   in_link_wait=stats.in_link_wait, out_link_wait=stats.out_link_wait,
                   fmax_mhz=self.fmax_mhz, fmax_source=self.fmax_source,
                   core_cycles_per_block=info.cycles_per_block_feedback, block_bits=info.block_bits,
                   link=link, tag=got_tag, authentic=authentic, message_bytes=len(data))

    def run_xts(self, key: bytes, decrypt: bool, tweak: bytes, data: bytes,
                unit_bytes: int | None = None, link: str | Link = "axi-dma", progress=None,
                seed: int = 1) -> Run:
        """XTS (IEEE 1619, SP 800-38E) through the system: ``key`` is K1 then K2 (twice the
        core's key), ``tweak`` the first data unit's 16-byte tweak (each next unit's: +1,
        little-endian), ``data`` cut into data units of ``unit_bytes`` (None: one unit).
        The system encrypts every unit's tweak under K2 (ECB, one stream), then, under K1,
        runs the data units of whole blocks as one XTS message with TEXT_BYTES the unit's
        length, each unit's encrypted tweak on the stream ahead of its blocks; a unit that is
        not whole blocks (the file's last, or every unit of a size that is not) runs alone
        from its encrypted tweak in IV, and steals ciphertext here
        (:func:`.mode_reference.xts_steal`: its last two blocks run as one-block messages
        from T_n and T_n-1, computed here from the encrypted tweak).  The Run's cycles run
        from the tweaks' first input to the last output, register writes included."""
        from .mode_reference import xts_alpha, xts_steal, xts_unit_tweaks
        units = xts_units(self.params.top, self.info, key, decrypt, tweak, data, unit_bytes)
        self._built(Mode.XTS_DECRYPT if decrypt else Mode.XTS_ENCRYPT)
        size, half = len(units[0]), len(key) // 2
        streamed = 0 if size % 16 else sum(len(u) == size for u in units)
        link = get_link(link) if isinstance(link, str) else link
        per_clock = link.per_clock(self.fmax_mhz, self.width // 8)
        mode = Mode.XTS_DECRYPT if decrypt else Mode.XTS_ENCRYPT
        stats = []
        with self._open(seed) as hw:
            def message(t, blocks, want, unit=0):
                """One XTS message from the encrypted tweak ``t`` (or, with ``unit``, units
                of that many bytes, each after its tweak on the stream)."""
                _write_words(hw, regs.IV, t)
                hw.write(regs.TEXT_BYTES, unit)
                hw.write(regs.CTRL, 1 | mode.value << 4)
                got = self._stream(hw, blocks, per_clock, None)
                self._finish(hw, counters=False)
                stats.append(got)
                if len(got.out) != want:
                    raise misbehaved(f"the system returned {len(got.out)} bytes for {want}")
                return got.out

            self._load_key(hw, key[half:])
            hw.write(regs.CTRL, 1 | Mode.ECB_ENCRYPT.value << 4)
            stats.append(self._stream(hw, b"".join(xts_unit_tweaks(tweak, len(units))), per_clock, None))
            self._finish(hw, counters=False)
            ts = stats[0].out
            self._load_key(hw, key[:half])
            outs = []
            if streamed:
                outs.append(message(bytes(16), b"".join(ts[16 * u:16 * u + 16] + units[u]
                                                        for u in range(streamed)),
                                    streamed * size, size))
                if progress:
                    progress(streamed * size)
            for u in range(streamed, len(units)):
                t0 = ts[16 * u:16 * u + 16]

                def whole(j, blocks):
                    t = t0
                    for _ in range(j):
                        t = xts_alpha(t)
                    return message(t, blocks, len(blocks))
                outs.append(xts_steal(whole, units[u], decrypt))
                if progress:
                    progress(sum(map(len, units[:u + 1])))
            counters = self._finish(hw)[1]
        return Run(out=b"".join(outs), cycles=stats[-1].last_out - stats[0].first_in + 1,
                   blocks=-(-len(data) // 16), counters=counters,
                   in_link_wait=sum(s.in_link_wait for s in stats),
                   out_link_wait=sum(s.out_link_wait for s in stats), fmax_mhz=self.fmax_mhz,
                   fmax_source=self.fmax_source, core_cycles_per_block=self.info.cycles_per_block,
                   block_bits=self.info.block_bits, link=link,
                   notes=[f"{len(units)} data unit{'s' * (len(units) != 1)}"])

    def run_stepped(self, key: bytes | None, mode: Mode, iv: bytes, first: int, count: int,
                    next_input, link: str | Link = "axi-dma", seed: int = 1) -> list[int]:
        """One message of ``count`` segments (whole blocks, or CFB8/CFB1 segments) in ``mode``
        whose inputs come from its own outputs (a Monte-Carlo test's inner loop): the first
        input ``first``, then ``next_input(j, outputs)`` once output ``j`` is out (the
        segments as numbers of the segment's bits).  Each input is streamed when the last
        output is out, all within one message (the mode's state carries on in hardware);
        the outputs."""
        info = self.info
        if mode not in modes_of(info):
            raise CipherfabError(f"{self.params.top} cannot run {mode.name.lower()}")
        self._built(mode)
        bb = info.block_bits // 8
        s = mode.segment_bits or 8 * bb
        link = get_link(link) if isinstance(link, str) else link
        per_clock = link.per_clock(self.fmax_mhz, self.width // 8)
        cap = 2 * (self.depth + 8) * bb
        outputs, x = [], first
        with self._open(seed) as hw:
            self._load_key(hw, key)
            _write_words(hw, regs.IV, iv)
            hw.write(regs.CTRL, 1 | mode.value << 4)
            for j in range(count):
                last = j == count - 1
                got = hw.stream((x << (8 * bb - s)).to_bytes(bb, "big"), last, per_clock, cap).out
                for _ in range(100_000):
                    if len(got) >= bb or last:
                        break
                    got += hw.stream(b"", False, per_clock, cap).out
                if len(got) != bb:
                    raise misbehaved(f"segment {j} gave {len(got)} bytes of output, not one block")
                outputs.append(int.from_bytes(got, "big") >> (8 * bb - s))
                if not last:
                    x = next_input(j, outputs)
            self._finish(hw, counters=False)
        return outputs

    def _built(self, mode: Mode) -> None:
        """Refuse a mode the core runs but this system was built without (``modes``)."""
        if mode not in self.modes:
            from ..hw.modes import family_of
            raise CipherfabError(f"this system around {self.params.top} was built without "
                                 f"{family_of(mode)} (--modes {','.join(self.mode_names)})")

    @property
    def seed_bytes(self) -> int:
        """The bytes of the core's seed (0: it has no seed port)."""
        return -(-self.info.seed_bits // 8)

    def _check_seed(self, data: bytes) -> None:
        if not self.info.seed_bits:
            raise CipherfabError(f"{self.params.top} has no seed port: it takes no seed")
        if len(data) != self.seed_bytes:
            raise CipherfabError(f"the seed must be {self.seed_bytes} bytes, not {len(data)}")

    def _open(self, seed: int):
        """The system model, opened (out of reset) and, for a core with a seed port, seeded."""
        hw = self.model.open(seed)
        if self.info.seed_bits:
            try:
                self.seed(hw, self.entropy if self.entropy is not None else os.urandom(self.seed_bytes))
            except BaseException:
                hw.close()
                raise
        return hw

    def seed(self, hw, data: bytes) -> None:
        """Send ``data`` to the core's seed port through the SEED registers (word 0 its first
        four bytes) and SEED_LOAD, and wait until the core took it (STATUS.seeded)."""
        self._check_seed(data)
        _write_words(hw, regs.SEED, data)
        hw.write(regs.SEED_LOAD, 1)
        for _ in range(1000):
            status = hw.read(regs.STATUS)
            if status >> 9 & 1 and not status >> 8 & 1:      # seeded, nothing pending
                return
        raise misbehaved("the core never took the seed")

    def _load_key(self, hw, key: bytes | None) -> None:
        info = self.info
        if info.key_interface == "none":
            return
        if key is None or len(key) * 8 != info.key_bits:
            raise CipherfabError(f"the key must be {info.key_bits // 8} bytes")
        for _ in range(1000):       # the zero key of the reset taken first
            if not hw.read(regs.STATUS) >> 4 & 1:
                break
        else:
            raise misbehaved("the core never took the reset's zero key")
        _write_words(hw, regs.KEY, key)
        hw.write(regs.KEY_LOAD, 1)

    def _stream(self, hw, data: bytes, per_clock, progress, no_output: bool = False):
        """The message through the link, in chunks; the last StreamResult, with every
        chunk's output joined."""
        bb, stats, out = self.info.block_bits // 8, None, []
        for at in range(0, max(len(data), 1), CHUNK):
            part = data[at:at + CHUNK]
            final = at + CHUNK >= len(data)
            stats = hw.stream(part, final, per_clock, out_cap=len(part) + 2 * (self.depth + 8) * bb,
                              no_output=no_output)
            out.append(stats.out)
            if progress:
                progress(min(at + CHUNK, len(data)))
        stats.out = b"".join(out)
        return stats

    def _finish(self, hw, counters: bool = True) -> tuple[int, dict]:
        """STATUS once the system is idle (a GCM verdict comes after the last output), and
        the counters (``counters``: read them); the error flags raised as one line."""
        for _ in range(10000):
            status = hw.read(regs.STATUS)
            if status & 1:
                break
        else:
            raise misbehaved("the system did not become idle after the message")
        counters = {} if not counters else {name: hw.read(addr) for name, addr in (
            ("blocks_in", regs.BLOCKS_IN), ("blocks_out", regs.BLOCKS_OUT),
            ("starved", regs.STARVED), ("blocked", regs.BLOCKED))}
        flags = [what for bit, what in ((1, "mode_error"), (2, "axis_error"), (3, "length_error"),
                                        (7, "gcm_error")) if status >> bit & 1]
        if flags:
            raise misbehaved(f"the system raised {', '.join(flags)}")
        return status, counters
