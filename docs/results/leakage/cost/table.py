"""The cost table of ../report.md: the unmasked and the masked AES-128 core on ECP5-85k
(build records: this folder's ``masked-seed*.json``, written by ``cipherfab build aes
--arch masked --paths 3 --json ...``; the unmasked core's from the committed aes-space
study, the same flow and seeds), then the open masked cores' published figures.

    python docs/results/leakage/cost/table.py
"""

import json
from pathlib import Path
from statistics import median

from cipherfab.ciphers.aes.masked import random_bits_per_block

HERE = Path(__file__).parent
SPACE = HERE.parent.parent / "aes-space" / "results.json"
#: published figures, not measured here: (core, device, LUT, FF, EBR/BRAM, Fmax, cycles per block, source)
PUBLISHED = [
    ("OpenTitan AES, DOM (2 shares)", "ASIC-oriented; no FPGA area in its documentation", "about 5x its unmasked core's area", "-", "-", "-", "56 (12 unmasked)", "as quoted in issue 20 (OpenTitan AES documentation)"),
    ("SMAesH (2 shares, HPC)", "Artix-7 (LUT6, not LUT4)", "2701 LUT", "3089", "-", "-", "86", "as quoted in issue 20 (SMAesH documentation)"),
]


def figures(recs: list[dict]) -> dict:
    return {"seeds": sorted(r["seed"] for r in recs),
            "lut4": median(r["area"]["lut4"] for r in recs), "ff": median(r["area"]["ff"] for r in recs),
            "ebr": median(r["area"]["ebr"] for r in recs),
            "fmax": median(r["timing"]["fmax_mhz"] for r in recs),
            "cpb": recs[0]["performance"]["cycles_per_block_ecb"] if "performance" in recs[0] else 10}


def main() -> None:
    masked = [json.loads(p.read_text()) for p in sorted(HERE.glob("masked-seed*.json"))]
    seeds = {r["seed"] for r in masked}
    space = json.loads(SPACE.read_text())["records"]
    plain = [r for r in space if r["label"] == "aes-iterative-128-encrypt-lut" and r["seed"] in seeds]
    m, u = figures(masked), figures(plain)
    bits = random_bits_per_block()
    print("| core | device | LUT4 | FF | EBR | Fmax MHz | cycles per block | random bits per block | Mbit/s ECB | source |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, f, rnd in (("cipherfab iterative `lut` (unmasked)", u, "0"),
                         ("cipherfab `masked` (`--prng on`)", m, f"{bits['used']} used, {bits['generated']} generated")):
        seeds_text = ", ".join(map(str, f["seeds"]))
        print(f"| {name} | ECP5-85k, speed 8 | {f['lut4']:.0f} | {f['ff']:.0f} | {f['ebr']:.0f} | {f['fmax']:.1f} | "
              f"{f['cpb']} | {rnd} | {128 * f['fmax'] / f['cpb']:.0f} | measured, placer seed{'s' if len(f['seeds']) > 1 else ''} {seeds_text} (median) |")
    for row in PUBLISHED:
        print("| " + " | ".join(row[:7]) + " | - | - | " + row[7] + " |")
    print()
    print(f"Masked against unmasked (same flow, same seeds): LUT4 x{m['lut4'] / u['lut4']:.1f}, "
          f"FF x{m['ff'] / u['ff']:.1f}, Fmax x{m['fmax'] / u['fmax']:.2f}.")
    for r in masked:
        parts = r["area"]["parts"]
        total = sum(p["lut4"] for p in parts.values())
        print(f"Seed {r['seed']}, by part (synthesized): " + ", ".join(
            f"{k} {v['lut4']} LUT4 ({100 * v['lut4'] / total:.0f}%)" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]["lut4"])) + ".")


if __name__ == "__main__":
    main()
