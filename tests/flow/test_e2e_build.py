"""End to end: ``cipherfab build aes ...`` through the real CLI, generator, Yosys and nextpnr.

No fakes and no cache (tests/flow/conftest.py gives every test an empty one): the
AES-128 core with block-RAM S-boxes is generated, synthesized, placed and routed
on an ECP5-25F, and the record and the console output are checked.
"""

import json

from cipherfab.cli import main
from cipherfab.flow.source import design_source
from flowhelpers import check_worst_paths


def test_build_aes128_rom_on_ecp5_25k(tmp_path, capsys):
    out = tmp_path / "aes.json"
    assert main(["build", "aes", "--key-bits", "128", "--direction", "encrypt", "--sbox", "rom",
                 "--device", "ecp5-25k", "--paths", "2", "--json", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["status"] == "ok" and rec["cached"] is False and rec["times_source"] == "this run"
    assert rec["device"]["name"] == "ecp5-25k" and rec["device"]["part"] == "LFE5U-25F"
    a, t, p = rec["area"], rec["timing"], rec["performance"]
    assert a["lut4"] > 0 and a["ff"] > 0
    assert a["ebr"] == 10  # 2 S-boxes per block RAM: 16 data-path + 4 key-schedule S-boxes
    assert t["fmax_mhz"] > 0 and t["fmax_pre_route_mhz"] > 0
    # the cycle facts are the generator's declaration, and those the README states
    src = design_source("aes", arch="iterative", key_bits=128, direction="encrypt", sbox="rom")
    assert rec["verilog_sha256"] == src.verilog_sha256
    assert (p["latency_cycles"], p["cycles_per_block_ecb"], p["cycles_per_block_cbc"], p["key_setup_cycles"]) == \
        (src.latency, src.cycles_per_block_ecb, src.cycles_per_block_cbc, src.key_setup_cycles) == (11, 10, 11, 2)
    assert p["throughput_ecb_mbps"] == round(128 * t["fmax_mhz"] / 10, 3)
    assert p["key_setup_ns"] == round(2 * 1000 / t["fmax_mhz"], 3)
    assert sum(part.get("ebr", 0) for part in a["parts"].values()) == 10
    for stage in ("elaborate", "synthesize", "place", "route", "total"):
        assert rec["times"][stage] > 0

    check_worst_paths(rec, {"key_schedule", "datapath", "control"}, n=2)
    text = " ".join(capsys.readouterr().out.split())
    assert "aes-iterative-128-encrypt-rom" in text and "LFE5U-25F" in text
    assert "area by part" in text
    for name, part in a["parts"].items():
        assert f"{name} {part.get('lut4', 0)} LUT4, {part.get('ff', 0)} FF, {part.get('ebr', 0)} EBR" in text
    assert f"key setup 2 cycles ({p['key_setup_ns']:.1f} ns at Fmax)" in text
    assert "latency 11 cycles; cycles/block ECB 10, CBC 11" in text
    assert f"Fmax {t['fmax_mhz']:.1f} MHz" in text
    worst = rec["timing"]["worst_paths"][0]
    assert (f"the worst, {worst['delay_ns']:.3f} ns, against nextpnr's critical path 1000/Fmax = "
            f"{1000 / t['fmax_mhz']:.3f} ns") in text
    assert f"#1 {worst['delay_ns']:.3f} ns = {worst['logic_ns']:.3f} logic" in text and "#2 " in text and "#3 " not in text
    assert f"crosses {' > '.join(worst['crosses'])}" in text
