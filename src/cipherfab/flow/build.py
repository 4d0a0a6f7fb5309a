"""``build()``: synthesize, place and route one design and measure it (SPEC section 5)."""

from __future__ import annotations

import contextlib
import datetime
import shutil
import socket
import tempfile
import time
from pathlib import Path

from .. import __version__
from .. import cache as cache_layout
from ..progress import stage
from ..errors import CipherfabError
from . import cache, ebr_outreg, floorplan, log_path, parse, record, share_place, shares, tools, worst_paths
from .devices import DEFAULT, Device, get_device
from .paths import dir_target
from .options import NAMES as FLOW_OPTIONS, FlowOptions
from .pnr import FREQ_TARGET_MHZ, place_and_route
from .source import DesignSource
from .synth import keep_patterns, synthesize

FLOW_VERSION = 1          # bump when the flow changes what it measures
DEFAULT_ROUTER = FlowOptions().router  # timing-driven; router2 is faster on big designs but not timing-driven
CLOCK_PORT = "clk"
SEED_MAX = 2**31 - 1      # nextpnr reads --seed as a C int


def _device(device, speed) -> Device:
    return device if isinstance(device, Device) else get_device(device, speed)


def tools_needed(dev: Device) -> list[str]:
    """The executables a build on ``dev`` runs."""
    return dev.kind.tools(dev.synthesis_only)


def analyses_paths(dev: Device) -> bool:
    """Whether a build on ``dev`` finds its worst paths (nextpnr-ecp5's routed SDF is read)."""
    return dev.supports("paths")


def check_paths(n, dev: Device) -> None:
    """``paths``: None, or a whole number 1..PATHS_KEPT on a device whose paths are analysed."""
    if n is None:
        return
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= worst_paths.PATHS_KEPT:
        raise CipherfabError(f"paths must be a whole number in 1..{worst_paths.PATHS_KEPT}, got {n}")
    if dev.synthesis_only:
        raise CipherfabError(f"--paths applies to place and route: {dev.name} is synthesis only")
    if not analyses_paths(dev):
        raise CipherfabError(f"--paths applies to ECP5 builds (it reads nextpnr-ecp5's routed delays), "
                             f"not {dev.name}")


def _measure(source: DesignSource, dev: Device, seed: int, opts: FlowOptions, wd: Path,
             timeout: float | None) -> dict:
    for t in tools_needed(dev):
        tools.require(t)
    parts = {} if opts.flatten else source.parts      # flat: no module kept, no part named
    verilog, top = _on_device(source, dev)
    stage(f"synthesis (Yosys, {dev.name})")
    syn = synthesize(verilog, top, parts, dev, wd, timeout, opts)
    over = None if dev.synthesis_only else dev.kind.synthesized_overflow(dev.name, syn["totals"])
    if over:          # stop before a place and route that cannot succeed
        raise CipherfabError(f"design does not fit: {over} (synthesized)")
    outreg = ebr_outreg.absorb(wd / "netlist.json") if opts.ebr_outreg and not dev.synthesis_only else None
    plan = floorplan.place(wd / "netlist.json", dev.kind.block_ram_rows(dev.name), dev.kind.block_ram.primitive,
                           [t for t, metric in dev.kind.cell_metrics.items() if metric == "ff"]) \
        if opts.floorplan and not dev.synthesis_only else None
    pnr = None
    router = opts.router
    if not dev.synthesis_only:
        stage(f"place and route ({dev.kind.nextpnr.removeprefix('yowasp-')}, seed {seed})")
        separate = counts_shares(source, dev) and opts.share_placement == "separate"
        pnr = place_and_route(dev, wd, seed, opts, timeout,
                              between=(lambda d: share_place.run(d, source.top)) if separate else None)
        pnr["target_mhz"] = FREQ_TARGET_MHZ
    clock = parse.pick_clock(pnr["fmax"], CLOCK_PORT) if pnr else None
    if pnr and clock is None and wraps(source, dev) and len(pnr["fmax"]) == 1:
        clock = next(iter(pnr["fmax"]))       # behind the wrapper the one clock net takes a cell's name
    if pnr and clock is None:
        seen = ", ".join(pnr["fmax"]) or "none"
        raise CipherfabError(f"no timing for clock '{CLOCK_PORT}' (clocks seen: {seen}): "
                             f"the core's clock port must be named {CLOCK_PORT}")
    t_paths = None
    if pnr and analyses_paths(dev):
        start = time.monotonic()
        stage("timing: the worst routed paths (static timing analysis)")
        pnr["worst_paths"] = worst_paths.analyse(wd, source.top, parts, source.info is not None and not opts.flatten,
                                                  clock)
        t_paths = round(time.monotonic() - start, 3)
    elif pnr:                       # nextpnr's own critical path of the clock, from its log
        log = (wd / "nextpnr.log").read_text(errors="replace").splitlines()
        pnr["worst_paths"] = log_path.analyse(wd, log, top, parts, source.info is not None and not opts.flatten,
                                              clock)
    merged = None
    if pnr and counts_shares(source, dev):
        stage("merged shares: the placed LUTs and slices holding both shares of a value")
        merged = shares.measure(wd, source.top)
        merged["placement"] = opts.share_placement
        if "between" in pnr:
            merged["separation"] = pnr.pop("between")
    ver = {"yosys": syn["version"], "packages": tools.package_versions(tools_needed(dev))}
    if pnr:
        ver["nextpnr"] = tools.version_string(dev.kind.nextpnr, cache_layout.tools_file())
    area = record.area(dev.family, syn, pnr, dev.lut_inputs)
    times = {"synthesize": round(syn["seconds"], 3),
             "place": round(pnr["place_seconds"], 3) if pnr else None,
             "route": round(pnr["route_seconds"], 3) if pnr else None,
             "pack": round(pnr["pack_seconds"], 3) if pnr and pnr["pack_seconds"] is not None else None,
             "paths": t_paths, **({"shares": merged.pop("seconds")} if merged else {})}
    flow = {"flow_version": FLOW_VERSION,
            "synth": "; ".join(opts.synth_lines(dev, source.top)),
            "keep_hierarchy": keep_patterns(parts, source.top),
            "pnr": (f"{dev.kind.nextpnr.removeprefix('yowasp-')} {' '.join(dev.pnr_flags)} --seed {seed} --freq {FREQ_TARGET_MHZ} "
                    f"{' '.join(opts.pnr_args())} --timing-allow-fail") if pnr else None,
            "pack": pnr["pack_note"] if pnr else None,
            **({"ebr_outreg_moved": outreg} if outreg else {}),
            **({"floorplan_placed": plan} if plan else {})}
    return {"area": area, "timing": record.timing(pnr, clock), "times": times, "tools": ver,
            "router": router if pnr else None, "flow": flow,
            "synthesized_cells": syn["cells"], **({"shares": merged} if merged else {})}


def _on_device(source: DesignSource, dev: Device) -> tuple[str, str]:
    """(Verilog, top) as the device's family builds the core: as it is out of context, or,
    where every IO needs a pin, behind the serial I/O wrapper (flattened into the top: its
    area counts as ``unassigned``, with the core's control; the core's parts keep their names)."""
    if not wraps(source, dev):
        return source.verilog, source.top
    from .incontext import WRAPPER_TOP, wrapped_verilog
    return wrapped_verilog(source, source.verilog), WRAPPER_TOP


def wraps(source: DesignSource, dev: Device) -> bool:
    """Whether the core is placed behind the serial I/O wrapper: on a family where every IO needs
    a pin ("pins": Gowin, Nexus, GateMate), and a generated core on one whose packages have
    far fewer pins than a core has ports ("wrap": iCE40; external Verilog is placed as given)."""
    return dev.supports("pins") or (dev.supports("wrap") and source.info is not None)


def counts_shares(source: DesignSource, dev: Device) -> bool:
    """Whether a build counts merged shares (:mod:`.shares`): a core whose signals carry share
    tags, placed on a device that supports it (ECP5).  Untagged cores: nothing runs or changes."""
    return dev.supports("shares") and shares.tagged(source.verilog)


def _now() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def _provenance(source: DesignSource) -> dict:
    """What a cache entry keeps besides the measurement: when and by what it was measured."""
    return {"measured_at": _now(),
            "measured_by": {"cipherfab_version": __version__, "flow_version": FLOW_VERSION,
                            "host": socket.gethostname()},
            "elaborate_seconds": round(source.elaborate_seconds, 3)}


def flow_section(raw_flow: dict | None, opts: FlowOptions, dev: Device, seed: int) -> dict:
    """The record's ``flow``: the measurement's tool commands plus every flow option, the
    seed included (placer, router and seed are None where nothing is placed).  The options
    come from the request, not the cache, so records cached before they were recorded
    (always the defaults: their key is the default flow's) name them too."""
    placed = not dev.synthesis_only
    return {**(raw_flow or {}), **opts.describe(), "placer": opts.placer if placed else None,
            "router": opts.router if placed else None, "seed": seed if placed else None}


def _assemble(source: DesignSource, dev: Device, seed: int, raw: dict, cached: bool,
              opts: FlowOptions, n_paths: int | None = None, key: str | None = None) -> dict:
    """The record: the (possibly cached) measurement plus what this DesignSource says.

    Stage times, elaboration included, are always those of the run that measured
    (``measured_at``); ``times_source`` says whether that was this run or the cache.
    ``timing.worst_paths`` keeps ``n_paths`` (default PATHS_SHOWN) of those measured.
    """
    times = dict(raw["times"])
    times["elaborate"] = raw["elaborate_seconds"]
    times["total"] = round(sum(v for v in times.values() if v is not None), 3)
    measured = {k: v for k, v in raw.items() if k not in ("times", "elaborate_seconds")}
    if "worst_paths" in raw["timing"]:
        kept = raw["timing"]["worst_paths"][:n_paths or worst_paths.PATHS_SHOWN]
        measured["timing"] = {**raw["timing"], "worst_paths": kept}
    measured["flow"] = flow_section(raw.get("flow"), opts, dev, seed)
    rec = {
        "status": "ok", "cached": cached, "label": source.label(), "design": source.design,
        "top": source.top, "verilog_sha256": source.verilog_sha256,
        "device": dev.describe(), "seed": seed, **measured, "times": times,
        "times_source": f"cache (measured {raw['measured_at']})" if cached else "this run",
        "performance": record.performance(source, raw["timing"]["fmax_mhz"], raw["area"],
                                          raw["timing"].get("fmax_by_clock_mhz")),
        "cipherfab_version": __version__,
    }
    if key:
        rec["build_key"] = key      # the measurement's cache entry (a study's resume keeps it)
    if dev.synthesis_only:
        rec["estimate"] = "synthesis only, no place-and-route"
    return rec


def _keep_logs(wd: Path, k: str) -> Path | None:
    """Copy a failed build's logs under the cache root; None if the cache cannot be written."""
    kept = cache_layout.failed() / k
    try:
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(wd, kept, ignore=shutil.ignore_patterns("*.json", "*.asc", "*.bin", "*.sdf"))
    except OSError:
        return None
    return kept


def build(source: DesignSource, *, device: str | Device = DEFAULT, seed: int = 1, use_cache: bool = True,
          workdir: str | Path | None = None, router: str | None = None, speed: int | None = None,
          timeout: float | None = None, placer: str | None = None, abc9: bool | None = None,
          widelut: bool | None = None, paths: int | None = None,
          flatten: bool | None = None, share_placement: str | None = None,
          ebr_outreg: bool | None = None, floorplan: bool | None = None,
          heap_timing_weight: int | None = None, heap_crit_exp: int | None = None) -> dict:
    """Build ``source`` on ``device`` and return one JSON-serialisable record.

    ``router`` None is nextpnr's timing-driven router1, the same for every
    design so Fmax compares; router2 routes big designs faster but is not
    timing-driven (an iterative AES-128 measured 102 MHz with router2 against
    128 MHz with router1 on ecp5-85k), so choose it explicitly for sweeps of
    very large cores and compare like with like.  ``placer``, ``abc9``,
    ``widelut``, ``flatten``, ``share_placement``, ``ebr_outreg``, ``floorplan``,
    ``heap_timing_weight`` and ``heap_crit_exp`` are the other flow options (:mod:`.options`; None = the default flow,
    whose tool arguments and cache key are those of builds before the options existed;
    the record's ``flow`` section names every option used).  ``workdir``
    keeps the tool files and logs there; by default a temporary directory is
    used and removed (logs of a failed build are kept under the cache root).
    ``timeout`` (seconds) applies to each tool run.  Every failure raises a
    one-line CipherfabError.  ``paths`` (1..PATHS_KEPT) is how many of the worst routed
    paths ``timing.worst_paths`` carries (ECP5; default PATHS_SHOWN); asked for
    explicitly, a cached measurement from before paths were analysed is rebuilt, while
    by default it comes back without them.  Cached records come back with ``cached: True``
    and the measurement's own ``measured_at``, ``measured_by`` and stage
    times (``times_source`` says "cache (measured ...)"): never another
    process's times mixed with this one's.
    """
    dev = _device(device, speed)
    opts = FlowOptions.of(placer=placer, router=router, abc9=abc9, widelut=widelut, flatten=flatten,
                          share_placement=share_placement, ebr_outreg=ebr_outreg,
                          floorplan=floorplan, heap_timing_weight=heap_timing_weight,
                          heap_crit_exp=heap_crit_exp).on(dev, router is not None)
    opts.check(dev)
    if "share_placement" in opts.changed() and not counts_shares(source, dev):
        raise CipherfabError(f"--share-placement {opts.share_placement} applies to masked (share-tagged) cores "
                             f"placed on ECP5; {source.top} on {dev.name} has no share tags")
    if timeout is not None and not timeout > 0:
        raise CipherfabError(f"timeout must be > 0 seconds, got {timeout}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise CipherfabError(f"seed must be a whole number in 0..{SEED_MAX} (nextpnr's is a C int), got {seed}")
    check_paths(paths, dev)
    if wraps(source, dev):
        from .incontext import check_core
        why = "every IO needs a pin" if dev.supports("pins") else "its packages have too few pins for a core's ports"
        check_core(source, f"a build on {dev.name} ({why}: the core goes behind the serial I/O wrapper)")
    if shares.tagged(source.verilog):
        shares.check_source(source.verilog)
    if workdir is not None:     # checked and made even when the cache answers
        workdir = dir_target(workdir, "--workdir")
        try:
            workdir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CipherfabError(f"--workdir {workdir}: cannot make it ({e.strerror or e})") from None
    k = cache.key(flow=FLOW_VERSION, sha=source.verilog_sha256, top=source.top, parts=source.parts,
                  packages=tools.package_versions(tools_needed(dev)), device=dev.describe(), seed=seed,
                  router=opts.router, freq=FREQ_TARGET_MHZ,
                  **{k: v for k, v in opts.changed().items() if k != "router"})
    raw = cache.load(k) if use_cache else None
    stale = raw is not None and counts_shares(source, dev) \
        and raw.get("shares", {}).get("version") != shares.VERSION      # not counted, or by older rules
    if raw is not None and not (paths and "worst_paths" not in raw["timing"]) and not stale:
        stage(f"seed {seed}: found in the build cache (measured {raw['measured_at']}); no tool runs")
        return _assemble(source, dev, seed, raw, cached=True, opts=opts, n_paths=paths, key=k)
    with contextlib.ExitStack() as stack:
        if workdir is None:
            wd = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cipherfab-build-")))
        else:
            wd = Path(workdir)
        try:
            raw = _measure(source, dev, seed, opts, wd, timeout)
        except CipherfabError as e:
            msg = str(e)
            if workdir is None and any(msg.startswith(s) for s in ("synthesis failed", "place failed", "route failed")):
                kept = _keep_logs(wd, k)
                msg += f" (logs in {kept})" if kept else ""
            raise CipherfabError(msg, e.exit_code) from None
    raw.update(_provenance(source))
    cache.store(k, raw)
    return _assemble(source, dev, seed, raw, cached=False, opts=opts, n_paths=paths, key=k)


def build_or_failure(source: DesignSource, **kwargs) -> dict:
    """Like ``build`` but a failure comes back as a record with ``status: "failed"``."""
    try:
        return build(source, **kwargs)
    except CipherfabError as e:
        device = kwargs.get("device", DEFAULT)
        return {"status": "failed", "error": str(e), "label": source.label(), "design": source.design,
                "top": source.top, "verilog_sha256": source.verilog_sha256,
                "device": device.name if isinstance(device, Device) else device,
                "speed": kwargs.get("speed"), "seed": kwargs.get("seed", 1), "router": kwargs.get("router"),
                "flow": {k: kwargs.get(k) for k in FLOW_OPTIONS},
                "cipherfab_version": __version__}
