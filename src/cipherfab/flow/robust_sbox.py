"""Order-t robust probing of ONE masked AES S-box on d shares (the masked cores' gadget:
HPC2 on Boyar and Peralta's circuit, or DOM in the tower field), in isolation: one evaluation, its synthesized ECP5 netlist driven in the C++ engine
(:func:`cipherfab.sim.robust_order_run.assess_engine`).

The secret is the S-box input byte: ``fixed`` (default 0x53, FIPS-197's S-box example) in
the fixed group, uniform in the random one.  Each simulation draws a fresh uniform sharing
of it and fresh random bits from the engine's entropy: the shares enter at clock 0 (share 0 =
x ^ e_1, share i = e_i ^ e_(i+1), share d-1 = e_(d-1): any d - 1 of them uniform), every
gadget's random bits are fresh at the clock evaluation 0 takes them (the S-box's
``rand_clocks``: an HPC2 AND's when its ``b`` operand is registered, a DOM product's when its
cross-domain terms are); at every other clock the inputs and random bits are 0,
so the rest of the pipeline is idle (constant, dropped from every observation).  The run
covers clocks 0 to the latency (the output registers' clock); ``clocks`` restricts it.

``python -m cipherfab.flow.robust_sbox --shares 3 --order 2 --simulations 1000000 -j 2``
(``--gadget dom``; ``--clocks 6,7`` for a window; ``--unregistered``: the gadget's glitch test mode).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..errors import CipherfabError

#: FIPS-197's S-box example input (S(0x53) = 0xED)
FIXED = 0x53


def netlist(shares: int, unregistered: bool = False, gadget: str = "hpc2"):
    """(the Netlist, the schedule) of one masked S-box on ``shares`` shares."""
    from amaranth.back import rtlil

    from ..generate import make_core
    from ..registry import resolve
    from .robust_netlist import synthesized
    # the masked AES cores' S-box, from the registry's 1-S-box point (which refuses a share
    # count or gadget it does not take, before any hardware)
    dut = make_core(resolve("aes", "masked", sboxes=1, shares=shares, gadget=gadget)).sbox(unregistered)
    return synthesized(rtlil.convert(dut, name="sbox"), "sbox", language="rtlil"), dut.schedule


def stimulus(net, schedule, fixed: int = FIXED):
    """One evaluation: the secret's fresh sharing at clock 0, each gadget's bits fresh at its clock."""
    from ..sim.robust_engine import SRC_ENTROPY, SRC_FRESH, SRC_SECRET, Stimulus
    d, width = schedule.shares, 8
    st = Stimulus.empty(net, schedule.latency + 1, [(fixed >> k) & 1 for k in range(width)], width * (d - 1))
    for k in range(width):
        col = [st.column(net, f"x__{i}")[k] for i in range(d)]
        e = k * (d - 1)                                   # this bit's entropy e_1 .. e_(d-1)
        st.source[0, col[0]], st.xor[0, col[0]] = SRC_SECRET + k, e
        for i in range(1, d):
            st.source[0, col[i]] = SRC_ENTROPY + e + i - 1
            st.xor[0, col[i]] = e + i if i < d - 1 else -1
    rand = st.column(net, "rand")
    for first, bits, clock in schedule.rand_clocks:
        for j in range(first, first + bits):
            st.source[clock, rand[j]] = SRC_FRESH
    return st


def evaluate(shares: int, order: int, simulations: int, clocks=None, unregistered: bool = False,
             fixed: int = FIXED, seed: int = 1, threads: int = 1, progress=None, gadget: str = "hpc2"):
    """The :class:`~cipherfab.sim.robust_order_run.OrderResult` of one S-box evaluation on
    ``shares`` shares at ``order`` (probe sets at one clock; ``clocks``: the window)."""
    from ..sim.robust_engine import compile_netlist
    from ..sim.robust_order_run import assess_engine
    if not 0 <= fixed < 256:
        raise CipherfabError(f"the fixed S-box input is a byte, not {fixed}")
    net, schedule = netlist(shares, unregistered, gadget)
    return assess_engine(net, compile_netlist(net), stimulus(net, schedule, fixed), order, simulations,
                         clocks, seed, threads, progress=progress)


def summary(r, shares: int, clocks, seconds: float, unregistered: bool = False, gadget: str = "hpc2") -> str:
    window = "all clocks" if clocks is None else "clocks " + ",".join(map(str, clocks))
    verdict = "FAIL" if r.first_failing() is not None else "pass"
    return (f"{gadget.upper()} S-box d={shares}{' (unregistered test mode)' if unregistered else ''} order {r.order} ({window}): "
            f"{r.tests:,} probe sets tested (not: {r.untested:,} unions and {r.wide_parts:,} single probes' observations "
            f"over 16 bits), {r.simulations:,} simulations; "
            f"max -log10(p) {max(r.max_mlog10p, default=0):.2f}, threshold {r.threshold:.2f} (5 + log10 of the tests; "
            f"{r.tests_over_5:,} above 5): {verdict}; {seconds:.1f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cipherfab.flow.robust_sbox", description=__doc__.split("\n\n")[0])
    ap.add_argument("--shares", "-d", type=int, default=2)
    ap.add_argument("--order", "-t", type=int, default=1)
    ap.add_argument("--simulations", "-n", type=int, default=100_000)
    ap.add_argument("--clocks", help="comma-separated clocks to test (default: all, 0 to the latency)")
    ap.add_argument("--gadget", default="hpc2", help="the masked S-box: hpc2 (default) or dom")
    ap.add_argument("--unregistered", action="store_true", help="the gadget's glitch test mode")
    ap.add_argument("--fixed", type=lambda s: int(s, 0), default=FIXED, help="the fixed S-box input byte")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args(argv)
    try:
        clocks = [int(c) for c in args.clocks.split(",")] if args.clocks else None
    except ValueError:
        print(f"error: --clocks {args.clocks}: comma-separated clock numbers", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        r = evaluate(args.shares, args.order, args.simulations, clocks, args.unregistered, args.fixed, args.seed,
                     args.jobs, progress=lambda m: print(f"robust_sbox: {m}", file=sys.stderr, flush=True),
                     gadget=args.gadget)
    except (CipherfabError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - t0
    print(summary(r, args.shares, clocks, seconds, args.unregistered, args.gadget))
    for c, n in sorted(r.per_clock.items()):
        print(f"  clock {c}: {n['maximal']} maximal observations, {n['tests']:,} sets tested, "
              f"{n['too_wide']:,} unions over 16 bits, {n['wide_parts']} single observations over 16 bits")
    for lk in r.leaks[:5] or ([r.worst] if r.worst else []):
        print(f"  {'leak' if r.leaks else 'worst'}: clock {lk['clock']}  {' + '.join(lk['probes'])}  "
              f"-log10(p)={lk['mlog10p']:.1f}  observes {{{', '.join(lk['observes'][:12])}}}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gadget": args.gadget, "shares": args.shares, "order": args.order, "clocks": clocks, "unregistered": args.unregistered,
                       "fixed": args.fixed, "seed": args.seed, "threads": args.jobs, "simulations": r.simulations,
                       "tests": r.tests, "untested_unions": r.untested, "per_clock": r.per_clock,
                       "checkpoints": r.checkpoints, "max_mlog10p": r.max_mlog10p, "threshold": r.threshold,
                       "tests_over_5": r.tests_over_5, "first_failing": r.first_failing(), "leaks": r.leaks,
                       "worst": r.worst, "seconds": round(seconds, 1)}, f, indent=1)
    return 1 if r.first_failing() is not None else 0


if __name__ == "__main__":
    sys.exit(main())
