"""What a study says while it runs (issue 33): a piped log is never silent for long, and
the closing line counts the builds the cache answered."""

import io
import time

from rich.console import Console

from cipherfab.study import cli as study_cli
from cipherfab.study import display, runner, studies
from fakes import FAKE, fake_build, fake_design_source


def _slow_build(src, **kwargs):
    time.sleep(0.5)
    return fake_build(src, **kwargs)


def test_a_piped_sweep_says_how_far_it_is_while_no_build_finishes(monkeypatch):
    monkeypatch.setattr(display, "HEARTBEAT_SECONDS", 0.2)
    log = io.StringIO()
    points = runner.make_points([dict(cipher="aes", arch="iterative", key_bits=128, sbox="rom")])
    recs = runner.sweep(points, [1, 2], inline=True, console=Console(file=log, width=200),
                        build=_slow_build, source_fn=fake_design_source, title="study t")
    lines = log.getvalue().splitlines()
    assert len(recs) == 2 and lines[0].startswith("study t: 2 builds (1 design point x seeds 1, 2)")
    beats = [line for line in lines if "builds done" in line]
    assert "study t: 0/2 builds done, 1 running" in beats, lines
    assert any(line.startswith("study t: 1/2 builds done, 1 running") for line in beats), lines
    assert lines.index(next(b for b in beats if b.startswith("study t: 1/2"))) > \
        lines.index(next(line for line in lines if line.startswith("[1/2]")))


def test_a_quick_sweep_says_nothing_more(monkeypatch):
    """Builds that finish sooner than the heartbeat: the log is the opening line and one per build."""
    log = io.StringIO()
    points = runner.make_points([dict(cipher="aes", arch="iterative", key_bits=128, sbox="rom")])
    runner.sweep(points, [1, 2], inline=True, console=Console(file=log, width=200), **FAKE)
    assert not [line for line in log.getvalue().splitlines() if "builds done" in line]


def test_the_closing_line_counts_the_builds_from_the_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(studies.STUDIES, "halfcached", studies.Study(
        name="halfcached", title="", description="", seeds=(1,),
        points=[dict(cipher="aes", key_bits=128, sbox="rom", cached=True),
                dict(cipher="aes", key_bits=128, sbox="lut")]))
    real = runner.run_study
    monkeypatch.setattr(runner, "run_study", lambda *a, **k: real(*a, **k, **FAKE))
    assert study_cli.main(["halfcached", "--quiet", "-j", "1", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("halfcached: 2/2 builds ok in ")
    assert " s (1 from the build cache); report: " in captured.out and captured.err == ""


def test_a_study_with_software_baselines_says_so_before_measuring_them(tmp_path, capsys, monkeypatch):
    """``finalists`` measures its software baselines (about a minute) before any build: a
    line on stderr says so first, not after a silent minute."""
    from cipherfab.study import software
    said = []
    monkeypatch.setattr(software, "measure", lambda points: said.append(capsys.readouterr().err) or [])
    study = studies.Study(name="sw", title="", description="", seeds=(1,), software=True,
                          points=[dict(cipher="aes", key_bits=128, sbox="rom")])
    runner.run_study(study, out=tmp_path, inline=True, console=Console(file=io.StringIO()), **FAKE)
    assert said == ["study sw: measuring the software baselines first, on one core with no build "
                    "beside it (about a minute)\n"]
    runner.run_study(study, out=tmp_path, inline=True, show_progress=False, **FAKE)    # --quiet
    assert said[1] == ""
