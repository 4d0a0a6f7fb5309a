"""The system study's measurement (study.system) on a small grid: rows for every link,
mode and depth, throughput rising with transfer size, the report and README tables."""

import cipherfab.study.system as system
from cipherfab.study.report import Doc, render_md

DESIGN = {"cipher": "aes", "arch": "iterative", "key_bits": 128, "direction": "both", "sbox": "rom",
          "key_add": "load"}


def test_after_builds_and_tables(monkeypatch):
    monkeypatch.setattr(system, "SIZES", (1, 256))
    monkeypatch.setattr(system, "LINKS", ("pcie-gen3x4", "pilchard-uncached"))
    # the paper's depth: the system tests/host/test_encrypt_cli.py compiles; then a small one
    monkeypatch.setattr(system, "DEPTHS", (512, 8))
    records = [{"status": "ok", "design": DESIGN, "timing": {"fmax_mhz": 100.0}},
               {"status": "ok", "design": DESIGN, "timing": {"fmax_mhz": 110.0}},
               {"status": "failed", "design": DESIGN, "timing": {}}]
    res = system.after_builds(records, "ecp5-85k")
    rows = res["system"]
    assert len(rows) == 2 * 6 * 2 + 2 * 2          # first depth: 2 links x 6 modes x 2 sizes; second: CTR only
    gcm = {(r["mode"], r["blocks"]): r for r in rows if r["link"] == "pcie-gen3x4" and r["mode"].startswith("gcm")}
    assert gcm["gcm", 256]["system_mbps"] >= 0.9 * gcm["gcm", 256]["core_mbps"]   # the digit GHASH keeps up
    assert gcm["gcm-aad1k", 256]["system_mbps"] < gcm["gcm", 256]["system_mbps"]  # the AAD costs time
    for size in (1, 256):                          # the next message under the key: H kept
        assert gcm["gcm-next", size]["cycles"] < gcm["gcm", size]["cycles"]
        assert gcm["gcm-next-aad1k", size]["cycles"] < gcm["gcm-aad1k", size]["cycles"]
    assert {r["fmax_mhz"] for r in rows} == {110.0}  # the median of the ok records
    pcie = {r["blocks"]: r for r in rows if r["link"] == "pcie-gen3x4" and r["mode"] == "ctr" and r["depth"] == 512}
    assert pcie[1]["system_mbps"] < 0.2 * pcie[256]["system_mbps"]       # latency-bound when small
    assert pcie[256]["system_mbps"] >= 0.95 * pcie[256]["core_mbps"]
    slow = [r for r in rows if r["link"] == "pilchard-uncached" and r["blocks"] == 256 and r["mode"] == "ctr"]
    assert all(r["system_mbps"] < 0.3 * r["core_mbps"] for r in slow)   # link-bound
    headers, body = system.headline(res)
    assert [b[1] for b in body] == ["pcie-gen3x4", "pilchard-uncached"]
    assert body[0][5] == "256 blocks" and body[1][5] == "never (link-bound)"
    doc = Doc()
    system.section(doc, res)
    text = render_md(doc)
    assert "System throughput against transfer size" in text and "GCM-AAD1K" in text


def test_headline_marks_a_core_whose_fmax_came_from_the_build_cache():
    row = {"core": "c", "link": "pcie-gen3x4", "mode": "ctr", "depth": system.DEPTHS[0],
           "blocks": 16, "system_mbps": 99.0, "core_mbps": 100.0}
    fresh = system.headline({"system": [row]})[1]
    cached = system.headline({"system": [{**row, "fmax_cached": True}]})[1]
    assert fresh[0][0] == "c" and cached[0][0] == "c †"


def test_gcm_goals_take_each_core_s_best_link_and_mark_both_goals():
    rows = []
    for link, pipe_mbps in (("pcie-gen3x4", 9000.0), ("axi-dma", 21000.0)):
        for blocks, share in ((256, 0.5), (1024, 0.97), (16384, 0.99)):
            rows.append({"core": "iter", "link": link, "mode": "gcm", "depth": system.DEPTHS[0],
                         "blocks": blocks, "system_mbps": 1000.0 * share, "core_mbps": 1000.0,
                         "cycles_per_block": 10})
            rows.append({"core": "pipe", "link": link, "mode": "gcm-aad1k", "depth": system.DEPTHS[0],
                         "blocks": blocks, "system_mbps": pipe_mbps * share, "core_mbps": 24000.0,
                         "cycles_per_block": 1})
    rows.append({"core": "pipe", "link": "axi-dma", "mode": "ctr", "depth": system.DEPTHS[0],
                 "blocks": 1024, "system_mbps": 22800.0, "core_mbps": 24000.0, "cycles_per_block": 1})
    _, body = system.gcm_goals({"system": rows})
    it, pipe = body
    assert it[:5] == ["iter", "gcm", "pcie-gen3x4", "97.0%", "**met**"]   # 256 blocks do not count
    assert it[5] == "–" and it[7] == "– (not one block per clock)"
    assert pipe[:5] == ["pipe", "gcm-aad1k", "axi-dma", "84.9%", "not met"]
    assert pipe[5] == "95.0%"                      # CTR on the same link: the ceiling
    assert pipe[7] == "met at the core's Fmax, the GHASH unit not timed (20.8 Gbit/s)"
