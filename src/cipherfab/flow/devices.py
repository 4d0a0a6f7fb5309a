"""Target devices: what to synthesize for, and how to place and route.

* ECP5 (``ecp5-25k``, ``ecp5-45k``, ``ecp5-85k``; speed grade 6, 7 or 8,
  default 8): Yosys ``synth_ecp5 -abc9``, nextpnr-ecp5 ``--out-of-context`` so a
  core with hundreds of ports needs no pins.  Package CABGA381 (irrelevant out
  of context, recorded for rebuilds).
* iCE40 (``ice40-hx8k`` in CT256, ``ice40-up5k`` in SG48): nextpnr-ice40 has no
  out-of-context mode, so every top-level port needs a pin
  (``--pcf-allow-unconstrained`` places them anywhere); a core with more ports
  than the package has pins does not fit.
* Synthesis-only estimates (no place-and-route, no Fmax): Xilinx ``xc7``
  (LUT6), and the LUT4-era ``xcv`` (Virtex), ``xcve`` (Virtex-E) and ``xc2v``
  (Virtex-II) that the papers used, via ``synth_xilinx -family`` (this Yosys
  marks the old families EXPERIMENTAL and has no SRL inference for them).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import CipherfabError


@dataclass(frozen=True)
class Device:
    name: str
    family: str            # "ecp5", "ice40", "xilinx"
    part: str
    package: str | None
    speed: int | None
    synth: str             # Yosys synthesis command without -top
    pnr_flags: tuple = ()  # nextpnr device flags; empty = synthesis only
    lut_inputs: int = 4

    @property
    def synthesis_only(self) -> bool:
        return not self.pnr_flags

    def describe(self) -> dict:
        d = asdict(self)
        d["pnr_flags"] = list(self.pnr_flags)
        d["full_part"] = (f"{self.part}-{self.speed}{self.package}" if self.family == "ecp5"
                          else self.part)
        return d


_ECP5 = {"ecp5-25k": ("LFE5U-25F", "--25k"), "ecp5-45k": ("LFE5U-45F", "--45k"),
         "ecp5-85k": ("LFE5U-85F", "--85k")}
_ICE40 = {"ice40-hx8k": ("iCE40HX8K", "--hx8k", "ct256", "synth_ice40 -device hx"),
          "ice40-up5k": ("iCE40UP5K", "--up5k", "sg48", "synth_ice40 -device u -dsp")}
_XILINX = {"xc7": ("Xilinx 7-series", 6), "xcv": ("Xilinx Virtex", 4),
           "xcve": ("Xilinx Virtex-E", 4), "xc2v": ("Xilinx Virtex-II", 4)}

DEVICES = [*_ECP5, *_ICE40, *_XILINX]
DEFAULT = "ecp5-85k"
ECP5_SPEEDS = (6, 7, 8)


def get_device(name: str = DEFAULT, speed: int | None = None) -> Device:
    """The device called ``name``; one-line error for unknown names or bad speed grades."""
    if name in _ECP5:
        if speed is None:
            speed = 8
        if speed not in ECP5_SPEEDS:
            raise CipherfabError(f"unknown speed grade {speed} for {name}: choose 6, 7 or 8")
        part, flag = _ECP5[name]
        return Device(name, "ecp5", part, "CABGA381", speed, "synth_ecp5 -abc9",
                      (flag, "--speed", str(speed), "--package", "CABGA381", "--out-of-context"))
    if name not in _ICE40 and name not in _XILINX:
        raise CipherfabError(f"unknown device '{name}': known devices are {', '.join(DEVICES)}")
    if speed is not None:
        raise CipherfabError(f"--speed applies to ECP5 devices only, not {name}")
    if name in _ICE40:
        part, flag, package, synth = _ICE40[name]
        return Device(name, "ice40", part, package, None, synth,
                      (flag, "--package", package, "--pcf-allow-unconstrained"))
    part, lut_inputs = _XILINX[name]
    return Device(name, "xilinx", part, None, None, f"synth_xilinx -family {name} -flatten -noiopad -noclkbuf",
                  (), lut_inputs)
