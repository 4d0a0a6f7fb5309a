"""Flow options as study axes and study-wide options, and the median / best of N seeds in
the report, with the fake build (tests/study/fakes.py: router2 lowers Fmax by a fifth,
no wide LUTs adds 500 LUT4)."""

import json

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.study import runner
from cipherfab.study.points import point_label
from cipherfab.study.studies import FLOW_OPTIONS, QUICK, Study
from fakes import FAKE

BASE = {"cipher": "aes", "arch": "iterative", "key_bits": 128, "direction": "encrypt", "sbox": "lut"}


def test_flow_options_in_a_point_go_to_the_build_and_read_in_its_label():
    p = runner.Point.generated({**BASE, "router": "router2", "abc9": False})
    assert p.label == "aes-iterative-128-encrypt-lut-router2-no-abc9"
    assert p.split() == (BASE, {"router": "router2", "abc9": False})
    seen = []

    def build(src, *, device, seed, use_cache, **flow):
        seen.append((src.design, flow))
        return {"status": "failed", "error": "stop"}
    runner.run_job(p, 1, "ecp5-85k", build, FAKE["source_fn"])
    assert seen == [({**BASE}, {"router": "router2", "abc9": False})]


def test_the_flow_options_study_varies_one_option_at_a_time():
    labels = [runner.Point.generated(p).label for p in FLOW_OPTIONS.points]
    assert labels == ["aes-iterative-128-encrypt-lut", "aes-iterative-128-encrypt-lut-sa",
                      "aes-iterative-128-encrypt-lut-router2", "aes-iterative-128-encrypt-lut-no-abc9",
                      "aes-iterative-128-encrypt-lut-no-widelut"]
    assert FLOW_OPTIONS.seeds == (1, 2, 3)


def test_flow_axis_study_report_shows_median_and_best_of_n_seeds(tmp_path):
    res = runner.run_study(FLOW_OPTIONS, out=tmp_path, inline=True, show_progress=False, **FAKE)
    assert res["summary"] == {"builds": 15, "finished": 15, "ok": 15, "failed": 0}
    r2 = [r for r in res["records"] if r["study_point"].endswith("-router2")]
    assert [r["flow"]["router"] for r in r2] == ["router2"] * 3
    md = (tmp_path / "flow-options" / "report.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| Design | LUT4"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[7:10] == ["Fmax MHz, median of 3 seeds", "Fmax MHz, best of 3 seeds", "cycles/block ECB"]
    assert cols[11:13] == ["Mbit/s ECB, median of 3 seeds", "Mbit/s ECB, best of 3 seeds"]
    aggs = {a["label"]: a for a in res["aggregates"]}
    for label, a in aggs.items():
        row = next(line for line in md.splitlines() if line.startswith(f"| {label} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        fmax = sorted(r["timing"]["fmax_mhz"] for r in res["records"] if r["study_point"] == label)
        assert cells[8] == f"{fmax[-1]:.1f}" and cells[7].startswith(f"{fmax[1]:.1f} (")
    assert "'Best of 3 seeds' is the highest of the seeds that built" in md
    # the relative findings compare each option with the default flow (the first point)
    row = next(line for line in md.splitlines() if line.startswith("| router2 / default flow: Fmax"))
    base, r2 = aggs["aes-iterative-128-encrypt-lut"], aggs["aes-iterative-128-encrypt-lut-router2"]
    want = r2["stats"]["timing.fmax_mhz"]["median"] / base["stats"]["timing.fmax_mhz"]["median"]
    assert f"{want:.2f}" in row


def test_one_seed_keeps_the_plain_headers(tmp_path):
    runner.run_study(FLOW_OPTIONS, out=tmp_path, seeds=[1], inline=True, show_progress=False, **FAKE)
    md = (tmp_path / "flow-options" / "report.md").read_text()
    assert "| Fmax MHz |" in md and "best of 1 seed" not in md and "seeds, best of" not in md
    assert "Best of" not in md and "MHz, median of" not in md


def test_study_wide_flow_options_reach_every_build_and_the_report(tmp_path):
    res = runner.run_study(QUICK, out=tmp_path, seeds=[1], inline=True, show_progress=False,
                           flow={"router": "router2", "widelut": False, "placer": None}, **FAKE)
    assert {(r["flow"]["router"], r["flow"]["widelut"]) for r in res["records"]} == {("router2", False)}
    assert [p["label"] for p in res["points"]] == [point_label(p) for p in QUICK.points]
    data = json.loads((tmp_path / "quick" / "results.json").read_text())
    assert data["flow"] == {"router": "router2", "widelut": False}
    md = (tmp_path / "quick" / "report.md").read_text()
    assert "Flow options for every point (not the default flow): router router2, widelut no-widelut" in md


def test_a_study_wide_option_the_study_varies_is_refused_before_any_build(tmp_path):
    st = Study(name="t", title="t", description="", points=[BASE, {**BASE, "router": "router2"}])
    with pytest.raises(CipherfabError, match="^--router: point aes-iterative-128-encrypt-lut-router2 "
                                             "sets router itself"):
        runner.run_study(st, out=tmp_path, inline=True, show_progress=False,
                         flow={"router": "router1"}, **FAKE)
    assert not (tmp_path / "t").exists()


def test_pick_never_answers_a_point_built_with_a_flow_option():
    from cipherfab.study.pick import _pickable
    assert _pickable({"params": dict(BASE), "ok_seeds": [1]})
    for flow in ({"router": "router2"}, {"placer": "sa"}, {"abc9": False}, {"widelut": False},
                 {"flatten": True}):
        assert not _pickable({"params": {**BASE, **flow}, "ok_seeds": [1]})


def test_aes_space_compact_and_block_ram_points_carry_their_flow_option():
    from cipherfab.study.studies import AES_SPACE
    flow_points = [runner.Point.generated(p) for p in AES_SPACE.points
                   if any(k in p for k in ("widelut", "flatten", "ebr_outreg", "floorplan", "heap_timing_weight"))]
    assert [p.label for p in flow_points] == [
        "aes-byte-128-encrypt-rom-no-widelut", "aes-column-128-encrypt-rom-flatten",
        "aes-iterative-128-encrypt-rom-flatten", "aes-interleaved-128-encrypt-rom-3-flatten",
        "aes-pipeline-128-encrypt-rom-4-ebr-outreg", "aes-pipeline-128-encrypt-rom-4-ebr-outreg-floorplan",
        "aes-pipeline-128-encrypt-lut-3-tw30-ce4", "aes-pipeline-128-encrypt-lut-3-registered-tw30-ce4"]
    assert [p.split()[1] for p in flow_points] == ([{"widelut": False}] + [{"flatten": True}] * 3
                                                   + [{"ebr_outreg": True}, {"ebr_outreg": True, "floorplan": True},
                                                      {"heap_timing_weight": 30, "heap_crit_exp": 4},
                                                      {"heap_timing_weight": 30, "heap_crit_exp": 4}])
