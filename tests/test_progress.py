"""Progress notes (cipherfab.progress): stage notes on stderr while a command turned them on,
and a note for a long step only once it has run long."""

import io
import time

from cipherfab import cli, progress


def test_stage_notes_go_to_the_stream_only_while_a_command_turned_them_on():
    out = io.StringIO()
    progress.stage("before")                      # nothing turned them on: says nothing
    with progress.stages("build", stream=out):
        progress.stage("synthesis (Yosys, ecp5-85k)")
        time.sleep(0.15)
        progress.stage("place and route")
    progress.stage("after")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0] == "build [0.0 s]: synthesis (Yosys, ecp5-85k)"
    assert lines[1].startswith("build [0.") and lines[1].endswith("]: place and route")
    assert float(lines[1].split("[")[1].split(" s]")[0]) >= 0.1


def test_a_long_step_is_noted_once_it_runs_long_and_then_again():
    out = io.StringIO()
    with progress.after(0.2, "note: elaborating", every=0.3, stream=out):
        time.sleep(0.65)
    lines = out.getvalue().splitlines()
    assert lines[0] == "note: elaborating"
    assert lines[1].startswith("note: elaborating (still running, ") and len(lines) == 2


def test_a_short_step_is_not_noted():
    out = io.StringIO()
    with progress.after(0.5, "note: elaborating", stream=out):
        time.sleep(0.05)
    assert out.getvalue() == ""


def test_generate_system_is_the_step_the_command_line_notes(monkeypatch):
    """``generate --system`` elaborates in one long call: the command line notes it (after a
    delay, so a refusal stays one line); plain ``generate`` and the other commands not."""
    noted = []
    monkeypatch.setattr(cli, "after", lambda delay, text, **kw: noted.append((delay, text)) or io.StringIO())
    parser = cli.build_parser()
    for argv in (["generate", "aes"], ["pick", "aes"], ["generate", "aes", "--system"]):
        cli._long_step_note(parser.parse_args(argv))
    assert len(noted) == 1 and noted[0][0] >= 2 and "accelerator system" in noted[0][1]
