"""External (third-party) cores: the options that describe one, shared by ``build`` and ``study``."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..argtypes import between
from ..errors import CipherfabError
from ..userfiles import read_text
from ..verilog_files import read_verilog
from .source import DesignSource

OPTIONS = ("top", "cycles_per_block", "cycles_per_block_cbc", "latency", "key_setup_cycles", "label",
           "include_dir")

#: upper bounds of the stated facts: far beyond any block-cipher core, and an integer past a
#: float's range would break the throughput arithmetic after a full build
CYCLES_MAX = 10**9
BLOCK_BITS_MAX = 4096
_TOP = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def add_external_arguments(p: argparse.ArgumentParser, title: str = "external core") -> None:
    g = p.add_argument_group(title)
    g.add_argument("--verilog", nargs="+", metavar="FILE", help="Verilog file(s) of the core")
    g.add_argument("--top", metavar="NAME", help="its top module (clock port must be clk)")
    cycles = between(1, CYCLES_MAX)
    g.add_argument("--cycles-per-block", type=cycles, metavar="N",
                   help="steady-state cycles between blocks, non-feedback (ECB) use")
    g.add_argument("--cycles-per-block-cbc", type=cycles, metavar="N",
                   help="cycles between blocks in feedback (CBC) use, at least --cycles-per-block "
                        "(default: unknown, not reported)")
    g.add_argument("--latency", type=cycles, metavar="N", help="cycles from block accepted to result valid")
    g.add_argument("--key-setup-cycles", type=between(0, CYCLES_MAX), metavar="N",
                   help="cycles from key accepted until the first block may start")
    g.add_argument("--block-bits", type=between(1, BLOCK_BITS_MAX), default=128, metavar="N",
                   help="block size (default 128)")
    g.add_argument("--label", metavar="TEXT", help="row label in reports (default: TOP (external))")
    g.add_argument("--include-dir", action="append", metavar="DIR",
                   help="where to look for `include files after the including file's folder and the "
                        "folders of the other --verilog files (repeatable)")


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
    _check_facts(args)
    text, includes = read_verilog(args.verilog, getattr(args, "include_dir", None) or ())
    if not declares_module(text, args.top):
        raise CipherfabError(f"--top {args.top}: no module {args.top} in "
                             f"{', '.join(str(f) for f in args.verilog)}")
    design = {"external": True, "top": args.top, "files": [Path(n).name for n in args.verilog]}
    if includes:
        design["includes"] = includes
    if args.label:
        design["label"] = args.label
    return DesignSource(text, args.top, design, args.cycles_per_block,
                        cycles_per_block_cbc=args.cycles_per_block_cbc,
                        latency=args.latency, key_setup_cycles=args.key_setup_cycles,
                        block_bits=args.block_bits)


def _check_facts(args) -> None:
    """What the options state about an external core, checked before its files are read."""
    if not _TOP.fullmatch(args.top):
        raise CipherfabError(f"--top {args.top!r}: not a Verilog module name (letters, digits, _ and $)")
    cbc, ecb = args.cycles_per_block_cbc, args.cycles_per_block
    if cbc is not None and cbc < ecb:
        raise CipherfabError(f"--cycles-per-block-cbc {cbc} is less than --cycles-per-block {ecb}: "
                             "feedback use cannot start blocks more often than non-feedback use")
    if args.label is not None and not args.label.strip():
        raise CipherfabError("--label: empty text")
    seen = set()
    for name in args.verilog:
        if not str(name).strip():
            raise CipherfabError("--verilog: empty file name")
        real = Path(name).resolve()
        if real in seen:
            raise CipherfabError(f"--verilog {name} is given twice (its modules would be defined twice)")
        seen.add(real)


def declares_module(text: str, top: str) -> bool:
    """True if ``text`` has ``module <top>`` (a cheap check before synthesis; comments not parsed)."""
    return re.search(rf"\bmodule\s+{re.escape(top)}(?![\w$])", text) is not None


def peer_source(path) -> DesignSource:
    """An open peer described by a JSON file: the external-core options as keys
    (``verilog`` and ``include_dir`` lists relative to the file's folder, ``top``,
    ``cycles_per_block``, ...); errors in one line naming the file."""
    import argparse
    import json
    path = Path(path)
    try:
        d = json.loads(read_text(path, "json", "peer file"))
    except json.JSONDecodeError as err:
        raise CipherfabError(f"peer file {path} is not JSON: {err}") from None
    known = ("verilog", "block_bits", *OPTIONS)
    if not isinstance(d, dict) or not d.get("verilog"):
        raise CipherfabError(f"peer file {path}: expected an object with \"verilog\": [files]")
    unknown = sorted(set(d) - set(known))
    if unknown:
        raise CipherfabError(f"peer file {path}: unknown key {unknown[0]!r}; known: {', '.join(known)}")
    ints = ("cycles_per_block", "cycles_per_block_cbc", "latency", "key_setup_cycles", "block_bits")
    least = {k: 0 if k == "key_setup_cycles" else 1 for k in ints}
    most = {k: BLOCK_BITS_MAX if k == "block_bits" else CYCLES_MAX for k in ints}
    bad = [k for k in ints if k in d
           and (isinstance(d[k], bool) or not isinstance(d[k], int) or not least[k] <= d[k] <= most[k])]
    if bad:
        raise CipherfabError(f"peer file {path}: {bad[0]} must be a whole number in "
                             f"{least[bad[0]]}..{most[bad[0]]}")
    for k in ("verilog", "include_dir"):
        names = d.get(k, [])
        if not isinstance(names, (str, list)) or not all(isinstance(n, str) for n in (
                [names] if isinstance(names, str) else names)):
            raise CipherfabError(f"peer file {path}: {k} must be a file name or a list of them")
    texts = ("top", "label")
    bad = [k for k in texts if k in d and not isinstance(d[k], str)]
    if bad:
        raise CipherfabError(f"peer file {path}: {bad[0]} must be a string")
    rel = lambda names: [str(path.parent / n) for n in ([names] if isinstance(names, str) else names)]
    args = argparse.Namespace(**{k: None for k in OPTIONS}, block_bits=128)
    for k, v in d.items():
        setattr(args, k, rel(v) if k in ("verilog", "include_dir") else v)
    return external_source(args)


# ------------------------------------------------------------------------------ `include
