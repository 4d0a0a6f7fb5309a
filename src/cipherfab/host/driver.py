"""``Accelerator``: the host's view of a simulated cipherfab system (SPEC section 4).

It generates the system around a core point (:class:`~cipherfab.hw.system.AcceleratorSystem`),
compiles it with its C++ host side (:mod:`.model`), programs the registers as a driver
would, streams a message through a link model in chunks, and returns the output with
the cycle counts and where the time went.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CipherfabError
from ..hw import system as regs
from ..hw.modes import Mode, modes_of
from ..registry import CoreParams
from .link import Link, fmax_problem, get_link
from .model import SystemModel

CHUNK = 1 << 20   #: bytes per harness call (progress is reported between chunks)


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

    @property
    def seconds(self) -> float:
        return self.cycles / (self.fmax_mhz * 1e6)

    @property
    def system_mbps(self) -> float:
        return len(self.out) * 8 / self.seconds / 1e6 if self.cycles else 0.0

    @property
    def core_mbps(self) -> float:
        return self.block_bits * self.fmax_mhz / self.core_cycles_per_block


class Accelerator:
    """A core point as a simulated accelerator system: ``width``-bit AXI4-Stream (default:
    the block's size, at most 128), FIFOs of ``depth`` blocks (default 512), clocked at
    ``fmax_mhz`` (from a build record, or a stated assumption)."""

    def __init__(self, params: CoreParams, width: int | None = None, depth: int | None = None,
                 fmax_mhz: float | None = None, fmax_source: str | None = None):
        from ..generate import declaration, system_verilog
        if fmax_mhz is not None and fmax_problem(fmax_mhz):
            raise CipherfabError(f"fmax: {fmax_problem(fmax_mhz)}")
        # the same file `generate --system` writes; width and depth checked before elaborating
        verilog, top, facts = system_verilog(params, width, depth)
        width, depth = facts["axis_width"], facts["fifo_depth"]
        self.params, self.info, self.width, self.depth = params, declaration(params), width, depth
        self.fmax_mhz = fmax_mhz or 100.0
        self.fmax_source = fmax_source or ("given with --fmax" if fmax_mhz else "an assumption: no --fmax given")
        self.model = SystemModel(verilog, top, width)

    def run(self, key: bytes | None, mode: Mode, data: bytes, iv: bytes | None = None,
            link: str | Link = "axi-dma", progress=None, seed: int = 1) -> Run:
        info = self.info
        if mode not in modes_of(info):
            raise CipherfabError(f"{self.params.top} cannot run {mode.name.lower()} "
                                 f"(it has {', '.join(info.directions)})")
        if not data:
            raise CipherfabError("nothing to stream: the input is empty")
        link = get_link(link) if isinstance(link, str) else link
        bb = info.block_bits // 8
        if iv is not None and len(iv) != bb:            # the IV registers would take it cut or padded
            raise CipherfabError(f"the IV must be one block, {bb} bytes, not {len(iv)}")
        per_clock = link.per_clock(self.fmax_mhz, self.width // 8)
        out, first, last = [], None, None
        with self.model.open(seed) as hw:
            if info.key_interface != "none":
                if key is None or len(key) * 8 != info.key_bits:
                    raise CipherfabError(f"the key must be {info.key_bits // 8} bytes")
                for _ in range(1000):       # the zero key of the reset taken first
                    if not hw.read(regs.STATUS) >> 4 & 1:
                        break
                else:
                    raise CipherfabError("the core never took the reset's zero key")
                for i in range(0, len(key), 4):
                    hw.write(regs.KEY + i, int.from_bytes(key[i:i + 4].ljust(4, b"\0"), "big"))
                hw.write(regs.KEY_LOAD, 1)
            iv = iv if iv is not None else bytes(bb)
            for i in range(0, bb, 4):
                hw.write(regs.IV + i, int.from_bytes(iv[i:i + 4], "big"))
            hw.write(regs.CTRL, 1 | mode.value << 4)
            stats = None
            for at in range(0, len(data), CHUNK):
                part = data[at:at + CHUNK]
                final = at + CHUNK >= len(data)
                stats = hw.stream(part, final, per_clock,
                                  out_cap=len(part) + 2 * (self.depth + 8) * bb)
                out.append(stats.out)
                if progress:
                    progress(min(at + CHUNK, len(data)))
            status = hw.read(regs.STATUS)
            counters = {name: hw.read(addr) for name, addr in (
                ("blocks_in", regs.BLOCKS_IN), ("blocks_out", regs.BLOCKS_OUT),
                ("starved", regs.STARVED), ("blocked", regs.BLOCKED))}
        flags = [what for bit, what in ((1, "mode_error"), (2, "axis_error"), (3, "length_error"))
                 if status >> bit & 1]
        if flags:
            raise CipherfabError(f"the system raised {', '.join(flags)}")
        result = b"".join(out)
        if len(result) != len(data):
            raise CipherfabError(f"the system returned {len(result)} bytes for {len(data)}")
        cpb = info.cycles_per_block_feedback if mode == Mode.CBC_ENCRYPT else info.cycles_per_block
        return Run(out=result, cycles=stats.last_out - stats.first_in + 1,
                   blocks=-(-len(data) // bb), counters=counters, in_link_wait=stats.in_link_wait,
                   out_link_wait=stats.out_link_wait, fmax_mhz=self.fmax_mhz,
                   fmax_source=self.fmax_source, core_cycles_per_block=cpb,
                   block_bits=info.block_bits, link=link)
