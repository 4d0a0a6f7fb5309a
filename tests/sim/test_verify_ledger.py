"""The verification ledger through ``cipherfab verify``: recording, --status, --changed, the
summary, Dask, and the refusals (on the toy cipher of tests/registry, whose cores build fast)."""

import json
import shutil

import pytest

from cipherfab import cluster

from cipherfab.cli import main
from cipherfab.registry import all_points
from cipherfab.sim import ledger

pytestmark = pytest.mark.usefixtures("toy_registry")


def _verify(*argv):
    return main(["verify", "toyxor", *argv])


def test_all_records_every_point_then_status_is_clean(tmp_path, capsys):
    book = tmp_path / "v" / "ledger.json"
    assert _verify("--all", "--random", "100", "--ledger", str(book)) == 0
    out = capsys.readouterr().out
    assert "phases (seconds summed over points): " in out and "elaborate" in out
    data = json.loads(book.read_text())
    points = [p.top for p in all_points("toyxor")]
    assert sorted(data["points"]) == sorted(points)
    e = data["points"][points[0]]
    assert e["verdict"] == "pass" and len(e["verilog_sha256"]) == 64
    assert e["generator_digest"] == ledger.generator_digest(all_points("toyxor")[0])
    assert e["tools"]["verilator"] and list(e["vectors"].values())[0] == ledger.file_digest(
        next(iter(e["vectors"])))
    assert data["last_run"]["command"] == "cipherfab verify toyxor --all --random 100"
    from cipherfab.host import verify_gcm          # and the system's modes around its classes
    classes = verify_gcm.gcm_points("toyxor")
    assert sorted(data["gcm"]) == sorted(verify_gcm.key(c) for c in classes) and classes
    assert data["last_run"]["points"] == len(points) + len(classes) and data["last_run"]["failed"] == 0
    summary = (book.parent / "summary.md").read_text()
    assert f"| toyxor | pipe | {len([p for p in points if 'pipe' in p])} |" in summary
    assert _verify("--status", "--ledger", str(book)) == 0
    assert f"{len(points)} fresh, 0 stale" in capsys.readouterr().out


def test_status_names_stale_failed_and_never_verified_points(tmp_path, capsys):
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "50", "--ledger", str(book)) == 0
    data = json.loads(book.read_text())
    tops = sorted(data["points"])
    data["points"][tops[0]]["verilog_sha256"] = "0" * 64          # a different Verilog
    data["points"][tops[1]]["generator_digest"] = "old"           # generator changed: generated again
    data["points"][tops[1]]["verilog_sha256"] = "1" * 64
    data["points"][tops[2]]["verdict"] = "fail"
    data["points"][tops[3]]["vectors"] = {"x.rsp": "2" * 64}
    data["points"][tops[4]]["tools"]["verilator"] = "4.0"
    data["points"][tops[5]]["tools"]["cryptography"] = "1.0"       # the reference: recorded only
    book.write_text(json.dumps(data))
    capsys.readouterr()
    assert _verify("--status", "--ledger", str(book)) == 1
    out = capsys.readouterr().out
    fixed = [p.top for p in all_points("toyxor") if p.arch == "fixed"]
    assert f"never    {fixed[0]}" in out
    assert f"failed   {tops[2]}" in out
    assert f"stale: KAT files changed {tops[3]}" in out
    assert f"stale: verilator changed (4.0 -> " in out
    assert tops[5] not in out                  # another cryptography leaves the verdict fresh
    assert f"stale: Verilog changed {tops[1]}" in out
    # the digest shortcut: an entry with today's generator digest is taken at its word
    assert tops[0] not in out.replace(f"stale: Verilog changed {tops[1]}", "")
    assert "| toyxor | pipe |" in out


def test_changed_reverifies_only_what_is_not_fresh(tmp_path, capsys):
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "50", "--ledger", str(book)) == 0
    data = json.loads(book.read_text())
    tops = sorted(data["points"])
    data["points"][tops[2]]["verdict"] = "fail"
    del data["points"][tops[3]]
    book.write_text(json.dumps(data))
    capsys.readouterr()
    assert _verify("--all", "--arch", "pipe", "--changed", "--random", "50", "--ledger", str(book)) == 0
    out = capsys.readouterr().out
    assert f"{len(tops) - 2} points fresh in {book}, 2 to verify" in out
    checked = sorted(ln.split()[2].rstrip(":") for ln in out.splitlines() if ln.startswith("["))
    assert checked == sorted([tops[2], tops[3]])
    assert all(e["verdict"] == "pass" for e in json.loads(book.read_text())["points"].values())


def test_changed_counts_finding_the_stale_points_in_the_runs_wall_time(tmp_path, monkeypatch):
    """The generator changed: every point is generated again to compare its Verilog before
    any is verified (on AES, half an hour); the ledger's last run includes that time."""
    import time

    from cipherfab.sim import verify
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "20", "--ledger", str(book)) == 0
    data = json.loads(book.read_text())
    del data["points"][sorted(data["points"])[0]]
    book.write_text(json.dumps(data))
    states = verify._states
    monkeypatch.setattr(verify, "_states", lambda *a: (time.sleep(2.0), states(*a))[1])
    assert _verify("--all", "--arch", "pipe", "--changed", "--random", "20", "--ledger", str(book)) == 0
    assert json.loads(book.read_text())["last_run"]["wall_seconds"] >= 2.0


def test_changed_with_nothing_to_verify_leaves_the_ledger_as_it_was(tmp_path, capsys):
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "20", "--ledger", str(book)) == 0
    before = book.read_bytes()
    summary = (tmp_path / "summary.md").read_bytes()
    assert _verify("--all", "--arch", "pipe", "--changed", "--ledger", str(book)) == 0
    assert "nothing to verify: every point is fresh" in capsys.readouterr().out
    assert book.read_bytes() == before and (tmp_path / "summary.md").read_bytes() == summary


def test_failed_point_is_recorded_as_failed(tmp_path, capsys, monkeypatch):
    import toyxor.hw as hw
    real = hw._info
    monkeypatch.setattr(hw, "_info", lambda *a, **k: real(*a[:4], a[4] - 1, **k))  # latency lies
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "20", "--ledger", str(book)) == 1
    data = json.loads(book.read_text())
    assert all(e["verdict"] == "fail" for e in data["points"].values())
    assert _verify("--status", "--ledger", str(book)) == 1


def test_verify_on_a_dask_cluster(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    book = tmp_path / "ledger.json"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert _verify("--all", "--arch", "pipe", "--random", "50", "--ledger", str(book),
                       "--scheduler", cluster.scheduler_address) == 0
    data = json.loads(book.read_text())
    assert sorted(data["points"]) == sorted(p.top for p in all_points("toyxor") if p.arch == "pipe")
    assert f"--scheduler {cluster.scheduler_address}" in data["last_run"]["command"]


BAD = [
    (["--changed"], "--changed goes with --all"),
    (["--status", "--all"], "--status only reads the ledger"),
    (["--status", "-j", "2"], "--status only reads the ledger"),
    (["--all", "-j", "2", "--scheduler", "tcp://127.0.0.1:1"], "-j/--jobs and --scheduler exclude each other"),
    (["--all", "--stages", "2"], "--all checks every point; --stages picks one"),
    (["--update-readme"], "--update-readme goes with --status"),
    (["--status", "--ledger", "{tmp}/bad.json"], "is not a cipherfab verification ledger"),
    (["--status", "--ledger", "{tmp}/notjson.json"], "cannot be read"),
    (["--all", "--ledger", "{tmp}"], "is a folder, not a file"),
    (["--all", "--ledger", "/proc/x/ledger.json"], "cannot write the ledger /proc/x/ledger.json"),
    (["--all", "--ledger", "{tmp}/file/ledger.json"], "cannot write the ledger"),
    # a selection that matches no point: refused, naming the architectures, no ledger written
    (["--all", "--arch", "pip", "--ledger", "{tmp}/new.json"], "toyxor: --arch 'pip' is not supported; choose from"),
    (["--status", "--arch", "pip"], "toyxor: --arch 'pip' is not supported; choose from"),
    (["--all", "--arch", "", "--ledger", "{tmp}/new.json"], "toyxor: --arch '' is not supported"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_refusals_are_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "bad.json").write_text('{"schema": 1, "points": {"x": {"verdict": "pass"}}}')
    (tmp_path / "notjson.json").write_text("{")
    (tmp_path / "file").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert _verify(*argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert "Traceback" not in err[0] and not (tmp_path / "new.json").exists()


def test_unreachable_scheduler_is_one_line(monkeypatch, capsys):
    from cipherfab.study import runner
    monkeypatch.setattr(cluster, "DASK_CONNECT_TIMEOUT", "1s")
    assert _verify("--all", "--scheduler", "tcp://127.0.0.1:1", "--ledger", "/tmp/unused-ledger.json") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot connect to Dask scheduler" in err[0]


def test_update_readme_writes_the_table(tmp_path, capsys, monkeypatch):
    book = tmp_path / "docs" / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "50", "--ledger", str(book)) == 0
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "README.md").write_text("intro\n<!-- results:verify:begin -->\nold\n"
                                        "<!-- results:verify:end -->\nrest\n")
    monkeypatch.chdir(tmp_path)
    assert _verify("--status", "--update-readme", "--ledger", str(book)) == 1   # fixed: never run
    text = (tmp_path / "README.md").read_text()
    assert "old" not in text and "| toyxor | pipe |" in text and text.endswith("rest\n")
    assert "docs/summary.md" in text and (tmp_path / "docs" / "summary.md").is_file()
    shutil.rmtree(tmp_path / "docs")


def test_entries_stamped_with_the_older_digest_stay_fresh_and_are_restamped(tmp_path, capsys):
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "50", "--ledger", str(book)) == 0
    data = json.loads(book.read_text())
    assert ledger.legacy_generator_digest() != ledger.generator_digest()
    for e in data["points"].values():
        e["generator_digest"] = ledger.legacy_generator_digest()
    book.write_text(json.dumps(data))
    capsys.readouterr()
    assert _verify("--status", "--arch", "pipe", "--ledger", str(book)) == 0
    assert "generating them again" not in capsys.readouterr().err
    assert {e["generator_digest"] for e in json.loads(book.read_text())["points"].values()} == {
        ledger.generator_digest(p) for p in all_points("toyxor") if p.arch == "pipe"}


def test_update_readme_never_calls_a_point_with_a_changed_generator_passed(tmp_path, monkeypatch):
    """--status --update-readme re-stamps the entries whose Verilog is unchanged and writes the
    table from the ledger alone: a point whose Verilog changed is stale there, and so is one
    whose generator changed after the ledger was last looked at (recorded_states)."""
    from cipherfab.sim import verify
    book = tmp_path / "docs" / "ledger.json"
    assert _verify("--all", "--arch", "pipe", "--random", "50", "--ledger", str(book)) == 0
    data = json.loads(book.read_text())
    tops = sorted(data["points"])
    data["points"][tops[0]]["generator_digest"] = "old"               # same Verilog: re-stamped
    data["points"][tops[1]]["generator_digest"] = "old"               # Verilog changed: stale
    data["points"][tops[1]]["verilog_sha256"] = "1" * 64
    book.write_text(json.dumps(data))
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "README.md").write_text("<!-- results:verify:begin -->\n<!-- results:verify:end -->\n")
    monkeypatch.chdir(tmp_path)
    _verify("--status", "--update-readme", "--ledger", str(book))
    pipe = len(tops)
    assert f"| toyxor | pipe | {pipe} | {pipe - 1} | 0 | 1 | 0 |" in (tmp_path / "README.md").read_text()
    assert json.loads(book.read_text())["points"][tops[0]]["generator_digest"] != "old"
    states = verify.recorded_states(all_points("toyxor"), ledger.Ledger(book), verify.vector_root(None))
    assert states[tops[1]] == "stale: generator changed, Verilog not compared yet"
    assert states[tops[0]] == "fresh"


def test_a_run_of_one_architecture_does_not_generate_the_others_again(tmp_path, capsys):
    book = tmp_path / "ledger.json"
    assert _verify("--all", "--random", "50", "--ledger", str(book)) == 0
    data = json.loads(book.read_text())
    for top, e in data["points"].items():
        if "_fixed_" in top or top.endswith("fixed"):
            e["generator_digest"] = "old"
    book.write_text(json.dumps(data))
    capsys.readouterr()
    assert _verify("--all", "--changed", "--arch", "pipe", "--random", "50", "--ledger", str(book)) == 0
    assert "generating them again" not in capsys.readouterr().err
    assert "| toyxor | fixed | 1 | 0 | 0 | 1 | 0 |" in (tmp_path / "summary.md").read_text()


def _entry(line):
    return {"verdict": "pass", "verilog_sha256": "0" * 64, "line": line}


def test_two_writers_of_one_ledger_keep_each_others_entries(tmp_path):
    path = tmp_path / "ledger.json"
    first, second = ledger.Ledger(path), ledger.Ledger(path)     # both read it before either writes
    first.points["a"] = _entry("a")
    first.save()
    second.points["b"] = _entry("b")
    second.gcm["gcm:b"] = {"verdict": "pass"}
    second.last_run = {"command": "second"}
    second.save()
    assert sorted(second.points) == ["a", "b"]                   # it holds the merged ledger
    first.points["a"]["line"] = "a again"                         # changed in place, as a restamp is
    first.save()                                                  # its unchanged view of b is not written back
    again = ledger.Ledger(path)
    assert again.points == {"a": _entry("a again"), "b": _entry("b")}
    assert again.gcm == {"gcm:b": {"verdict": "pass"}} and again.last_run == {"command": "second"}


def _add_point(path, name, barrier):
    book = ledger.Ledger(path)
    barrier.wait()                                               # every process has read the file
    book.points[name] = _entry(name)
    book.save()


def test_processes_writing_one_ledger_at_once_lose_no_point(tmp_path):
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    path, barrier = tmp_path / "ledger.json", ctx.Barrier(4)
    procs = [ctx.Process(target=_add_point, args=(path, f"p{i}", barrier)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * 4
    assert sorted(ledger.Ledger(path).points) == ["p0", "p1", "p2", "p3"]
