"""``cipherfab leakage --model robust``: glitch-extended probing of the core's synthesized
ECP5 netlist (:mod:`cipherfab.sim.robust_core`), fixed-vs-random key; the report names the
leaking probes.  See docs/guide/leakage-robust.md."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..errors import CipherfabError
from ..sim.robust import THRESHOLD
from ..sim.robust_engine import BATCH, MAX_BITS
from .leakage_args import check_out, hex_block, replace_file, save_figure

#: the files ``--out`` writes
OUT_FILES = ("results.json", "p.png")
#: leaking probes printed
SHOWN = 10


def _refuse_other_options(args) -> None:
    if args.model != "robust":
        raise CipherfabError("--transitions goes with --model robust")
    if args.order == 2:
        raise CipherfabError("the robust model tests first order (each probe alone): --order 2 is for hd and toggle")
    if args.noise:
        raise CipherfabError("--noise is for hd and toggle: the robust model compares distributions, not sums")
    if args.test != "fixed-vs-random":
        raise CipherfabError("the robust model runs fixed-vs-random keys only")
    if args.second:
        raise CipherfabError("--second goes with --test fixed-vs-fixed (hd and toggle)")


def _observes(names: list[str], most: int = 8) -> str:
    shown = ", ".join(names[:most])
    return "{" + shown + (f", ... ({len(names) - most} more)" if len(names) > most else "") + "}"


def run_robust(args, top: str, info, make_text) -> int:
    _refuse_other_options(args)
    key = hex_block(info.key_bits)(args.trace_key)
    plaintext = hex_block(info.block_bits)(args.fixed)
    if args.out:
        check_out(Path(args.out), OUT_FILES)
    from ..sim.robust_core import assess, check
    from .robust_netlist import synthesized
    check(info)
    t0 = time.perf_counter()
    net = synthesized(make_text(), top)

    def note(message: str) -> None:
        print(f"leakage: {message}", file=sys.stderr, flush=True)
    r = assess(net, info, key, plaintext, args.traces, args.window, args.transitions, args.seed, args.jobs,
               progress=note)
    seconds = time.perf_counter() - t0
    worst = max(r.max_mlog10p) if r.max_mlog10p else 0.0
    failing = r.first_failing()
    what = "glitch-extended" + (" + transitions" if args.transitions else "")
    print(f"{top}: robust probing ({what}, first order), fixed-vs-random key, plaintext {args.fixed} in both "
          f"groups; {r.simulations:,} simulations, {r.window} clocks from the block handshake; {r.tests:,} tests "
          f"of {r.probes_tested:,} probes the key reaches ({len(r.untestable):,} probe-clocks over {MAX_BITS} "
          f"bits not tested); {r.facts['threads']} thread{'s' if r.facts['threads'] > 1 else ''}, {seconds:.1f} s")
    both = sum(1 for u in r.untestable if len(u[3]) > 1)
    if r.untestable and any(u[3] for u in r.untestable):
        print(f"untested probe-clocks by the generator's share tags among their signals: "
              + ", ".join(f"{k} {v:,}" for k, v in _by_shares(r.untestable).items())
              + (f"; {both:,} see more than one share" if both else " (none sees more than one share)"))
    limit = r.threshold
    verdict = (f"FAIL: -log10(p) > {limit:.2f} from {failing:,} simulations" if failing is not None
               else f"pass: -log10(p) <= {limit:.2f} up to {r.simulations:,} simulations")
    print(f"order 1: max -log10(p) {worst:.2f} over the checkpoints (threshold {limit:.2f}: PROLEAD's {THRESHOLD:g} a test + log10 of "
          f"{r.tests:,} tests; {r.facts['tests_over_5']:,} above {THRESHOLD:g}); {verdict}")
    if failing is None and r.facts.get("worst"):
        w = r.facts["worst"]
        print(f"  worst at the end: clock {w['clock']}  {w['cell']} ({w['part']})  -log10(p)={w['mlog10p']:.2f}  "
              f"observes {_observes(w['observes'])}")
    for lk in r.leaks[:SHOWN]:
        print(f"  clock {lk['clock']}  {lk['cell']}.{lk['pin']} ({lk['part']})  -log10(p)={lk['mlog10p']:.1f}  "
              f"G={lk['g']:.1f} df={lk['df']}  observes {_observes(lk['observes'])}")
    if args.out:
        _write(Path(args.out), r, args, seconds, top, net)
    return 1 if failing is not None else 0


def _by_shares(untestable) -> dict:
    """Untested probe-clocks by the share tags among their signals: "" none, "0" to "3" one
    share only, "01", "012", ... several (the generator's tags, :data:`~cipherfab.sim.robust.SHARE_ATTRIBUTE`)."""
    out: dict[str, int] = {}
    for *_, shares in untestable:
        out[shares or "none"] = out.get(shares or "none", 0) + 1
    return dict(sorted(out.items()))


def _write(out: Path, r, args, seconds: float, top: str, net) -> None:
    record = {"top": top, "model": "robust", "transitions": args.transitions, "test": "fixed-vs-random key",
              "trace_key": args.trace_key, "plaintext": args.fixed, "seed": args.seed,
              "simulations": r.simulations, "batch": BATCH, "window": r.window, "handshakes": r.handshakes,
              "threshold": round(r.threshold, 3), "threshold_per_test": THRESHOLD, "seconds": round(seconds, 1), "engine_seconds": round(r.seconds, 1),
              "checkpoints": r.checkpoints, "max_mlog10p": [round(x, 3) for x in r.max_mlog10p],
              "first_failing": r.first_failing(), "tests": r.tests, "probes_tested": r.probes_tested,
              "facts": r.facts, "leaks": r.leaks,
              "untested_over_max_bits": {"max_bits": MAX_BITS, "probe_clocks": len(r.untestable),
                                         "probes": len({u[1] for u in r.untestable}),
                                         "by_tagged_shares": _by_shares(r.untestable),
                                         "examples": [{"clock": c, "cell": net.probes[pi].cell.lstrip("\\"),
                                                       "part": net.probes[pi].part, "bits": k, "shares": sh}
                                                      for c, pi, k, sh in sorted(r.untestable, key=lambda u: (-len(u[3]), -u[2]))[:10]]}}
    text = json.dumps(record, indent=1) + "\n"
    try:
        out.mkdir(parents=True, exist_ok=True)
        replace_file(out, "results.json", lambda f: f.write(text.encode()))
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.6))
        ax.plot(r.checkpoints, [max(x, 0.1) for x in r.max_mlog10p], marker="o", label="worst probe")
        ax.axhline(r.threshold, color="red", linestyle="--", linewidth=1, label=f"{r.threshold:.2f}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("simulations")
        ax.set_ylabel("-log10(p)")
        ax.legend()
        ax.set_title(f"{top}: robust probing")
        fig.tight_layout()
        save_figure(out, "p.png", fig)
    except OSError as e:
        raise CipherfabError(f"cannot write {out}: {e.strerror or e}") from None
    print(f"wrote {out / 'results.json'} and {out / 'p.png'}")
