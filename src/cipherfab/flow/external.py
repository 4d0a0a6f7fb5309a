"""External (third-party) cores: the options that describe one, shared by ``build`` and ``study``."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..argtypes import count, non_negative
from ..errors import CipherfabError
from .source import DesignSource

OPTIONS = ("top", "cycles_per_block", "cycles_per_block_cbc", "latency", "key_setup_cycles", "label")


def add_external_arguments(p: argparse.ArgumentParser, title: str = "external core") -> None:
    g = p.add_argument_group(title)
    g.add_argument("--verilog", nargs="+", metavar="FILE", help="Verilog file(s) of the core")
    g.add_argument("--top", metavar="NAME", help="its top module (clock port must be clk)")
    g.add_argument("--cycles-per-block", type=count, metavar="N",
                   help="steady-state cycles between blocks, non-feedback (ECB) use")
    g.add_argument("--cycles-per-block-cbc", type=count, metavar="N",
                   help="cycles between blocks in feedback (CBC) use (default: unknown, not reported)")
    g.add_argument("--latency", type=count, metavar="N", help="cycles from block accepted to result valid")
    g.add_argument("--key-setup-cycles", type=non_negative, metavar="N",
                   help="cycles from key accepted until the first block may start")
    g.add_argument("--block-bits", type=count, default=128, metavar="N", help="block size (default 128)")
    g.add_argument("--label", metavar="TEXT", help="row label in reports (default: TOP (external))")


def external_source(args) -> DesignSource | None:
    """The external core the options describe, or None; refuses incomplete options in one line."""
    given = [n for n in OPTIONS if getattr(args, n, None) is not None]
    if not args.verilog:
        if given:
            raise CipherfabError("--" + given[0].replace("_", "-") + " needs --verilog FILE...")
        return None
    if not args.top:
        raise CipherfabError("--verilog needs --top NAME")
    if args.cycles_per_block is None:
        raise CipherfabError("--verilog needs --cycles-per-block N (N >= 1)")
    texts = []
    for name in args.verilog:
        try:
            texts.append(Path(name).read_text())
        except (OSError, UnicodeDecodeError) as err:
            raise CipherfabError(f"cannot read Verilog file {name}: "
                                 f"{getattr(err, 'strerror', None) or err}") from None
    design = {"external": True, "top": args.top, "files": [Path(n).name for n in args.verilog]}
    if args.label:
        design["label"] = args.label
    return DesignSource("\n".join(texts), args.top, design, args.cycles_per_block,
                        cycles_per_block_cbc=args.cycles_per_block_cbc,
                        latency=args.latency, key_setup_cycles=args.key_setup_cycles,
                        block_bits=args.block_bits)
