"""Place and route with nextpnr, then (where it means something) pack a bitstream.

nextpnr places and routes in one process; its output is time-stamped line by
line and split at the first routing line ("Routing globals..." / "Running
router2..." / "Routing.."): ``place`` is everything before it (reading the
netlist, packing cells into slices, placement and the post-placement timing
estimate), ``route`` everything after (routing, final timing analysis,
writing the report).

Pre-route estimate: the ``Max frequency`` nextpnr prints after placement and
before routing.  Unlike the Xilinx figure in paper 004 Table 2 (logic only,
"no wiring delay"), it already includes nextpnr's wire-delay *estimate* from
the placement, so the ratio post-route / pre-route can exceed 1; the critical
path's logic/routing split is recorded as well.

Bitstream packing (``times.pack``): ECP5 builds are out of context, and
nextpnr-ecp5 refuses to write a Trellis config in that mode ("bitstream
generation is not available in out-of-context mode"), so there is nothing for
``ecppack`` to pack: pack is ``None``.  iCE40 builds are placed on real pins,
so ``icepack`` runs on the ``.asc`` and is timed.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import CipherfabError
from . import parse, tools
from .devices import Device
from .options import FlowOptions

FREQ_TARGET_MHZ = 500  # high enough not to limit anything


def place_and_route(device: Device, workdir: Path, seed: int, options: FlowOptions,
                    timeout: float | None, between=None) -> dict:
    """Run nextpnr on ``workdir/netlist.json`` with the nextpnr arguments of the build's flow
    ``options`` (:meth:`~.options.FlowOptions.pnr_args`: the default flow passes what default
    builds always did); return raw measurements.
    ``between(workdir)``: run nextpnr twice, placing (``placed.json``), then, after
    ``between`` wrote ``placed-changed.json`` from it, routing that placement as it is
    (:mod:`.share_place`); its result is the record's ``between``."""
    fam = device.kind
    tool = fam.nextpnr
    pins = _pin_args(device, workdir)
    flow = options.pnr_args()

    def args(source: str, *extra: str) -> list[str]:
        return [*device.pnr_flags, *pins, "--json", source, "--seed", str(seed), "--freq", str(FREQ_TARGET_MHZ),
                "--timing-allow-fail", *flow, *extra]
    # ECP5: the routed delays :mod:`.worst_paths` analyses
    outputs = ["--report", "report.json", "--write", "placed.json", *fam.pnr_outputs()]
    done = None
    if between is None:
        res = _nextpnr(device, tool, args("netlist.json", *outputs), workdir, "nextpnr.log", timeout)
        lines = res.text
        i = parse.route_start(lines)
        t_place = res.lines[i][0] if i is not None else res.seconds
        t_route = res.seconds - t_place
    else:
        first = _nextpnr(device, tool, args("netlist.json", "--no-route", "--write", "placed.json"),
                         workdir, "nextpnr-place.log", timeout)
        done = between(workdir)
        res = _nextpnr(device, tool, args("placed-changed.json", "--no-pack", "--no-place", *outputs),
                       workdir, "nextpnr.log", timeout)
        lines = first.text + res.text            # the estimate after placement, then the routed figures
        t_place, t_route = first.seconds, res.seconds     # the separation's own time: ``between``
    util = parse.utilisation(lines)
    report = json.loads((workdir / "report.json").read_text())
    placed = json.loads((workdir / "placed.json").read_text())
    pre, post_log = parse.pre_and_post_route_fmax(lines)
    post = parse.report_fmax(report) or post_log
    out = {
        "place_seconds": t_place, "route_seconds": t_route,
        "utilisation": parse.report_utilisation(report) or util,
        "placed": parse.placed_counts(placed, device.family),
        "fmax": post, "fmax_pre_route": pre,
        "critical_path": parse.critical_path_split(lines),
    }
    out["pack_seconds"], out["pack_note"] = fam.after_pnr(workdir, timeout)
    if done is not None:
        out["between"] = done
    return out


def _pin_args(device: Device, workdir: Path) -> list[str]:
    """A family that places on pins: a pin for every bit of the top module's ports (in the
    order the synthesized netlist lists them), written where nextpnr reads it."""
    if not device.supports("pins"):
        return []
    netlist = json.loads((workdir / "netlist.json").read_text())
    top = next((m for m in netlist.get("modules", {}).values()
                if str(m.get("attributes", {}).get("top", "0")).strip("0 ")), None)
    ports = []
    for name, port in sorted((top or {}).get("ports", {}).items(), key=lambda kv: kv[0] != "clk"):
        width = len(port.get("bits", []))     # the clock first: a family's first pin takes a global clock
        ports += [name] if width == 1 else [f"{name}[{i}]" for i in range(width)]
    pins = device.kind.pins_of(device)
    if len(ports) > len(pins):
        raise CipherfabError(f"design does not fit: needs {len(ports)} IO pins, {device.name} has "
                             f"{len(pins)} this flow can use")
    name, text, args = device.kind.pin_constraints(device, ports)
    (workdir / name).write_text(text)
    return args


def _nextpnr(device: Device, tool: str, args: list[str], workdir: Path, log: str, timeout: float | None):
    """One nextpnr run; a failure is one line (a design that does not fit says what it needs)."""
    res = tools.run(tool, args, workdir, log, timeout)
    if res.returncode != 0:
        lines = res.text
        over = parse.overflow_message(parse.utilisation(lines), device.name)
        if over:
            raise CipherfabError(f"design does not fit: {over}")
        msg = tools.first_error(lines)
        stage = "route" if parse.route_start(lines) is not None or "--no-place" in args else "place"
        raise CipherfabError(f"{stage} failed on {device.name}: {msg}")
    return res
