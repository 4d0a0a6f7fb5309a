"""End to end: a two-point study on the real generator, Yosys and nextpnr, in a 2-worker pool."""

import json
import re

import pytest

from cipherfab.generate import declaration
from cipherfab.registry import resolve
from cipherfab.study.points import point_label
from cipherfab.study.runner import run_study
from cipherfab.study.studies import Study

#: the two smallest AES cores (byte-serial, ROM and logic S-box: 7-9 s each to place and route)
POINTS = [dict(cipher="aes", arch="byte", key_bits=128, direction="encrypt", sbox=s) for s in ("rom", "lut")]
EBR = {"rom": 1, "lut": 0}


def test_real_two_point_study(tmp_path):
    study = Study(name="e2e", title="two real AES builds", description="byte-serial AES-128, ROM and logic S-boxes",
                  points=POINTS, seeds=(1,), device="ecp5-25k")
    res = run_study(study, out=tmp_path, jobs=2, use_cache=False, show_progress=False)
    assert res["summary"] == {"builds": 2, "finished": 2, "ok": 2, "failed": 0}, res["failures"]
    for rec in res["records"]:
        assert rec["cached"] is False and rec["device"]["name"] == "ecp5-25k"
        assert rec["area"]["lut4"] > 0 and rec["timing"]["fmax_mhz"] > 0
    data = json.loads((tmp_path / "e2e" / "results.json").read_text())
    assert data["environment"]["tools"]["yosys"].startswith("Yosys")

    md = (tmp_path / "e2e" / "report.md").read_text()
    for params, rec in zip(POINTS, res["records"]):
        label = point_label(params)
        row = next(l for l in md.splitlines() if l.startswith(f"| {label} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        lut4, ff, _ccu2, ebr, dsp = (int(c) for c in cells[1:6])
        assert (lut4, ff, ebr, dsp) == (rec["area"]["lut4"], rec["area"]["ff"], EBR[params["sbox"]], 0)
        assert rec["area"]["ebr"] == EBR[params["sbox"]]
        assert float(cells[7]) == round(rec["timing"]["fmax_mhz"], 1) > 0
        assert int(cells[8]) == declaration(resolve(**params)).cycles_per_block == 204  # ECB
        assert re.fullmatch(r"\d+\.\d", cells[10]) and float(cells[10]) > 0  # Mbit/s ECB
        worst = rec["timing"]["worst_paths"][0]          # the limiting part, in the timing table
        assert worst["delay_ns"] == pytest.approx(1000 / rec["timing"]["fmax_mhz"], abs=0.002)
        assert "hops" not in worst
        limiting = f"| {' > '.join(dict.fromkeys(worst['parts']))} | {worst['lut_levels']} |"
        assert any(l.startswith(f"| {label} |") and limiting in l for l in md.splitlines())
    assert "†" not in md  # nothing came from the cache
