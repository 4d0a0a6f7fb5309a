"""The masking study (study.masking): every masked point's randomness from its core, the
robust verdict of the committed run on the same top module, the Fmax goal against the
unmasked core of the same datapath, the anchors, and the area-against-cycles plot."""

import json

from cipherfab.study import masking
from cipherfab.study.report import Doc, render_md
from cipherfab.study.studies import MASKING, get_study

M4 = {"cipher": "aes", "arch": "masked", "key_bits": 128, "direction": "encrypt", "sboxes": 4, "shares": 2}
COL = {"cipher": "aes", "arch": "column", "key_bits": 128, "direction": "encrypt"}


def _agg(label, params, lut4, fmax, cycles, ok=True, error=None):
    stats = {"area.lut4": {"median": lut4}, "area.ff": {"median": 2 * lut4},
             "timing.fmax_mhz": {"median": fmax}, "performance.cycles_per_block_ecb": {"median": cycles}}
    return {"label": label, "params": params, "ok_seeds": [1, 2] if ok else [], "seeds": [1, 2],
            "stats": stats if ok else {}, "failed": [] if ok else [{"seed": 1, "error": error}]}


def _results():
    m20_4 = {**M4, "sboxes": 20, "shares": 4}
    return {"device": "ecp5-85k",
            "aggregates": [_agg("m4", M4, 6570, 110.0, 55), _agg("m20d4", m20_4, 0, 0, 0, ok=False,
                                                                 error="design does not fit: needs 101,000 LUT4"),
                           _agg("colc", {**COL, "sbox": "composite"}, 900, 112.6, 44),
                           _agg("coll", {**COL, "sbox": "lut"}, 700, 170.6, 44)],
            "masking": {"points": {"m4": {"top": "aes_masked_128_encrypt_on_sboxes4",
                                          "randomness": masking.randomness(M4),
                                          "robust": {"run": "masked-sboxes4", "simulations": 1003520,
                                                     "max_mlog10p": 6.61, "threshold": 10.59,
                                                     "first_failing": None, "seconds": 576}}}}}


def test_the_study_builds_every_sbox_count_and_share_count_beside_the_unmasked_datapaths():
    assert get_study("masking") is MASKING
    masked = {(p["sboxes"], p["shares"]) for p in MASKING.points if p["arch"] == "masked"}
    assert masked == {(s, d) for s in (20, 4, 1) for d in (2, 3, 4)}
    assert {(p["arch"], p["sbox"]) for p in MASKING.points if p["arch"] != "masked"} == \
        {(a, s) for a in ("iterative", "column", "byte") for s in ("lut", "composite")}


def test_randomness_is_the_declared_bits_a_clock_over_a_block():
    bits = masking.randomness(M4)
    assert bits == {"per_clock": 168, "per_block": 168 * 55, "cycles_per_block": 55}
    assert masking.randomness({**M4, "sboxes": 20})["per_clock"] == 808
    assert masking.randomness({**M4, "prng": "off"})["per_clock"] == 0


def test_robust_runs_are_matched_by_top_module_and_the_largest_run_wins(tmp_path):
    for name, sims, top in (("a", 102400, "t"), ("b", 1003520, "t"), ("c", 4096, "u")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(
            {"model": "robust", "transitions": False, "top": top, "simulations": sims,
             "max_mlog10p": [1.0, 2.5], "threshold": 10.0, "first_failing": None, "seconds": 1}))
    runs = masking.robust_runs(tmp_path)
    assert runs["t"]["run"] == "b" and runs["t"]["max_mlog10p"] == 2.5 and runs["u"]["run"] == "c"
    assert masking.robust_runs(None) == {}


def test_the_section_marks_the_fmax_goal_and_names_a_point_that_did_not_fit():
    doc = Doc()
    masking.section(doc, _results())
    text = render_md(doc)
    assert "| masked, 4 S-boxes, 2 shares, HPC2 | 6,570 | 13,140 | 110.0 | 55 | 168 / 9,240 | pass: 6.61 / 10.59 at 1,003,520" in text
    assert "not built: design does not fit: needs 101,000 LUT4" in text
    assert "112.6 MHz: -2%, **met**" in text and "170.6 MHz: -36%, not met" in text
    assert "SMAesH | 2 | 2,701 | 3,089 | 86" in text and "OpenTitan" in text


def test_the_plot_shows_points_and_anchors(tmp_path):
    [p] = masking.plots(_results(), tmp_path)
    assert p["file"] == "area_vs_cycles_per_block.png" and (tmp_path / p["file"]).stat().st_size > 10_000
    assert masking.plots({"aggregates": []}, tmp_path) == []
