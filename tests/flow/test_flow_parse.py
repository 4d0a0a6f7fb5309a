"""Parsers run on tool output recorded on this machine (fixtures/)."""

import json

import pytest

from cipherfab.flow import parse, tools
from flowhelpers import FIXTURES, MINI_PARTS


def lines(name):
    return (FIXTURES / name).read_text().splitlines()


def load(name):
    return json.loads((FIXTURES / name).read_text())


def test_stat_split_ecp5():
    cells, totals, parts = parse.synth_area(load("ecp5_stat.json"), "mini_core", "ecp5", MINI_PARTS)
    assert totals == {"lut4": 304, "ff": 103, "ccu2": 16, "ebr": 4, "dsp": 1}
    assert parts["key_schedule"] == {"lut4": 96, "ff": 32, "ccu2": 16, "dsp": 1}
    assert parts["datapath"] == {"lut4": 156, "ebr": 4}
    assert parts["control"] == {"lut4": 52, "ff": 71}
    assert cells["PFUMX"] == 72 and "$scopeinfo" not in cells
    for metric, total in totals.items():  # the parts add up exactly
        assert sum(p.get(metric, 0) for p in parts.values()) == total


def test_stat_unassigned_and_paramod():
    stat = load("paramod_stat.json")  # top + \top.ks + $paramod\ksp\W=8
    _, totals, parts = parse.synth_area(stat, "top", "ecp5", {"ksp": "key_schedule"})
    assert parts["key_schedule"] == {"lut4": 2, "ff": 8}
    assert parts["unassigned"] == {"lut4": 4, "ff": 4}
    assert parse.module_base_name("$paramod$abc123\\ksp") == "ksp"
    assert parse.part_of("top.ks.sbox", {"top": "control", "top.ks": "key_schedule"}) == "key_schedule"


def test_instance_multiplicity():
    stat = {"modules": {"\\t": {"num_cells_by_type": {"LUT4": 1, "s": 4}},
                        "\\s": {"num_cells_by_type": {"LUT4": 10, "TRELLIS_FF": 2}}}}
    _, totals, parts = parse.synth_area(stat, "t", "ecp5", {"s": "datapath"})
    assert totals == {"lut4": 41, "ff": 8}
    assert parts == {"unassigned": {"lut4": 1}, "datapath": {"lut4": 40, "ff": 8}}


def test_stat_other_families():
    _, ice, _ = parse.synth_area(load("ice40_stat.json"), "mini_core", "ice40", {})
    assert ice == {"lut4": 923, "ff": 103, "carry": 60, "ebr": 4}
    _, x, parts = parse.synth_area(load("xc2v_stat.json"), "mini_core", "xilinx", MINI_PARTS)
    assert x["lut"] == 440 and x["ff"] == 103 and x["bram"] == 4 and x["dsp"] == 1
    assert set(parts) == {"control", "datapath", "key_schedule"}


def test_nextpnr_ecp5_log():
    log = lines("ecp5_nextpnr.log")
    util = parse.utilisation(log)
    assert util["DP16KD"] == (4, 208) and util["TRELLIS_COMB"] == (342, 83640)
    assert util["TRELLIS_FF"] == (103, 83640)
    pre, post = parse.pre_and_post_route_fmax(log)
    assert pre == {"clk": 128.06} and post == {"clk": 132.33}
    assert parse.critical_path_split(log) == {"clk": {"logic_ns": 4.65, "routing_ns": 2.9}}
    assert parse.overflow_message(util, "ecp5-85k") is None


def test_nextpnr_router2_log_route_start():
    log = lines("ecp5_nextpnr_router2.log")
    i = parse.route_start(log)
    assert "Routing globals" in log[i]
    pre, post = parse.pre_and_post_route_fmax(log)
    assert set(pre) == set(post) == {"clk"}


def test_nextpnr_report_json():
    rep = load("ecp5_report.json")
    assert parse.report_fmax(rep) == {"clk": pytest.approx(132.328, abs=1e-3)}
    assert parse.report_utilisation(rep)["MULT18X18D"] == (1, 156)


def test_ice40_log_and_clock_name():
    log = lines("ice40_hx8k_nextpnr.log")
    pre, post = parse.pre_and_post_route_fmax(log)
    clk = parse.pick_clock(post)
    assert clk == "clk$SB_IO_IN_$glb_clk" and pre[clk] < 200
    assert parse.utilisation(log)["SB_IO"] == (102, 206)
    assert parse.clock_base("$glbnet$clk") == "clk"
    assert parse.pick_clock({"sys_clk": 10.0}) is None


@pytest.mark.parametrize("fixture,device,message", [
    ("ice40_hx8k_lc_overflow.log", "ice40-hx8k", "needs 11,419 LC, ice40-hx8k has 7,680"),
    ("ice40_up5k_io_overflow.log", "ice40-up5k", "needs 102 IO, ice40-up5k has 39"),
    ("ecp5_25k_ebr_overflow.log", "ecp5-25k", "needs 60 EBR, ecp5-25k has 56"),
])
def test_does_not_fit_messages(fixture, device, message):
    assert parse.overflow_message(parse.utilisation(lines(fixture)), device) == message


def test_placed_counts():
    ecp5 = parse.placed_counts(load("ecp5_placed_tiny.json"), "ecp5")
    assert ecp5 == {"lut4": 9, "ff": 16, "ccu2_luts": 12, "ccu2": 6}
    ice = parse.placed_counts(load("ice40_placed_tiny.json"), "ice40")
    assert ice == {"lc": 20, "lut4": 18, "ff": 16, "carry": 7, "io": 13}


def test_first_error_is_one_line():
    msg = tools.first_error(lines("yosys_error.log"))
    assert msg == "bad.v:2: syntax error, unexpected ';'"
    long = tools.first_error(lines("ice40_hx8k_lc_overflow.log"))
    assert "\n" not in long and long.startswith("Unable to place cell")
    assert len(tools.first_error(["ERROR: " + "x" * 1000])) == 300


def test_nextpnr_log_with_two_clocks():
    """With several clocks nextpnr pads the clock names to one width; both are read,
    before and after routing (a core with a key clock, --key-clock separate)."""
    lines = ["Info: Max frequency for clock 'key_clk': 116.89 MHz (FAIL at 500.00 MHz)",
             "Info: Max frequency for clock     'clk': 118.79 MHz (FAIL at 500.00 MHz)",
             "Info: Routing globals...",
             "Warning: Max frequency for clock 'key_clk': 131.25 MHz (FAIL at 500.00 MHz)",
             "Warning: Max frequency for clock     'clk': 132.03 MHz (FAIL at 500.00 MHz)"]
    pre, post = parse.pre_and_post_route_fmax(lines)
    assert pre == {"key_clk": 116.89, "clk": 118.79}
    assert post == {"key_clk": 131.25, "clk": 132.03}
    assert parse.pick_clock(post, "key_clk") == "key_clk"


def test_a_yowasp_tool_that_crashed_says_so_in_one_line():
    """nextpnr-himbaechel-gatemate stopped after routing (seed 1 of two AES cores, 2026-11-27):
    the message names the trap and the tool's last step, not the Python traceback's last line."""
    log = ["Info: Routing complete.", "Info: Critical path report for clock 'clk' (posedge -> posedge):",
           "Info: [ -7044,  -6255) |*+", "Traceback (most recent call last):",
           "wasmtime._trap.Trap: error while executing at wasm backtrace:", "    0:  0x72b04 - <unknown>!<wasm function 1015>",
           "", "Caused by:", "    0: memory fault at wasm address 0x100000070 in linear memory of size 0x959e0000",
           "    1: wasm trap: out of bounds memory access"]
    assert tools.first_error(log) == ("the tool crashed (WebAssembly trap: wasm trap: out of bounds memory access) "
                                      "after 'Critical path report for clock 'clk' (posedge -> posedge):'")
