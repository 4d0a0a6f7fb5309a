"""Verilog source files as one self-contained text: each ```include`` inlined, so that a hash of
the text covers everything the design reads (external cores for ``sim``, ``build`` and studies)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import CipherfabError
from .userfiles import read_text

_INCLUDE = re.compile(r'^(\s*)`include\s+"([^"]+)"(.*)$')


def _present(path) -> bool:
    """Something other than a folder is there: a device or FIFO is found, then refused by
    :func:`_read`, rather than reported missing."""
    return os.path.lexists(path) and not os.path.isdir(path)


def _read(path: Path) -> str:
    return read_text(path, "verilog")


def read_verilog(files, include_dirs=()) -> tuple[str, list[str]]:
    """The text of ``files`` (joined in order) with every ```include "name"`` inlined.

    An include is looked for in the including file's folder, then in the folders
    of the other given files, then in ``include_dirs``; a missing one, or a cycle,
    is a one-line refusal naming it.  The result is self-contained, so the build
    cache key (the text's hash) covers the included files too.  Returns the text
    and the include names inlined, in order of first use.
    """
    paths = [Path(f) for f in files]
    for d in include_dirs:
        if not str(d).strip():
            raise CipherfabError("--include-dir: empty path")
        if not os.path.isdir(d):
            raise CipherfabError(f"--include-dir {d}: not a folder")
    others = list(dict.fromkeys(p.parent for p in paths))
    extra = [Path(d) for d in include_dirs]
    used: list[str] = []
    texts = [_inline(p, _read(p), others, extra, [p.resolve()], used) for p in paths]
    return "\n".join(texts), used


def _inline(path: Path, text: str, others: list[Path], extra: list[Path], stack: list[Path],
            used: list[str]) -> str:
    out = []
    for lineno, line in enumerate(text.splitlines(keepends=True), 1):
        m = _INCLUDE.match(line)
        if not m:
            out.append(line)
            continue
        indent, name, rest = m.groups()
        search = list(dict.fromkeys([path.parent, *others, *extra]))
        if Path(name).is_absolute():
            found = Path(name) if _present(name) else None
        else:
            found = next((d / name for d in search if _present(d / name)), None)
        if found is None:
            where = ", ".join(str(d) for d in search)
            raise CipherfabError(f'cannot find `include "{name}" ({path.name} line {lineno}): not in {where}; '
                                 f"give its folder with --include-dir DIR")
        real = found.resolve()
        if real in stack:
            chain = " -> ".join(p.name for p in [*stack, real])
            raise CipherfabError(f'`include cycle: {chain}')
        if name not in used:
            used.append(name)
        body = _inline(found, _read(found), others, extra, [*stack, real], used)
        if body and not body.endswith("\n"):
            body += "\n"
        out.append(f'{indent}// cipherfab: begin of include "{name}" ({path.name} line {lineno})\n')
        out.append(body)
        out.append(f'{indent}// cipherfab: end of include "{name}"\n')
        if rest.strip():
            out.append(f"{indent}{rest.strip()}\n")
    return "".join(out)
