"""Write the Verilog of each GHASH multiplier style for `cipherfab build --verilog` (see report.md).

    python docs/results/ghash-styles/make_verilog.py OUT_DIR

The parallel style registers only its output, so it is measured behind input registers
(``Registered``): every path of the product then runs register to register.  The digit
styles sample ``x`` and ``h`` into registers on ``start`` and are measured as they are.
"""

import sys
from pathlib import Path

from amaranth.back import verilog
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cipherfab.hw.gcm.ghash import DIGITS, GF128Mul


class Registered(wiring.Component):
    """The parallel multiplier with ``x``, ``h`` and ``valid_in`` registered before it."""

    def __init__(self):
        super().__init__({"x": In(128), "h": In(128), "valid_in": In(1),
                          "y": Out(128), "valid_out": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mul = mul = GF128Mul("parallel")
        m.d.sync += [mul.x.eq(self.x), mul.h.eq(self.h), mul.valid_in.eq(self.valid_in)]
        m.d.comb += [self.y.eq(mul.y), self.valid_out.eq(mul.valid_out)]
        return m


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    designs = {"parallel": Registered()}
    designs.update({f"digit{d}": GF128Mul("digit", digit=d) for d in DIGITS})
    for name, design in designs.items():
        path = out / f"ghash_{name}.v"
        path.write_text(verilog.convert(design, name=f"ghash_{name}"))
        print(path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python make_verilog.py OUT_DIR")
    main(Path(sys.argv[1]))
