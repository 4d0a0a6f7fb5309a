"""The reports rendered from templates: every committed report is exactly what its committed
results.json renders to (so neither a template change nor a stale report goes unnoticed), and
the two templates escape what each format needs."""

import json
import re
from pathlib import Path

import pytest

from cipherfab.study import report
from cipherfab.study.document import Doc, render_html, render_md

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"
STUDIES = ("quick", "aes-space", "finalists", "system", "key-specific", "flow-options")
#: plots are embedded in the HTML; their bytes depend on the matplotlib build, not on the templates
DATA_URI = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


def _first_difference(want: str, got: str) -> str:
    for n, (w, g) in enumerate(zip(want.splitlines(), got.splitlines()), 1):
        if w != g:
            return f"line {n}:\n committed: {w[:300]}\n rendered:  {g[:300]}"
    return f"lengths differ: {len(want.splitlines())} committed lines, {len(got.splitlines())} rendered"


#: a screenshot of chart.html in Chromium (tests/study/test_chart.py takes one), committed beside some reports
SCREENSHOT = "chart.png"


@pytest.mark.parametrize("study", STUDIES)
def test_the_committed_report_is_what_its_results_render_to(study, tmp_path):
    folder = RESULTS / study
    report.write_report(json.loads((folder / "results.json").read_text()), tmp_path)
    fix = f"(regenerate: python -m cipherfab.study.report docs/results/{study}/results.json)"
    for name, norm in (("report.md", str), ("report.html", lambda s: DATA_URI.sub("data:…", s)),
                       ("chart.html", str)):
        want, got = norm((folder / name).read_text()), norm((tmp_path / name).read_text())
        assert got == want, f"docs/results/{study}/{name} {fix}: {_first_difference(want, got)}"
    drawn = {p.name for p in tmp_path.glob("*.png")}
    assert drawn == {p.name for p in folder.glob("*.png")} - {SCREENSHOT}     # the browser's picture of chart.html


def _doc() -> Doc:
    doc = Doc()
    doc.h(2, "A & B")
    doc.p("run `cipherfab study` <now>")
    doc.table(["Design", "it's"], [["a|b", None], ["x\ny", 1.5]], caption="Cap <1>",
              notes=["see `x`"])
    doc.ul(["one", "`two`"])
    doc.img("plot.png", "T", "C")
    return doc


def test_markdown_escapes_table_cells_only():
    assert render_md(_doc()) == (
        "## A & B\n\nrun `cipherfab study` <now>\n\n**Cap <1>**\n\n| Design | it's |\n|---|---:|\n"
        "| a\\|b | None |\n| x y | 1.5 |\n\n> see `x`\n\n- one\n- `two`\n\n![T](plot.png)\n\n*C*\n")


def test_html_escapes_every_value_as_html_escape_does(tmp_path):
    (tmp_path / "plot.png").write_bytes(b"png")
    page = render_html(_doc(), tmp_path, title="t'")
    assert "<title>t&#x27;</title>" in page
    assert "<h2>A &amp; B</h2>" in page
    assert "<p>run <code>cipherfab study</code> &lt;now&gt;</p>" in page
    assert "<tr><th>Design</th><th>it&#x27;s</th></tr>" in page
    assert "<tr><td class='l'>a|b</td><td class='r'>None</td></tr>" in page
    assert "<blockquote>see <code>x</code></blockquote>" in page
    assert "<ul><li>one</li><li><code>two</code></li></ul>" in page
    assert "<img src='data:image/png;base64,cG5n' alt='T'>" in page
    assert page.endswith("</body></html>\n")
    assert "<img src='plot.png'" in render_html(_doc())  # no folder: linked, not embedded
