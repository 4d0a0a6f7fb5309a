"""``cipherfab verify``: every registered core point against its KAT files, its reference and its timing.

For each point (one core, or ``--all``: every valid parameter combination of
every architecture): compile it with Verilator, run the cipher's known-answer
files for its key size in every direction it has, a random differential run
with random backpressure and key changes, and the timing check (every declared
cycle count measured exactly).  ``--all`` also checks GCM through the accelerator
system for every core class it applies to (:mod:`cipherfab.host.verify_gcm`, plugged in
by the host layer).  One line per core;
exit 1 if any core fails.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections import Counter
from importlib import resources
from pathlib import Path

from ..argtypes import count, scheduler_address
from ..errors import CipherfabError
from ..userfiles import input_file, shown
from ..registry import CoreParams, add_core_arguments, all_points, get_cipher, params_from_args
from . import hooks, ledger
from .verilated import OPT_ENV


#: key clock periods (in clk periods) a core with a key clock is also checked at, besides 1
KEY_CLOCK_PERIODS = (0.37, 2.7)


def vector_root(given: str | None) -> Path:
    """The folder the ciphers' KAT paths are relative to: --vectors-dir, else $CIPHERFAB_VECTORS,
    else the KAT files shipped in the package (``cipherfab/vectors/kat``)."""
    env = os.environ.get("CIPHERFAB_VECTORS")
    for c, what in ((given, "vector folder"), (env, "CIPHERFAB_VECTORS folder")):
        if c:
            if not os.path.isdir(c):
                raise CipherfabError(f"{what} {shown(c)} does not exist" if not os.path.lexists(c)
                                     else f"{what} {shown(c)} is not a folder")
            return Path(c)
    shipped = Path(str(resources.files("cipherfab") / "vectors" / "kat"))
    if shipped.is_dir():
        return shipped
    raise CipherfabError(f"no test-vector folder found ({shipped} is missing): give "
                         "--vectors-dir DIR or set CIPHERFAB_VECTORS")


def verify_point(params: CoreParams, root: Path, random_blocks: int, seed: int) -> dict:
    """One core point: ``{"ok", "line", "entry"}`` (entry: its ledger entry, see
    :mod:`cipherfab.sim.ledger`)."""
    from ..vectors import run_files
    from .engine import HardwareEngine, check_timing, random_run
    t0 = time.perf_counter()
    engine = HardwareEngine(params, seed=seed, in_valid_prob=0.7, out_ready_prob=0.6)
    phases = dict(engine.phases)
    cipher = get_cipher(params.cipher)
    names = cipher.kat_files(engine.info.key_bits)
    files = [root / f for f in names]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise CipherfabError(f"KAT file not found: {missing[0]}")
    t = time.perf_counter()
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
    kat_skip = sum(r.skipped for r in reports)
    phases["kat"] = time.perf_counter() - t
    t = time.perf_counter()
    r = random_run(engine, random_blocks, seed=seed, mean_blocks_per_key=20,
                   in_valid_prob=0.7, out_ready_prob=0.6)
    phases["random"] = time.perf_counter() - t
    t = time.perf_counter()
    timing = check_timing(engine)
    for kp in KEY_CLOCK_PERIODS if engine.clock_options else ():   # a key clock: other ratios too
        other = engine.at_key_period(kp)
        rk = random_run(other, max(1, random_blocks // 4), seed=seed, mean_blocks_per_key=20,
                        in_valid_prob=0.7, out_ready_prob=0.6)
        if rk.mismatches:
            timing.append(f"key_clk at {kp:g} clk periods: {rk.mismatches} random blocks wrong "
                          f"({rk.first_mismatch})")
        timing += [f"key_clk at {kp:g} clk periods: {t} " for t in check_timing(other)]
    phases["timing"] = time.perf_counter() - t
    needs_kat = engine.info.key_interface != "none"
    ok = kat_fail == 0 and (kat_pass > 0 or not needs_kat) and r.mismatches == 0 and not timing
    i = engine.info
    seconds = time.perf_counter() - t0
    line = (f"{'ok  ' if ok else 'FAIL'} {params.top}: KAT {kat_pass} passed, {kat_fail} failed; "
            f"random {r.blocks - r.mismatches} passed, {r.mismatches} failed; timing "
            + ("exact (latency {0}, {1}/{2} cycles per block, key setup {3}{4})".format(
                i.latency, i.cycles_per_block, i.cycles_per_block_feedback, i.key_setup_cycles,
                f", seed setup {i.seed_setup_cycles}" if i.seed_bits else "")
               if not timing else "; ".join(timing))
            + (f"; key_clk at {', '.join(f'{kp:g}' for kp in KEY_CLOCK_PERIODS)} clk periods: "
               "right, key setup within its bounds" if engine.clock_options and not timing else "")
            + f" [{seconds:.1f} s]")
    if not files:
        line += " (no KAT files declared)"
    elif not reports:
        line += " (key-specific core: no KAT record uses its key)"
    if kat_fail:
        first = next(x.first_failure for x in reports if x.failed)
        line += f"\n     first KAT failure: {first}"
    if r.first_mismatch:
        line += f"\n     first random mismatch: {r.first_mismatch}"
    counts = {"kat": {"passed": kat_pass, "failed": kat_fail, "skipped": kat_skip},
              "random": {"blocks": r.blocks, "failed": r.mismatches, "seed": seed},
              "timing": "exact" if not timing else timing}
    sha = hashlib.sha256(engine.verilog.encode()).hexdigest()
    e = ledger.entry(params, ok, counts, sha, ledger.vector_digests(root, names), seconds,
                     line.split("\n")[0], phases)
    return {"ok": ok, "line": line, "entry": e}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify", help="check cores against their KAT files, reference model and declared timing",
        description="For one core (CIPHER and options) or every registered core point (--all): "
                    "the cipher's known-answer files, a random differential run with backpressure, "
                    "and every declared cycle count measured exactly. One line per core; --all "
                    "records each point in the verification ledger as it finishes.")
    add_core_arguments(p, cipher_required=False)
    p.add_argument("--all", action="store_true",
                   help="every valid parameter combination of every architecture (of CIPHER if given)")
    p.add_argument("--changed", action="store_true",
                   help="with --all: only points that are not fresh in the ledger (Verilog, KAT "
                        "files or tools changed, failed or never verified); resumes a stopped run")
    p.add_argument("--status", action="store_true",
                   help="list the points that are stale or never verified and the ledger's summary "
                        "table; exit 1 if any (nothing is simulated)")
    p.add_argument("--update-readme", action="store_true",
                   help="with --status: also rewrite summary.md beside the ledger and the README's "
                        "verification table (between <!-- results:verify:begin/end --> markers)")
    p.add_argument("--ledger", metavar="FILE",
                   help=f"the verification ledger (default {ledger.DEFAULT}; written by --all, "
                        "read by --changed and --status)")
    p.add_argument("--random", type=count, default=2000, metavar="N",
                   help="random blocks per core (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="seed for data and backpressure (default 1)")
    p.add_argument("--vectors-dir", metavar="DIR", help="folder of the KAT files (default: $CIPHERFAB_VECTORS, else the KAT files shipped in the package)")
    p.add_argument("-j", "--jobs", type=count, default=None, metavar="N",
                   help="cores checked at once in worker processes (default 1)")
    p.add_argument("--scheduler", metavar="ADDR", type=scheduler_address,
                   help="spread the points over a Dask cluster (tcp://host:port); every worker "
                        "needs cipherfab installed (excludes -j)")
    p.set_defaults(func=run)


def _verify_one(params: CoreParams, root: Path, random_blocks: int, seed: int, opt: str) -> dict:
    os.environ[OPT_ENV] = opt     # the models verify compiles (also on a Dask worker)
    try:
        res = verify_point(params, root, random_blocks, seed)
    except CipherfabError as e:
        res = {"ok": False, "line": f"FAIL {params.top}: {e}", "entry": None}
    return {**res, "key": params.top}


def _gcm():
    """The GCM checks through the system (:mod:`cipherfab.host.verify_gcm`), a hook the host
    layer provides (:mod:`cipherfab.sim.hooks`)."""
    return hooks.get("gcm_checks")


#: rough seconds per point of an architecture never verified (the biggest go first)
_GUESS = {"pipeline": 60, "key_specific_pipeline": 60, "unrolled": 15, "interleaved": 8}


def _order(points, book) -> list:
    """Longest first (ledger seconds, else a guess by architecture): the pool ends together."""
    def cost(p):
        e = book.points.get(p.top) if book else None
        return e["seconds"] if e and e.get("seconds") else _GUESS.get(p.arch, 5)
    return sorted(points, key=cost, reverse=True)


def _states(points, book: ledger.Ledger, root: Path, jobs: int) -> dict[str, str]:
    """Each point's ledger state; points whose generator changed are generated again."""
    legacy = ledger.legacy_generator_digest()
    states, regen = {}, []
    for p in points:
        e, digest = book.points.get(p.top), ledger.generator_digest(p)
        if e is not None and e.get("generator_digest") == legacy:
            e["generator_digest"] = digest     # the same sources, counted the older way
        if e is not None and e.get("generator_digest") != digest and e.get("verdict") == "pass":
            regen.append(p)
        else:
            states[p.top] = ledger.state(e, None, _point_vectors(p, root))
    if regen:
        print(f"note: the generator changed since {len(regen)} points were verified: generating "
              "them again to compare their Verilog", file=sys.stderr, flush=True)
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
            shas = []
            for sha in pool.map(_verilog_sha, regen):
                shas.append(sha)
                if len(shas) % 25 == 0 or len(shas) == len(regen):
                    print(f"  generated {len(shas)}/{len(regen)}", file=sys.stderr, flush=True)
        for p, sha in zip(regen, shas):
            states[p.top] = ledger.state(book.points[p.top], sha, _point_vectors(p, root))
            if states[p.top] == "fresh":       # the same Verilog: the entry holds for today
                book.points[p.top]["generator_digest"] = ledger.generator_digest(p)
    return states


def recorded_states(points, book: ledger.Ledger, root: Path, tools: bool = True) -> dict[str, str]:
    """Each point's state from the ledger alone (no Verilog generated): an entry whose
    generator digest is not today's is stale until ``verify --all --changed`` (or
    ``--status``, which re-stamps the entries whose Verilog did not change) has looked.  The
    README's table and summary.md say this, so they never call a changed point passed.
    ``tools=False``: take the entries' tool versions as today's (tests read the committed
    ledger on any machine)."""
    states = {}
    for p in points:
        e = book.points.get(p.top)
        if e is not None and not tools:
            e = {**e, "tools": {**(e.get("tools") or {}),
                                **{k: ledger.tools()[k] for k in ledger.CHECK_TOOLS}}}
        state = ledger.state(e, None, _point_vectors(p, root))
        if state == "fresh" and e.get("generator_digest") != ledger.generator_digest(p):
            state = "stale: generator changed, Verilog not compared yet"
        states[p.top] = state
    return states


def _gcm_line(book: ledger.Ledger, root: Path) -> str:
    """The README's line on the system's classes (GCM, CMAC, OFB, CFB, XTS, CCM) (none when the host layer is not loaded), from the
    ledger alone (:func:`cipherfab.host.verify_gcm.recorded_state`: no system generated)."""
    if not hooks.provided("gcm_checks"):
        return ""
    states = _gcm_states(_gcm().gcm_points(), book, root, recorded=True)
    fresh = sum(s == "fresh" for s in states.values())
    return (f"The accelerator system's modes: {fresh} of {len(states)} core classes passed and "
            f"fresh (128-bit classes: the CAVP GCM file, random GCM, CMAC, OFB, CFB, CFB8, CFB1 "
            f"and CCM messages, random XTS data units where the core has a key port; "
            f"64-bit TDES classes: random OFB, CFB, CFB8 and CFB1 messages; see the summary).")


def _update_readme(points, states, book: ledger.Ledger, root: Path | None = None) -> None:
    from ..readme import check_markers, find_readme, replace_section
    readme = find_readme()
    text = check_markers(readme, "verify")
    try:
        rel = os.path.relpath(book.path.resolve().with_name("summary.md"), readme.parent)
    except ValueError:
        rel = str(book.path.with_name("summary.md"))
    run = book.last_run or {}
    what = ("Last run, of the points that were not fresh" if "--changed" in run.get("command", "")
            else "Last full run")
    head = (f"{what}: `{run['command']}`, {run['wall_seconds'] / 60:.0f} min wall on "
            f"{run['machine']} ({run['date'][:10]}); details and per-phase times in [{rel}]({rel})."
            if run else f"Details in [{rel}]({rel}).")
    gcm_line = _gcm_line(book, root or vector_root(None))
    table = ledger.summary_table(points, states) + (f"\n\n{gcm_line}" if gcm_line else "")
    replace_section(readme, "verify", f"{head}\n\n{table}", text)
    print(f"updated {readme} (verification table)")


def _verilog_sha(params: CoreParams) -> str:
    from .core_cache import core_verilog
    from ..gctune import fewer_collections
    with fewer_collections():
        return hashlib.sha256(core_verilog(params)[0].encode()).hexdigest()


def _point_vectors(params: CoreParams, root: Path) -> dict:
    from ..generate import declaration
    key_bits = params.as_dict().get("key_bits") or declaration(params).key_bits
    return ledger.vector_digests(root, get_cipher(params.cipher).kat_files(key_bits))


def run(args) -> int:
    root = vector_root(args.vectors_dir)
    if args.scheduler and args.jobs:
        raise CipherfabError("-j/--jobs and --scheduler exclude each other")
    if args.scheduler:                    # an optional extra: say which, before any work
        from ..cluster import require_distributed
        require_distributed()
    if args.changed and not args.all:
        raise CipherfabError("--changed goes with --all (it picks among every point)")
    if args.status and (args.all or args.changed or args.scheduler or args.jobs):
        raise CipherfabError("--status only reads the ledger: drop --all, --changed, -j and --scheduler")
    if args.all or args.status:
        from ..registry import given_core_options
        extra = [o for o in given_core_options(args) if o != "--arch"]
        if extra:
            what = "--all checks" if args.all else "--status lists"
            raise CipherfabError(f"{what} every point; {extra[0]} picks one (drop one of them)")
        points = selected_points(args.cipher, args.arch)
        gcm = _gcm().gcm_points(args.cipher, args.arch)
    elif args.cipher:
        points, gcm = [params_from_args(args)], []
    else:
        raise CipherfabError("nothing to verify: give CIPHER (and its options), --all or --status")
    if not args.status:
        _check_kat_files(points, root)
    book = None
    if args.all or args.status or args.ledger:
        book = ledger.Ledger(args.ledger or ledger.DEFAULT)
    if args.update_readme and not args.status:
        raise CipherfabError("--update-readme goes with --status")
    if args.status:
        return _status(points, book, root, args.update_readme, gcm)
    book.check_writable() if book else None
    started = time.perf_counter()          # the run's wall time counts finding what is stale
    if args.changed:
        states = _states(points, book, root, os.cpu_count() or 1)
        gcm_states = _gcm_states(gcm, book, root)
        book.save()                        # what generating again found (restamped entries)
        skipped = len(points)
        points = [p for p in points if states[p.top] != "fresh"]
        skipped -= len(points)
        print(f"{skipped} points fresh in {book.path}, {len(points)} to verify", flush=True)
        gcm = [p for p in gcm if gcm_states[p.top] != "fresh"]
        print(f"the system's modes: {len(gcm_states) - len(gcm)} classes fresh, {len(gcm)} to "
              f"verify", flush=True)
    return _verify(points, book, root, args, gcm, started)


def selected_points(cipher: str | None, arch: str | None) -> list[CoreParams]:
    """Every point of CIPHER (of every cipher if None) and ARCH (of any if None); a
    selection that matches no point (a misspelt architecture) is refused, naming the
    architectures there are."""
    from ..registry import ciphers
    if arch is not None and cipher:
        get_cipher(cipher).arch(arch)        # "aes: --arch 'iterativ' is not supported; choose from ..."
    elif arch is not None and not any(a.name == arch for c in ciphers().values() for a in c.architectures):
        known = "; ".join(f"{c.name}: {', '.join(a.name for a in c.architectures)}"
                          for c in ciphers().values() if c.architectures)
        raise CipherfabError(f"--arch {arch!r} is no cipher's architecture; choose from {known}")
    points = [p for p in all_points(cipher) if arch is None or p.arch == arch]
    if not points:
        raise CipherfabError(f"no core point of {cipher or 'any cipher'}"
                             + (f" with --arch {arch}" if arch is not None else "") + " to check")
    return points


def _gcm_states(gcm, book, root: Path, recorded: bool = False) -> dict[str, str]:
    """Each GCM class's state; ``recorded``: from the ledger alone (no system generated)."""
    if not gcm:
        return {}
    verify_gcm = _gcm()
    state = verify_gcm.recorded_state if recorded else verify_gcm.state
    return {p.top: state(p, book.gcm.get(verify_gcm.key(p)), root) for p in gcm}


def _check_kat_files(points, root: Path) -> None:
    """Refuse a vector folder that lacks a KAT file a point declares, before any point runs."""
    from ..generate import declaration
    seen = set()
    for params in points:
        key_bits = params.as_dict().get("key_bits")
        if (params.cipher, key_bits) in seen:
            continue
        seen.add((params.cipher, key_bits))
        names = get_cipher(params.cipher).kat_files(key_bits or declaration(params).key_bits)
        for n in names:             # missing: said so; a device, FIFO or oversized file: named
            if not os.path.lexists(root / n):
                raise CipherfabError(f"vector folder {root} lacks {n}, a KAT file of {params.cipher} "
                                     f"(the folder must hold the files each cipher declares, as in "
                                     f"cipherfab/vectors/kat)")
            input_file(root / n, "vectors", f"KAT file of {params.cipher}")


def _command(args) -> str:
    """The verify command line of this run (for the ledger's last run)."""
    parts = ["cipherfab", "verify", *([args.cipher] if args.cipher else []), "--all"]
    parts += [*(["--arch", args.arch] if args.arch else []), *(["--changed"] if args.changed else [])]
    parts += [*(["-j", str(args.jobs)] if args.jobs else []),
              *(["--scheduler", args.scheduler] if args.scheduler else []),
              *(["--random", str(args.random)] if args.random != 2000 else []),
              *(["--seed", str(args.seed)] if args.seed != 1 else [])]
    return " ".join(parts)


def _status(points, book: ledger.Ledger, root: Path, update_readme: bool = False, gcm=()) -> int:
    entries = lambda: [*book.points.values(), *book.gcm.values()]     # noqa: E731
    before = [e.get("generator_digest") for e in entries()]
    states = _states(points, book, root, os.cpu_count() or 1)
    gcm_states = _gcm_states(gcm, book, root)
    restamped = sum(b != e.get("generator_digest") for b, e in zip(before, entries()))
    if restamped and os.access(book.path.parent, os.W_OK):
        book.save()            # what generating again found holds until the generator changes
        print(f"ledger: {restamped} entries now name today's generator digest (their Verilog "
              f"is unchanged)", file=sys.stderr)
    if update_readme:
        everything = all_points(None)
        _states([p for p in everything if p.top not in states], book, root, os.cpu_count() or 1)
        if os.access(book.path.parent, os.W_OK):
            book.save()
        every_state = recorded_states(everything, book, root)   # of the merged ledger
        print(f"wrote {book.write_summary(everything, every_state)}")
        _update_readme(everything, every_state, book, root)
    bad = [(p, states[p.top]) for p in points if states[p.top] != "fresh"]
    for p, s in bad:
        print(f"{s:8} {p.top}")
    gcm_bad = [(p, s) for p in gcm if (s := gcm_states[p.top]) != "fresh"]
    for p, s in gcm_bad:
        print(f"{s:8} gcm:{p.top}")
    print(ledger.summary_table(points, states))
    print(f"{len(points) - len(bad)} fresh, {len(bad)} stale, failed or never verified "
          f"({len(points)} points, ledger {book.path})")
    if gcm:
        print(f"the system's modes: {len(gcm) - len(gcm_bad)} of {len(gcm)} core classes fresh")
    return 1 if bad or gcm_bad else 0


class _Pool:
    """Worker processes on this machine (or, for one job, this process)."""

    def __init__(self, jobs: int):
        from concurrent.futures import ProcessPoolExecutor
        self.pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None

    def submit(self, fn, *args):
        from concurrent.futures import Future
        if self.pool:
            return self.pool.submit(fn, *args)
        f = Future()
        f.job = (fn, args)                        # run when its turn comes: lines show as they finish
        return f

    def as_completed(self, futures):
        from concurrent.futures import as_completed
        if self.pool:
            yield from as_completed(futures)
            return
        for f in futures:
            fn, args = f.job
            f.set_result(fn(*args))
            yield f

    def close(self, cancel: bool = False):
        if self.pool:
            self.pool.shutdown(wait=not cancel, cancel_futures=cancel)


def _backend(jobs: int, scheduler: str | None, n: int):
    if scheduler:                         # the same client the studies use
        from ..cluster import DaskCluster
        return DaskCluster(scheduler)
    return _Pool(min(jobs, n))


def _verify(points, book, root: Path, args, gcm, started: float) -> int:
    opt = os.environ.get(OPT_ENV, "-O0")
    # a GCM class runs thousands of messages through the whole system: its model is worth
    # optimising (the pipeline's class, CAVP GCM 7875 records and 200 random messages, in
    # verify runs on 2 cores: 3158.5 s at -O0, 285.5 s at -O1)
    gcm_opt = os.environ.get(OPT_ENV, "-O1")
    n = len(points) + len(gcm)
    if n == 0 and args.changed:           # the ledger's last run stays the last real one
        everything = all_points(None)
        book.write_summary(everything, recorded_states(everything, book, root))
        print("nothing to verify: every point is fresh (the ledger's last run is kept)")
        return 0
    failed, done, phases = 0, 0, Counter()
    backend = _backend(args.jobs or 1, args.scheduler, n)
    try:
        by_top = {p.top: p for p in points}
        futures = [backend.submit(_gcm().verify_one, p, root, args.seed, gcm_opt) for p in gcm]
        futures += [backend.submit(_verify_one, p, root, args.random, args.seed, opt)
                    for p in _order(points, book)]
        for f in backend.as_completed(futures):
            res = f.result()
            done += 1
            failed += not res["ok"]
            print(f"[{done}/{n}] {res['line']}" if n > 1 else res["line"], flush=True)
            if res["entry"]:
                phases.update(res["entry"]["phases"])
            if book is not None and res.get("gcm"):
                book.gcm[res["key"]] = res["entry"] or {"verdict": "fail", "line": res["line"]}
                book.save()
            elif book is not None:
                top = res["key"]
                if res["entry"]:
                    book.points[top] = res["entry"]
                else:              # refused before a simulation: recorded as failed, no Verilog
                    book.points[top] = {"verdict": "fail", "verilog_sha256": None, "line": res["line"],
                                        "generator_digest": ledger.generator_digest(by_top[top])}
                book.save()
    except KeyboardInterrupt:
        print(f"interrupted: {done} of {n} points done" + (f", kept in {book.path}" if book else ""),
              file=sys.stderr, flush=True)
        backend.close(cancel=True)
        return 130
    backend.close()
    wall = time.perf_counter() - started     # from run(): finding what is stale counts
    if phases and n > 1:
        total = sum(phases.values())
        print("phases (seconds summed over points): " + ", ".join(
            f"{k} {v:.0f} ({100 * v / total:.0f}%)" for k, v in phases.most_common()))
    if book is not None:
        if args.all:
            book.last_run = {"command": _command(args), "date": ledger.entry_date(),
                             "machine": ledger.machine(), "points": n, "passed": n - failed,
                             "failed": failed, "wall_seconds": round(wall, 1),
                             "phases": {k: round(v, 1) for k, v in phases.items()}}
            everything = all_points(None)     # from the ledger alone: no point generated again
            book.save(then=lambda: book.write_summary(everything, recorded_states(everything, book, root)))
        else:
            book.save()
        print(f"ledger: {book.path} ({len(book.points)} points recorded)")
    print(f"{n - failed} passed, {failed} failed ({n} cores, {wall:.0f} s)")
    return 1 if failed else 0


