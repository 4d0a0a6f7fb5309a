"""Share-separated placement (cipherfab.flow.share_place): on hand-written placed netlists,
which cells move where and which rules a destination keeps; on real builds of a small tagged
design, that nextpnr routes the moved placement and no slice or tile holds both shares."""

from __future__ import annotations

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow import build, shares
from cipherfab.flow.share_place import separate
from flowhelpers import placed_comb as _comb
from share_designs import source


def _ff(bel, d, q, port="DI", clk=90, ce=None, lsr=None):
    conns = {port: [d], "Q": [q], "CLK": [clk]} | ({"CE": [ce]} if ce else {}) | ({"LSR": [lsr]} if lsr else {})
    return {"type": "TRELLIS_FF", "parameters": {}, "attributes": {"NEXTPNR_BEL": bel}, "connections": conns,
            "port_directions": {p: "output" if p == "Q" else "input" for p in conns}}


def _design(cells: dict) -> dict:
    """x0 (share 0, bit 10), x1 (share 1, bit 11), r (bit 12, untagged), y1 (share 1, bit 39)."""
    nets = {"x0": {"bits": [10], "attributes": {"cipherfab_share": "0 "}},
            "x1": {"bits": [11], "attributes": {"cipherfab_share": "1 "}}, "r": {"bits": [12]},
            "y1": {"bits": [39], "attributes": {"cipherfab_share": "1 "}},
            "n": {"bits": [20], "attributes": {"ROUTING": "a;b;1"}}}
    return {"modules": {"top": {"cells": cells, "netnames": nets}}}


def _bel(placed, cell):
    return placed["modules"]["top"]["cells"][cell]["attributes"]["NEXTPNR_BEL"]


def _count(placed):
    s = shares.placed_merges(placed, {})
    return s["merged_slices"], s["merged_tiles"]


def test_one_domain_leaves_a_slice_with_the_flip_flop_its_lut_feeds():
    placed = _design({
        "a0": _comb("X1/Y1/SLICEA.K0", (10, 12), 20), "q0": _ff("X1/Y1/SLICEA.FF0", 20, 30),
        "a1": _comb("X1/Y1/SLICEA.K1", (11, 12), 21), "q1": _ff("X1/Y1/SLICEA.FF1", 21, 31),
        "b1": _comb("X1/Y1/SLICEB.K0", (11,), 22),      # share 1 in another slice of the tile
        "far": _comb("X5/Y1/SLICEA.K0", (12,), 23),     # an untagged cell: its tile is a logic tile
    })
    assert _count(placed) == (1, 1)
    done = separate(placed, {}, "slice")
    assert done["mixed_before"] == 1 and done["unresolved"] == [] and done["moved_cells"] == 2
    moved = "a0" if _bel(placed, "a0") != "X1/Y1/SLICEA.K0" else "a1"
    twin = {"a0": "q0", "a1": "q1"}[moved]
    assert _bel(placed, moved).split(".")[0] == _bel(placed, twin).split(".")[0]      # still one LC
    assert _bel(placed, moved).endswith(".K0" if moved == "a0" else ".K1")
    assert _count(placed)[0] == 0 and _count(placed)[1] == 1          # the tile still holds both
    assert "ROUTING" not in placed["modules"]["top"]["netnames"]["n"]["attributes"]
    tile = _design({
        "a0": _comb("X1/Y1/SLICEA.K0", (10, 12), 20), "b1": _comb("X1/Y1/SLICEB.K0", (11,), 22),
        "far": _comb("X5/Y1/SLICEA.K0", (12,), 23)})
    done = separate(tile, {}, "tile")
    assert done["mixed_before"] == 1 and _count(tile) == (0, 0) and done["moved_cells"] == 1
    assert _bel(tile, "a0").startswith("X5/Y1/") or _bel(tile, "b1").startswith("X5/Y1/")


def test_a_destination_keeps_the_slice_and_tile_rules():
    cells = {
        "a0": _comb("X1/Y1/SLICEA.K0", (10,), 20), "q0": _ff("X1/Y1/SLICEA.FF0", 20, 30, ce=80),
        "a1": _comb("X1/Y1/SLICEA.K1", (11, 12, 13), 21), "b1": _comb("X1/Y1/SLICEB.K0", (11, 14), 24),
        "b2": _comb("X1/Y1/SLICEB.K1", (11, 15), 25), "c1": _comb("X1/Y1/SLICEC.K0", (11, 16), 26),
        "c2": _comb("X1/Y1/SLICEC.K1", (11, 17), 27), "d1": _comb("X1/Y1/SLICED.K0", (11, 18), 28),
        # nearest: X2 (a flip-flop on another clock), X3 (one on another clock enable in every
        # slice), X4 (carry and RAM logic): the unit goes to X5
        "clk2": _ff("X2/Y1/SLICEA.FF1", 12, 40, clk=91),
        **{f"ce{s}": _ff(f"X3/Y1/SLICE{s}.FF1", 12, 41 + i, ce=81) for i, s in enumerate("ABCD")},
        "carry": _comb("X4/Y1/SLICEA.K0", (12,), 50, mode="CCU2"),
        "ram": _comb("X4/Y1/SLICEB.K0", (12,), 51, mode="DPRAM"),
        "far": _comb("X5/Y1/SLICEA.K0", (12,), 52)}
    placed = _design(cells)
    done = separate(placed, {}, "tile")
    assert done["unresolved"] == [] and done["moved_cells"] == 2          # a0 and q0, the smaller side
    assert _bel(placed, "a0").startswith("X5/Y1/SLICE") and _bel(placed, "a0").endswith(".K0")
    assert _bel(placed, "q0") == _bel(placed, "a0").replace(".K0", ".FF0")
    assert _count(placed) == (0, 0)


def test_fixed_logic_stays_and_the_other_domain_moves():
    placed = _design({
        "carry0": _comb("X1/Y1/SLICEA.K0", (10,), 20, mode="CCU2"),
        "carry1": _comb("X1/Y1/SLICEA.K1", (10,), 21, mode="CCU2"),
        "m1": _ff("X1/Y1/SLICEA.FF0", 11, 39, port="M"),             # share 1 through M: moves alone
        "far": _comb("X2/Y1/SLICEA.K0", (12,), 23)})
    done = separate(placed, {}, "slice")
    assert done["unresolved"] == [] and _bel(placed, "carry0") == "X1/Y1/SLICEA.K0"
    assert _bel(placed, "m1") == "X1/Y1/SLICEB.FF0" and _count(placed)[0] == 0     # the nearest free slice
    both = _design({"l": _comb("X1/Y1/SLICEA.K0", (10, 11), 20), "l0": _comb("X1/Y1/SLICEA.K1", (10,), 21),
                    "far": _comb("X2/Y1/SLICEA.K0", (12,), 23)})
    assert separate(both, {}, "slice")["unresolved"] == [{"slice": "X1/Y1/SLICEA", "why": "one unit holds more than one domain"}]
    stuck = _design({"c0": _comb("X1/Y1/SLICEA.K0", (10,), 20, mode="CCU2"),
                     "c1": _comb("X1/Y1/SLICEA.K1", (11,), 21, mode="CCU2")})
    assert separate(stuck, {}, "slice")["unresolved"][0]["why"] == "the cells of all domains but one cannot move"


def test_three_domains_in_a_tile_keep_one_and_move_the_others():
    """d = 3: a tile with share 0, 1 and 2 cells keeps the domain with the most cells."""
    def design(cells):
        placed = _design(cells)
        placed["modules"]["top"]["netnames"]["x2"] = {"bits": [13], "attributes": {"cipherfab_share": "2 "}}
        return placed
    placed = design({
        "a0": _comb("X1/Y1/SLICEA.K0", (10, 12), 20), "b0": _comb("X1/Y1/SLICEA.K1", (10,), 21),
        "c1": _comb("X1/Y1/SLICEB.K0", (11,), 22), "d2": _comb("X1/Y1/SLICEC.K0", (13, 12), 23),
        "far": _comb("X5/Y1/SLICEA.K0", (12,), 24), "far2": _comb("X9/Y1/SLICEA.K0", (12,), 25)})
    assert _count(placed) == (0, 1)
    done = separate(placed, {}, "tile")
    assert done["mixed_before"] == 1 and done["unresolved"] == [] and done["moved_cells"] == 2
    assert _bel(placed, "a0").startswith("X1/Y1/") and _bel(placed, "b0").startswith("X1/Y1/")
    tiles = {_bel(placed, c).split("/SLICE")[0] for c in ("c1", "d2")}
    assert "X1/Y1" not in tiles and _count(placed) == (0, 0)


def test_a_mux_over_two_slices_moves_whole_into_empty_slices():
    placed = _design({
        # share 0: an L6MUX21 over slices A and B (B's OFX0 into A's FXB), PFUMX in each
        "a0": _comb("X1/Y1/SLICEA.K0", (10,), 20, F1=21, OFX=22),
        "a1": _comb("X1/Y1/SLICEA.K1", (10,), 21, FXA=22, FXB=23, OFX=24),
        "b0": _comb("X1/Y1/SLICEB.K0", (10,), 25, F1=26, OFX=23), "b1": _comb("X1/Y1/SLICEB.K1", (10,), 26),
        # share 1 in slices C and D: more cells, so share 0 moves
        **{f"s{s}{i}": _comb(f"X1/Y1/SLICE{s}.K{i}", (11, 12), 30 + 2 * j + i) for j, s in enumerate("CD") for i in (0, 1)},
        "half": _comb("X2/Y1/SLICEA.K0", (12,), 40),       # X2: slice A taken, so not A-B; C-D is free
        "far": _comb("X3/Y1/SLICEA.K0", (12,), 41)})
    done = separate(placed, {}, "tile")
    assert done["unresolved"] == [] and done["moved_units"] == 1 and done["moved_cells"] == 4
    assert [_bel(placed, c) for c in ("a0", "a1", "b0", "b1")] == \
        ["X2/Y1/SLICEC.K0", "X2/Y1/SLICEC.K1", "X2/Y1/SLICED.K0", "X2/Y1/SLICED.K1"]
    with pytest.raises(CipherfabError, match="by slice or by tile"):
        separate(placed, {}, "pfu")


@pytest.mark.parametrize("kind", ["separate", "recombined"])
def test_a_tagged_build_is_routed_from_the_separated_placement(kind):
    rec = build(source(kind))
    s = rec["shares"]
    assert s["placement"] == "separate" and s["separation"]["level"] == "tile"
    assert s["merged_slices"] == 0 and s["merged_tiles"] == 0 or s["separation"]["unresolved"]
    assert rec["timing"]["fmax_mhz"] > 0 and rec["flow"]["share_placement"] == "separate"
    free = build(source(kind), share_placement="free")
    assert free["shares"]["placement"] == "free" and "separation" not in free["shares"]
    assert free["build_key"] != rec["build_key"] and free["flow"]["share_placement"] == "free"
