"""The table of report.md from the build records in this folder (``<top>.json``, written by
``cipherfab build --verilog ... --json``): each core's system with and without GCM, and
what GCM adds.

    python docs/results/gcm-system/table.py [FOLDER]
"""

import json
import sys
from pathlib import Path

from cipherfab.hw.gcm.gcm import ghash_for

CORES = ("iterative_lut", "iterative_rom", "interleaved_rom_3", "pipeline_rom_1")


def row(rec: dict) -> tuple[int, int, int, float]:
    a = rec["area"]
    return a["lut4"], a["ff"], a["ebr"], rec["timing"]["fmax_mhz"]


def main(folder: Path) -> None:
    print("| core | GHASH | system | LUT4 | FF | EBR | Fmax MHz | GCM adds LUT4 | GCM adds EBR | Fmax with / without GCM |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for core in CORES:
        recs = {s: folder / f"system_{core}_{s}.json" for s in ("gcm", "nogcm")}
        if not all(p.is_file() for p in recs.values()):
            continue
        gcm, plain = (row(json.loads(recs[s].read_text())) for s in ("gcm", "nogcm"))
        cycles = json.loads(recs["gcm"].read_text())["performance"]["cycles_per_block_ecb"]
        style = " ".join(str(x) for x in ghash_for(cycles))      # what the system picks for the core
        for name, r in (("with GCM", gcm), ("without GCM", plain)):
            extra = (f"+{gcm[0] - plain[0]} ({100 * (gcm[0] - plain[0]) / plain[0]:.0f}%) | +{gcm[2] - plain[2]} | "
                     f"{100 * gcm[3] / plain[3]:.0f}%") if name == "with GCM" else " | | "
            print(f"| {core} | {style if name == 'with GCM' else '-'} | {name} | {r[0]} | {r[1]} | {r[2]} | "
                  f"{r[3]:.1f} | {extra} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
