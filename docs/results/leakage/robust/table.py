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
        tagged = ", ".join(f"{'both' if k == '01' else k} {v:,}" for k, v in tags.items()) or "-"
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
