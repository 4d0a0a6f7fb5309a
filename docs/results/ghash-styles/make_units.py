"""Write the Verilog of GHASH units (hw.gcm.ghash_unit: the multiplier with its accumulator, as
the GCM layer uses it) for `cipherfab build --verilog` (see report.md).

    python docs/results/ghash-styles/make_units.py OUT_DIR

Every path of interest runs register to register: ``Y`` (or a lane) -> ``Y ^ X`` -> the
multiplier -> ``Y`` (or a pipeline stage).
"""

import sys
from pathlib import Path

from amaranth.back import verilog

from cipherfab.hw.gcm.ghash_aggregated import LANES
from cipherfab.hw.gcm.ghash_table import DIGITS as TABLE_DIGITS
from cipherfab.hw.gcm.ghash_unit import GHASH

UNITS = {"unit_parallel": ("parallel", None), "unit_digit16": ("digit", 16),
         **{f"unit_aggregated{n}": ("aggregated", n) for n in LANES},
         **{f"unit_table{d}": ("table", d) for d in TABLE_DIGITS}}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (style, digit) in UNITS.items():
        path = out / f"ghash_{name}.v"
        path.write_text(verilog.convert(GHASH(style, digit), name=f"ghash_{name}"))
        print(path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python make_units.py OUT_DIR")
    main(Path(sys.argv[1]))
