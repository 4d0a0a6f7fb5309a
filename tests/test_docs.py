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
    from cipherfab.host.cli import provide_hooks
    provide_hooks()                         # as the command line does: the GCM classes' line
    verify._update_readme(points, _recorded_states(points, book), book)

    want, got = (tmp_path / "README.md").read_text(), README.read_text()
    diff = "".join(difflib.unified_diff(got.splitlines(True), want.splitlines(True),
                                        "README.md", "README.md as generated"))
    assert got == want, ("README.md's generated sections differ from what the generators write; "
                         "regenerate them with `cipherfab study quick --update-readme` or "
                         f"`cipherfab verify --status --update-readme`, never by hand:\n{diff}")
    assert plot is not None and plot.read_bytes() == (DOCS / plot.name).read_bytes()


# ------------------------------------------------------------------- samples and facts
# (tests/doc_samples.py: the samples of docs/guide/*.md marked with the command that
# produced them, the counts the prose states, the paragraphs the README and install.md share)

import doc_samples  # noqa: E402  (tests/ is on sys.path, as for every helper module here)

SAMPLES = doc_samples.samples()


def test_every_sample_marker_is_read():
    """A marker not directly before a fenced block would be skipped silently: refuse it."""
    markers = sum(p.read_text().count("<!-- sample: ") for p in (DOCS / "guide").glob("*.md"))
    assert markers == len(SAMPLES)
    names = {s.path.name for s in SAMPLES}
    assert {"generate.md", "pick.md", "leakage.md", "build.md"} <= names, names


@pytest.mark.parametrize("sample", [pytest.param(s, marks=[pytest.mark.slow] if s.slow else [])
                                    for s in SAMPLES], ids=lambda s: s.name)
def test_guide_sample_is_what_the_tool_prints(sample):
    """Run (or, for ``results FILE``, read from the committed results) and compare; the fix
    is ``python tests/doc_samples.py --write``, never a hand edit."""
    problems = doc_samples.check(sample)
    assert not problems, f"{sample.name}:\n" + "\n".join(problems) + \
        "\n(regenerate with `python tests/doc_samples.py --write`)"


@pytest.mark.slow
@pytest.mark.parametrize("sample", [s for s in SAMPLES if s.results], ids=lambda s: s.name)
def test_committed_results_of_a_sample_are_reproduced(sample, tmp_path):
    """The committed results.json a sample is checked against is what the tool gives today
    (the figures, not the seconds or the processes)."""
    command = re.sub(r"--out \S+", f"--out {tmp_path}", sample.command)
    doc_samples.run(command)
    (want_head, want), (got_head, got) = (
        doc_samples._figures(json.loads(p.read_text())) for p in (sample.results, tmp_path / "results.json"))
    for head in (want_head, got_head):
        del head["seconds"], head["jobs"]
    assert (got_head, got) == (want_head, want)


def test_prose_counts_are_the_registry_counts():
    problems = doc_samples.fact_problems()
    assert not problems, "\n".join(problems) + "\n(regenerate with `python tests/doc_samples.py --write`)"


def test_install_page_carries_the_readme_timings():
    problems = doc_samples.copy_problems()
    assert not problems, "\n".join(problems) + "\n(regenerate with `python tests/doc_samples.py --write`)"


def test_a_wrong_sample_fact_or_copy_is_found(tmp_path, monkeypatch):
    """The checks can fail: a changed output line, a changed |t|, a wrong count, a copy that
    drifted from the README."""
    page = tmp_path / "docs" / "guide" / "pick.md"
    page.parent.mkdir(parents=True)
    pick = next(s for s in SAMPLES if s.path.name == "pick.md")
    page.write_text(pick.path.read_text().replace(" LUT4, ", " LUT4,  "))
    monkeypatch.setattr(doc_samples, "REPO", tmp_path)
    [wrong] = doc_samples.samples([page])
    assert any("differs from the tool's output" in p for p in doc_samples.check(wrong))
    leak = next(s for s in SAMPLES if s.results)
    text = leak.block.replace("at clock ", "at clock 1", 1)
    bad = doc_samples.Sample(leak.path, leak.command, leak.options, text, 0, 0)
    monkeypatch.setattr(doc_samples, "REPO", REPO)
    assert any("clock" in p for p in doc_samples.results_problems(bad))
    assert doc_samples.from_results(bad) == leak.block     # --write puts the figure back
    monkeypatch.setattr(doc_samples, "facts", lambda: {**_facts(), "points": "1"})
    assert any("(points)" in p for p in doc_samples.fact_problems())
    for name in ("README.md", "docs/install.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((REPO / name).read_text())
    (tmp_path / "docs/install.md").write_text((REPO / "docs/install.md").read_text().replace("147.5 s", "99 s"))
    monkeypatch.setattr(doc_samples, "REPO", tmp_path)
    assert any("differs from README.md" in p for p in doc_samples.copy_problems())


_facts = doc_samples.facts


def test_layout_names_every_module_in_its_folders_section():
    """docs/layout.md is checked against the tree: every module (and C++/Verilog source) of
    the package is named in the section of its top-level folder (issue 35: 24 were missing)."""
    text = (DOCS / "layout.md").read_text()
    tree = text[text.index("src/cipherfab/"):text.index("\ntests/")]
    heads = list(re.finditer(r"^  (\w+)/", tree, re.M))
    sections = {"": tree[:heads[0].start()]}
    for a, b in zip(heads, heads[1:] + [None]):
        sections[a.group(1)] = tree[a.start():b.start() if b else len(tree)]
    pkg = Path(cipherfab.__file__).parent
    missing = []
    for f in sorted(pkg.rglob("*")):
        rel = f.relative_to(pkg)
        if (f.suffix not in (".py", ".cpp", ".v") or f.name == "__init__.py" or "__pycache__" in rel.parts
                or rel.parts[:2] == ("vectors", "kat")):
            continue
        section = sections.get(rel.parts[0] if len(rel.parts) > 1 else "", "")
        if not re.search(rf"(?<![\w/]){re.escape(f.stem)}(?:{re.escape(f.suffix)})?(?!\w)", section):
            missing.append(str(rel))
    assert not missing, f"docs/layout.md does not name: {missing}"
