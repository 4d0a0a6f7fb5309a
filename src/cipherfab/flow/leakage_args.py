"""What ``cipherfab leakage`` checks of its arguments before any work, and how it writes its
results, for every model (:mod:`.leakage_cli`, :mod:`.robust_cli`)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import CipherfabError
from ..userfiles import atomic


def hex_block(bits: int):
    def parse(text: str) -> bytes:
        try:
            value = bytes.fromhex(text)
        except ValueError:
            raise CipherfabError(f"{text!r} is not hex") from None
        if 8 * len(value) != bits:
            raise CipherfabError(f"{text!r} has {8 * len(value)} bits, not {bits}")
        return value
    return parse


def check_out(out: Path, files: tuple[str, ...]) -> None:
    """Refuse an ``--out`` folder the results cannot be written to, before any work: a file
    in its place, a folder that cannot be made or written, a result's name taken by a folder."""
    if out.exists() and not out.is_dir():
        raise CipherfabError(f"--out {out}: a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".cipherfab-write-test-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise CipherfabError(f"--out {out}: cannot write there: {e.strerror or e}") from None
    for name in files:
        f = out / name
        if f.exists() and not f.is_file():
            raise CipherfabError(f"--out {out}: {f} is there and is not a file")


def replace_file(out: Path, name: str, write) -> None:
    """``write(file)`` into a temporary file in ``out``, renamed to ``name`` when complete: an
    identical run at once, or a stop, never leaves half a file."""
    with atomic(out / name, prefix=f".{name}-") as tmp, open(tmp, "wb") as f:
        write(f)


def save_figure(out: Path, name: str, fig) -> None:
    """``fig`` as a PNG ``name`` in ``out`` (atomically), then closed."""
    import matplotlib.pyplot as plt
    try:
        replace_file(out, name, lambda f: fig.savefig(f, dpi=110, format="png"))
    finally:
        plt.close(fig)
