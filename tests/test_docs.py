"""The documentation: the README a newcomer reads first, and the MkDocs site under docs/.

The site must build with ``mkdocs build --strict`` (no broken link or anchor, no page left
out of the nav); the README stays short and gives exactly the two set-up commands; every
relative link in the README and under docs/ reaches a file; and the README's generated
sections are what the project's own generators write from the committed results, so a
hand edit between the markers (or a results file changed without regenerating) fails here.
"""

import difflib
import json
import logging
import re
import shutil
from pathlib import Path

import pytest

import cipherfab
from cipherfab.registry import all_points
from cipherfab.sim import ledger, verify
from cipherfab.study.readme import update_readme

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
KAT = Path(cipherfab.__file__).parent / "vectors" / "kat"   # the KAT files the ledger's digests name
SETUP_COMMANDS = ["pip install -r requirements/main.txt && pip install --no-build-isolation "
                  "--no-deps -e . && cipherfab study quick",
                  "pip install -r requirements/dev.txt && pip install --no-build-isolation "
                  "--no-deps -e . && python -m pytest -n 2"]
README_MAX_LINES = 200

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^)\s]+)\)")   # one level of [] in the text
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


class _Collect(logging.Handler):
    """The warnings of a build, to name them when it aborts."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_site_builds_strict(tmp_path):
    """``mkdocs build --strict``: a warning (a broken link or anchor, a page missing from
    the nav or from docs/) aborts the build."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[dev]')")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    warnings = _Collect()
    logging.getLogger("mkdocs").addHandler(warnings)
    try:
        config = load_config(config_file=str(REPO / "mkdocs.yml"), strict=True,
                             site_dir=str(tmp_path / "site"))
        build(config)
    except Abort as e:
        pytest.fail(f"mkdocs build --strict failed: {e}\n" + "\n".join(warnings.lines))
    finally:
        logging.getLogger("mkdocs").removeHandler(warnings)
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "results" / "verify" / "summary" / "index.html").is_file()


def _section(text: str, heading: str) -> str:
    """The text under a ``## heading`` up to the next ``## `` heading."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def test_readme_is_short_and_gives_exactly_the_two_setup_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    blocks = [b.strip("`\n").split("\n", 1)[-1].strip()
              for b in FENCE.findall(_section(text, "Set up and run"))]
    assert blocks == SETUP_COMMANDS
    ci = " ".join((REPO / ".ci" / "run").read_text().replace("\\\n", " ").replace(" -q", "").split())
    assert SETUP_COMMANDS[1] in ci                     # "`.ci/run` runs the same command"
    assert "The rest of the matrix is `cipherfab verify --all`." in text


def _markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _relative_links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text())     # commands in code blocks are not links
    links = [m.group(1) for m in LINK.finditer(text)]
    return [link for link in links if not re.match(r"[a-z][a-z0-9+.-]*:|#", link)]


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_reach_files(path):
    missing = [link for link in _relative_links(path)
               if not (path.parent / link.split("#")[0]).exists()]
    assert not missing, f"{path.relative_to(REPO)} links to missing files: {missing}"


def _recorded_states(points, book: ledger.Ledger) -> dict[str, str]:
    """Each point's state as ``verify --status --update-readme`` writes it, from the ledger
    alone: its generator digest and today's KAT files, the tool versions left to ``verify
    --status`` itself (this checks the README against the committed ledger, not against
    this machine's tools)."""
    return verify.recorded_states(points, book, KAT, tools=False)


def test_generated_readme_sections_are_what_the_generators_write(tmp_path, monkeypatch):
    """The ``quick`` section from docs/results/quick/results.json (``study quick
    --update-readme``) and the ``verify`` section from the ledger (``verify --status
    --update-readme``), regenerated into a copy of the README: the copy must not change."""
    shutil.copy2(README, tmp_path / "README.md")
    shutil.copy2(REPO / "pyproject.toml", tmp_path / "pyproject.toml")    # marks the repo root
    ledger_copy = tmp_path / "docs" / "results" / "verify" / "ledger.json"
    ledger_copy.parent.mkdir(parents=True)
    shutil.copy2(DOCS / "results" / "verify" / "ledger.json", ledger_copy)

    quick = DOCS / "results" / "quick"
    plot = update_readme(tmp_path / "README.md", "quick", json.loads((quick / "results.json").read_text()), quick)
    book = ledger.Ledger(ledger_copy)
    points = all_points(None)
    monkeypatch.chdir(tmp_path)                  # the generator finds the README from here
    from cipherfab.host.cli import _plug_in_gcm
    _plug_in_gcm()                         # as the command line does: the GCM classes' line
    verify._update_readme(points, _recorded_states(points, book), book)

    want, got = (tmp_path / "README.md").read_text(), README.read_text()
    diff = "".join(difflib.unified_diff(got.splitlines(True), want.splitlines(True),
                                        "README.md", "README.md as generated"))
    assert got == want, ("README.md's generated sections differ from what the generators write; "
                         "regenerate them with `cipherfab study quick --update-readme` or "
                         f"`cipherfab verify --status --update-readme`, never by hand:\n{diff}")
    assert plot is not None and plot.read_bytes() == (DOCS / plot.name).read_bytes()
