"""Flow options: the synthesis and place-and-route choices that make a build a design point.

A build is the design *and* the flow that measured it; these are the choices of the flow
worth comparing (``cipherfab build --placer/--router/--no-abc9/--no-widelut/--flatten``, and a
study's flow axes).  The defaults are the flow every committed result was measured with,
and they produce exactly the tool arguments of that flow, so a default build's cache
key and record are what they were before the options existed.

* **placer** (nextpnr ``--placer``): ``heap`` (default, analytic) or ``sa`` (simulated
  annealing).  The default passes no ``--placer`` at all, as before.
* **router** (nextpnr ``--router``): ``router1`` (default, timing-driven) or ``router2``; a
  family may offer fewer and default to another (GateMate: ``router2`` only).
* **abc9**: Yosys maps logic to LUTs with ABC9 (default; ``synth_ecp5 -abc9``) or with the
  classic ``abc`` pass.  This Yosys (0.70) always runs ABC9 inside ``synth_ecp5`` and
  accepts ``-noabc9`` without effect (the log is byte-identical), so ``abc9=False`` runs
  ``synth_ecp5`` up to its LUT-mapping step, maps with ``abc -dress -lut 4:7`` (``-lut 4``
  without wide LUTs; what ``synth_ecp5`` ran before ABC9 became its default), and runs
  ``synth_ecp5`` on from its cell-mapping step.  ECP5 only.
* **widelut**: LUTs wider than four inputs from two LUT4 and the slice's PFUMX/L6MUX21
  (default) or LUT4 only (``synth_ecp5 -nowidelut``).  ECP5 only.
* **flatten**: synthesize the core flat (``--flatten``), or keep each declared part's module
  as a hierarchy of its own (default: what the area split per part and the worst paths'
  parts are read from, :mod:`.synth`).  Kept modules are a boundary ABC does not map
  across: the AES column core with block-RAM S-boxes synthesized to 563 LUT4 with its
  parts kept and 425 flat (Yosys 0.70, ``synth_ecp5 -abc9``), so ``--flatten`` measures a
  core as a user's flat synthesis of it would; its record has no area split (everything
  ``unassigned``) and its worst paths name no part.  Every device.
* **share_placement**: for a core whose signals carry share tags (masked cores), ``separate``
  (default) places, moves every cell of one share domain out of each slice that holds both,
  and routes that placement (:mod:`.share_place`); ``free`` places it as any design.  Other
  cores are placed the one way; ``free`` is refused for them.  ECP5.
* **ebr_outreg**: move the fabric register after each block-RAM read port into the block
  RAM's output register (``--ebr-outreg``; :mod:`.ebr_outreg`), or leave the netlist as
  Yosys maps it (default).  ECP5; each module on its own (``--flatten``: the whole core).
* **floorplan**: give each block RAM a site before placement, in the order the data reaches
  them, along the device's block-RAM rows (``--floorplan``; :mod:`.floorplan`), or let the
  placer choose (default).  ECP5.
* **heap_timing_weight**, **heap_crit_exp**: the analytic placer's timing weight and
  criticality exponent (nextpnr ``--placer-heap-timingweight``, ``--placer-heap-critexp``;
  ``--heap-timing-weight N``, ``--heap-crit-exp N``), or nextpnr's own (default: 10 and 2,
  passed as nothing, so a value equal to nextpnr's is the default flow).  A larger weight
  pulls the cells of critical nets together harder, a larger exponent makes the most
  critical ones count more: on the 3-stage logic AES pipeline (36,538 LUT4) 30 and 4 took
  seed 1 from 202.9 to 230.0 MHz (docs/decisions.md).  The heap placer only (refused with
  ``--placer sa``); families whose nextpnr has the options (ECP5, iCE40, Nexus).
* **retime**: not offered.  This Yosys accepts ``synth_ecp5 -retime`` and ignores it (the
  log is byte-identical); ABC9's script has no retiming step; and the classic ``abc``
  pass retimes only the flip-flops it is given, none by the time ``synth_ecp5`` maps
  LUTs.  Every record says ``retime: false``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import NamedTuple

from ..errors import CipherfabError
from .devices import Device

PLACERS = ("heap", "sa")
ROUTERS = ("router1", "router2")
SHARE_PLACEMENTS = ("separate", "free")
#: the option names, as build() keywords, study point parameters and record keys
NAMES = ("placer", "router", "abc9", "widelut", "flatten", "share_placement", "ebr_outreg", "floorplan",
         "heap_timing_weight", "heap_crit_exp")
#: the options that are true or false, and of those the ones only ``synth_ecp5`` has
SWITCHES = ("abc9", "widelut", "flatten", "ebr_outreg", "floorplan")
ECP5_ONLY = ("abc9", "widelut", "ebr_outreg", "floorplan")
class HeapNumber(NamedTuple):
    """One of the heap placer's numbers: its nextpnr flag, nextpnr's own value, the range
    offered, its label in a point's name, and what it is."""
    flag: str
    default: int
    low: int
    high: int
    label: str
    what: str


HEAP = {"heap_timing_weight": HeapNumber("--placer-heap-timingweight", 10, 1, 1000, "tw", "timing weight"),
        "heap_crit_exp": HeapNumber("--placer-heap-critexp", 2, 1, 16, "ce", "criticality exponent")}
#: the options place and route takes (checked against a device by :func:`check_placing`)
PLACING = ("router", "placer", *HEAP)
#: what the record says about retiming, which this Yosys does not offer for ECP5
RETIME = False


@dataclass(frozen=True)
class FlowOptions:
    """One choice of each flow option; the defaults are the flow of every committed result."""

    placer: str = "heap"
    router: str = "router1"
    abc9: bool = True
    widelut: bool = True
    flatten: bool = False
    share_placement: str = "separate"
    ebr_outreg: bool = False
    floorplan: bool = False
    heap_timing_weight: int | None = None
    heap_crit_exp: int | None = None

    @classmethod
    def of(cls, **given) -> "FlowOptions":
        """The options from keywords, ``None`` meaning the default (a heap number equal to
        nextpnr's own too); one-line error for a bad value."""
        unknown = [k for k in given if k not in NAMES]
        if unknown:
            raise CipherfabError(f"unknown flow option {unknown[0]!r}: the flow options are "
                                 + ", ".join(NAMES))
        opts = cls(**{k: v for k, v in given.items() if v is not None})
        if opts.placer not in PLACERS:
            raise CipherfabError(f"unknown placer {opts.placer!r}: choose {' or '.join(PLACERS)}")
        if opts.router not in ROUTERS:
            raise CipherfabError(f"unknown router '{opts.router}': choose router1 or router2")
        if opts.share_placement not in SHARE_PLACEMENTS:
            raise CipherfabError(f"unknown share placement {opts.share_placement!r}: choose "
                                 + " or ".join(SHARE_PLACEMENTS))
        for name in SWITCHES:
            if not isinstance(getattr(opts, name), bool):
                raise CipherfabError(f"flow option {name} is true or false, not {getattr(opts, name)!r}")
        for name, h in HEAP.items():
            value = getattr(opts, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not h.low <= value <= h.high:
                raise CipherfabError(f"--{name.replace('_', '-')} is a whole number in {h.low}..{h.high}, "
                                     f"not {value!r}")
            if value == h.default:                # nextpnr's own: the default flow
                opts = replace(opts, **{name: None})
        heap = [n for n in HEAP if getattr(opts, n) is not None]
        if heap and opts.placer != "heap":
            raise CipherfabError(f"--{heap[0].replace('_', '-')} applies to the heap placer, not "
                                 f"--placer {opts.placer}")
        return opts

    def changed(self) -> dict:
        """The options that differ from the defaults (what a cache key adds to the default flow's)."""
        default = FlowOptions()
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}

    def on(self, device: Device, router_given: bool) -> "FlowOptions":
        """These options on ``device``: a router not given is the family's default router."""
        if router_given or device.synthesis_only:
            return self
        return replace(self, router=device.kind.routers[0])

    def check(self, device: Device) -> None:
        """Synthesis options are ``synth_ecp5``'s: refused (one line) on other devices; a router
        the device's family does not offer is refused."""
        if not device.synthesis_only and self.router not in device.kind.routers:
            raise CipherfabError(f"--router {self.router} is not offered on {device.name}: "
                                 f"{device.kind.title} routes with {' or '.join(device.kind.routers)}")
        check_device_options(self.changed(), device)
        heap = [n for n in HEAP if getattr(self, n) is not None]
        if heap and not device.synthesis_only and not device.supports("heap_options"):
            raise CipherfabError(f"--{heap[0].replace('_', '-')} is not offered on {device.name}: "
                                 f"its nextpnr has no heap placer options")

    def synth_lines(self, device: Device, top: str) -> list[str]:
        """The Yosys commands that synthesize ``top``: one ``synth_*`` line by default."""
        flags = "" if self.widelut else " -nowidelut"
        if self.abc9:
            return [f"{device.synth}{flags} -top {top}"]
        lut = "4:7" if self.widelut else "4"
        return [f"{device.synth}{flags} -top {top} -run :map_luts",
                "check -latchonly -assert",
                "techmap -map +/lattice/latches_map.v",
                f"abc -dress -lut {lut}",
                "clean",
                f"{device.synth}{flags} -top {top} -run map_cells:"]

    def pnr_args(self) -> list[str]:
        """nextpnr's arguments for these options: ``--router`` always (as before), ``--placer``
        only when it is not the default."""
        heap = [a for n, h in HEAP.items() if getattr(self, n) is not None
                for a in (h.flag, str(getattr(self, n)))]
        return ["--router", self.router] + ([] if self.placer == "heap" else ["--placer", self.placer]) + heap

    def describe(self) -> dict:
        """The record's account of the options (``flow`` section), retiming included."""
        return {**asdict(self), "retime": RETIME}


def check_placing(given: dict, device: Device) -> None:
    """The place-and-route options given (:data:`PLACING`; None or absent: not given) on a
    placed ``device``: a router its family does not offer, a heap number its nextpnr lacks or
    with another placer, refused in one line."""
    FlowOptions.of(**{k: given.get(k) for k in PLACING}) \
        .on(device, given.get("router") is not None).check(device)


def check_device_options(given: dict, device: Device) -> None:
    """Refuse an ECP5-only option given (its value not None) for another device."""
    if device.supports("synth_options"):
        return
    for name in ECP5_ONLY:
        if given.get(name) is not None:
            flag = ("" if given[name] else "no-") + name.replace("_", "-")
            raise CipherfabError(f"--{flag} applies to ECP5 devices (synth_ecp5), not {device.name}")


def label_part(name: str, value) -> str:
    """How a flow option reads in a design point's label: ``router2``, ``sa``, ``no-abc9``."""
    if isinstance(value, bool):
        name = name.replace("_", "-")
        return name if value else f"no-{name}"
    if name == "share_placement":
        return f"shares-{value}"
    if name in HEAP:
        return f"{HEAP[name].label}{value}"
    return str(value)
