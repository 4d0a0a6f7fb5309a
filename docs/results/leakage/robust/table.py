"""The robust-probing table of ../report.md, from this folder's ``*/results.json`` (each
written by the command in its row, ``--out docs/results/leakage/robust/<name>``).

    python docs/results/leakage/robust/table.py            # prints the rows
    python docs/results/leakage/robust/table.py --write    # puts them into ../report.md
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
REPORT = HERE.parent / "report.md"
#: name -> (what, the options after `cipherfab leakage aes`)
RUNS = {
    "masked": ("masked (`--prng on`)", "--arch masked --model robust --traces 1000000 -j 2"),
    "masked-transitions": ("masked, with transitions", "--arch masked --model robust --transitions --traces 1000000 -j 2"),
    "iterative": ("unmasked iterative", "--model robust --traces 102400 -j 2"),
    "prng-off": ("masked, `--prng off` (test mode)", "--arch masked --prng off --model robust --traces 102400 -j 2"),
    "hpc2-unregistered": ("masked, `--glitch-test hpc2-unregistered`",
                          "--arch masked --glitch-test hpc2-unregistered --model robust --traces 102400 -j 2"),
    "refresh-recombined": ("masked, `--glitch-test refresh-recombined`",
                           "--arch masked --glitch-test refresh-recombined --model robust --traces 102400 -j 2"),
    # issue 36: 4 S-boxes (a column, two lanes) and 1 (byte-serial); 3 shares
    "masked-sboxes4": ("masked, 4 S-boxes", "--arch masked --sboxes 4 --model robust --traces 1000000 -j 1"),
    "masked-sboxes1": ("masked, 1 S-box", "--arch masked --sboxes 1 --model robust --traces 1000000 -j 2"),
    "masked-sboxes4-shares3": ("masked, 4 S-boxes, 3 shares (first order)",
                               "--arch masked --sboxes 4 --shares 3 --model robust --traces 1000000 -j 1"),
    "masked-sboxes1-shares3": ("masked, 1 S-box, 3 shares (first order)",
                               "--arch masked --sboxes 1 --shares 3 --model robust --traces 1000000 -j 1"),
    "masked-sboxes4-shares4": ("masked, 4 S-boxes, 4 shares (first order)",
                               "--arch masked --sboxes 4 --shares 4 --model robust --traces 1000000 -j 1"),
    "masked-sboxes1-shares4": ("masked, 1 S-box, 4 shares (first order)",
                               "--arch masked --sboxes 1 --shares 4 --model robust --traces 1000000 -j 1"),
    "prng-off-sboxes4": ("masked, 4 S-boxes, `--prng off` (test mode)",
                         "--arch masked --sboxes 4 --prng off --model robust --traces 102400 -j 2"),
    "hpc2-unregistered-sboxes4": ("masked, 4 S-boxes, `--glitch-test hpc2-unregistered`",
                                  "--arch masked --sboxes 4 --glitch-test hpc2-unregistered --model robust "
                                  "--traces 102400 -j 2"),
    "refresh-recombined-sboxes4": ("masked, 4 S-boxes, `--glitch-test refresh-recombined`",
                                   "--arch masked --sboxes 4 --glitch-test refresh-recombined --model robust "
                                   "--traces 102400 -j 2"),
    "masked-dom": ("masked, DOM S-boxes", "--arch masked --gadget dom --model robust --traces 1000000 -j 1"),
    "masked-shares3": ("masked, 3 shares (first order)",
                       "--arch masked --shares 3 --model robust --traces 1000000 -j 1"),
    "masked-shares3-dom": ("masked, DOM S-boxes, 3 shares (first order)",
                           "--arch masked --shares 3 --gadget dom --model robust --traces 1000000 -j 1"),
    "masked-shares4": ("masked, 4 shares (first order; does not fit the 85k: synthesized only)",
                       "--arch masked --shares 4 --model robust --traces 1000000 -j 1"),
    "masked-shares4-dom": ("masked, DOM S-boxes, 4 shares (first order)",
                           "--arch masked --shares 4 --gadget dom --model robust --traces 1000000 -j 1"),
    "masked-sboxes4-dom": ("masked, 4 DOM S-boxes",
                           "--arch masked --sboxes 4 --gadget dom --model robust --traces 1000000 -j 1"),
    "masked-sboxes1-dom": ("masked, 1 DOM S-box",
                           "--arch masked --sboxes 1 --gadget dom --model robust --traces 1000000 -j 1"),
    "masked-sboxes4-shares3-dom": ("masked, 4 DOM S-boxes, 3 shares (first order)",
                                   "--arch masked --sboxes 4 --shares 3 --gadget dom --model robust "
                                   "--traces 1000000 -j 1"),
    "masked-sboxes1-shares3-dom": ("masked, 1 DOM S-box, 3 shares (first order)",
                                   "--arch masked --sboxes 1 --shares 3 --gadget dom --model robust "
                                   "--traces 1000000 -j 1"),
    "masked-sboxes4-shares4-dom": ("masked, 4 DOM S-boxes, 4 shares (first order)",
                                   "--arch masked --sboxes 4 --shares 4 --gadget dom --model robust "
                                   "--traces 1000000 -j 1"),
    "masked-sboxes1-shares4-dom": ("masked, 1 DOM S-box, 4 shares (first order)",
                                   "--arch masked --sboxes 1 --shares 4 --gadget dom --model robust "
                                   "--traces 1000000 -j 1"),
    "dom-unregistered-sboxes4": ("masked, 4 DOM S-boxes, `--glitch-test dom-unregistered`",
                                 "--arch masked --sboxes 4 --gadget dom --glitch-test dom-unregistered "
                                 "--model robust --traces 102400 -j 1"),
}
START, END = "<!-- robust-table -->\n", "\n\n"


def rows() -> str:
    out = ["| core | command | simulations | tests (probes) | max -log10(p) | threshold | first failing | "
           "untested probe-clocks over 16 bits (share tags among them) | time |",
           "|---|---|---:|---:|---:|---:|---|---|---:|"]
    for name, (what, options) in RUNS.items():
        r = json.loads((HERE / name / "results.json").read_text())
        u = r["untested_over_max_bits"]
        tags = u.get("by_tagged_shares", {})
        tagged = ", ".join(f"{'both' if k == '01' else ('shares ' + '+'.join(k) if len(k) > 1 else k)} {v:,}"
                           for k, v in tags.items()) or "-"
        first = f"**{r['first_failing']:,}: fails**" if r["first_failing"] else "**pass**"
        out.append(f"| {what} | `cipherfab leakage aes {options} --out docs/results/leakage/robust/{name}` | "
                   f"{r['simulations']:,} | {r['tests']:,} ({r['probes_tested']:,}) | {max(r['max_mlog10p']):.2f} | "
                   f"{r['threshold']:.2f} | {first} | {u['probe_clocks']:,} ({tagged}) | {r['seconds']:.0f} s |")
    return "\n".join(out)


if __name__ == "__main__":
    table = rows()
    if "--write" in sys.argv[1:]:
        text = REPORT.read_text()
        i = text.index(START) + len(START)
        j = text.index(END, i)
        REPORT.write_text(text[:i] + table + text[j:])
    else:
        print(table)
