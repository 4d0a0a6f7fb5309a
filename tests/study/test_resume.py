"""A study interrupted in one session and finished in another, on another machine: the
interrupted run saves its finished builds' measurements in ``partial/builds/``; the next run
of the same study puts them into its (empty) build cache and builds only the rest."""

import json

import pytest

from cipherfab.study import runner
from cipherfab.study.studies import Study
from fakes import fake_cached_build, fake_design_source

STUDY = Study(name="long", title="", description="",
              points=[{"key_bits": 128, "sbox": "rom"}, {"key_bits": 256, "sbox": "lut"}],
              seeds=(1, 2))
RUN = dict(inline=True, show_progress=False, source_fn=fake_design_source)


def _stopping_after(n: int, calls: list):
    """fake_cached_build that is interrupted (Ctrl-C) when it is called the n-th time."""
    def build(src, *, device, seed, use_cache):
        calls.append((src.design["key_bits"], seed))
        if len(calls) == n:
            raise KeyboardInterrupt
        return fake_cached_build(src, device=device, seed=seed, use_cache=use_cache)
    return build


def test_the_next_run_on_another_machine_builds_only_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-1"))
    first = []
    with pytest.raises(runner.StudyInterrupted) as stop:
        runner.run_study(STUDY, out=tmp_path / "out", build=_stopping_after(3, first), **RUN)
    assert stop.value.results["saved_builds"] == 2
    saved = tmp_path / "out" / "long" / "partial" / "builds"
    assert len(list(saved.glob("*.json"))) == 2

    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-2"))   # nothing cached
    second = []

    def counting(src, *, device, seed, use_cache):
        rec = fake_cached_build(src, device=device, seed=seed, use_cache=use_cache)
        if not rec.get("cached"):
            second.append((src.design["key_bits"], seed))
        return rec
    res = runner.run_study(STUDY, out=tmp_path / "out", build=counting, **RUN)
    assert res["resumed_builds"] == 2 and res["summary"]["ok"] == 4
    assert sorted(second) == [(256, 1), (256, 2)]                # the two that did not finish
    assert sum(1 for r in res["records"] if r.get("cached")) == 2
    assert not (tmp_path / "out" / "long" / "partial").exists()  # a complete run supersedes it
    assert json.loads((tmp_path / "out" / "long" / "results.json").read_text())["resumed_builds"] == 2


def _interrupted_twice(tmp_path, monkeypatch, first: int, second: int) -> dict:
    """A run interrupted at its ``first`` build on one machine, then its resume interrupted
    at its ``second`` build on another; returns the second run's results."""
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-1"))
    with pytest.raises(runner.StudyInterrupted):
        runner.run_study(STUDY, out=tmp_path / "out", build=_stopping_after(first, []), **RUN)
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-2"))
    with pytest.raises(runner.StudyInterrupted) as stop:
        runner.run_study(STUDY, out=tmp_path / "out", build=_stopping_after(second, []), **RUN)
    return stop.value.results


def test_an_interrupted_resumed_run_saves_the_builds_of_both_runs(tmp_path, monkeypatch):
    results = _interrupted_twice(tmp_path, monkeypatch, 2, 4)
    assert results["summary"]["finished"] == 3
    assert results["saved_builds"] == 3


def test_a_resumed_run_stopped_before_it_reaches_the_saved_builds_keeps_them(tmp_path, monkeypatch):
    """The saved builds a resumed run has not reached yet (its design points come later, or
    it is stopped at once) are saved again, not lost with the previous partial folder."""
    results = _interrupted_twice(tmp_path, monkeypatch, 3, 1)
    assert results["summary"]["finished"] == 0
    assert results["saved_builds"] == 2
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-3"))
    res = runner.run_study(STUDY, out=tmp_path / "out", build=fake_cached_build, **RUN)
    assert res["resumed_builds"] == 2 and sum(1 for r in res["records"] if r.get("cached")) == 2


def test_no_cache_ignores_the_saved_builds(tmp_path, monkeypatch):
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-1"))
    with pytest.raises(runner.StudyInterrupted):
        runner.run_study(STUDY, out=tmp_path / "out", build=_stopping_after(3, []), **RUN)
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "machine-2"))
    res = runner.run_study(STUDY, out=tmp_path / "out", build=fake_cached_build, use_cache=False, **RUN)
    assert "resumed_builds" not in res and not any(r.get("cached") for r in res["records"])


def test_the_interrupted_line_names_the_resume():
    from cipherfab.study.cli import _interrupted_line

    class Stop:
        signal_name, kept = "SIGTERM", None
        results = {"summary": {"finished": 2, "builds": 4}, "folder": "out/long/partial",
                   "saved_builds": 2}
    assert _interrupted_line(Stop).endswith(
        "partial results in out/long/partial; the same command resumes from its 2 saved builds")
