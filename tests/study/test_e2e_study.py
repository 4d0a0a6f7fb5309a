"""End to end: a two-point study on the real generator, Yosys and nextpnr, in a 2-worker pool."""

import json
import re

import pytest

from cipherfab.study.runner import point_label, run_study
from cipherfab.study.studies import Study

POINTS = [dict(cipher="aes", arch="iterative", key_bits=k, direction="encrypt", sbox="rom") for k in (128, 256)]


def test_real_two_point_study(tmp_path):
    study = Study(name="e2e", title="two real AES builds", description="AES-128 and AES-256, ROM S-boxes",
                  points=POINTS, seeds=(1,), device="ecp5-25k")
    res = run_study(study, out=tmp_path, jobs=2, use_cache=False, show_progress=False)
    assert res["summary"] == {"builds": 2, "finished": 2, "ok": 2, "failed": 0}, res["failures"]
    for rec in res["records"]:
        assert rec["cached"] is False and rec["device"]["name"] == "ecp5-25k"
        assert rec["area"]["lut4"] > 0 and rec["area"]["ebr"] == 10 and rec["timing"]["fmax_mhz"] > 0
    data = json.loads((tmp_path / "e2e" / "results.json").read_text())
    assert data["environment"]["tools"]["yosys"].startswith("Yosys")

    md = (tmp_path / "e2e" / "report.md").read_text()
    for params, rec in zip(POINTS, res["records"]):
        label = point_label(params)
        row = next(l for l in md.splitlines() if l.startswith(f"| {label} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        lut4, ff, _ccu2, ebr, dsp = (int(c) for c in cells[1:6])
        assert (lut4, ff, ebr, dsp) == (rec["area"]["lut4"], rec["area"]["ff"], 10, 0)
        assert float(cells[7]) == round(rec["timing"]["fmax_mhz"], 1) > 0
        rounds = {128: 10, 256: 14}[params["key_bits"]]
        assert int(cells[8]) == rounds                                # cycles/block ECB
        assert re.fullmatch(r"\d+\.\d", cells[10]) and float(cells[10]) > 0  # Mbit/s ECB
        worst = rec["timing"]["worst_paths"][0]          # the limiting part, in the timing table
        assert worst["delay_ns"] == pytest.approx(1000 / rec["timing"]["fmax_mhz"], abs=0.002)
        assert "hops" not in worst
        limiting = f"| {' > '.join(dict.fromkeys(worst['parts']))} | {worst['lut_levels']} |"
        assert any(l.startswith(f"| {label} |") and limiting in l for l in md.splitlines())
    assert "†" not in md  # nothing came from the cache
