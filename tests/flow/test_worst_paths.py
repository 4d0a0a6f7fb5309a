"""The worst-path analysis on small hand-written inputs: the SDF reader, the timing analysis,
the parts a cell belongs to, the record's summaries and their text, and cached records.
The real builds in test_flow_build.py and test_e2e_build.py check it against nextpnr's own
critical path."""

import importlib

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow import sdf, sta, show_paths
from cipherfab.flow.where import Where
from cipherfab.flow.worst_paths import describe, without_hops, Netlist

# Two registers r1, r2 (clock clk) feed a LUT l1 whose output reaches r3 (clk) directly and
# through a second LUT l2; r3's DI and CE are both checked.  A register k1 on another clock
# (kclk) feeds l2 too, over the slowest net of all.  Delays in ps (TIMESCALE 1ps); names
# escaped as nextpnr escapes them, one with an escaped divider.
SDF = r"""(DELAYFILE
  (SDFVERSION "3.0")
  (DESIGN "top")
  (DIVIDER /)
  (TIMESCALE 1ps)
  (CELL (CELLTYPE "top") (INSTANCE )
    (DELAY (ABSOLUTE
      (INTERCONNECT core\.ks\.r1/Q core\.dp\.l1/A (100:150:200) (100:150:210))
      (INTERCONNECT r2\$x\/y/Q core\.dp\.l1/B (300:300:300) (300:300:300))
      (INTERCONNECT core\.dp\.l1/F r3/DI (500:500:500) (500:500:500))
      (INTERCONNECT core\.dp\.l1/F core\.dp\.l2/A (50:50:50) (50:50:50))
      (INTERCONNECT core\.dp\.l2/F r3/CE (100:100:100) (100:100:100))
      (INTERCONNECT k1/Q core\.dp\.l2/B (5000:5000:5000) (5000:5000:5000))
    ))
  )
  (CELL (CELLTYPE "TRELLIS_FF") (INSTANCE core\.ks\.r1)
    (DELAY (ABSOLUTE (IOPATH CLK Q (400:400:400) (390:395:400)))))
  (CELL (CELLTYPE "TRELLIS_FF") (INSTANCE r2\$x\/y)
    (DELAY (ABSOLUTE (IOPATH CLK Q (400:400:400) (400:400:400)))))
  (CELL (CELLTYPE "TRELLIS_FF") (INSTANCE k1)
    (DELAY (ABSOLUTE (IOPATH CLK Q (400:400:400) (400:400:400)))))
  (CELL (CELLTYPE "TRELLIS_COMB") (INSTANCE core\.dp\.l1)
    (DELAY (ABSOLUTE (IOPATH A F (180:180:180) (180:180:180)) (IOPATH B F (170:170:170) (170:170:170)))))
  (CELL (CELLTYPE "TRELLIS_COMB") (INSTANCE core\.dp\.l2)
    (DELAY (ABSOLUTE (IOPATH A F (180:180:180) (180:180:180)) (IOPATH B F (180:180:180) (180:180:180)))))
  (CELL (CELLTYPE "TRELLIS_FF") (INSTANCE r3)
    (DELAY (ABSOLUTE (IOPATH CLK Q (400:400:400) (400:400:400))))
    (TIMINGCHECK
      (SETUPHOLD (posedge DI) (posedge CLK) (0:0:0) (200:200:200))
      (SETUPHOLD (negedge DI) (posedge CLK) (0:0:0) (200:200:200))
      (SETUPHOLD (posedge CE) (posedge CLK) (120:120:120) (100:100:100))))
)
"""

CLOCK_NET = {"core.ks.r1": "clk", "r2$x/y": "clk", "r3": "clk", "k1": "kclk"}


def timing():
    return sdf.parse(SDF)


def test_the_reader_unescapes_names_and_keeps_the_slowest_delay_in_ns():
    t = timing()
    assert t.cell_types["r2$x/y"] == "TRELLIS_FF" and t.cell_types["core.dp.l1"] == "TRELLIS_COMB"
    net = {(a.src, a.dst): a for a in t.net_arcs}
    assert net[(("core.ks.r1", "Q"), ("core.dp.l1", "A"))].delay_ns == pytest.approx(0.21)
    assert (("r2$x/y", "Q"), ("core.dp.l1", "B")) in net
    launches = {a.src for a in t.cell_arcs if a.kind == "launch"}
    assert launches == {("core.ks.r1", "CLK"), ("r2$x/y", "CLK"), ("k1", "CLK"), ("r3", "CLK")}
    assert t.setup_ns == {("r3", "DI"): 0.0, ("r3", "CE"): pytest.approx(0.12)}
    assert t.clock_pins[("r3", "CE")] == "CLK"


@pytest.mark.parametrize("text, words", [
    ("(DELAYFILE (CELL (CELLTYPE \"x\")", "not one balanced"),
    ("(DELAYFILE))", "unbalanced ')'"),
    ("(CELLS)", "does not start with (DELAYFILE"),
    ("(DELAYFILE (TIMESCALE 1 parsec))", "unknown TIMESCALE 1 parsec"),
    ("(DELAYFILE (CELL (CELLTYPE \"top\") (INSTANCE ) (DELAY (ABSOLUTE (INTERCONNECT a b (1) (1))))))",
     "no cell/pin divider in 'a'"),
])
def test_a_malformed_sdf_is_one_line(text, words):
    with pytest.raises(CipherfabError, match="^SDF: ") as e:
        sdf.parse(text)
    assert words in str(e.value) and "\n" not in str(e.value)


def in_clk(cell, pin):
    return CLOCK_NET.get(cell) == "clk"


def test_the_worst_path_takes_the_latest_arrival_at_each_pin():
    worst, = sta.worst_paths(timing(), 5, in_clk)   # one end register: r3, its worst pin
    # r2 (0.4 + 0.3 + 0.17 = 0.87) beats r1 (0.4 + 0.21 + 0.18 = 0.79) at l1.F; then
    # DI: 0.87 + 0.5 + setup 0 = 1.37; CE via l2: 0.87 + 0.05 + 0.18 + 0.1 + setup 0.12 = 1.32
    assert [(a.kind, a.src) for a in worst.steps] == [
        ("launch", ("r2$x/y", "CLK")), ("net", ("r2$x/y", "Q")), ("cell", ("core.dp.l1", "B")),
        ("net", ("core.dp.l1", "F")), ("setup", ("r3", "DI"))]
    assert worst.delay_ns == pytest.approx(1.37)
    assert worst.routing_ns == pytest.approx(0.8) and worst.logic_ns == pytest.approx(0.57)


def test_another_clock_is_left_out_and_every_clock_counts_by_default():
    everything, = sta.worst_paths(timing(), 5)
    assert everything.start.src == ("k1", "CLK")    # 0.4 + 5 + 0.18 + 0.1 + 0.12
    assert everything.delay_ns == pytest.approx(5.8)
    assert sta.worst_paths(timing(), 5, lambda cell, pin: cell != "r3") == []   # no capture left


NETLIST = {"modules": {
    "top": {"cells": {"core.ks": {"type": "top.core.ks"}, "core.dp": {"type": "top.core.dp"},
                      "r3": {"type": "TRELLIS_FF", "connections": {"Q": [7]}}},
            "netnames": {"core.state": {"bits": [6, 7], "hide_name": 0},
                         "r3_TRELLIS_FF_Q_DI_LUT4_Z": {"bits": [7], "hide_name": 0}}},
    "top.core.ks": {"cells": {"r1": {"type": "TRELLIS_FF", "connections": {"Q": [3]}},
                              "sbox": {"type": "top.core.ks.sbox"}},
                    "ports": {"y": {"direction": "output", "bits": [3]}},
                    "netnames": {"rk": {"bits": [2, 3], "hide_name": 0}, "y": {"bits": [3], "hide_name": 0}}},
    "top.core.ks.sbox": {"cells": {}, "netnames": {}},
    "top.core.dp": {"cells": {}, "netnames": {}},
    "TRELLIS_FF": {"attributes": {"blackbox": "1"}, "cells": {}},
}}
PARTS = {"top.core.ks": "key_schedule", "top.core.dp": "datapath"}


def test_cells_are_placed_in_their_part_and_kept_module():
    where = Where(NETLIST, "top", PARTS, generated=True)
    assert where("core.ks.sbox.t_LUT4_Z") == ("key_schedule", "key_schedule.sbox")
    assert where("core.ks.r1") == ("key_schedule", "key_schedule")
    assert where("core.dp.l1") == ("datapath", "datapath")
    assert where("core.ready_LUT4_C") == ("control", "control")   # flattened into the top
    assert where("r3") == ("control", "control")
    assert Where(NETLIST, "top", {**PARTS, "top": "fsm"}, generated=False)("r3") == ("fsm", "fsm")
    assert Where(NETLIST, "top", PARTS, generated=False)("r3") == ("unassigned", "unassigned")


def test_a_register_is_named_by_the_signal_bit_it_holds():
    where = Where(NETLIST, "top", PARTS, generated=True)
    assert where.register("core.ks.r1") == "core.ks.rk[1]"     # rk before the port alias y
    assert where.register("r3") == "core.state[1]"             # a real name before a made-up one
    assert where.register("core.dp.unknown") is None


PLACED = {"modules": {"top": {
    "cells": {"core.ks.r1": {"connections": {"Q": [1]}}, "r2$x/y": {"connections": {"Q": [2]}},
              "core.dp.l1": {"connections": {"F": [3]}, "parameters": {"MODE": "LOGIC"}}},
    "netnames": {"core.ks.rk": {"bits": [1], "hide_name": 0}, "x": {"bits": [2], "hide_name": 0},
                 "core.dp.l1_out": {"bits": [3], "hide_name": 0}}}}}


def test_a_path_is_described_with_parts_levels_and_hops():
    t = timing()
    worst, = sta.worst_paths(t, 1, in_clk)
    from collections import Counter
    fanout = Counter(a.src for a in t.net_arcs)
    p = describe(worst, t, Netlist(PLACED), Where(NETLIST, "top", PARTS, generated=True), fanout)
    assert (p["delay_ns"], p["logic_ns"], p["routing_ns"]) == (1.37, 0.57, 0.8)
    assert p["lut_levels"] == 1 and p["carry_cells"] == 0
    assert p["start"] == {"cell": "r2$x/y", "register": "r2$x/y", "part": "control", "where": "control"}
    assert p["end"] == {"cell": "r3", "pin": "DI", "register": "core.state[1]", "part": "control",
                        "where": "control"}
    assert p["parts"] == ["control", "datapath", "control"] and p["crosses"] == p["parts"]
    assert [(h["cell"], h["from"], h["to"]) for h in p["hops"]] == [
        ("r2$x/y", "CLK", "Q"), ("core.dp.l1", "B", "F"), ("r3", "DI", "CLK")]
    assert p["hops"][1]["net"] == "core.dp.l1_out" and p["hops"][1]["fanout"] == 2
    assert sum(h["logic_ns"] + h.get("routing_ns", 0) for h in p["hops"]) == pytest.approx(p["delay_ns"])
    text = show_paths.lines([p])
    assert text[0] == "#1  1.370 ns = 0.570 logic + 0.800 routing (58%), 1 LUT levels"
    assert text[3] == "    crosses      control > datapath > control"
    assert text[4] == "    slowest net  core.dp.l1_out: 0.500 ns, fanout 2"
    assert text[5] == "    most sinks   core.dp.l1_out: 0.500 ns, fanout 2"
    select = {"hops": [{"net": "a", "routing_ns": 1.0, "fanout": 1}, {"net": "sel", "routing_ns": 0.2, "fanout": 400},
                       {"cell": "end"}]}
    assert show_paths.lines([{**p, **select}])[4:6] == ["    slowest net  a: 1.000 ns, fanout 1",
                                                        "    most sinks   sel: 0.200 ns, fanout 400"]
    rec = {"timing": {"clock": "clk", "fmax_mhz": 1000 / 1.37, "worst_paths": [p]}}
    assert show_paths.worst_line(rec["timing"]) == "1.370 ns, 1 LUT levels, 58% routing: control > datapath > control"
    assert "the worst, 1.370 ns, against nextpnr's critical path 1000/Fmax = 1.370 ns" in show_paths.check_line(rec["timing"])
    assert "hops" not in without_hops(rec)["timing"]["worst_paths"][0] and "hops" in p
    assert show_paths.worst_line({"clock": "clk"}) is None     # a record from before paths


def test_a_cached_record_from_before_paths_is_rebuilt_only_when_paths_are_asked_for(monkeypatch):
    build_module = importlib.import_module("cipherfab.flow.build")   # the package shadows it by build()
    from cipherfab.flow.cli import summary_rows
    from flowhelpers import mini_source
    measured = []

    def measure(source, dev, seed, router, wd, timeout):   # the flow before paths, then after
        timing_ = {"clock": "clk", "fmax_mhz": 100.0, "fmax_pre_route_mhz": 90.0, "wiring_ratio": 1.1,
                   "fmax_by_clock_mhz": {"clk": 100.0}}
        if measured:
            timing_["worst_paths"] = [{"delay_ns": 10.0 - i, "logic_ns": 1.0, "routing_ns": 9.0 - i,
                                       "lut_levels": 2, "carry_cells": 0, "parts": ["datapath"],
                                       "crosses": ["datapath"]} for i in range(5)]
        measured.append(1)
        return {"area": {"lut4": 10, "ff": 4, "ebr": 0, "slices": 5}, "timing": timing_,
                "times": {"synthesize": 1.0, "place": 1.0, "route": 1.0, "pack": None},
                "tools": {}, "router": "router1", "flow": {}, "synthesized_cells": {}}

    monkeypatch.setattr(build_module, "_measure", measure)
    old = build_module.build(mini_source())
    assert "worst_paths" not in old["timing"] and len(measured) == 1
    cached = build_module.build(mini_source())
    assert cached["cached"] and "worst_paths" not in cached["timing"] and len(measured) == 1
    assert "worst path" not in dict(summary_rows(cached))          # absent = not measured
    asked = build_module.build(mini_source(), paths=2)             # asked for: rebuilt
    assert not asked["cached"] and len(measured) == 2 and len(asked["timing"]["worst_paths"]) == 2
    again = build_module.build(mini_source())
    assert again["cached"] and len(again["timing"]["worst_paths"]) == 3 and len(measured) == 2
    assert len(build_module.build(mini_source(), paths=4)["timing"]["worst_paths"]) == 4
    assert dict(summary_rows(again))["worst path"] == "10.000 ns, 2 LUT levels, 90% routing: datapath"
    with pytest.raises(CipherfabError, match=r"^paths must be a whole number in 1\.\.20, got 0$"):
        build_module.build(mini_source(), paths=0)
