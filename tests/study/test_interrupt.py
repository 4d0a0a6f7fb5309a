"""A study stopped by Ctrl-C or SIGTERM, in a fresh process (signals are the point):
it stops within seconds, kills its workers and the tools they run, leaves no temporary
folder, keeps the previous complete results, puts the finished builds in partial/, and
ends with one line and exit 130 (SIGINT) or 143 (SIGTERM).

The study ``waits`` (tests/study/study_on_fakes.py) has, per seed, a point that builds at
once and one whose build holds a ``cipherfab-build-*`` folder and waits a minute on a child
process, as a real build waits on yosys or nextpnr.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
COMPLETE = {"results.json": '{"interrupted": false, "summary": {"ok": 4}}\n',
            "report.md": "# the complete report\n", "throughput_vs_lut4.png": "old plot"}


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(tmp_path: Path, *options: str) -> tuple[subprocess.Popen, Path]:
    """The study ``waits`` on 2 workers, in its own session (as a terminal's foreground job),
    once its two waiting builds hold their child processes."""
    for d in ("tmp", "pids"):
        (tmp_path / d).mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "FAKE_CHILD_PIDS": str(tmp_path / "pids")}
    proc = subprocess.Popen([sys.executable, str(HERE / "study_on_fakes.py"), "waits", "-j", "2",
                             "--out", str(tmp_path / "out"), *options],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 15
    while len(list((tmp_path / "pids").iterdir())) < 2:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the builds did not start: {proc.communicate()}")
        time.sleep(0.05)
    return proc, tmp_path / "out" / "waits"


def _stop(proc: subprocess.Popen, send) -> tuple[float, str, str]:
    t0 = time.monotonic()
    send()
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the study did not stop within 15 s")
    return time.monotonic() - t0, out, err


def _check_cleaned_up(tmp_path: Path):
    children = [int(f.name.split("-")[1]) for f in (tmp_path / "pids").iterdir()]
    deadline = time.monotonic() + 3          # a killed child may take a moment to be reaped
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in children), "a tool process outlived the study"
    assert list((tmp_path / "tmp").iterdir()) == []      # no cipherfab-study-*/cipherfab-build-*


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_interrupt_keeps_complete_results_and_cleans_up(sig, code, tmp_path):
    folder = tmp_path / "out" / "waits"
    folder.mkdir(parents=True)
    for name, text in COMPLETE.items():
        (folder / name).write_text(text)
    proc, folder = _start(tmp_path, "--quiet")
    if sig == signal.SIGINT:    # Ctrl-C: the terminal signals the whole foreground group
        seconds, out, err = _stop(proc, lambda: os.killpg(proc.pid, sig))
    else:                       # kill PID: the study alone
        seconds, out, err = _stop(proc, lambda: proc.send_signal(sig))
    assert proc.returncode == code and seconds < 5, (proc.returncode, seconds, err)
    name = signal.Signals(sig).name
    assert err.splitlines() == [
        f"cipherfab study: interrupted ({name}) after 2 of 4 builds; partial results in "
        f"{folder / 'partial'}; the complete results in {folder} were kept"], err
    assert out == ""
    assert {f.name: f.read_text() for f in folder.iterdir() if f.is_file()} == COMPLETE
    partial = json.loads((folder / "partial" / "results.json").read_text())
    assert partial["interrupted"] is True and partial["summary"]["finished"] == 2
    assert "interrupted" in (folder / "partial" / "report.md").read_text()
    _check_cleaned_up(tmp_path)


def test_first_run_interrupted_with_progress_lines(tmp_path):
    """No earlier results: the partial ones still go to partial/; the progress lines (not a
    terminal: one whole line per build) come before the closing line."""
    proc, folder = _start(tmp_path)
    seconds, out, err = _stop(proc, lambda: os.killpg(proc.pid, signal.SIGINT))
    assert proc.returncode == 130 and seconds < 5, err
    lines = err.splitlines()
    assert lines[0].startswith("study waits: 4 builds (2 design points x seeds 1, 2)")
    assert [line[:12] for line in lines[1:3]] == ["[1/4] ok    ", "[2/4] ok    "]
    assert lines[3] == (f"cipherfab study: interrupted (SIGINT) after 2 of 4 builds; "
                        f"partial results in {folder / 'partial'}")
    assert len(lines) == 4 and not (folder / "results.json").exists()
    _check_cleaned_up(tmp_path)
