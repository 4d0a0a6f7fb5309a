"""Running order-t robust probing on the engine (:func:`assess_engine`): the probe sets of
:mod:`.robust_order`, counted and G-tested at checkpoints.  A module of its own so that
:mod:`.robust` (which takes :func:`~.robust_order.probe_sets`) and the engine modules
import each other in one direction only."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CipherfabError
from .robust_order import check_order, probe_sets


@dataclass
class OrderResult:
    """An order-t run in the engine: the tests, their statistics and the leaks."""
    order: int
    simulations: int
    checkpoints: list
    max_mlog10p: list                  # the worst test's -log10 p at each checkpoint
    tests: int
    per_clock: dict                    # clock -> {"maximal", "tests", "too_wide", "wide_parts"}
    leaks: list                        # dicts, worst first (over the threshold)
    worst: dict | None                 # the worst test at the end, leaking or not
    tests_over_5: int
    seconds: float

    @property
    def threshold(self) -> float:
        from .robust_core import family_threshold
        return family_threshold(self.tests)

    @property
    def untested(self) -> int:
        return sum(c["too_wide"] for c in self.per_clock.values())

    @property
    def wide_parts(self) -> int:
        return sum(c["wide_parts"] for c in self.per_clock.values())

    def first_failing(self):
        return next((n for n, m in zip(self.checkpoints, self.max_mlog10p) if m > self.threshold), None)


def assess_engine(net, comp, stim, order: int, simulations: int, clocks=None, seed: int = 1, threads: int = 1,
                  limit: int = 2_000_000, report: int = 10, progress=None) -> OrderResult:
    """Order-``order`` tests of ``net`` (compiled ``comp``) driven by ``stim`` in the C++
    engine: at each of ``clocks`` (default all), the sets of :func:`probe_sets` over each
    probe's extended set less the signals constant in a pilot batch (they carry nothing)."""
    import time

    import numpy as np

    from .robust import THRESHOLD
    from .robust_core import _memory_limit, checkpoints, family_threshold
    from .robust_engine import MAX_BITS, Engine
    check_order(order)
    t0 = time.perf_counter()
    engine = Engine(comp, stim, seed)
    stable = [comp.net(b) for b in net.stable]
    varying = (engine.pilot(stable) & 3) == 3
    horizon = stim.source.shape[0]
    clocks = list(range(horizon)) if clocks is None else list(clocks)
    bad = [c for c in clocks if not 0 <= c < horizon]
    if bad:
        raise CipherfabError(f"clock {bad[0]} is outside the run (0 to {horizon - 1})")
    tests, where, per_clock, table_bytes = [], [], {}, 0
    for c in clocks:
        sets = probe_sets([tuple(x for x in p.extended if varying[c, x]) for p in net.probes], order, MAX_BITS, limit)
        per_clock[c] = {"maximal": sets.maximal, "tests": len(sets.unions), "too_wide": sets.too_wide,
                        "wide_parts": sets.wide_parts}
        for union, parts in zip(sets.unions, sets.probes):
            tests.append((c, [(stable[x], False) for x in union]))
            where.append((c, union, parts))
            table_bytes += (2 << len(union)) * 4 * threads
    if table_bytes > _memory_limit():
        raise CipherfabError(f"order {order}: the count tables of {len(tests):,} tests would take "
                             f"{table_bytes / 2 ** 30:.1f} GiB: restrict the clocks, or fewer threads")
    if progress:
        progress(f"order {order}: {len(tests):,} probe sets over clocks {clocks[0]}..{clocks[-1]}; simulating")
    cps = checkpoints(simulations)
    tick = (lambda done, worst: progress(f"{done:,} of {cps[-1]:,} simulations, {time.perf_counter() - t0:.0f} s, "
                                         f"max -log10(p) {worst:.2f}")) if progress else None
    out = engine.run(tests, cps, threads=threads, progress=tick) if tests else {"mlog10p": np.zeros((len(cps), 0))}
    ml = out["mlog10p"]
    final = ml[-1] if tests else np.zeros(0)
    limit_p = family_threshold(len(tests))

    def describe(i: int) -> dict:
        c, union, parts = where[i]
        return {"clock": c, "mlog10p": round(float(final[i]), 2),
                "probes": [f"{net.probes[p].cell.lstrip(chr(92))}.{net.probes[p].pin}" for p in parts],
                "observes": [net.names[x] for x in union]}
    leaks = [describe(int(i)) for i in np.argsort(-final)[:report] if final[i] > limit_p]
    return OrderResult(order, cps[-1], cps, [float(r.max()) if r.size else 0.0 for r in ml], len(tests), per_clock,
                       leaks, describe(int(np.argmax(final))) if tests else None, int((final > THRESHOLD).sum()),
                       time.perf_counter() - t0)
