"""The core generator: parameters -> Amaranth component -> Verilog, and ``cipherfab generate``.

Every tool that needs a core (``generate``, ``sim``, ``build``, ``study``) goes through
:func:`make_core` / :func:`design_source`, so a parameter is validated in one place.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import __version__
from .argtypes import integer
from .ciphers.aes.iterative import DIRECTIONS, IterativeAES
from .errors import CipherfabError
from .flow.source import DesignSource
from .hw.export import LINT_WAIVERS, to_verilog
from .hw.sbox import STYLES

#: cipher -> architecture -> component class; each class documents its own theory of operation.
ARCHITECTURES = {"aes": {"iterative": IterativeAES}}
KEY_BITS = {"aes": (128, 192, 256)}
#: module-name suffixes of the kept hierarchy -> part, for the per-part area split
PARTS = {"key_schedule": "key_schedule", "datapath": "datapath"}


@dataclass(frozen=True)
class CoreParams:
    cipher: str = "aes"
    arch: str = "iterative"
    key_bits: int = 128
    direction: str = "encrypt"
    sbox: str = "lut"

    def validate(self) -> "CoreParams":
        def choose(what, value, options):
            if value not in options:
                raise CipherfabError(f"{self.cipher}: {what} {value!r} is not supported; "
                                     f"choose from {', '.join(map(str, options))}")
        choose("cipher", self.cipher, tuple(ARCHITECTURES))
        choose("--arch", self.arch, tuple(ARCHITECTURES[self.cipher]))
        choose("--key-bits", self.key_bits, KEY_BITS[self.cipher])
        choose("--direction", self.direction, DIRECTIONS)
        choose("--sbox", self.sbox, STYLES)
        return self

    @property
    def top(self) -> str:
        return f"{self.cipher}{self.key_bits}_{self.arch}_{self.direction[:3]}_{self.sbox}"


def make_core(params: CoreParams):
    params.validate()
    cls = ARCHITECTURES[params.cipher][params.arch]
    return cls(key_bits=params.key_bits, direction=params.direction, sbox=params.sbox)


def core_facts(core) -> dict:
    """The cycle counts of a core, as documented in its header and checked by the tests."""
    return {
        "latency": core.latency,
        "cycles_per_block_ecb": core.cycles_per_block,
        "cycles_per_block_cbc": core.cycles_per_block_feedback,
        "key_setup_cycles": core.key_setup_cycles,
    }


def _header(params: CoreParams, facts: dict) -> str:
    both = params.direction == "both"
    return "\n".join([
        f"{params.top}: {params.cipher.upper()}-{params.key_bits} {params.arch} core, "
        f"direction {params.direction}, S-box {params.sbox}",
        "Parameters: " + ", ".join(f"{k}={v}" for k, v in asdict(params).items()),
        f"Latency: {facts['latency']} cycles from block_in handshake to block_out_valid",
        f"Cycles per block: {facts['cycles_per_block_ecb']} back to back (ECB/CTR), "
        f"{facts['cycles_per_block_cbc']} when each input needs the previous output (CBC)",
        f"Key setup: {facts['key_setup_cycles']} cycles from key handshake to the first block handshake",
        "",
        "Ports (clk rising edge; rst synchronous, active high, clears keys and empties the core):",
        f"  key[{params.key_bits - 1}:0], key_valid -> key_ready    key stream; taken only with no block in flight,",
        "                                         and before a block offered in the same cycle",
        "  block_in[127:0]" + (", block_in_decrypt" if both else "") +
        ", block_in_valid -> block_in_ready",
        "  block_out[127:0], block_out_valid <- block_out_ready   one output per input, in order",
        "  busy                                   key setup, block in flight, or result waiting",
        "Byte order: bits [N-1:N-8] are byte 0 (the hex string of a block or key).",
        "Timing: block_in handshake in cycle 0 -> rounds in cycles 1..Nr-1 -> block_out_valid",
        f"        from cycle {facts['latency']}, held with block_out until block_out_ready.",
        "Lint: verilator --lint-only -Wall passes; waived: " + ", ".join(LINT_WAIVERS) +
        " (reasons below).",
    ])


def generate_verilog(params: CoreParams) -> tuple[str, dict, float]:
    """(Verilog text, cycle facts, elaboration seconds)."""
    t0 = time.perf_counter()
    core = make_core(params)
    facts = core_facts(core)
    text = to_verilog(core, params.top, _header(params, facts))
    return text, facts, time.perf_counter() - t0


def design_source(cipher: str = "aes", *, arch: str = "iterative", key_bits: int = 128,
                  direction: str = "encrypt", sbox: str = "lut") -> DesignSource:
    params = CoreParams(cipher, arch, int(key_bits), direction, sbox)
    text, facts, seconds = generate_verilog(params)
    return DesignSource(
        verilog=text, top=params.top, design=asdict(params),
        cycles_per_block_ecb=facts["cycles_per_block_ecb"],
        cycles_per_block_cbc=facts["cycles_per_block_cbc"],
        latency=facts["latency"], key_setup_cycles=facts["key_setup_cycles"],
        parts={f"{params.top}.core.{name}": part for name, part in PARTS.items()},
        elaborate_seconds=seconds)


# --- command line ---

def add_core_arguments(parser, cipher_required: bool = True) -> None:
    """CIPHER and the options that pick a generated core (shared by generate, sim, build)."""
    parser.add_argument("cipher", metavar="CIPHER", nargs=None if cipher_required else "?",
                        help=f"cipher: {', '.join(ARCHITECTURES)}")
    g = parser.add_argument_group("core")
    g.add_argument("--arch", default=None, help="architecture (default iterative)")
    g.add_argument("--key-bits", type=integer, default=None, help="key size (AES: 128, 192, 256; default 128)")
    g.add_argument("--direction", default=None, help=f"{', '.join(DIRECTIONS)} (default encrypt)")
    g.add_argument("--sbox", default=None, help=f"S-box style: {', '.join(STYLES)} (default lut)")


def params_from_args(args) -> CoreParams:
    given = {k: getattr(args, k) for k in ("arch", "key_bits", "direction", "sbox")
             if getattr(args, k, None) is not None}
    return CoreParams(cipher=args.cipher, **given).validate()


def register(subparsers) -> None:
    p = subparsers.add_parser("generate", help="write a core as one self-contained Verilog file",
                              description="Generate a synthesizable core and write it as Verilog.")
    add_core_arguments(p)
    p.add_argument("-o", "--output", metavar="FILE", help="output file (default: <top>.v)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    params = params_from_args(args)
    text, facts, seconds = generate_verilog(params)
    out = Path(args.output or f"{params.top}.v")
    try:
        out.write_text(text)
    except OSError as e:
        raise CipherfabError(f"cannot write {out}: {e.strerror}") from None
    print(f"{out}: {params.top}, latency {facts['latency']}, {facts['cycles_per_block_ecb']} cycles/block, "
          f"key setup {facts['key_setup_cycles']} cycles ({seconds:.2f} s, cipherfab {__version__})")
    return 0
