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
ORDERS = (1, 2, 3, 4)


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
