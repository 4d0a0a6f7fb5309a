"""``cipherfab verify``: every registered core point against its KAT files, its reference and its timing.

For each point (one core, or ``--all``: every valid parameter combination of
every architecture): compile it with Verilator, run the cipher's known-answer
files for its key size in every direction it has, a random differential run
with random backpressure and key changes, and the timing check (every declared
cycle count measured exactly).  One line per core; exit 1 if any core fails.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ..argtypes import count
from ..errors import CipherfabError
from ..registry import CoreParams, add_core_arguments, all_points, get_cipher, params_from_args


#: key clock periods (in clk periods) a core with a key clock is also checked at, besides 1
KEY_CLOCK_PERIODS = (0.37, 2.7)


def vector_root(given: str | None) -> Path:
    """The folder the ciphers' KAT paths are relative to: --vectors-dir, $CIPHERFAB_VECTORS,
    or the repository's tests/vectors (a source checkout)."""
    candidates = [given] if given else [os.environ.get("CIPHERFAB_VECTORS"),
                                        Path(__file__).resolve().parents[3] / "tests" / "vectors"]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c)
    if given:
        raise CipherfabError(f"vector folder {given} does not exist")
    raise CipherfabError("no test-vector folder found: give --vectors-dir DIR "
                         "(the repository's tests/vectors) or set CIPHERFAB_VECTORS")


def verify_point(params: CoreParams, root: Path, random_blocks: int, seed: int) -> tuple[bool, str]:
    """(ok, one-line summary) for one core point."""
    from ..vectors import run_files
    from .engine import HardwareEngine, check_timing, random_run
    t0 = time.perf_counter()
    engine = HardwareEngine(params, seed=seed, in_valid_prob=0.7, out_ready_prob=0.6)
    cipher = get_cipher(params.cipher)
    files = [root / f for f in cipher.kat_files(engine.info.key_bits)]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise CipherfabError(f"KAT file not found: {missing[0]}")
    if engine.info.key_interface == "none":  # a key-specific core: only the records made with its key
        from ..vectors import parse_file, run_records
        key = bytes.fromhex(engine.info.fixed_key)
        records = [rec for f in files
                   for rec in parse_file(f, engine.block_bytes, cipher.submission_byte_reversed)
                   if rec.key == key]
        reports = run_records(records, engine) if records else []
    else:
        reports = run_files(files, engine, byte_reversed=cipher.submission_byte_reversed,
                            other_key_sizes="skip") if files else []
    kat_pass, kat_fail = sum(r.passed for r in reports), sum(r.failed for r in reports)
    r = random_run(engine, random_blocks, seed=seed, mean_blocks_per_key=20,
                   in_valid_prob=0.7, out_ready_prob=0.6)
    timing = check_timing(engine)
    for kp in KEY_CLOCK_PERIODS if engine.clock_options else ():   # a key clock: other ratios too
        other = engine.at_key_period(kp)
        rk = random_run(other, max(1, random_blocks // 4), seed=seed, mean_blocks_per_key=20,
                        in_valid_prob=0.7, out_ready_prob=0.6)
        if rk.mismatches:
            timing.append(f"key_clk at {kp:g} clk periods: {rk.mismatches} random blocks wrong "
                          f"({rk.first_mismatch})")
        timing += [f"key_clk at {kp:g} clk periods: {t}" for t in check_timing(other)]
    needs_kat = engine.info.key_interface != "none"
    ok = kat_fail == 0 and (kat_pass > 0 or not needs_kat) and r.mismatches == 0 and not timing
    i = engine.info
    line = (f"{'ok  ' if ok else 'FAIL'} {params.top}: KAT {kat_pass} passed, {kat_fail} failed; "
            f"random {r.blocks - r.mismatches} passed, {r.mismatches} failed; timing "
            + ("exact (latency {0}, {1}/{2} cycles per block, key setup {3})".format(
                i.latency, i.cycles_per_block, i.cycles_per_block_feedback, i.key_setup_cycles)
               if not timing else "; ".join(timing))
            + (f"; key_clk at {', '.join(f'{kp:g}' for kp in KEY_CLOCK_PERIODS)} clk periods: "
               "right, key setup within its bounds" if engine.clock_options and not timing else "")
            + f" [{time.perf_counter() - t0:.1f} s]")
    if not files:
        line += " (no KAT files declared)"
    elif not reports:
        line += " (key-specific core: no KAT record uses its key)"
    if kat_fail:
        first = next(x.first_failure for x in reports if x.failed)
        line += f"\n     first KAT failure: {first}"
    if r.first_mismatch:
        line += f"\n     first random mismatch: {r.first_mismatch}"
    return ok, line


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify", help="check cores against their KAT files, reference model and declared timing",
        description="For one core (CIPHER and options) or every registered core point (--all): "
                    "the cipher's known-answer files, a random differential run with backpressure, "
                    "and every declared cycle count measured exactly. One line per core.")
    add_core_arguments(p, cipher_required=False)
    p.add_argument("--all", action="store_true",
                   help="every valid parameter combination of every architecture (of CIPHER if given)")
    p.add_argument("--random", type=count, default=2000, metavar="N",
                   help="random blocks per core (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="seed for data and backpressure (default 1)")
    p.add_argument("--vectors-dir", metavar="DIR", help="folder of the KAT files (default: tests/vectors)")
    p.add_argument("-j", "--jobs", type=count, default=1, metavar="N",
                   help="cores checked at once in worker processes (default 1); lines keep the "
                        "order of the points")
    p.set_defaults(func=run)


def _verify_one(params: CoreParams, root: Path, random_blocks: int, seed: int) -> tuple[bool, str]:
    try:
        return verify_point(params, root, random_blocks, seed)
    except CipherfabError as e:
        return False, f"FAIL {params.top}: {e}"


def run(args) -> int:
    root = vector_root(args.vectors_dir)
    if args.all:
        from ..registry import given_core_options
        extra = [o for o in given_core_options(args) if o != "--arch"]
        if extra:
            raise CipherfabError(f"--all checks every point; {extra[0]} picks one (drop one of them)")
        points = [p for p in all_points(args.cipher) if not args.arch or p.arch == args.arch]
    elif args.cipher:
        points = [params_from_args(args)]
    else:
        raise CipherfabError("nothing to verify: give CIPHER (and its options) or --all")
    failed = 0
    t0 = time.perf_counter()
    n = len(points)
    if args.jobs > 1 and n > 1:
        from concurrent.futures import ProcessPoolExecutor
        pool = ProcessPoolExecutor(max_workers=min(args.jobs, n))
        results = pool.map(_verify_one, points, [root] * n, [args.random] * n, [args.seed] * n)
    else:
        pool = None
        results = (_verify_one(p, root, args.random, args.seed) for p in points)
    try:
        for ok, line in results:
            failed += not ok
            print(line, flush=True)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    print(f"{len(points) - failed} passed, {failed} failed ({len(points)} cores, "
          f"{time.perf_counter() - t0:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    from ..cli import main
    sys.exit(main(["verify", *sys.argv[1:]]))
