"""Target devices: what to synthesize for, and how to place and route.

Each device belongs to a family (:mod:`cipherfab.flow.families`: one module per family, which
declares its devices, tools, cells and what it supports); this module gives a device by name.
Today: ECP5 (``ecp5-25k``, ``ecp5-45k``, ``ecp5-85k``, speed 6-8) out of context, iCE40
(``ice40-hx8k``, ``ice40-up5k``) with unconstrained pins, and synthesis-only Xilinx estimates
(``xc7``, ``xcv``, ``xcve``, ``xc2v``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import CipherfabError
from .families import Family, devices, family, family_of_device


@dataclass(frozen=True)
class Device:
    name: str
    family: str            # the family's name ("ecp5", "ice40", "xilinx"): records carry it
    part: str
    package: str | None
    speed: int | None
    synth: str             # Yosys synthesis command without -top
    pnr_flags: tuple = ()  # nextpnr device flags; empty = synthesis only
    lut_inputs: int = 4

    @property
    def kind(self) -> Family:
        """The family object: everything the flow knows about this device's family."""
        return family(self.family)

    @property
    def synthesis_only(self) -> bool:
        return not self.pnr_flags

    def supports(self, what: str) -> bool:
        """``paths``, ``bitstream``, ``synth_options``, ``shares``: see :class:`~cipherfab.flow.families.Family`."""
        return what in self.kind.supports and not self.synthesis_only

    def describe(self) -> dict:
        d = asdict(self)
        d["pnr_flags"] = list(self.pnr_flags)
        d["full_part"] = self.kind.full_part(self)
        return d


DEVICES = devices()
DEFAULT = "ecp5-85k"


def get_device(name: str = DEFAULT, speed: int | None = None) -> Device:
    """The device called ``name``; one-line error for unknown names or bad speed grades."""
    fam = family_of_device(name)
    if fam is None:
        raise CipherfabError(f"unknown device '{name}': known devices are {', '.join(DEVICES)}")
    return Device(**fam.device_fields(name, speed))
