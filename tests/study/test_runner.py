"""The sweep runner, aggregation, reports and plots, with the fake build function."""

import json
from pathlib import Path

import pytest

from cipherfab.study import display, jobs, plots, pool, runner
from cipherfab.study.points import point_label
from cipherfab.study.plots import pareto_front
from cipherfab.study.studies import QUICK, Published, Study, get_study, grid
from fakes import FAKE, fake_build, fake_design_source


# ------------------------------------------------------------------------------ Pareto

def test_pareto_tradeoff_and_dominated():
    costs = [100, 200, 150, 300, 120]
    values = [10, 30, 5, 31, 10]
    # 150/5 dominated by 100/10; 120/10 dominated by 100/10
    assert pareto_front(costs, values) == [0, 1, 3]


def test_pareto_duplicates_missing_and_single():
    assert pareto_front([1, 1], [5, 5]) == [0, 1]
    assert pareto_front([1, None, 2], [5, 9, None]) == [0]
    assert pareto_front([3], [4]) == [0]
    assert pareto_front([], []) == []
    # same cost, lower value is dominated; same value, higher cost is dominated
    assert pareto_front([1, 1, 2], [5, 4, 5]) == [0]
    assert pareto_front([float("nan"), 1], [1, 1]) == [1]


def test_pareto_all_on_front_sorted_by_cost():
    assert pareto_front([30, 10, 20], [3, 1, 2]) == [1, 2, 0]


# ------------------------------------------------------------------------------- points

def test_point_label_matches_design_source_label():
    params = dict(cipher="aes", arch="iterative", key_bits=192, direction="encrypt", sbox="rom")
    assert point_label(params) == fake_design_source(**params).label()
    assert point_label({**params, "rounds": 2}) == fake_design_source(**params, rounds=2).label()
    assert point_label({**params, "rounds": 2}).endswith("-rom-2")


def test_grid_and_quick_study():
    assert grid(a=[1, 2], b="x") == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]
    assert len(QUICK.points) == 6 and QUICK.seeds == (1, 2) and QUICK.device == "ecp5-85k"
    assert {p["key_bits"] for p in QUICK.points} == {128, 192, 256}
    assert {p["sbox"] for p in QUICK.points} == {"lut", "rom"}
    assert all(p["arch"] == "iterative" and p["direction"] == "encrypt" for p in QUICK.points)
    assert get_study("quick") is QUICK


def test_make_points_keeps_labels_unique():
    pts = runner.make_points([{"sbox": "lut"}, {"sbox": "lut"}])
    assert [p.label for p in pts] == ["lut", "lut #2"]


# -------------------------------------------------------------------------------- sweep

def _aes(key_bits, sbox, **more):
    """Generator parameters in declaration order (cipher, arch, key_bits, direction, sbox)."""
    return dict(cipher="aes", arch="iterative", key_bits=key_bits, direction="encrypt", sbox=sbox, **more)


def _points():
    return runner.make_points([
        _aes(128, "lut"),
        _aes(128, "rom"),
        _aes(256, "rom", fail_seeds=[2]),
        _aes(192, "lut", fail="generate"),
    ])


def test_sweep_process_pool_continues_past_failures():
    recs = runner.sweep(_points(), [1, 2], jobs=2, show_progress=False, **FAKE)
    assert len(recs) == 8
    assert [r["study_point"] for r in recs][:2] == ["aes-iterative-128-encrypt-lut"] * 2
    assert [r["seed"] for r in recs] == [1, 2] * 4
    status = [r["status"] for r in recs]
    assert status == ["ok"] * 5 + ["failed"] * 3
    gen_fail = recs[-1]
    assert gen_fail["stage"] == "generate" and "\n" not in gen_fail["error"]
    assert "fake generator refuses" in gen_fail["error"]
    assert recs[5]["stage"] == "build" and "seed 2" in recs[5]["error"]


def test_sweep_inline_accepts_unpicklable_functions():
    def build(src, *, device, seed, use_cache):
        if seed == 2:
            raise RuntimeError("boom\nsecond line")
        return fake_build(src, device=device, seed=seed)
    recs = runner.sweep(_points()[:1], [1, 2], inline=True, show_progress=False,
                        build=build, source_fn=lambda **kw: fake_design_source(**kw))
    assert recs[0]["status"] == "ok"
    assert recs[1]["status"] == "failed" and recs[1]["error"] == "RuntimeError: boom"


def test_build_returning_failed_record_is_kept_as_failure():
    def build(src, *, device, seed, use_cache):
        return {"status": "failed", "error": "nextpnr: no route\nmore", "label": src.label()}
    recs = runner.sweep(_points()[:1], [1], inline=True, show_progress=False, build=build,
                        source_fn=fake_design_source)
    assert recs[0]["status"] == "failed" and recs[0]["error"] == "nextpnr: no route"


def test_aggregate_min_median_max():
    pts = _points()
    recs = runner.sweep(pts, [1, 2, 3], inline=True, show_progress=False, **FAKE)
    aggs = {a["label"]: a for a in runner.aggregate(recs, pts)}
    a = aggs["aes-iterative-128-encrypt-lut"]
    f = sorted(r["timing"]["fmax_mhz"] for r in recs if r["study_point"] == a["label"])
    assert a["stats"]["timing.fmax_mhz"] == {"min": f[0], "median": f[1], "max": f[2], "n": 3}
    assert a["stats"]["area.lut4"]["n"] == 3
    assert "performance.throughput_ecb_mbps" in a["stats"]
    assert "area.parts.key_schedule.lut4" in a["stats"]
    b = aggs[point_label(_aes(256, "rom", fail_seeds=[2]))]
    assert b["ok_seeds"] == [1, 3] and b["failed"][0]["seed"] == 2
    c = aggs[point_label(_aes(192, "lut", fail="generate"))]
    assert c["ok_seeds"] == [] and c["stats"] == {} and len(c["failed"]) == 3


# ------------------------------------------------------------------------------- reports

def _study(points):
    return Study(name="t", title="test study", description="fake", points=points,
                 seeds=(1, 2), x_param="key_bits", group_param="sbox",
                 published=[Published("003", "Table 7.1"), Published("004", "Table 1", ("original",)),
                            Published("003", "text", ("core throughput",))],
                 ratios=QUICK.ratios)


def test_run_study_writes_results_reports_and_plots(tmp_path):
    pts = [_aes(k, s) for k in (128, 192, 256) for s in ("lut", "rom")]
    pts[5]["fail_seeds"] = [2]
    pts.append(_aes(192, "bad", fail="generate"))
    ext = fake_design_source(key_bits=128, sbox="rom", extra_luts=50)
    ext.design = {"external": True, "files": ["x.v"], "top": "their_aes"}
    ext.top = "their_aes"
    res = runner.run_study(_study(pts), out=tmp_path, jobs=2, show_progress=False,
                           externals=[runner.Point.external(ext)], command="cipherfab study t -j 2",
                           **FAKE)
    folder = tmp_path / "t"
    for name in ("results.json", "report.md", "report.html", "throughput_vs_lut4.png",
                 "fmax_vs_key_bits.png", "area_vs_key_bits.png"):
        assert (folder / name).is_file(), name
    for png in folder.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    data = json.loads((folder / "results.json").read_text())
    assert data["command"] == "cipherfab study t -j 2"
    assert data["wall_seconds"] >= 0 and data["environment"]["cpu_count"]
    assert data["environment"]["backend"] == {"kind": "local", "workers": 2}
    assert data["environment"]["tools"]["yosys"] == "fake 0.0"
    assert data["summary"] == {"builds": 16, "finished": 16, "ok": 13, "failed": 3}
    assert len(data["records"]) == 16 and len(data["aggregates"]) == 8
    assert {f["label"] for f in data["failures"]} == {point_label(pts[5]), point_label(pts[6])}
    assert res["summary"]["ok"] == 13

    ok = [r for r in data["records"] if r["status"] == "ok" and not r.get("external")]
    assert all(len(r["timing"]["worst_paths"]) == 3 for r in ok)
    assert not any("hops" in p for r in ok for p in r["timing"]["worst_paths"])   # kept small
    md = (folder / "report.md").read_text()
    assert "| Limiting part (worst path crosses) | LUT levels | routing % |" in md
    assert "| 0.620 | datapath > control (1/2); control (1/2) | 6 | 73 |" in md   # rom: seeds 1 and 2 differ
    assert "| 0.480 | key_schedule > control | 7–8 | 77 |" in md   # seeds 1 and 2 differ in LUT levels
    assert "cipherfab study t -j 2" in md and "Wall time" in md
    assert "their_aes (external)" in md
    assert "755.1" in md and "XCV1000HQ240-6" in md          # paper 003 Table 7.1
    assert "| original | 108. | 449 | 10 | 73.7 | 858." in md  # paper 004 Table 1, as printed
    assert "fake generator refuses" in md and "Failures" in md
    assert "Devices differ" in md
    assert "Best point per architecture" in md
    assert "| iterative | most Mbit/s per LUT4 and fastest | aes-iterative-128-encrypt-rom " in md
    assert "| their_aes (external) | most Mbit/s per LUT4 and fastest |" in md
    assert "Relative findings" in md and "3.96" in md         # 1777 / 449
    html = (folder / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    assert "throughput_vs_lut4.png" in html and "755.1" in html


def test_pareto_of_study_results(tmp_path):
    pts = runner.make_points([_aes(k, s) for k in (128, 256) for s in ("lut", "rom")])
    aggs = runner.aggregate(runner.sweep(pts, [1], inline=True, show_progress=False, **FAKE), pts)
    med = lambda a, k: a["stats"][k]["median"]  # noqa: E731
    front = pareto_front([med(a, "area.lut4") for a in aggs],
                         [med(a, "performance.throughput_ecb_mbps") for a in aggs])
    # the fake's 128-bit ROM core is both the smallest and the fastest
    assert [aggs[i]["label"] for i in front] == ["aes-iterative-128-encrypt-rom"]
    assert plots.plot_pareto(aggs, tmp_path / "p.png").is_file()


def test_all_failed_still_writes_report(tmp_path):
    st = Study(name="bad", title="all fail", description="", points=[{"key_bits": 7}])
    res = runner.run_study(st, out=tmp_path, inline=True, show_progress=False, **FAKE)
    assert res["summary"]["ok"] == 0
    md = (tmp_path / "bad" / "report.md").read_text()
    assert "No build succeeded" in md and "key size must be 128, 192 or 256" in md


def test_report_can_be_regenerated_from_results_json(tmp_path):
    runner.run_study(_study([{"key_bits": 128, "sbox": "rom"}]), out=tmp_path, inline=True,
                     show_progress=False, **FAKE)
    (tmp_path / "t" / "report.md").unlink()
    from cipherfab.study.report import main
    assert main([str(tmp_path / "t" / "results.json")]) == 0
    assert (tmp_path / "t" / "report.md").is_file()


@pytest.mark.parametrize("progress", [True, False])
def test_progress_display_does_not_break(progress, tmp_path):
    from rich.console import Console
    con = Console(file=open(tmp_path / "log.txt", "w"), width=120, force_terminal=True)
    recs = runner.sweep(_points(), [1], inline=True, show_progress=progress, console=con, **FAKE)
    con.file.close()
    assert len(recs) == 4
    if progress:
        log = (tmp_path / "log.txt").read_text()
        assert "all builds" in log and "failed" in log


def test_progress_off_a_terminal_is_whole_lines(tmp_path):
    """Piped (not a terminal): one line per build, each ending in a newline, no live table
    whose last row would run into the next output; a cached build is marked †."""
    from rich.console import Console
    from fakes import FAKE_CACHED_AT
    con = Console(file=open(tmp_path / "log.txt", "w"), width=80)
    pts = runner.make_points([_aes(128, "lut"), _aes(128, "rom", cached=True),
                              _aes(192, "lut", fail="generate")])
    runner.sweep(pts, [1], inline=True, console=con, title="t", **FAKE)
    con.file.close()
    text = (tmp_path / "log.txt").read_text()
    assert text.endswith("\n")
    lines = text.splitlines()
    assert lines[0].startswith("t: 3 builds (3 design points x seed 1)") and len(lines) == 4
    assert lines[1].startswith("[1/3] ok     aes-iterative-128-encrypt-lut seed 1: LUT4 ")
    assert lines[1].endswith(" s)")                                     # not from the cache
    assert lines[2].startswith("[2/3] ok     aes-iterative-128-encrypt-rom-True seed 1: ")
    assert lines[2].endswith(f" s) † cached (measured {FAKE_CACHED_AT})")
    assert lines[3].startswith("[3/3] failed aes-iterative-192-encrypt-lut-generate seed 1: "
                               "fake generator refuses")


def test_progress_on_a_terminal_marks_cached_builds(tmp_path):
    from rich.console import Console
    con = Console(file=open(tmp_path / "log.txt", "w"), width=200, force_terminal=True,
                  color_system=None)
    pts = runner.make_points([_aes(128, "rom", cached=True)])
    runner.sweep(pts, [1], inline=True, console=con, title="t", **FAKE)
    con.file.close()
    text = (tmp_path / "log.txt").read_text()
    assert "ok     aes-iterative-128-encrypt-rom-True seed 1: " in text and "† cached (measured" in text
    assert "aes-iterative-128-encrypt-rom-True †" in text                # the live table's last result
    assert display.CACHED_MARK == __import__("cipherfab.study.report", fromlist=["x"]).CACHED_MARK


def _interrupted_at(n: int):
    """A build function that raises KeyboardInterrupt (as Ctrl-C would) at its n-th call."""
    calls = []

    def build(src, *, device, seed, use_cache):
        calls.append(seed)
        if len(calls) == n:
            raise KeyboardInterrupt
        return fake_build(src, device=device, seed=seed)
    return build


def test_interrupt_keeps_the_complete_results_and_writes_partial_ones_beside(tmp_path):
    st = Study(name="intr", title="", description="", points=[{"key_bits": 128, "sbox": "rom"}],
               seeds=(1, 2, 3))
    runner.run_study(st, out=tmp_path, inline=True, show_progress=False, **FAKE)
    folder = tmp_path / "intr"
    before = {f.name: f.read_bytes() for f in folder.iterdir()}
    with pytest.raises(runner.StudyInterrupted) as stop:
        runner.run_study(st, out=tmp_path, inline=True, show_progress=False,
                         build=_interrupted_at(2), source_fn=fake_design_source)
    assert stop.value.signal_name == "SIGINT" and stop.value.kept == folder / "results.json"
    assert stop.value.results["folder"] == str(folder / "partial")
    assert {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()} == before
    data = json.loads((folder / "partial" / "results.json").read_text())
    assert data["interrupted"] is True and data["summary"]["finished"] == 1
    assert "interrupted" in (folder / "partial" / "report.md").read_text()
    # the next complete run replaces the complete results and drops the partial ones
    runner.run_study(st, out=tmp_path, inline=True, show_progress=False, **FAKE)
    assert not (folder / "partial").exists()
    assert sorted(f.name for f in folder.iterdir()) == sorted(before)


def test_first_run_interrupted_has_nothing_to_keep(tmp_path):
    st = Study(name="intr", title="", description="", points=[{"key_bits": 128, "sbox": "rom"}],
               seeds=(1, 2))
    with pytest.raises(runner.StudyInterrupted) as stop:
        runner.run_study(st, out=tmp_path, inline=True, show_progress=False,
                         build=_interrupted_at(1), source_fn=fake_design_source)
    assert stop.value.kept is None and stop.value.results["summary"]["finished"] == 0
    assert sorted(f.name for f in (tmp_path / "intr").iterdir()) == ["partial"]


def test_a_new_report_replaces_the_old_one_and_its_plots(tmp_path):
    """The previous run drew plots against key_bits; this one draws none of them: they go,
    so the folder never mixes two runs.  No staging folder is left behind."""
    runner.run_study(_study([_aes(128, "lut"), _aes(256, "rom")]), out=tmp_path, inline=True,
                     show_progress=False, **FAKE)
    folder = tmp_path / "t"
    (folder / "notes.txt").write_text("the user's own file")
    assert (folder / "fmax_vs_key_bits.png").is_file()
    res = runner.run_study(Study(name="t", title="", description="", points=[_aes(128, "rom")],
                                 seeds=(1,)), out=tmp_path, inline=True, show_progress=False, **FAKE)
    assert sorted(f.name for f in folder.iterdir()) == [
        "chart.html", "notes.txt", "report.html", "report.md", "results.json", "throughput_vs_lut4.png"]
    assert sorted(res["files"]) == sorted(str(folder / n) for n in (
        "results.json", "throughput_vs_lut4.png", "report.md", "report.html", "chart.html"))
    assert json.loads((folder / "results.json").read_text())["summary"]["builds"] == 1


def test_failed_write_leaves_the_previous_results(tmp_path, monkeypatch):
    st = Study(name="w", title="", description="", points=[_aes(128, "rom")], seeds=(1,))
    runner.run_study(st, out=tmp_path, inline=True, show_progress=False, **FAKE)
    before = {f.name: f.read_bytes() for f in (tmp_path / "w").iterdir()}
    from cipherfab.study import report

    def full_disk(results, folder):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(report, "write_report", full_disk)
    with pytest.raises(runner.CipherfabError, match="cannot write results to .*No space left"):
        runner.run_study(st, out=tmp_path, inline=True, show_progress=False, **FAKE)
    assert {f.name: f.read_bytes() for f in (tmp_path / "w").iterdir()} == before


def test_local_pool_has_no_more_workers_than_builds():
    backend = pool.open_backend(8, None, False, builds=3)
    try:
        assert backend.slots == 3 and backend.describe == {"kind": "local", "workers": 3}
        work = backend.work
        assert Path(work).is_dir() and Path(work).name.startswith("cipherfab-study-")
    finally:
        backend.close()
    assert not Path(work).exists()


def test_workers_build_in_the_study_work_folder(tmp_path):
    """The pool's workers put their temporary folders under the study's own, removed after."""
    st = Study(name="tmp", title="", description="", points=[_aes(128, "rom")], seeds=(1,))
    res = runner.run_study(st, out=tmp_path, jobs=1, show_progress=False,
                           build="fakes:temp_dir_build", source_fn=FAKE["source_fn"])
    where = Path(res["records"][0]["temp_dir"])
    assert where.name.startswith("cipherfab-study-") and not where.exists()


def test_cached_rows_are_marked_with_their_measurement_date(tmp_path):
    from fakes import FAKE_CACHED_AT
    st = _study([_aes(128, "lut"), _aes(128, "rom", cached=True)])
    res = runner.run_study(st, out=tmp_path, inline=True, show_progress=False, **FAKE)
    aggs = {a["label"]: a for a in res["aggregates"]}
    cached_label = point_label(_aes(128, "rom", cached=True))
    assert aggs[cached_label]["cached_seeds"] == [1, 2]
    assert aggs[cached_label]["cached_measured_at"] == [FAKE_CACHED_AT]
    assert aggs["aes-iterative-128-encrypt-lut"]["cached_seeds"] == []
    md = (tmp_path / "t" / "report.md").read_text()
    lines = md.splitlines()
    rows = [l for l in lines if l.startswith(f"| {cached_label}")]
    assert rows and all(f"{cached_label} †" in l for l in rows)
    assert not any(l.startswith("| aes-iterative-128-encrypt-lut †") for l in lines)
    assert f"stage times are those of the original build, measured at {FAKE_CACHED_AT}" in md
    assert "2 of the ok builds came from the build cache" in md
    times = next(i for i, l in enumerate(lines) if "Generation time per stage" in l)
    header, _, *body = lines[times + 2:times + 6]
    assert header.endswith("| times from |")
    assert body[0].startswith("| aes-iterative-128-encrypt-lut |") and body[0].endswith("| this run |")
    assert body[1].endswith(f"| † cache (measured {FAKE_CACHED_AT}) |")
    ratio = next(l for l in lines if l.startswith("| logic S-box / block-RAM S-box: generation time"))
    assert "generation time †" in ratio and FAKE_CACHED_AT in ratio


def test_sweep_says_what_it_does_before_the_first_build(tmp_path, monkeypatch, capsys):
    from rich.console import Console
    from cipherfab.flow import tools
    seen = []

    def build(src, *, device, seed, use_cache):
        seen.append(tools.FIRST_USE_NOTES)  # off inside jobs: the sweep says it once
        return fake_build(src, device=device, seed=seed)
    con = Console(file=open(tmp_path / "log.txt", "w"), width=200)
    runner.run_study(_study([_aes(128, "rom")]), out=tmp_path, inline=True, console=con, build=build,
                     source_fn=fake_design_source)
    con.file.close()
    first = (tmp_path / "log.txt").read_text().splitlines()[0]
    assert first == (f"study t: 2 builds (1 design point x seeds 1, 2) on ecp5-85k, in this process, "
                     f"one at a time; results to {tmp_path / 't'}")
    assert seen == [False, False] and tools.FIRST_USE_NOTES is True
    # without a progress display the first-use note still goes to stderr, once
    monkeypatch.setattr(jobs, "first_use_note", lambda build, device, describe: "note: first use of X")
    compiled = []
    monkeypatch.setattr(tools, "compile_pending", lambda names: compiled.append(list(names)))
    runner.sweep(_points()[:1], [1], inline=True, show_progress=False, **FAKE)
    assert capsys.readouterr().err == "note: first use of X\n"
    # and the tools are compiled once, before the builds (not by each worker at once)
    from cipherfab.flow.build import tools_needed
    from cipherfab.flow.devices import get_device
    assert compiled == [list(tools_needed(get_device("ecp5-85k")))]


def test_software_rankings_estimates_and_bars_in_the_report(tmp_path, monkeypatch):
    """A finalists-shaped study: software rows beside our fastest core, our ranking beside
    paper 000's, synthesis-only estimates for a second device, and the bar chart."""
    from cipherfab.study import software
    from cipherfab.study.studies import Ranking
    canned = [{"provider": "Crypto++ 8.7.0", "cipher": "aes", "key_bits": 128,
               "algorithm": "AES/ECB (128-bit key)", "impl": "AESNI", "throughput_mbps": 1000.0,
               "key_setup_us": 0.5, "command": "cryptest b2 0.25 2.0"},
              {"provider": "Crypto++", "cipher": "aes", "key_bits": 192,
               "error": "cryptest not found (Debian: apt install libcrypto++-utils)",
               "command": "cryptest b2 0.25 2.0"}]
    monkeypatch.setattr(software, "measure", lambda points: canned)
    pts = [_aes(128, "lut"), _aes(128, "rom"), _aes(192, "rom")]
    study = Study(name="f", title="finalists-like", description="fake", points=pts, seeds=(1,),
                  software=True, estimates=("xcv",), bar_metric="performance.mbps_per_lut4",
                  rankings=[Ranking("Does the paper's order hold?", "performance.mbps_per_lut4",
                                    {"Rijndael": _aes(128, "lut"), "Serpent": _aes(128, "rom")},
                                    "000", "Table 7", "throughput_per_slice_kbps")])
    runner.run_study(study, out=tmp_path, inline=True, show_progress=False, command="c", **FAKE)
    data = json.loads((tmp_path / "f" / "results.json").read_text())
    assert data["software"] == canned
    assert len(data["estimates"]["xcv"]["records"]) == 3            # seed 1 only
    assert data["summary"]["builds"] == 3
    md = (tmp_path / "f" / "report.md").read_text()
    # fastest AES-128 point is the rom one; 1000 Mbit/s software; key setup 0.5 µs
    row = next(line for line in md.splitlines() if line.startswith("| aes-128 | Crypto++ 8.7.0"))
    assert "aes-iterative-128-encrypt-rom" in row and "| 1000.0 |" in row
    assert "cryptest not found (Debian: apt install libcrypto++-utils)" in md
    # paper 000 Table 7 ranks Rijndael (62.2) above Serpent (58.4) per slice; the fakes rank
    # the rom point (named Serpent here) above the lut one
    assert "Rijndael 62.2 > Serpent 58.4" in md and "Same order: no" in md
    assert "Synthesis-only estimates for xcv" in md
    assert (tmp_path / "f" / "bars.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
