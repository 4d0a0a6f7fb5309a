"""Generated sections of README.md: the text between ``<!-- results:NAME:begin -->`` and
``<!-- results:NAME:end -->``, rewritten by ``study NAME --update-readme`` and
``verify --status --update-readme`` (each tool renders its own section; this module finds the
README and swaps the text)."""

from __future__ import annotations

from pathlib import Path

from .errors import CipherfabError


def markers(name: str) -> tuple[str, str]:
    return f"<!-- results:{name}:begin -->", f"<!-- results:{name}:end -->"


def find_readme(start: str | Path | None = None) -> Path:
    """README.md at the repository root, found from ``start`` (default: the current folder) upwards."""
    here = Path(start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "README.md").is_file() and ((d / "pyproject.toml").is_file() or (d / ".git").exists()):
            return d / "README.md"
    raise CipherfabError(f"--update-readme: no README.md at a repository root in {here} or above")


def check_markers(readme: Path, name: str) -> str:
    """The README text, if it has exactly one begin marker before one end marker for ``name``."""
    try:
        text = readme.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise CipherfabError(f"--update-readme: cannot read {readme}: {getattr(e, 'strerror', None) or e}") from None
    begin, end = markers(name)
    nb, ne = text.count(begin), text.count(end)
    if nb == 0 or ne == 0:
        raise CipherfabError(f"--update-readme: {readme} has no '{begin}' ... '{end}' markers; "
                             "add them where the results belong")
    if nb > 1 or ne > 1 or text.index(end) < text.index(begin):
        raise CipherfabError(f"--update-readme: {readme} needs exactly one '{begin}' before one '{end}'")
    return text


def replace_section(readme: Path, name: str, body: str, text: str | None = None) -> None:
    """Write ``body`` between the ``name`` markers of ``readme`` (``text``: its checked content)."""
    text = text if text is not None else check_markers(readme, name)
    begin, end = markers(name)
    head, _, tail = text.partition(begin)
    _, _, tail = tail.partition(end)
    try:
        readme.write_text(f"{head}{begin}\n{body}\n{end}{tail}")
    except OSError as e:
        raise CipherfabError(f"--update-readme: cannot write {readme}: {e.strerror or e}") from None
