"""The families study (study.families): points that name their own device are built there,
and its tables say per device which cores fit, which did not (the resource and the count)
and which no seed could measure (the tool's error), with the time the builds took."""


import pytest

import cipherfab.study.families as families
from cipherfab.errors import CipherfabError
from cipherfab.study.report import Doc, render_md
from cipherfab.study.runner import run_study
from cipherfab.study.studies import FAMILIES, FAMILY_DEVICES, Study

from fakes import FAKE

CORE = {"cipher": "aes", "arch": "iterative", "key_bits": 128, "direction": "encrypt", "sbox": "lut"}


def test_the_committed_study_covers_every_family_with_place_and_route():
    from cipherfab.flow.devices import get_device
    assert {get_device(d).family for d in FAMILY_DEVICES} == {"ecp5", "ice40", "gowin", "nexus", "gatemate"}
    assert len(FAMILIES.points) == 4 * len(FAMILY_DEVICES)
    assert {p["device"] for p in FAMILIES.points} == set(FAMILY_DEVICES)


def _study():
    return Study(name="fam", title="t", description="d", seeds=(1, 2), device="ecp5-85k",
                 plugin="cipherfab.study.families",
                 points=[{**CORE, "device": "ecp5-85k"}, {**CORE, "device": "gowin-9k"},
                         {**CORE, "sbox": "rom", "device": "gowin-9k", "fail_seeds": [1]},
                         {**CORE, "sbox": "rom", "device": "ice40-up5k", "fail": "build"}])


def test_each_point_is_built_on_its_device_and_the_tables_say_what_fit(tmp_path):
    res = run_study(_study(), out=tmp_path, inline=True, show_progress=False, **FAKE)
    by = {r["study_point"]: r for r in res["records"] if r["seed"] == 1}
    assert by["aes-iterative-128-encrypt-lut-gowin-9k"]["device"]["name"] == "gowin-9k"
    assert by["aes-iterative-128-encrypt-lut-ecp5-85k"]["device"]["name"] == "ecp5-85k"
    rows = {(r["device"], r["core"]): r for r in families.rows(res)}
    assert rows["gowin-9k", "iterative rom"]["ok"] and rows["gowin-9k", "iterative rom"]["ok_seeds"] == [2]
    assert rows["gowin-9k", "iterative rom"]["failed"][0]["seed"] == 1
    assert not rows["ice40-up5k", "iterative rom"]["ok"] and not rows["ice40-up5k", "iterative rom"]["no_fit"]
    headers, body = families.headline(res)
    assert [b[0] for b in body] == ["ecp5-85k", "gowin-9k", "ice40-up5k"]
    assert body[1][1] == "2 / 0 / 0" and body[2][1] == "0 / 0 / 1"
    doc = Doc()
    families.section(doc, res)
    text = render_md(doc)
    assert "| iterative rom | ice40-up5k | not measured |" in text
    assert "seed 1: nextpnr failed to route" in text and "RAM4K (4 kbit)" in text
    report = (tmp_path / "fam" / "report.md").read_text()
    assert "Each core on each family" in report


def test_a_core_too_big_for_its_device_is_no_fit_with_the_resource_and_count():
    res = {"device": "ecp5-85k", "records": [],
           "aggregates": [{"label": "x", "params": {**CORE, "device": "ice40-up5k"}, "ok_seeds": [],
                           "seeds": [1], "stats": {},
                           "failed": [{"seed": 1, "stage": "build",
                                       "error": "design does not fit: needs 9120 LC, ice40-up5k has 5280"}]}]}
    [row] = families.rows(res)
    assert row["no_fit"] and row["why"] == "needs 9120 LC, ice40-up5k has 5280"
    doc = Doc()
    families.section(doc, res)
    assert "| no: needs 9120 LC, ice40-up5k has 5280 |" in render_md(doc)


def test_results_keep_no_path_of_this_machine(tmp_path):
    from cipherfab.study.runner import _published
    rec = {"status": "failed", "error": "route failed on gowin-9k: Routing design failed. (logs in ~/.cache/cipherfab/failed/0f)"}
    assert _published(rec)["error"] == "route failed on gowin-9k: Routing design failed."
    assert _published({"status": "ok", "error": None})["error"] is None


def test_a_study_whose_points_name_devices_takes_no_device(tmp_path):
    with pytest.raises(CipherfabError, match="--device: study 'fam' builds each point on its own device"):
        run_study(_study(), out=tmp_path, device="ecp5-85k", inline=True, show_progress=False, **FAKE)
