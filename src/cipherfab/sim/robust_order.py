"""Univariate order-t robust probing (issue 36, item 3): ``t`` probes at the same clock,
their glitch-extended sets joined, the union observed jointly and G-tested fixed-vs-random
as one probe's set is (:mod:`.robust`).

Which sets are tested (:func:`probe_sets`), per clock:

- each probe's observation is its extended set (less the signals that carry nothing: a
  caller may drop constant ones); probes with the same observation are one;
- observations over ``width`` bits (16, the engine's dense tables) are not tested, alone or
  in a union: they are counted and returned (PROLEAD's pooling folds nearly every value of
  so wide an observation into one column at 10^6 simulations anyway);
- only **maximal** observations are kept (one that is a subset of another is dropped): the
  union of ``t`` sets with one of them replaced by a superset is a superset of theirs, and
  a distribution that does not depend on the secret has no marginal that does (exactly; the
  G-test of the wider set has less power per simulation, as in PROLEAD, which tests only
  the largest sets too);
- the sets tested are the unions of ``t`` distinct maximal observations (all of them when
  fewer than ``t``), each union once; every set of at most ``t`` probes is a subset of one.
  A union over ``width`` bits is counted, not tested; its sub-sets of fewer probes are
  tested only by the lower orders' runs.

No other pruning: a share-domain argument (a union that depends on at most ``d - 1`` shares
of every input bit is independent of the secret) is sound, but behind the first AND gadget
of HPC2 every signal depends structurally on every share (``Reg[b_j ^ r_ij]`` feeds share
``i``), so it would prune nothing there; it is not applied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

from ..errors import CipherfabError

#: the orders supported (t probes at one clock)
ORDERS = (1, 2, 3)


@dataclass
class Sets:
    """The probe sets of one clock: each tested union and one probe of each of its parts."""
    unions: list = field(default_factory=list)       # tuple of signal indices, sorted
    probes: list = field(default_factory=list)       # tuple of probe indices (one per part)
    too_wide: int = 0                                # unions over ``width`` bits, not tested
    wide_parts: int = 0                              # single observations over ``width`` bits
    maximal: int = 0                                 # maximal observations the unions are made of


def check_order(order: int) -> None:
    if order not in ORDERS:
        raise CipherfabError(f"order {order}: the robust model tests orders 1 to {ORDERS[-1]} (t probes at one clock)")


def probe_sets(observations, order: int, width: int = 16, limit: int | None = None) -> Sets:
    """The sets of ``order`` probes to test at one clock: ``observations[p]`` is probe
    ``p``'s observed signals (an empty one is skipped); see the module's description.
    ``limit``: refuse (one line) a clock with more candidate sets than that, before they
    are enumerated."""
    check_order(order)
    first: dict[frozenset, int] = {}
    out = Sets()
    for p, obs in enumerate(observations):
        key = frozenset(obs)
        if key and key not in first:
            first[key] = p
    narrow = [k for k in first if len(k) <= width]
    out.wide_parts = len(first) - len(narrow)
    narrow.sort(key=len, reverse=True)
    maximal: list[frozenset] = []
    for k in narrow:                                  # widest first: a superset is already in
        if not any(k <= m for m in maximal if len(m) > len(k)):
            maximal.append(k)
    out.maximal = len(maximal)
    if limit is not None and math.comb(len(maximal), min(order, len(maximal))) > limit:
        raise CipherfabError(f"order {order}: {math.comb(len(maximal), order):,} sets of {len(maximal)} maximal "
                             f"observations at one clock, over the limit of {limit:,}: restrict the clocks")
    seen: set[frozenset] = set()
    for combo in combinations(maximal, min(order, len(maximal))):
        union = frozenset().union(*combo)
        if union in seen:
            continue
        seen.add(union)
        if len(union) > width:
            out.too_wide += 1
            continue
        out.unions.append(tuple(sorted(union)))
        out.probes.append(tuple(first[k] for k in combo))
    return out


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
