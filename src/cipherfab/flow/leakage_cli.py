"""``cipherfab leakage``: the fixed-vs-random t-test on simulated power traces of a core (the
models and the test in :mod:`cipherfab.sim.leakage` and :mod:`cipherfab.sim.toggle`; here
because the ``toggle`` and ``robust`` models synthesize the core first, :mod:`.robust_netlist`)."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from ..argtypes import count_upto
from ..errors import CipherfabError
from ..registry import add_core_arguments, params_from_args
from ..sim.leakage import MODELS, PIECE, THRESHOLD, LeakageModel, assess, check_core, describe_t, run_key
from ..sim.verilated import cache_dir_default
from .leakage_args import check_out, hex_block, replace_file, save_figure

FIPS_KEY = "000102030405060708090a0b0c0d0e0f"
FIPS_PT = "00112233445566778899aabbccddeeff"
MAX_TRACES = 10 ** 9


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "leakage", help="fixed-vs-random leakage tests on the simulated core: TVLA t-test, robust probing",
        description="Simulate the core and run Welch's t-test between traces of "
                    "a fixed plaintext and of random plaintexts under one key (or two fixed "
                    "plaintexts): each clock's sample is the Hamming distance of every register "
                    "between its clock edges (hd, Verilator), or of every cell output of the synthesized "
                    "ECP5 netlist (toggle, a C++ netlist simulator). Zero-delay: no glitches, no routing; a board "
                    "measurement is the final word. |t| > 4.5 at any clock fails. --model robust: "
                    "glitch-extended probing of the synthesized netlist, fixed-vs-random key, a G-test "
                    "per probe (-log10 p > 5 fails; docs/guide/leakage-robust.md).")
    add_core_arguments(p, cipher_required=False)
    ext = p.add_argument_group("external core")
    ext.add_argument("--verilog", metavar="FILE", help="Verilog of an external core")
    ext.add_argument("--top", metavar="NAME", help="its top module")
    ext.add_argument("--info", metavar="JSON", help="its declaration (a generated core's .json sidecar)")
    p.add_argument("--traces", type=count_upto(MAX_TRACES), required=True, metavar="N",
                   help="traces in both groups together (1e6 is fine); run in pieces of 10,000, so a stopped "
                        "run goes on from its saved pieces when the same command runs again (robust: "
                        "simulations, in batches of 4,096)")
    p.add_argument("--model", choices=(*MODELS, "robust"), default="hd",
                   help="hd: Hamming distance of every register per clock (default); toggle: of "
                        "every LUT, mux, carry and flip-flop output of the synthesized netlist; robust: "
                        "every cell output's glitch-extended set, fixed-vs-random key")
    p.add_argument("--transitions", action="store_true",
                   help="robust: each probe also observes its set one clock before")
    p.add_argument("--noise", type=float, default=0.0, metavar="SIGMA",
                   help="Gaussian noise added to every sample (default 0)")
    p.add_argument("--order", type=int, choices=(1, 2),
                   help="test orders 1 to this (default 2; robust: 1, each probe alone)")
    p.add_argument("--test", choices=("fixed-vs-random", "fixed-vs-fixed"), default="fixed-vs-random")
    p.add_argument("--trace-key", default=FIPS_KEY, metavar="HEX",
                   help="the key every trace runs under (default FIPS-197's)")
    p.add_argument("--fixed", default=FIPS_PT, metavar="HEX", help="the fixed plaintext (default FIPS-197's)")
    p.add_argument("--second", metavar="HEX",
                   help="fixed-vs-fixed: the other fixed plaintext (default: the fixed one's complement)")
    p.add_argument("--window", type=count_upto(100_000), metavar="CLOCKS",
                   help="clocks sampled from the block handshake (default: the latency - 1, up to "
                        "the clock that writes the result; toggle: the latency - 2, up to the clock "
                        "where the result settles on the output register's input: the ciphertext "
                        "is public, and a fixed-vs-random test always tells it apart)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-j", "--jobs", type=count_upto(256), default=1, help="processes (default 1)")
    p.add_argument("--out", metavar="DIR", help="write results.json and the plots there")
    p.set_defaults(func=run)


def _core(args):
    """(top, declaration, a function giving the Verilog) of the generated point or the
    external core: the declaration is read first, so bad options are refused before the
    Verilog is made."""
    external = [o for o in ("verilog", "top", "info") if getattr(args, o)]
    if external:
        missing = [f"--{o}" for o in ("verilog", "top", "info") if not getattr(args, o)]
        if missing or args.cipher:
            raise CipherfabError("an external core is --verilog FILE --top NAME --info JSON, without CIPHER"
                                 if not missing else f"an external core also needs {', '.join(missing)}")
        from ..hw.info import load_info
        from ..userfiles import input_file, read_text
        input_file(args.verilog, "verilog", "--verilog")        # refused before any work
        info = load_info(input_file(args.info, "json", "--info"))
        return args.top, info, lambda: read_text(args.verilog, "verilog", "--verilog")
    if not args.cipher:
        raise CipherfabError("nothing to assess: give CIPHER (e.g. aes) or --verilog FILE --top NAME --info JSON")
    from ..generate import declaration
    from ..sim.core_cache import core_verilog
    params = params_from_args(args)
    return params.top, declaration(params), lambda: core_verilog(params)[0]


def _progress(t0: float):
    """A line when a run resumes, and about twenty lines over a long run (notes: on stderr)."""
    def report(done: int, total: int, resumed: int) -> None:
        if resumed and done == resumed + 1:
            print(f"leakage: resumed from {resumed} of {total} pieces ({PIECE:,} traces each) saved by an "
                  "interrupted run", file=sys.stderr, flush=True)
        step = max(1, total // 20)
        if total > 1 and (done % step == 0 or done == total):
            print(f"leakage: {done}/{total} pieces, {time.perf_counter() - t0:.0f} s", file=sys.stderr,
                  flush=True)
    return report


#: the files ``--out`` writes
OUT_FILES = ("results.json", "t.png")


def run(args) -> int:
    top, info, make_text = _core(args)
    check_core(top, info)
    if args.model == "robust" or args.transitions:
        from .robust_cli import run_robust
        return run_robust(args, top, info, make_text)
    args.order = args.order or 2
    key = hex_block(info.key_bits)(args.trace_key)
    fixed = hex_block(info.block_bits)(args.fixed)
    second = None
    if args.second and args.test != "fixed-vs-fixed":
        raise CipherfabError("--second goes with --test fixed-vs-fixed")
    if args.test == "fixed-vs-fixed":
        second = hex_block(info.block_bits)(args.second) if args.second else bytes(b ^ 0xFF for b in fixed)
    if args.noise < 0 or args.noise != args.noise or args.noise == float("inf"):
        raise CipherfabError(f"--noise {args.noise}: a standard deviation, 0 or more")
    if args.out:
        check_out(Path(args.out), OUT_FILES)
    text = make_text()
    if args.model == "toggle":
        from ..sim.toggle import ToggleModel, default_window
        from .robust_netlist import synthesized
        from ..sim.robust_core import check
        check(info)
        model = ToggleModel(synthesized(text, top), top, info)
        window = args.window or default_window(info)
    else:
        model = LeakageModel(text, top, info)
        window = args.window or max(1, info.latency - 1)
    save = cache_dir_default() / "leakage-runs" / run_key(model, key, fixed, second, args.traces, window,
                                                          args.seed, args.noise)
    t0 = time.perf_counter()
    a = assess(model, key, fixed, args.traces, window, args.seed, args.noise, args.jobs,
               tuple(range(1, args.order + 1)), second, save=save, progress=_progress(t0))
    seconds = time.perf_counter() - t0
    f = a.facts
    what = (f"toggle model of {model.probe_bits} netlist cell outputs" if args.model == "toggle" else
            f"HD model of {f['registers']} registers ({f['register_bits']} bits)")
    again = (f" (this run: {f['pieces'] - f['resumed']} of {f['pieces']} pieces; the others saved by an "
             "earlier run)" if f["resumed"] else "")
    print(f"{top}: {args.traces:,} traces ({args.test}), {what}, noise sigma {args.noise:g}; {window} clocks a trace; "
          f"{f['jobs']} process{'es' if f['jobs'] > 1 else ''}, {seconds:.1f} s{again}")
    failed = False
    for order in a.t:
        worst = max(a.max_t[order][-1], 0.0)
        crossed = a.first_crossing(order)
        failed |= crossed is not None
        verdict = (f"FAIL: |t| > {THRESHOLD} from {crossed:,} traces" if crossed is not None
                   else f"pass: |t| <= {THRESHOLD} up to {args.traces:,} traces")
        print(f"order {order}: max |t| {describe_t(worst)} at clock {a.worst_clock(order)}; {verdict}")
    if args.out:
        _write(Path(args.out), a, args, seconds)
    shutil.rmtree(save, ignore_errors=True)     # kept until the results are written
    return 1 if failed else 0                   # FAIL is a failed check: exit 1


def _write(out: Path, a, args, seconds: float) -> None:
    try:
        _write_files(out, a, args, seconds)
    except OSError as e:           # checked before the run; the folder changed since
        raise CipherfabError(f"cannot write {out}: {e.strerror or e}") from None


def _write_files(out: Path, a, args, seconds: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    record = {"top": a.top, "traces": a.traces, "test": args.test, "model": args.model,
              "noise": args.noise, "window": a.window, "seconds": round(seconds, 1),
              "checkpoints": a.checkpoints, "facts": a.facts,
              "orders": {str(o): {"t": a.t[o], "max_abs_t": a.max_t[o], "first_crossing": a.first_crossing(o)}
                         for o in a.t}}
    text = json.dumps(record, indent=1, allow_nan=True) + "\n"
    replace_file(out, "results.json", lambda f: f.write(text.encode()))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    floor = 0.1                                       # a log axis: |t| of 0 drawn at 0.1
    for o in a.t:
        left.plot([max(abs(x), floor) for x in a.t[o]], label=f"order {o}")
        right.plot(a.checkpoints, [max(x, floor) for x in a.max_t[o]], marker="o", label=f"order {o}")
    for ax in (left, right):
        ax.axhline(THRESHOLD, color="red", linestyle="--", linewidth=1, label="4.5")
        ax.set_ylabel("|t|")
        ax.set_yscale("log")
        ax.legend()
    left.set_xlabel("clock after the block handshake")
    right.set_xlabel("traces")
    right.set_xscale("log")
    fig.suptitle(f"{a.top}: {args.test}, {args.model} model")
    fig.tight_layout()
    save_figure(out, "t.png", fig)
    print(f"wrote {out / 'results.json'} and {out / 't.png'}")
