"""Merged shares in the placed design (cipherfab.flow.shares): the tag reader, the counter on
hand-written netlists, and real builds of small tagged designs (share_designs.py, a second or
two each), under each synthesis option of the studies' flows."""

from __future__ import annotations

import json

import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.flow import build, cache, shares
from cipherfab.flow.build import counts_shares
from cipherfab.flow.devices import get_device
from flowhelpers import TINY_V, mini_source, placed_comb as _comb
from share_designs import TAGGED_BITS, WIDTH, design, hpc2, source


# --- the tags ------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, mask", [("0 ", 1), ("1 ", 2), ("0", 1), ("1", 2), ("2 ", 4), ("3 ", 8),
                                       ("3", 8), ("0" * 32, 1), ("0" * 31 + "1", 2), ("0" * 30 + "10", 4),
                                       ("0" * 30 + "11", 8)])
def test_tag_values_as_yosys_writes_them(raw, mask):
    assert shares.tag_value("n", raw) == mask


@pytest.mark.parametrize("raw", ["4 ", "7 ", "01 ", "", "a ", "x ", "0" * 29 + "100", 1, None, "x"])
def test_a_tag_other_than_0_to_3_is_one_line(raw):
    with pytest.raises(CipherfabError) as e:
        shares.tag_value("core.k0", raw)
    assert str(e.value).startswith("net core.k0: cipherfab_share is ") and "\n" not in str(e.value)
    assert str(e.value).endswith("a share index is 0 to 3")


@pytest.mark.parametrize("text", ['(* cipherfab_share = "0" *) reg a;', '(* keep, cipherfab_share="1" *)',
                                  '(* cipherfab_share = "2" *) reg a;', '(* cipherfab_share = "3" *)',
                                  "(* cipherfab_share = 1 *)", "no tags at all"])
def test_good_tags_in_verilog(text):
    shares.check_source(text)


@pytest.mark.parametrize("text, said", [
    ('wire w;\n(* cipherfab_share = "7" *) reg a;', 'Verilog line 2: cipherfab_share = "7": a share index is 0 to 3'),
    ('(* cipherfab_share = "x" *) reg a;', 'Verilog line 1: cipherfab_share = "x": a share index is 0 to 3'),
    ('(* cipherfab_share = "01", keep *)', 'Verilog line 1: cipherfab_share = "01": a share'),
    ("(* cipherfab_share *) reg a;", "Verilog line 1: cipherfab_share without a value: a share index"),
    ("(* cipherfab_share = 32'd1 *)", "Verilog line 1: cipherfab_share = 32'd1: a share index")])
def test_bad_tags_in_verilog_are_one_line(text, said):
    with pytest.raises(CipherfabError) as e:
        shares.check_source(text)
    assert str(e.value).startswith(said)


def test_only_tagged_ecp5_builds_count():
    ecp5, ice40 = get_device("ecp5-85k"), get_device("ice40-hx8k")
    assert counts_shares(source("separate"), ecp5) and not counts_shares(source("separate"), ice40)
    assert not counts_shares(mini_source(), ecp5)


# --- the counter on hand-written netlists ----------------------------------------------------------

def _net(bits, tag=None, **kw):
    return {"bits": bits, **({"attributes": {"cipherfab_share": f"{tag} "}} if tag is not None else {}), **kw}


SYNTH = {"modules": {
    "top": {"ports": {}, "cells": {"g": {"type": "sub", "connections": {"p": [5], "q": [6]}}},
            "netnames": {"k1": _net([6], 1), "w": _net([5])}},
    "sub": {"ports": {"p": {"direction": "output", "bits": [2]}, "q": {"direction": "output", "bits": [3]}},
            "cells": {}, "netnames": {"k0": _net([2], 0), "p": _net([2]), "q": _net([3]),
                                      "both": _net([3], 0), "v": _net([7, 8], 1, offset=4)}},
    "LUT4": {"attributes": {"blackbox": "00000000000000000000000000000001"}, "ports": {}, "cells": {}}}}


def test_tags_follow_the_hierarchy_as_nextpnr_names_it():
    tags, counts = shares.synthesized_tags(SYNTH, "top")
    # g.k0 is the child's name of w: w carries share 0; q is tagged 1 above and 0 below
    assert tags == {"w": 1, "g.k0": 1, "g.p": 1, "k1": 3, "g.q": 3, "g.both": 3, "g.v[4]": 2, "g.v[5]": 2}
    assert counts == {"tagged_bits": 4, "both_tags": 1}


def _ff(bel, d, q):
    return {"type": "TRELLIS_FF", "parameters": {}, "attributes": {"NEXTPNR_BEL": bel},
            "connections": {"DI": [d], "Q": [q]}, "port_directions": {"DI": "input", "Q": "output"}}


def _placed():
    """x0 (share 0, bit 10), x1 (share 1, bit 11), r (bit 12, untagged)."""
    cells = {
        "l_sep0": _comb("X1/Y1/SLICEA.K0", (10, 12), 20),      # x0 ^ r: share 0
        "l_sep1": _comb("X1/Y1/SLICEA.K1", (11, 12), 21),      # x1 ^ r: share 1, same slice
        "f_y0": _ff("X1/Y1/SLICEA.FF0", 20, 30), "f_y1": _ff("X1/Y1/SLICEA.FF1", 21, 31),
        "l_mix": _comb("X2/Y1/SLICEB.K0", (10, 11, 12), 22),   # x0 ^ x1 ^ r: both
        "l_after": _comb("X3/Y1/SLICEA.K0", (22,), 23),        # below the merge
        "f_z": _ff("X3/Y1/SLICEA.FF0", 23, 32),                # untagged: ends the cone
        "l_z": _comb("X3/Y1/SLICEB.K0", (32, 10), 24),         # its output with share 0: fine
        "carry": _comb("X4/Y1/SLICEA.K0", (30,), 25, mode="CCU2", FCI=31),  # the carry in: both
        "mux": _comb("X5/Y1/SLICEC.K0", (30,), 26, F1=31, OFX=27),          # F fine, the PFUMX both
        "l_r": _comb("X6/Y1/SLICEA.K0", (10, 12), 28),         # x0 ^ r into ...
        "f_rel": _ff("X6/Y1/SLICEA.FF0", 28, 33),              # ... a register tagged 1: relabelled
        "l_rel": _comb("X6/Y1/SLICEB.K0", (33, 11), 29),       # it with x1: share 1 only
    }
    nets = {"x0": _net([10], 0), "x1": _net([11]), "r": _net([12]), "y0": _net([30]), "y1": _net([31], 1),
            "rel": _net([33], 1)}
    return {"modules": {"top": {"cells": cells, "netnames": nets}}}


def test_the_counter_on_a_placed_netlist():
    s = shares.placed_merges(_placed(), {"x1": 2, "y0": 1})    # x1, y0 tagged in synthesis only
    assert s["tagged_nets_placed"] == 5 and s["relabelled_ffs"] == 1
    assert s["merged_luts"] == 4 and s["merged_luts_first"] == 3      # l_after is below l_mix
    assert s["merged_by_kind"] == {"LUT": 2, "carry": 1, "wide mux": 1} and s["merged_ffs"] == 0
    first = [m["cell"] for m in s["offenders"]]
    assert first == ["carry", "l_mix", "mux", "l_after"]
    mix = s["offenders"][1]
    assert mix["bel"] == "X2/Y1/SLICEB.K0" and mix["kind"] == "LUT"
    assert mix["inputs"] == [{"pin": "A", "net": "x0", "shares": "0"}, {"pin": "B", "net": "x1", "shares": "1"}]
    assert s["offenders"][3]["inputs"] == [{"pin": "A", "net": "22", "shares": "0+1"}]   # a net with no name
    # X1/Y1/SLICEA holds share 0 and share 1 cells, none of which merges: packing alone; X3/Y1/SLICEB
    # (l_z: share 0 and an untagged register) does not mix
    assert s["merged_slices"] == 5 and s["merged_slices_packing_only"] == 1
    assert s["slice_offenders"][0]["slice"] == "X1/Y1/SLICEA"
    assert s["merged_tiles"] == 6      # X6/Y1 too: share 0 (l_r) and share 1 (l_rel) in two slices
    line = shares.summary(s)
    assert line.startswith("merged shares: 4 LUTs, 5 slices (of 11 tagged cells)") and "1 slices by packing alone" in line
    assert shares.offender_lines(s)[0].startswith("  carry carry at X4/Y1/SLICEA.K0: A=y0 (0), FCI=y1 (1)")


def test_no_tags_no_merges():
    placed = _placed()
    placed["modules"]["top"]["netnames"] = {}
    s = shares.placed_merges(placed, {})
    assert (s["merged_luts"], s["merged_slices"], s["tagged_cells"]) == (0, 0, 0)
    assert shares.summary(s) == "merged shares: 0 LUTs, 0 slices (of 0 tagged cells)"


def test_four_share_domains_merge_by_any_two():
    """Shares 2 and 3 (HPC2 on 3 or 4 shares): a LUT of shares 0 and 2 merges, a slice of
    share 2 and share 3 cells mixes by packing, a LUT of one share with untagged r does not."""
    cells = {"l02": _comb("X1/Y1/SLICEA.K0", (10, 12), 20),          # x0, x2: merges "0+2"
             "l2": _comb("X2/Y1/SLICEA.K0", (12, 14), 21),           # x2 ^ r: share 2 only
             "l3": _comb("X2/Y1/SLICEA.K1", (13, 14), 22),           # x3 ^ r: share 3, same slice
             "l123": _comb("X3/Y1/SLICEA.K0", (11, 12, 13), 23)}     # three shares
    nets = {"x0": _net([10], 0), "x1": _net([11], 1), "x2": _net([12], 2), "x3": _net([13], 3),
            "r": _net([14])}
    s = shares.placed_merges({"modules": {"top": {"cells": cells, "netnames": nets}}}, {})
    assert s["merged_luts"] == 2 and s["merged_slices"] == 3 and s["merged_slices_packing_only"] == 1
    by_cell = {m["cell"]: [i["shares"] for i in m["inputs"]] for m in s["offenders"]}
    assert by_cell == {"l02": ["0", "2"], "l123": ["1", "2", "3"]}
    assert shares._domain_text(0b1101) == "0+2+3" and shares.several(8) is False and shares.several(12) is True


@pytest.mark.parametrize("data, said", [({}, "the synthesized netlist has no module top"),
                                        ({"modules": {"other": {}}}, "has no module top"),
                                        ([], "has no module top")])
def test_bad_synthesized_netlists(data, said):
    with pytest.raises(CipherfabError, match=said):
        shares.synthesized_tags(data, "top")


def test_bad_files_are_one_line(tmp_path):
    (tmp_path / "netlist.json").write_text("{not json")
    with pytest.raises(CipherfabError, match="synthesized netlist .*netlist.json: not readable as JSON"):
        shares.measure(tmp_path, "top")
    (tmp_path / "netlist.json").write_text(json.dumps(SYNTH))
    with pytest.raises(CipherfabError, match="placed netlist .*placed.json: not readable"):
        shares.measure(tmp_path, "top")
    (tmp_path / "placed.json").write_text(json.dumps({"modules": {}}))
    with pytest.raises(CipherfabError, match="the placed netlist has no module"):
        shares.measure(tmp_path, "top")


# --- real builds ----------------------------------------------------------------------------------

#: the synthesis options of the studies' flows: default (parts kept) and flat in every run, LUT4
#: only and the classic abc with -m slow
SYNTH_OPTIONS = [{}, {"flatten": True}, pytest.param({"widelut": False}, marks=pytest.mark.slow),
                 pytest.param({"abc9": False}, marks=pytest.mark.slow)]


@pytest.mark.parametrize("options", SYNTH_OPTIONS, ids=["default", "flatten", "no-widelut", "no-abc9"])
def test_separate_shares_merge_in_no_lut_under_every_flow(options):
    rec = build(source("separate"), **options)
    s = rec["shares"]
    assert s["tagged_bits_synthesized"] == TAGGED_BITS == s["tagged_nets_placed"]   # every tag survives
    assert s["merged_luts"] == 0 and s["merged_ffs"] == 0 and s["offenders"] == []
    assert s["merged_slices"] == s["merged_slices_packing_only"]        # any mixed slice is packing's
    assert rec["times"]["shares"] >= 0


def test_recombined_shares_merge_where_they_meet(tmp_path):
    rec = build(source("recombined"), workdir=tmp_path)
    s = rec["shares"]
    assert s["merged_luts"] == s["merged_luts_first"] == WIDTH
    for m in s["offenders"]:
        nets = {i["net"].split("[")[0]: i["shares"] for i in m["inputs"]}
        assert nets == {"gadget.x0": "0", "gadget.x1": "1"} and m["bel"].startswith("X")
    placed = json.loads((tmp_path / "placed.json").read_text())
    cells = next(iter(placed["modules"].values()))["cells"]
    assert all(cells[m["cell"]]["attributes"]["NEXTPNR_BEL"] == m["bel"] for m in s["offenders"])


def test_a_register_merged_by_synthesis_holds_both_shares():
    s = build(source("same_register"))["shares"]
    assert s["synthesized_bits_with_both_tags"] == WIDTH and s["merged_ffs"] == WIDTH
    assert {m["kind"] for m in s["offenders"]} == {"FF"}


def test_hpc2_gadgets_merge_in_no_lut():
    """The masked core's gadgets: no LUT takes both shares; each Reg[b_j ^ r] (2 gadgets x 2
    shares) is relabelled, so neither its own input LUT nor the LUT that takes it mixes a slice."""
    from cipherfab.flow import DesignSource
    s = build(DesignSource(verilog=hpc2(), top="top", design={"external": True}, cycles_per_block_ecb=1))["shares"]
    assert s["merged_luts"] == 0 and s["merged_ffs"] == 0 and s["relabelled_ffs"] == 4
    assert s["merged_slices"] == s["merged_slices_packing_only"]


def test_hpc2_without_its_registers_is_no_merge_of_shares():
    """What the count does not see: HPC2's test mode without its product registers has one LUT
    of a_i, Reg b_i, Reg r and Reg(b_j ^ r): its glitches show a & b through r and b_j ^ r
    (randomness and a value masked by it), but no cell takes share 0 and share 1: the robust
    probing model is what sees it."""
    from cipherfab.flow import DesignSource
    s = build(DesignSource(verilog=hpc2(unregistered=True), top="top", design={"external": True},
                           cycles_per_block_ecb=1))["shares"]
    assert s["merged_luts"] == 0 and s["relabelled_ffs"] == 4


def test_untagged_records_do_not_change(tmp_path):
    (tmp_path / "tiny.v").write_text(TINY_V)
    from cipherfab.flow import DesignSource
    rec = build(DesignSource(verilog=TINY_V, top="tiny", design={"external": True}, cycles_per_block_ecb=1))
    assert "shares" not in rec and "shares" not in rec["times"]


def test_a_cached_record_without_the_count_or_with_an_older_one_is_rebuilt():
    src = source("separate")
    rec = build(src)
    raw = cache.load(rec["build_key"])
    del raw["shares"]
    cache.store(rec["build_key"], raw)
    again = build(src)
    assert again["cached"] is False and again["shares"]["merged_luts"] == 0
    assert build(src)["cached"] is True
    raw = cache.load(rec["build_key"])
    raw["shares"]["version"] = shares.VERSION - 1          # counted by older rules
    cache.store(rec["build_key"], raw)
    assert build(src)["cached"] is False


def test_build_prints_the_count_and_exits_0(tmp_path, capsys):
    (tmp_path / "r.v").write_text(design("recombined"))
    code = main(["build", "--verilog", str(tmp_path / "r.v"), "--top", "top", "--cycles-per-block", "1",
                 "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert f"merged shares: {WIDTH} LUTs, " in out and "  LUT y0_" in out and "gadget.x1[" in out
    assert json.loads((tmp_path / "r.json").read_text())["shares"]["merged_luts"] == WIDTH


def test_a_tagged_core_elsewhere_gets_a_note(tmp_path, capsys):
    (tmp_path / "s.v").write_text(design("separate"))
    assert main(["build", "--verilog", str(tmp_path / "s.v"), "--top", "top", "--cycles-per-block", "1",
                 "--device", "xc7"]) == 0
    out, err = capsys.readouterr()
    assert "merged shares" not in out and "merged shares: not counted on xc7 (ECP5 placed designs only)" in err
