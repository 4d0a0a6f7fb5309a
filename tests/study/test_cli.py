"""``cipherfab study``: refusals are one line with exit 2; a run on the test fakes writes the report."""

import functools
import subprocess
import sys

import pytest

from cipherfab.study import cli as study_cli
from cipherfab.study import runner
from fakes import FAKE


@pytest.fixture
def on_fakes(monkeypatch):
    """``cipherfab study`` in this process, its sweep on the test fakes (by name, for workers)."""
    monkeypatch.setattr(runner, "run_study", functools.partial(runner.run_study, **FAKE))


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "cipherfab.study.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_unknown_study_is_one_line_exit_2():
    p = _run("nosuch")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert "unknown study 'nosuch'" in lines[0] and "quick" in lines[0]
    assert "Traceback" not in p.stderr


def test_unknown_study_in_process(capsys):
    assert study_cli.main(["nosuch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cipherfab study: error: unknown study")


def test_unknown_study_through_cipherfab_cli_when_wired(capsys):
    from cipherfab import cli
    if "cipherfab.study.cli" not in cli.SUBCOMMANDS:
        pytest.skip("study not wired into cipherfab.cli yet")
    assert cli.main(["study", "nosuch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown study" in err[0]


@pytest.mark.parametrize("args, words", [
    (["quick", "--seeds", "1,x"], "seeds must be"),
    (["quick", "--seeds", "1,,2"], "empty seed in '1,,2'"),
    (["quick", "--seeds", "1,"], "empty seed in '1,'"),
    (["quick", "--seeds", ",1"], "empty seed in ',1'"),
    (["quick", "--seeds", ""], "at least one seed is needed"),
    (["quick", "--seeds", "1,1"], "repeated seed"),
    (["quick", "--seeds=-1"], "seeds must be >= 0"),
    (["quick", "-j", "0"], "must be >= 1"),
    (["quick", "--top", "x"], "needs --verilog"),
    (["quick", "--verilog", "nonexistent.v", "--top", "t", "--cycles-per-block", "4"],
     "Verilog file nonexistent.v: no such file"),
    (["quick", "--verilog", "nonexistent.v", "--cycles-per-block", "4"], "needs --top"),
])
def test_bad_options_are_one_line_exit_2(args, words, capsys, on_fakes):
    rc = study_cli.main(args + ["--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and words in err[0], err


def test_fake_option_is_gone(capsys):
    assert study_cli.main(["quick", "--fake"]) == 2
    assert "unrecognized arguments: --fake" in capsys.readouterr().err


def test_quick_with_external_core_on_fakes(tmp_path, capsys, monkeypatch, on_fakes):
    v = tmp_path / "their.v"
    v.write_text("module their_aes(input clk); endmodule\n")
    argv = ["quick", "--quiet", "-j", "2", "--out", str(tmp_path / "rep"), "--verilog", str(v),
            "--top", "their_aes", "--cycles-per-block", "12", "--latency", "12"]
    monkeypatch.setattr(sys, "argv", ["cipherfab", "study", *argv])
    assert study_cli.main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "14/14 builds ok" in out
    md = (tmp_path / "rep" / "quick" / "report.md").read_text()
    assert "their_aes (external)" in md
    assert "cipherfab study quick --quiet -j 2" in md


def test_all_builds_failed_exit_1(tmp_path, capsys, monkeypatch, on_fakes):
    from cipherfab.study import studies
    bad = studies.Study(name="allbad", title="", description="", points=[{"key_bits": 7}])
    monkeypatch.setitem(studies.STUDIES, "allbad", bad)
    rc = study_cli.main(["allbad", "--quiet", "-j", "1", "--out", str(tmp_path)])
    captured = capsys.readouterr()
    assert rc == 1
    assert "all 2 builds failed" in captured.err and len(captured.err.strip().splitlines()) == 1
    assert (tmp_path / "allbad" / "report.md").is_file()


@pytest.mark.parametrize("out", ["/dev/null/x", "{tmp}/file"])
def test_unwritable_out_is_refused_before_any_build(out, tmp_path, capsys, monkeypatch, on_fakes):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setattr(runner, "sweep", lambda *a, **k: pytest.fail("a build started"))
    assert study_cli.main(["quick", "--quiet", "--out", out.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write results to" in err[0] and "Not a directory" in err[0], err


def test_unwritable_out_through_the_command(tmp_path):
    p = _run("quick", "--quiet", "--out", "/dev/null/x")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip() == "cipherfab study: error: cannot write results to /dev/null/x/quick: Not a directory"


def test_piped_progress_ends_each_line(tmp_path, capsys, on_fakes):
    """Not a terminal: the progress is whole lines, so the summary starts a line of its own."""
    assert study_cli.main(["quick", "-j", "1", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.endswith("\n")
    lines = captured.err.splitlines()
    assert lines[0].startswith("study quick: 12 builds") and len(lines) == 13
    assert [line.split()[0] for line in lines[1:]] == [f"[{i}/12]" for i in range(1, 13)]
    assert captured.out.startswith("quick: 12/12 builds ok in ") and captured.out.count("\n") == 1
