"""The ``cipherfab`` command.

Each subcommand lives beside the code it drives and exposes
``register(subparsers)``, which adds its parser and sets ``func``.
Every refusal is one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys

from . import __version__, cache
from .errors import CipherfabError
from .progress import after
from .userfiles import check_name

#: modules whose ``register(subparsers)`` adds a subcommand, in --help order.
SUBCOMMANDS = [
    "cipherfab.generate",
    "cipherfab.sim.cli",
    "cipherfab.sim.verify",
    "cipherfab.flow.cli",
    "cipherfab.flow.leakage_cli",
    "cipherfab.study.cli",
    "cipherfab.study.pick",
    "cipherfab.host.cli",
    "cipherfab.host.mac_cli",
    "cipherfab.env",
]


#: the caches a command writes, tried before its work (:func:`cipherfab.cache.check`): "own"
#: (the cipherfab cache root) and "tools" (wasmtime's and YoWASP's); every other command: both
CACHES = {"generate": ("tools",), "pick": (), "env": ()}
#: output names checked here, before the command runs (:func:`cipherfab.userfiles.check_name`):
#: (dest, option, a file: True; a folder it makes: False).  generate's own checks would meet
#: a name too long as an OSError, and generate.py is kept unchanged (an edit there re-stamps
#: every point of the verification ledger); the other commands check their outputs through
#: the same helpers where they write them (flow.paths, host.cli, sim.ledger)
NAMES = {"generate": (("output", "-o", True), ("fusesoc", "--fusesoc", False))}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``prog: error: ...``) and exit 2."""

    def error(self, message):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cipherfab", description=(
        "Generate, verify and measure block-cipher cores for FPGAs."))
    parser.add_argument("--version", action="version", version=f"cipherfab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in SUBCOMMANDS:
        importlib.import_module(module).register(sub)
    return parser


def _long_step_note(args):
    """A note on stderr for a long step whose module cannot say it itself: ``generate
    --system`` elaborates the accelerator system in one call (39 s around the masked core), and
    generate.py is part of every core point's generator digest (sim/ledger.py), so a change
    there would make the whole verification ledger stale.  The note comes only once the step
    has run 3 s: a refusal, which comes sooner, stays one line."""
    if args.command == "generate" and getattr(args, "system", False):
        return after(3.0, "note: generate: elaborating the accelerator system "
                          "(Amaranth, then Verilog; up to a minute for large cores)", every=15.0)
    return contextlib.nullcontext()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, or a usage error already printed as one line
        return int(e.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        for dest, option, is_file in NAMES.get(args.command, ()):
            if getattr(args, dest, None):        # room for the .json written beside -o
                check_name(getattr(args, dest), option, room=len(".json") if is_file else 0,
                           file=is_file)
        needs = CACHES.get(args.command, ("own", "tools"))
        if needs:
            cache.check(own="own" in needs, tools="tools" in needs)
        with _long_step_note(args):
            return int(args.func(args) or 0)
    except CipherfabError as e:
        print(f"cipherfab {args.command}: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"cipherfab {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:       # the reader left (`| head`): no traceback, and none at exit
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
