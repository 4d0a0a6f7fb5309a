"""``cipherfab study NAME``: rebuild a named study and write its reports.

Exit status: 0 when the report was written and at least one build succeeded
(failed points are listed in the report), 1 when every build failed (the report
is still written), 2 for bad input (unknown study, bad option) - one line on
stderr, never a traceback; 130 (Ctrl-C) or 143 (SIGTERM) when interrupted: the
workers and their tools are stopped, the finished builds go to OUT/NAME/partial/
(results, reports, and their measurements in builds/), the previous complete results
in OUT/NAME/ are kept, and the same command run again (on any machine, once that folder
is committed) builds only what is missing.

``--check`` (:mod:`.check`) builds the committed study's points again and writes nothing:
exit 0 when every build equals its record, 1 when any differs or failed, 2 for bad input,
130/143 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..argtypes import between, scheduler_address
from ..errors import CipherfabError
from ..flow.cli import add_flow_arguments, flow_options
from ..flow.external import add_external_arguments, external_source
from ..flow.options import ROUTERS
from .studies import STUDIES, get_study

#: nextpnr reads ``--seed`` as a C int
MAX_SEED = 2**31 - 1
#: random keys per variant at most (paper 004 used 100; every key is 13 builds)
MAX_KEYS = 1000
#: local workers per CPU at most: each build keeps a core busy and holds up to a few GB
JOBS_PER_CPU = 4
#: --sample at most (a record's points are fewer)
MAX_SAMPLE = 100_000
#: exit status after Ctrl-C and after SIGTERM (128 + the signal's number, as a shell reports)
INTERRUPT_EXIT = {"SIGINT": 130, "SIGTERM": 143}


def _seeds(text: str) -> list[int]:
    items = [s.strip() for s in text.split(",")]
    if not text.strip():
        raise argparse.ArgumentTypeError("at least one seed is needed")
    if "" in items:
        raise argparse.ArgumentTypeError(f"empty seed in {text!r}: give comma-separated integers, e.g. 1,2")
    try:
        seeds = [int(s) for s in items]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be comma-separated integers, not {text!r}") from None
    if any(s < 0 for s in seeds):
        raise argparse.ArgumentTypeError(f"seeds must be >= 0, not {text!r}")
    if any(s > MAX_SEED for s in seeds):
        raise argparse.ArgumentTypeError(f"seeds must be <= {MAX_SEED} (nextpnr's --seed is a "
                                         f"32-bit integer), not {text!r}")
    if len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"repeated seed in {text!r}")
    return seeds


def _folder(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("empty folder name: give a folder, e.g. --out reports")
    return text


def _jobs():
    cpus = os.cpu_count() or 1
    return between(1, JOBS_PER_CPU * cpus, f"{JOBS_PER_CPU} per CPU, {cpus} here; "
                                           "for more use --scheduler")


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "study", help="rebuild a named study (design points x placer seeds) and write reports",
        description="Build every design point of a study with every placer seed, on a local "
                    "process pool or a Dask cluster, and write OUT/NAME/results.json, report.md, "
                    "report.html and PNG plots, with the papers' published numbers alongside. "
                    "Known studies: " + ", ".join(
                        f"{n} ({s.title})" for n, s in sorted(STUDIES.items())))
    p.add_argument("name", metavar="NAME", help="study name: " + ", ".join(sorted(STUDIES)))
    p.add_argument("-j", "--jobs", type=_jobs(), metavar="N",
                   help="local worker processes (default: the number of CPUs; at most "
                        f"{JOBS_PER_CPU} per CPU)")
    p.add_argument("--scheduler", metavar="ADDR", type=scheduler_address,
                   help="run on a Dask cluster instead, e.g. tcp://host:8786 (needs the cluster "
                        "extra: pip install 'cipherfab[cluster]')")
    p.add_argument("--seeds", type=_seeds, metavar="1,2",
                   help=f"placer seeds, 0 to {MAX_SEED} (default: the study's)")
    p.add_argument("--keys", type=between(1, MAX_KEYS, "paper 004 used 100"), metavar="N",
                   help="random keys per variant, for key studies (key-specific: default 100; 5 for "
                        "a quick run)")
    p.add_argument("--device", metavar="NAME", help="target device (default: the study's, e.g. ecp5-85k)")
    f = p.add_argument_group("flow options for every point (default: the default flow, or the "
                             "study's own flow axis)")
    f.add_argument("--router", choices=ROUTERS, help="nextpnr router (default router1)")
    add_flow_arguments(f)
    p.add_argument("--out", metavar="DIR", type=_folder,
                   help="reports folder; results go to DIR/NAME/ (default: reports); an "
                        "interrupted run's to DIR/NAME/partial/ with its finished builds, from which "
                        "the next run resumes (on any machine, once committed), keeping the "
                        "complete ones")
    p.add_argument("--no-cache", action="store_true", help="rebuild even when a cached result exists")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--update-readme", action="store_true",
                   help="afterwards, rewrite the README.md section between <!-- results:NAME:begin --> "
                        "and <!-- results:NAME:end --> (README.md at the repository root, found from "
                        "the current folder) from the results")
    c = p.add_argument_group("checking a committed study (nothing is written)")
    c.add_argument("--check", action="store_true",
                   help="build the points of the committed results again (record's device, seeds "
                        "and flow options; no build cache) and compare LUT4, FF, CCU2, EBR, DSP, "
                        "Fmax and the Verilog with the record, exactly; exit 1 if any differs")
    c.add_argument("--sample", type=between(1, MAX_SAMPLE), metavar="N",
                   help="with --check: N points chosen at random (named before the builds)")
    c.add_argument("--sample-seed", type=between(0, MAX_SEED), metavar="S",
                   help="with --sample: the seed of the choice (default: a new one, printed)")
    c.add_argument("--results", metavar="FILE",
                   help="with --check: the record (default: docs/results/NAME/results.json at the "
                        "repository root, found from the current folder)")
    add_external_arguments(p)
    p.add_argument("--peer", action="append", metavar="JSON",
                   help="another open peer, described in a JSON file with the external-core options "
                        "as keys (verilog and include_dir relative to the file; top, cycles_per_block, "
                        "cycles_per_block_cbc, latency, key_setup_cycles, label); repeatable")
    p.set_defaults(func=run)
    return p


def _check_device(name: str) -> None:
    """Unknown devices and synthesis-only ones (no placement, so no placer seeds and no Fmax)
    are refused before any build."""
    from ..flow.devices import DEVICES, get_device
    if get_device(name).synthesis_only:
        placed = [d for d in DEVICES if not get_device(d).synthesis_only]
        raise CipherfabError(f"device {name!r} is synthesis-only (no place-and-route, no Fmax): a "
                             f"study needs one of {', '.join(placed)}")


def _check_flow(args, device: str) -> None:
    """Synthesis flow options are synth_ecp5's: refused for a study on another device (a router
    the device's family does not offer is refused by run_study, before any build)."""
    from ..flow.cli import flow_options
    from ..flow.devices import get_device
    from ..flow.options import check_device_options
    check_device_options(flow_options(args), get_device(device))


def _check_files(names, kind: str, option: str) -> None:
    """Input files, before any build: each a regular file within its kind's limit (reading
    /dev/zero or a FIFO would never end; :mod:`cipherfab.userfiles`).  A missing one is
    left to its reader, after the options that go with it are checked."""
    from ..userfiles import input_file
    for name in names or ():
        if os.path.lexists(name):
            input_file(name, kind, option)


def _checked_inputs(args, study):
    """Every refusal that needs no build, before the first one: (external points, README to
    update or None)."""
    _check_files(args.verilog, "verilog", "--verilog")
    _check_files(args.peer, "json", "--peer")
    from . import papers
    papers.tables()        # the published numbers the report needs: a broken file is refused now,
                           # not after the builds (their results would be lost with the report)
    devices = study.builds_on(args.device)
    if args.device is not None:
        _check_device(args.device)
    for device in devices:
        _check_flow(args, device)
    if args.jobs and args.scheduler:
        raise CipherfabError("-j/--jobs and --scheduler exclude each other")
    if args.scheduler:
        from ..cluster import require_distributed
        require_distributed()       # the cluster extra, named in one line if it is missing
    from ..flow.external import peer_source
    from .points import Point
    ext = external_source(args)
    peers = [peer_source(f) for f in (args.peer or [])]
    readme = None
    if args.update_readme:
        from ..readme import check_markers, find_readme
        readme = find_readme()
        check_markers(readme, study.name)
    externals = [Point.external(source, source.design.get("label"))
                 for source in ([ext] if ext is not None else []) + peers]
    return externals, readme


def _check_options(args) -> None:
    """--check builds what the record says, into no folder: the options that would build
    something else or write somewhere are refused, and the check's own need --check."""
    if not args.check:
        for name in ("sample", "sample_seed", "results"):
            if getattr(args, name) is not None:
                raise CipherfabError(f"--{name.replace('_', '-')} applies to --check")
        return
    if args.sample_seed is not None and args.sample is None:
        raise CipherfabError("--sample-seed needs --sample N")
    given = [("--out", args.out is not None), ("--no-cache", args.no_cache),
             ("--update-readme", args.update_readme), ("--seeds", args.seeds is not None),
             ("--device", args.device is not None), ("--keys", args.keys is not None)]
    given += [(f"--{'no-' if v is False else ''}{k}", v is not None)
              for k, v in flow_options(args).items()]
    for option, present in given:
        if present:
            why = ("--check writes nothing (its table goes to stdout)" if option in
                   ("--out", "--update-readme") else "--check never uses the build cache"
                   if option == "--no-cache" else "--check builds with the record's device, "
                   "seeds, keys and flow options")
            raise CipherfabError(f"{option} contradicts --check: {why}")


def _run_check(args, study) -> int:
    _check_files(args.verilog, "verilog", "--verilog")
    _check_files(args.peer, "json", "--peer")
    if args.jobs and args.scheduler:
        raise CipherfabError("-j/--jobs and --scheduler exclude each other")
    if args.scheduler:
        from ..cluster import require_distributed
        require_distributed()
    from ..flow.external import peer_source
    from .points import Point
    from .signals import sigterm_as_interrupt
    ext = external_source(args)
    sources = ([ext] if ext is not None else []) + [peer_source(f) for f in (args.peer or [])]
    externals = [Point.external(s, s.design.get("label")) for s in sources]
    from . import check
    try:
        with sigterm_as_interrupt():
            return check.run_check(study.name, results=args.results, sample=args.sample,
                                   sample_seed=args.sample_seed, externals=externals,
                                   jobs=args.jobs, scheduler=args.scheduler,
                                   show_progress=not args.quiet)
    except KeyboardInterrupt as stop:
        done = len(getattr(stop, "partial_records", []))
        name = getattr(stop, "signal_name", "SIGINT")
        print(f"cipherfab study: interrupted ({name}) after {done} builds of the check; "
              "nothing was written", file=sys.stderr, flush=True)
        return INTERRUPT_EXIT.get(name, 130)


def run(args) -> int:
    study = get_study(args.name)
    _check_options(args)
    if args.check:
        return _run_check(args, study)
    args.out = args.out or "reports"
    externals, readme = _checked_inputs(args, study)
    from .runner import run_study
    from .signals import StudyInterrupted, sigterm_as_interrupt
    try:
        with sigterm_as_interrupt():
            res = run_study(study, out=args.out, seeds=args.seeds, device=args.device,
                            externals=externals, jobs=args.jobs, scheduler=args.scheduler,
                            use_cache=not args.no_cache, show_progress=not args.quiet,
                            keys=args.keys, flow=flow_options(args))
    except StudyInterrupted as stop:
        print(_interrupted_line(stop), file=sys.stderr, flush=True)
        return INTERRUPT_EXIT.get(stop.signal_name, 130)
    s = res["summary"]
    folder = res["folder"]
    if res.get("resumed_builds"):
        print(f"{study.name}: resumed from {res['resumed_builds']} builds saved by an interrupted "
              f"run (its partial/ folder, now removed)", file=sys.stderr)
    cached = sum(1 for r in res["records"] if r.get("status") == "ok" and r.get("cached"))
    print(f"{study.name}: {s['ok']}/{s['builds']} builds ok in {res['wall_seconds']:.1f} s"
          + (f" ({cached} from the build cache)" if cached else "")
          + f"; report: {Path(folder) / 'report.md'} and report.html")
    if readme is not None and s["ok"]:
        from .readme import update_readme
        plot = update_readme(readme, study.name, res, folder)
        print(f"{readme}: results:{study.name} section rewritten"
              + (f" (plot copied to {plot})" if plot else ""))
    if s["ok"] == 0:
        first = res["failures"][0]["error"] if res["failures"] else "no build finished"
        print(f"cipherfab study: error: all {s['builds']} builds failed (first: {first}); "
              f"report written to {folder}" + ("; README.md not updated" if readme else ""), file=sys.stderr)
        return 1
    return 0


def _interrupted_line(stop) -> str:
    """The one line an interrupted study ends with: how far it got and where its results are."""
    s = stop.results["summary"]
    kept = f"; the complete results in {stop.kept.parent} were kept" if stop.kept else ""
    saved = stop.results.get("saved_builds")
    resume = (f"; the same command resumes from its {saved} saved builds" if saved else "")
    return (f"cipherfab study: interrupted ({stop.signal_name}) after {s['finished']} of "
            f"{s['builds']} builds; partial results in {stop.results['folder']}{kept}{resume}")


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m cipherfab.study.cli``): ``cipherfab study ...``."""
    from ..cli import main as cipherfab_main
    return cipherfab_main(["study", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
