"""A real build with non-default flow options: a tiny core through ``cipherfab build`` with
the simulated-annealing placer, router2, the classic abc LUT mapper and LUT4 only, two
placer seeds (seconds), then from the cache; and the mapper's own log for ``--no-abc9``."""

import json
import statistics

from cipherfab.cli import main
from cipherfab.flow import build
from cipherfab.flow.source import DesignSource
from flowhelpers import TINY_V


def test_tiny_core_with_every_non_default_option_and_two_seeds(tmp_path, capsys):
    v = tmp_path / "tiny.v"
    v.write_text(TINY_V)
    out = tmp_path / "seeds.json"
    argv = ["build", "--verilog", str(v), "--top", "tiny", "--cycles-per-block", "1", "--block-bits", "8",
            "--device", "ecp5-25k", "--placer", "sa", "--router", "router2", "--no-abc9", "--no-widelut",
            "--seeds", "2", "--json", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["seeds"] == [1, 2] and [r["seed"] for r in doc["records"]] == [1, 2]
    for r in doc["records"]:
        f = r["flow"]
        assert (f["placer"], f["router"], f["abc9"], f["widelut"], f["retime"], f["seed"]) == \
            ("sa", "router2", False, False, False, r["seed"])
        assert "abc -dress -lut 4;" in f["synth"] and "-nowidelut" in f["synth"]
        assert f["pnr"].endswith(f"--seed {r['seed']} --freq 500 --router router2 --placer sa --timing-allow-fail")
        assert r["cached"] is False and r["area"]["lut4"] > 0 and r["timing"]["fmax_mhz"] > 0
    fmax = [r["timing"]["fmax_mhz"] for r in doc["records"]]
    sm = doc["summary"]
    assert sm["metrics"]["timing.fmax_mhz"]["median"] == statistics.median(fmax)
    assert sm["metrics"]["timing.fmax_mhz"]["best"] == max(fmax)
    best = doc["records"][[r["seed"] for r in doc["records"]].index(sm["best_seed"])]
    assert sm["metrics"]["area.lut4"]["best"] == best["area"]["lut4"]
    text = capsys.readouterr().out
    assert "placer sa, router router2, seed 1..2; LUT mapping classic abc, wide LUTs off" in text
    assert "median of 2 seeds" in text and f"best of 2 seeds (highest Fmax: seed {sm['best_seed']})" in text
    assert main(argv) == 0      # again: both seeds from the cache, said so
    assert "cached (measured before, not rebuilt): seeds 1, 2" in capsys.readouterr().out


def test_no_abc9_maps_with_the_classic_abc_pass(tmp_path):
    src = DesignSource(verilog=TINY_V, top="tiny", design={"external": True, "top": "tiny"},
                       cycles_per_block_ecb=1, block_bits=8)
    rec = build(src, device="ecp5-25k", abc9=False, use_cache=False, workdir=tmp_path)
    log = (tmp_path / "yosys.log").read_text()
    assert "Executing ABC pass" in log and "Executing ABC9 pass" not in log
    assert rec["flow"]["abc9"] is False and rec["timing"]["fmax_mhz"] > 0
