"""One lane instead of two in the 4-S-box, 2-share masked cores: what the area goal (<= 4,000
LUT4 at <= 100 cycles a block) would gain.  An experiment, not a core point: the one-lane
core is the committed core with its plan's lane count forced to 1 (lane 1's slots left
idle), it is not in the registry and not verified; only its area, Fmax and declared cycles
are read.  Same flow, device and seeds as ``cipherfab study masking``.

    python docs/results/masking/one_lane.py            # builds (or reads the build cache), prints
    python docs/results/masking/one_lane.py --write    # ... and writes one_lane.json beside it
"""

import dataclasses
import json
import statistics
import sys
from pathlib import Path

from cipherfab.ciphers.aes import masked_column
from cipherfab.flow.build import build
from cipherfab.flow.source import design_source

HERE = Path(__file__).parent
SEEDS = (1, 2)
_plan = masked_column.plan


def source(gadget: str, lanes: int):
    masked_column.plan = (lambda s, lat: dataclasses.replace(_plan(s, lat), lanes=lanes)) if lanes == 1 else _plan
    try:
        src = design_source("aes", arch="masked", sboxes=4, shares=2, gadget=gadget)
    finally:
        masked_column.plan = _plan
    if lanes == 1:
        src.design = {**src.design, "experiment": "one lane"}
    return src


def row(gadget: str, lanes: int) -> dict:
    src = source(gadget, lanes)
    recs = [build(src, seed=s) for s in SEEDS]
    med = lambda f: statistics.median(f(r) for r in recs)            # noqa: E731
    parts = recs[0]["area"]["parts"]
    return {"gadget": gadget, "lanes": lanes, "cycles_per_block": src.cycles_per_block_ecb,
            "lut4": med(lambda r: r["area"]["lut4"]), "ff": med(lambda r: r["area"]["ff"]),
            "fmax_mhz": round(med(lambda r: r["timing"]["fmax_mhz"]), 1),
            "synthesized_lut4": {k: v["lut4"] for k, v in parts.items()},
            "seeds": list(SEEDS), "verilog_sha256": src.verilog_sha256}


def main() -> int:
    rows = [row(g, n) for g in ("hpc2", "dom") for n in (2, 1)]
    print("| gadget | lanes | cycles a block | LUT4 | FF | Fmax MHz | synthesized LUT4: S-boxes / PRNG / rest |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        s = r["synthesized_lut4"]
        print(f"| {r['gadget']} | {r['lanes']} | {r['cycles_per_block']} | {r['lut4']:,.0f} | {r['ff']:,.0f} | "
              f"{r['fmax_mhz']} | {s['datapath']:,} / {s['prng']:,} / {s['unassigned']:,} |")
    if "--write" in sys.argv[1:]:
        (HERE / "one_lane.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
