"""``cipherfab study NAME``: rebuild a named study and write its reports.

Exit status: 0 when the report was written and at least one build succeeded
(failed points are listed in the report), 1 when every build failed (the report
is still written), 2 for bad input (unknown study, bad option) - one line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..argtypes import count
from ..errors import CipherfabError
from ..flow.external import add_external_arguments, external_source
from .studies import STUDIES, get_study


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
    if len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"repeated seed in {text!r}")
    return seeds


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "study", help="rebuild a named study (design points x placer seeds) and write reports",
        description="Build every design point of a study with every placer seed, on a local "
                    "process pool or a Dask cluster, and write OUT/NAME/results.json, report.md, "
                    "report.html and PNG plots, with the papers' published numbers alongside. "
                    "Known studies: " + ", ".join(
                        f"{n} ({s.title})" for n, s in sorted(STUDIES.items())))
    p.add_argument("name", metavar="NAME", help="study name: " + ", ".join(sorted(STUDIES)))
    p.add_argument("-j", "--jobs", type=count, metavar="N",
                   help="local worker processes (default: the number of CPUs)")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="run on a Dask cluster instead, e.g. tcp://host:8786")
    p.add_argument("--seeds", type=_seeds, metavar="1,2", help="placer seeds (default: the study's)")
    p.add_argument("--keys", type=count, metavar="N",
                   help="random keys per variant, for key studies (key-specific: default 100; 5 for "
                        "a quick run)")
    p.add_argument("--device", metavar="NAME", help="target device (default: the study's, e.g. ecp5-85k)")
    p.add_argument("--out", default="reports", metavar="DIR",
                   help="reports folder; results go to DIR/NAME/ (default: reports)")
    p.add_argument("--no-cache", action="store_true", help="rebuild even when a cached result exists")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--update-readme", action="store_true",
                   help="afterwards, rewrite the README.md section between <!-- results:NAME:begin --> "
                        "and <!-- results:NAME:end --> (README.md at the repository root, found from "
                        "the current folder) from the results")
    add_external_arguments(p)
    p.add_argument("--peer", action="append", metavar="JSON",
                   help="another open peer, described in a JSON file with the external-core options "
                        "as keys (verilog and include_dir relative to the file; top, cycles_per_block, "
                        "cycles_per_block_cbc, latency, key_setup_cycles, label); repeatable")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    study = get_study(args.name)
    if args.device:
        try:
            from ..flow import get_device
        except ImportError:  # flow not installed in this tree: let the builds report it
            get_device = None
        if get_device is not None:
            get_device(args.device)  # unknown device: one-line refusal before any build
    from ..flow.external import peer_source
    ext = external_source(args)
    peers = [peer_source(f) for f in (args.peer or [])]   # refused before any build
    if args.jobs and args.scheduler:
        raise CipherfabError("-j/--jobs and --scheduler exclude each other")
    readme = None
    if args.update_readme:  # refuse before any build, not after the last
        from .readme import check_markers, find_readme
        readme = find_readme()
        check_markers(readme, study.name)
    from .runner import Point, run_study
    externals = []
    for source in ([ext] if ext is not None else []) + peers:
        externals.append(Point.external(source, source.design.get("label")))
    res = run_study(study, out=args.out, seeds=args.seeds, device=args.device,
                    externals=externals, jobs=args.jobs, scheduler=args.scheduler,
                    use_cache=not args.no_cache, show_progress=not args.quiet, keys=args.keys)
    s = res["summary"]
    folder = res["folder"]
    print(f"{study.name}: {s['ok']}/{s['builds']} builds ok in {res['wall_seconds']:.1f} s; "
          f"report: {Path(folder) / 'report.md'} and report.html")
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


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m cipherfab.study.cli``): ``cipherfab study ...``."""
    from ..cli import main as cipherfab_main
    return cipherfab_main(["study", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
