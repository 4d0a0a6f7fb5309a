"""``cipherfab study NAME --update-readme``: the README's results section, regenerated from results.json."""

import functools
import json

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.study import cli as study_cli
from cipherfab import readme as markers_file
from cipherfab.study import readme as R
from cipherfab.study import runner
from cipherfab.study.studies import Study
from fakes import FAKE

POINTS = [dict(cipher="aes", arch="iterative", key_bits=k, direction="encrypt", sbox=s)
          for k in (128, 256) for s in ("lut", "rom")]

BEFORE = "# project\n\nIntro text.\n\n## Latest measured results\n\n"
AFTER = "\n\nMore text after.\n"


def _repo(tmp_path, markers=True):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    mid = "<!-- results:t:begin -->\nold numbers\n<!-- results:t:end -->" if markers else "no markers"
    (tmp_path / "README.md").write_text(BEFORE + mid + AFTER)
    return tmp_path / "README.md"


def _results(tmp_path, points=POINTS):
    st = Study(name="t", title="readme test", description="", points=points, seeds=(1, 2))
    return runner.run_study(st, out=tmp_path / "reports", inline=True, show_progress=False,
                            command="cipherfab study t -j 2", **FAKE)


def test_section_rewritten_from_results(tmp_path):
    readme = _repo(tmp_path)
    res = _results(tmp_path)
    env = json.loads((tmp_path / "reports" / "t" / "results.json").read_text())["environment"]
    assert env["cpu_model"] and env["cpu_count"] and env["os"]
    plot = R.update_readme(readme, "t", res, res["folder"])
    assert plot == tmp_path / "docs" / "t_throughput_vs_lut4.png" and plot.read_bytes()[:4] == b"\x89PNG"
    text = readme.read_text()
    assert text.startswith(BEFORE + "<!-- results:t:begin -->\n") and text.endswith("<!-- results:t:end -->" + AFTER)
    assert "old numbers" not in text
    date = res["finished"][:10]
    assert f"Produced with `cipherfab study t -j 2` on {date} (8 of 8 builds ok; wall time" in text
    assert f"Machine: {env['cpu_model']}, {env['cpu_count']} cores, {env['os']}." in text
    assert "Tools: fake 0.0; fake 0.0 (packages fake-yosys 0.0)." in text
    assert "placer seeds 1 and 2" in text and "median over seeds, with min–max" in text
    assert ("| design | LUT4 | FF | EBR | Fmax MHz | cycles/block ECB | Mbit/s ECB | Mbit/s CBC | "
            "Mbit/s per LUT4 |") in text
    rows = [l for l in text.splitlines() if l.startswith("| AES-")]
    assert [r.split(" | ")[0] for r in rows] == ["| AES-128 encrypt, lut", "| AES-128 encrypt, rom",
                                                 "| AES-256 encrypt, lut", "| AES-256 encrypt, rom"]
    agg = next(a for a in res["aggregates"] if a["params"] == POINTS[1])
    st = agg["stats"]
    fmax = st["timing.fmax_mhz"]
    assert rows[1] == (f"| AES-128 encrypt, rom | {st['area.lut4']['median']:.0f} | {st['area.ff']['median']:.0f} | 10 | "
                       f"{fmax['median']:.1f} ({fmax['min']:.1f}–{fmax['max']:.1f}) | 11 | "
                       f"{st['performance.throughput_ecb_mbps']['median']:.1f} | "
                       f"{st['performance.throughput_cbc_mbps']['median']:.1f} | "
                       f"{st['performance.mbps_per_lut4']['median']:.3f} |")
    assert "![throughput vs LUT4](docs/t_throughput_vs_lut4.png)" in text
    assert "†" not in text
    # a second run replaces the section, it does not add one
    R.update_readme(readme, "t", res, res["folder"])
    assert readme.read_text() == text


def test_cached_rows_are_marked(tmp_path):
    readme = _repo(tmp_path)
    res = _results(tmp_path, [POINTS[0], {**POINTS[1], "cached": True}])
    R.update_readme(readme, "t", res, res["folder"])
    text = readme.read_text()
    rows = [l.split(" | ")[0] for l in text.splitlines() if l.startswith("| AES-")]
    assert rows == ["| AES-128 encrypt, lut", "| AES-128 encrypt rom, True †"]
    assert "† Includes builds reused from the build cache" in text


def test_find_readme_and_markers(tmp_path):
    readme = _repo(tmp_path, markers=False)
    (tmp_path / "src" / "deep").mkdir(parents=True)
    assert markers_file.find_readme(tmp_path / "src" / "deep") == readme
    with pytest.raises(CipherfabError) as e:
        markers_file.check_markers(readme, "t")
    assert str(e.value) == (f"--update-readme: {readme} has no '<!-- results:t:begin -->' ... "
                            "'<!-- results:t:end -->' markers; add them where the results belong")
    readme.write_text("<!-- results:t:end -->\n<!-- results:t:begin -->\n")
    with pytest.raises(CipherfabError, match="exactly one"):
        markers_file.check_markers(readme, "t")
    lone = tmp_path / "elsewhere"
    lone.mkdir()
    (tmp_path / "pyproject.toml").unlink()
    with pytest.raises(CipherfabError, match="no README.md at a repository root"):
        markers_file.find_readme(lone)


@pytest.fixture
def on_fakes(monkeypatch):
    monkeypatch.setattr(runner, "run_study", functools.partial(runner.run_study, **FAKE))
    st = Study(name="t", title="readme test", description="", points=POINTS[:2], seeds=(1,))
    from cipherfab.study import studies
    monkeypatch.setitem(studies.STUDIES, "t", st)


def test_cli_refuses_missing_markers_before_any_build(tmp_path, monkeypatch, capsys, on_fakes):
    _repo(tmp_path, markers=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "sweep", lambda *a, **k: pytest.fail("a build started"))
    assert study_cli.main(["t", "--quiet", "--update-readme"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has no '<!-- results:t:begin -->'" in err[0]


def test_cli_updates_readme(tmp_path, monkeypatch, capsys, on_fakes):
    readme = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", ["cipherfab", "study", "t", "--quiet", "--update-readme"])
    assert study_cli.main(["t", "--quiet", "--update-readme", "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert "results:t section rewritten" in out
    text = readme.read_text()
    assert "Produced with `cipherfab study t --quiet --update-readme`" in text
    assert "| AES-128 encrypt, rom |" in text and (tmp_path / "docs" / "t_throughput_vs_lut4.png").is_file()
