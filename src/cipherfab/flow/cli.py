"""``cipherfab build``: build a generated or external core on a device and measure it."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from ..errors import CipherfabError
from ..argtypes import between
from ..progress import stage, stages
from . import paths, shares, show_paths
from .build import SEED_MAX, check_paths
from .worst_paths import PATHS_KEPT
from .devices import DEFAULT, DEVICES, Device, get_device
from .external import OPTIONS, add_external_arguments, external_source
from .options import (HEAP, NAMES as FLOW_OPTIONS, PLACERS, ROUTERS, SHARE_PLACEMENTS,
                      check_device_options, check_placing)
from .seeds import SEEDS_MAX
from .source import DesignSource

#: the rekey check holds its random blocks three times in memory (16 bytes each)
BLOCKS_MAX = 10_000_000
CHECK_BLOCKS = 1000


def seconds(text: str) -> float:
    """argparse type: a time limit in seconds, > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of seconds {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0 seconds, got {text}")
    return value


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build", help="synthesize, place and route a core on a device and measure it",
        description="Build a generated core (CIPHER and its options) or an external core "
                    "(--verilog ... --top ... --cycles-per-block ...) with Yosys + nextpnr and "
                    "report area, Fmax, throughput and generation time.")
    from ..registry import add_core_arguments
    add_core_arguments(p, cipher_required=False, group_title="generated core")
    add_external_arguments(p)
    f = p.add_argument_group("flow")
    f.add_argument("--device", default=DEFAULT, help=f"one of {', '.join(DEVICES)} (default {DEFAULT})")
    f.add_argument("--speed", type=int, help="ECP5 speed grade 6, 7 or 8 (default 8)")
    f.add_argument("--seed", type=between(0, SEED_MAX, "nextpnr's seed is a C int"),
                   help="placer seed (default 1)")
    f.add_argument("--router", choices=ROUTERS,
                   help="nextpnr router (default router1, timing-driven; router2 is faster on big designs)")
    add_flow_arguments(f)
    f.add_argument("--share-placement", choices=SHARE_PLACEMENTS,
                   help="masked (share-tagged) cores on ECP5: move one share's cells out of every "
                        "tile (PFU) holding both before routing (default separate), or place them as "
                        "any design (free)")
    f.add_argument("--seeds", type=between(1, SEEDS_MAX, "each seed is a full place and route"), metavar="N",
                   help="place and route with N seeds (from --seed, default 1) and report each, "
                        "the median of the N and the best of the N")
    f.add_argument("--paths", type=between(1, PATHS_KEPT, "a build keeps that many"), metavar="N",
                   help="print the N worst routed paths (ECP5): registers, parts crossed, logic and "
                        f"routing delay, LUT levels; the record carries them (default 3, at most {PATHS_KEPT})")
    f.add_argument("--json", metavar="FILE", help="write the record to FILE")
    f.add_argument("--no-cache", action="store_true", help="rebuild even if a cached record exists")
    f.add_argument("--workdir", metavar="DIR",
                   help="keep tool files and logs in DIR (a cached record runs no tools: add --no-cache)")
    f.add_argument("--timeout", type=seconds, metavar="SECONDS", help="limit for each tool run (> 0)")
    f.add_argument("--bitstream", metavar="DIR",
                   help="build in context instead (ECP5): the core behind the shared 8-bit serial I/O "
                        "wrapper, placed on pins, packed to DIR/design.bit; DIR is what "
                        "'cipherfab rekey' patches (a new or empty folder)")
    p.set_defaults(func=run)
    register_rekey(subparsers)


class _Switch(argparse.BooleanOptionalAction):
    """``--x`` / ``--no-x``, refusing both on one command line (argparse would let the last win)."""

    def __call__(self, parser, namespace, values, option_string=None):
        value = not option_string.startswith("--no-")
        if getattr(namespace, self.dest) not in (None, value):
            raise argparse.ArgumentError(self, f"given both ways: choose {self.option_strings[0]} "
                                               f"or {self.option_strings[1]}")
        setattr(namespace, self.dest, value)


def add_flow_arguments(group) -> None:
    """The flow options besides --router (shared with ``cipherfab study``)."""
    group.add_argument("--placer", choices=PLACERS,
                       help="nextpnr placer (default heap, analytic; sa = simulated annealing)")
    group.add_argument("--abc9", action=_Switch,
                       help="map LUTs with Yosys ABC9 (default) or, with --no-abc9, the classic "
                            "abc pass (ECP5)")
    group.add_argument("--widelut", action=_Switch,
                       help="LUTs wider than 4 inputs from PFU muxes (default) or, with "
                            "--no-widelut, LUT4 only (ECP5)")
    group.add_argument("--flatten", action=_Switch,
                       help="synthesize the core flat, or (default, --no-flatten) keep each declared "
                            "part's module for the area split per part (a boundary the LUT mapper "
                            "does not optimize across)")
    group.add_argument("--ebr-outreg", action=_Switch,
                       help="move the register after each block-RAM read into the block RAM's output "
                            "register (REGMODE OUTREG), as vendor synthesis does, within each module (ECP5). "
                            "Default --no-ebr-outreg: the netlist as Yosys maps it")
    group.add_argument("--floorplan", action=_Switch,
                       help="give each block RAM a site before placement, in the order the data "
                            "reaches them, along the device's block-RAM rows (ECP5). Default "
                            "--no-floorplan: the placer chooses")
    for name, h in HEAP.items():
        group.add_argument(f"--{name.replace('_', '-')}", type=between(h.low, h.high, "what this flow offers"),
                           metavar="N", help=f"the heap placer's {h.what} (nextpnr {h.flag}; default "
                                             f"{h.default}, nextpnr's own)")


def flow_options(args) -> dict:
    """The flow options given on the command line, as ``build()`` keywords (None = default)."""
    return {k: getattr(args, k, None) for k in FLOW_OPTIONS}


def register_rekey(subparsers) -> None:
    p = subparsers.add_parser(
        "rekey", help="make a built key-specific core's bitstream for another key, without synthesis",
        description="Rewrite the block-RAM contents of an in-context build (cipherfab build ... "
                    "--bitstream BUILD) for a new key: elaborate, patch the config, pack; no synthesis, "
                    "no place-and-route.  Then check it: read the bitstream back and simulate the "
                    "synthesized netlist with the read-back contents against the reference.")
    p.add_argument("build", metavar="BUILD", help="folder of an in-context build")
    p.add_argument("--key", required=True, help="the new key, hex")
    p.add_argument("--out", metavar="DIR",
                   help="where to write the new design: a new or empty folder, or an earlier rekey's "
                        "(replaced); default BUILD/rekey-KEY.  Nothing else is written into BUILD")
    p.add_argument("--blocks", type=between(1, BLOCKS_MAX, "the check keeps its blocks in memory"), metavar="N",
                   help=f"random blocks for the gate-level check (default {CHECK_BLOCKS})")
    p.add_argument("--no-check", action="store_true", help="skip the read-back and the simulation")
    p.add_argument("--timeout", type=seconds, metavar="SECONDS",
                   help="limit for each tool run (> 0): ecppack, and with the check ecpunpack and yosys")
    p.set_defaults(func=run_rekey)


def run_rekey(args) -> int:
    with stages("rekey"):         # a note on stderr as each step starts (the check compiles)
        return _run_rekey(args)


def _run_rekey(args) -> int:
    from .rekey import rekey
    if not args.build.strip():
        raise CipherfabError("BUILD: empty path")
    if args.out is not None and not args.out.strip():
        raise CipherfabError("--out: empty path")
    if args.no_check and args.blocks is not None:
        raise CipherfabError("--blocks sets the check's random blocks: it does nothing with --no-check")
    r = rekey(Path(args.build), args.key, Path(args.out) if args.out is not None else None,
              check=not args.no_check, blocks=args.blocks or CHECK_BLOCKS, timeout=args.timeout)
    t, b = r["times"], r["rebuild_times"]
    print(f"{r['out']}/design.bit: {r['top']}")
    print(f"rekey: {r['block_rams']} block RAMs rewritten ({len(r['memories'])} memories); "
          f"elaborate {t['elaborate']:.2f} s, patch {t['patch']:.2f} s, pack {t['pack']:.2f} s, "
          f"total {t['total']:.2f} s wall")
    print(f"full rebuild of the same design (measured at build): synthesize {b['synthesize']:.1f} s, "
          f"place and route {b['place_route']:.1f} s, pack {b['pack']:.1f} s, total {b['total']:.1f} s")
    if r["check"]:
        c = r["check"]
        print(f"check: read-back: {c['readback']}")
        print(f"check: gate-level simulation of the synthesized netlist with the read-back contents: "
              f"{c['simulation']} ({c['simulation_seconds']:.1f} s); check total {c['seconds']:.1f} s")
    return 0


def _generated(args, announce: bool = False) -> DesignSource:
    for name in OPTIONS:
        if getattr(args, name, None) is not None:
            raise CipherfabError(f"--{name.replace('_', '-')} applies to external cores (--verilog)")
    from .source import design_source
    from ..registry import params_from_args
    p = params_from_args(args)
    if announce:    # not for --bitstream: it refuses some cores once elaborated (one line)
        stage(f"elaborating {p.top} (Amaranth, then Verilog)")
    return design_source(p.cipher, arch=p.arch, **dict(p.values))


def source_from_args(args, announce: bool = False) -> DesignSource:
    from ..registry import given_core_options
    if args.verilog and args.cipher:
        raise CipherfabError("give either CIPHER or --verilog FILE..., not both")
    if args.verilog:
        given = given_core_options(args)
        if given:
            raise CipherfabError(f"{given[0]} applies to generated cores, not --verilog")
        return external_source(args)
    if args.cipher:
        return _generated(args, announce)
    raise CipherfabError("nothing to build: give CIPHER (e.g. aes) or --verilog FILE... --top NAME")


def _fmt(v, unit="", nd=1):
    if v is None:
        return "-"
    return f"{v:.{nd}f}{unit}" if isinstance(v, float) else f"{v}{unit}"


PART_ORDER = ("key_schedule", "datapath", "control")


def _part_area(part: dict, lut_key: str, ram_key: str) -> str:
    """``812 LUT4, 260 FF, 2 EBR`` (+ any other non-zero metric) for one part."""
    main = [lut_key, "ff", ram_key]
    shown = [(part.get(k, 0), k) for k in main] + [(v, k) for k, v in part.items() if k not in main and v]
    return ", ".join(f"{v} {k.upper()}" for v, k in shown)


def _cycles(n) -> str:
    return "unknown" if n is None else f"{n} cycle" + ("" if n == 1 else "s")


def flow_text(f: dict) -> str:
    """The flow options of a record's ``flow`` section, as one line (the LUT-mapping options
    are ``synth_ecp5``'s: another family's line names its synthesis command instead)."""
    placed = f"placer {f['placer']}, router {f['router']}, seed {f['seed']}; " if f.get("placer") else ""
    synth = str(f.get("synth") or "")
    if synth and not synth.startswith("synth_ecp5"):
        mapping = f"synthesis {synth.split(' -top ')[0]}"
    else:
        mapping = (f"LUT mapping {'ABC9' if f['abc9'] else 'classic abc'}, "
                   f"wide LUTs {'on' if f['widelut'] else 'off'}")
    return (placed + mapping + f", retiming {'on' if f.get('retime') else 'off'}"
            + (", flat (no area split)" if f.get("flatten") else ""))


def summary_rows(rec: dict) -> list[tuple[str, str]]:
    a, t, p, s = rec["area"], rec["timing"], rec["performance"], rec["times"]
    dev = rec["device"]
    rows = [("design", rec["label"]), ("device", f"{dev['name']} ({dev['full_part']})")]
    if "abc9" in (rec.get("flow") or {}):
        rows.append(("flow", flow_text(rec["flow"])))
    keys = [k for k in ("lut4", "lut", "ff", "ccu2", "carry", "ebr", "bram", "dsp", "lc") if k in a]
    rows.append(("area", ", ".join(f"{a[k]} {k.upper()}" for k in keys) + f", {a['slices']} slices"))
    parts = a.get("parts") or {}
    if parts:
        lut_key = "lut4" if "lut4" in a else "lut"
        ram_key = "ebr" if "ebr" in a else "bram"
        order = [q for q in PART_ORDER if q in parts] + [q for q in parts if q not in PART_ORDER]
        rows.append(("area by part", "synthesized, before placement (nextpnr adds a few LUTs)"))
        rows += [(f"  {q}", _part_area(parts[q], lut_key, ram_key)) for q in order]
    if rec.get("estimate"):
        rows.append(("timing", rec["estimate"]))
    else:
        rows.append(("Fmax", f"{_fmt(t['fmax_mhz'], ' MHz')} (pre-route {_fmt(t['fmax_pre_route_mhz'], ' MHz')}, "
                             f"ratio {_fmt(t['wiring_ratio'], '', 3)})"))
        rows.append(("throughput", f"ECB {_fmt(p['throughput_ecb_mbps'], ' Mbit/s')}, "
                                   f"CBC {_fmt(p['throughput_cbc_mbps'], ' Mbit/s')}"))
        rows.append(("efficiency", f"{_fmt(p['mbps_per_lut4'], ' Mbit/s/LUT', 3)}, "
                                   f"{_fmt(p['slices_per_gbps'], ' slices per Gbit/s')}"))
        worst = show_paths.worst_line(t)
        if worst:
            rows.append(("worst path", worst))
    ecb, cbc = p.get("cycles_per_block_ecb"), p.get("cycles_per_block_cbc")
    rows.append(("latency", f"{_cycles(p.get('latency_cycles'))}; cycles/block ECB {_fmt(ecb)}, CBC {_fmt(cbc)}"))
    ks_ns = p.get("key_setup_ns")
    rows.append(("key setup", _cycles(p.get("key_setup_cycles"))
                 + (f" ({_fmt(ks_ns, ' ns', 1)} at Fmax"
                    + (f"; key_clk at its own Fmax {_fmt(p['key_clock_fmax_mhz'], ' MHz')}"
                       if p.get("key_clock_fmax_mhz") else "") + ")" if ks_ns is not None else "")))
    stages = ("elaborate", "synthesize", "place", "route", "pack") + (("paths",) if s.get("paths") else ()) \
        + (("shares",) if "shares" in s else ()) + ("total",)
    rows.append(("time", ", ".join(f"{k} {_fmt(s.get(k), ' s')}" for k in stages)
                 + (f" (cached): times of the original build, measured {rec.get('measured_at') or 'at an unknown time'}"
                    if rec.get("cached") else "")))
    return rows


def _check_outputs(args) -> None:
    """Every path the build will write, before any work (paths: one line per problem)."""
    if args.bitstream is not None:
        for flag in ("json", "no_cache", "workdir"):
            if getattr(args, flag):
                raise CipherfabError(f"--{flag.replace('_', '-')} does not apply to --bitstream builds "
                                     "(everything is kept in the --bitstream folder)")
        if args.verilog:
            raise CipherfabError("--bitstream needs a generated core (its declared facts name the ports), "
                                 "not --verilog")
        paths.dir_target(args.bitstream, "--bitstream", new=True)
    if args.workdir is not None:
        paths.dir_target(args.workdir, "--workdir")
    if args.json is not None:
        _check_json(args)


def _check_json(args) -> None:
    """``--json FILE``: writable, and none of the build's other paths (the work folder may
    be the folder it goes in, made by the build)."""
    if not args.json.strip():
        raise CipherfabError("--json: empty path")
    json_path = Path(args.json)
    if args.workdir is not None and json_path.resolve() == Path(args.workdir).resolve():
        raise CipherfabError(f"--json {args.json} is the --workdir folder")
    if args.workdir is not None and json_path.parent.resolve() == Path(args.workdir).resolve() \
            and not json_path.parent.exists():
        return      # the build makes the work folder first; its writability is checked above
    target = paths.file_target(args.json, "--json")
    if any(Path(v).exists() and Path(v).resolve() == target.resolve() for v in args.verilog or ()):
        raise CipherfabError(f"--json {args.json} is one of the --verilog files")


def _check_flow(args, device: Device) -> None:
    """Options that do not apply to this device or mode."""
    if device.synthesis_only:
        for flag in ("router", "seed", "placer", "seeds", "share_placement", *HEAP):
            if getattr(args, flag) is not None:
                raise CipherfabError(f"--{flag.replace('_', '-')} applies to place and route: {device.name} is synthesis only")
    else:
        check_placing(flow_options(args), device)
    check_device_options(flow_options(args), device)
    if args.bitstream is not None:
        if args.paths is not None:
            raise CipherfabError("--paths does not apply to --bitstream builds: the out-of-context "
                                 "build measures the core")
        for flag in [name for name in FLOW_OPTIONS if name != "router"] + ["seeds"]:
            if getattr(args, flag) is not None:
                raise CipherfabError(f"--{flag.replace('_', '-')} does not apply to --bitstream builds (they use the "
                                     "default flow)")
        from .incontext import check_device
        check_device(device)
    check_paths(args.paths, device)
    if args.seeds is not None and args.seeds > 1:
        if args.workdir is not None:
            raise CipherfabError("--workdir keeps one build's files: it does not apply with --seeds")
        from .seeds import seed_list
        seed_list(_seed(args), args.seeds, SEED_MAX)


def _seed(args) -> int:
    return 1 if args.seed is None else args.seed


def _bitstream(args, device) -> int:
    from .incontext import build_bitstream
    source = source_from_args(args)
    out = Path(args.bitstream)
    m = build_bitstream(source, out, device, seed=_seed(args), router=args.router or "router1",
                        timeout=args.timeout)
    t = m["times"]
    util = m["utilisation"]
    area = ", ".join(f"{util[k][0]} {name}" for k, name in (("TRELLIS_COMB", "LUT4"), ("TRELLIS_FF", "FF"),
                                                           ("DP16KD", "EBR"), ("TRELLIS_IO", "I/O"))
                     if k in util)
    print(f"{out}/design.bit: {source.top} behind the serial I/O wrapper on {device.name} "
          f"({area}; Fmax {m['fmax_mhz']} MHz)")
    print(f"block RAMs holding memory contents: {len(m['cells'])} "
          f"({len(m['memories'])} memories{', re-keyable with cipherfab rekey' if m['cells'] and m['key'] else ''})")
    print("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in t.items()))
    return 0


def run(args) -> int:
    with stages("build"):         # a note on stderr as each stage starts: a build takes minutes
        return _run_build(args)


def _run_build(args) -> int:
    _check_outputs(args)                          # every path, before any work
    device = get_device(args.device, args.speed)  # bad device/speed: one line before any work
    _check_flow(args, device)
    if args.bitstream is not None:
        return _bitstream(args, device)
    source = source_from_args(args, announce=True)
    from .build import build
    if args.seeds is not None and args.seeds > 1:
        return _run_seeds(args, source, device)
    rec = build(source, device=device, seed=_seed(args), use_cache=not args.no_cache,
                workdir=args.workdir, timeout=args.timeout, paths=args.paths, **flow_options(args))
    if args.json is not None:
        paths.write_file(Path(args.json), json.dumps(rec, indent=1) + "\n", "--json")
    try:
        from rich.console import Console
        from rich.table import Table
        table = Table(show_header=False, box=None)
        for k, v in summary_rows(rec):
            table.add_row(k, v)
        Console().print(table)
    except ImportError:
        for k, v in summary_rows(rec):
            print(f"{k:12} {v}")
    _print_shares(rec, source, device)
    if args.paths is not None:
        print("\n" + show_paths.check_line(rec["timing"]))
        print("\n".join(show_paths.lines(rec["timing"]["worst_paths"])))
    return 0


def _print_shares(rec: dict, source: DesignSource, device: Device) -> None:
    """A tagged core's merged-shares line and its first offenders (a measurement: the exit
    code stays 0 whatever the count); a tagged core on a device without the count, a note."""
    if "shares" in rec:
        for line in [shares.summary(rec["shares"])] + shares.offender_lines(rec["shares"]):
            print(line)
    elif shares.tagged(source.verilog):
        stage(f"merged shares: not counted on {device.name} (ECP5 placed designs only)")


def seeds_rows(doc: dict) -> tuple[list[str], list[list[str]]]:
    """The ``--seeds`` table: one row per seed, then the median and the best, labelled."""
    from .seeds import METRICS
    sm = doc["summary"]
    headers = ["seed"] + [label for label, _ in METRICS]
    rows = [[str(s)] + [_fmt(sm["metrics"][p]["by_seed"][i]) for _, p in METRICS]
            for i, s in enumerate(sm["seeds"])]
    rows.append([sm["median_label"]] + [_fmt(sm["metrics"][p]["median"]) for _, p in METRICS])
    rows.append([sm["best_label"]] + [_fmt(sm["metrics"][p]["best"]) for _, p in METRICS])
    return headers, rows


def _run_seeds(args, source, device) -> int:
    from .build import build
    from .seeds import build_seeds, seed_list
    seeds = seed_list(_seed(args), args.seeds, SEED_MAX)
    doc = build_seeds(build, source, seeds, device=device, use_cache=not args.no_cache,
                      timeout=args.timeout, paths=args.paths, **flow_options(args))
    if args.json is not None:
        paths.write_file(Path(args.json), json.dumps(doc, indent=1) + "\n", "--json")
    first = doc["records"][0]
    flow = flow_text({**first["flow"], "seed": f"{seeds[0]}..{seeds[-1]}"})
    print(f"{first['label']} on {first['device']['name']} ({first['device']['full_part']}); "
          f"{flow}: {len(seeds)} placer seeds")
    headers, rows = seeds_rows(doc)
    widths = [max(len(r[i]) for r in [headers] + rows) for i in range(len(headers))]
    for r in [headers] + rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    for r in doc["records"]:
        if "shares" in r:
            print(f"seed {r['seed']}: {shares.summary(r['shares'])}")
    cached = [r["seed"] for r in doc["records"] if r.get("cached")]
    if cached:
        print(f"cached (measured before, not rebuilt): seeds {', '.join(map(str, cached))}")
    if args.paths is not None:
        best = next(r for r in doc["records"] if r["seed"] == doc["summary"]["best_seed"])
        print(f"\nworst paths of the best seed ({best['seed']}):")
        print(show_paths.check_line(best["timing"]))
        print("\n".join(show_paths.lines(best["timing"]["worst_paths"])))
    return 0
