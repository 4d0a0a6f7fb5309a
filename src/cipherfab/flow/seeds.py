"""``build --seeds N``: one design placed and routed with N placer seeds, each reported,
with the median and the best of the N, each labelled as such.

The seed changes only placement (and so routing): the same design, synthesized the same
way, lands on the fabric differently, and its Fmax (and the few LUTs nextpnr adds) move
with it.  The *median of N seeds* is what a build typically gives; the *best of N seeds*
is the seed with the highest Fmax, which is what trying N seeds buys, not what one build
can be expected to give.  Both are reported, never one for the other.
"""

from __future__ import annotations

import statistics

from ..errors import CipherfabError

#: at most this many seeds: each is a full place and route (minutes for a large core)
SEEDS_MAX = 100

#: the metrics summarised over seeds: (label, dotted path into a record)
METRICS = (("LUT4", "area.lut4"), ("FF", "area.ff"), ("slices", "area.slices"),
           ("Fmax MHz", "timing.fmax_mhz"), ("Mbit/s ECB", "performance.throughput_ecb_mbps"),
           ("Mbit/s CBC", "performance.throughput_cbc_mbps"))


def seed_list(first: int, count: int, seed_max: int) -> list[int]:
    """``count`` consecutive seeds from ``first``; one-line error past nextpnr's range."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= SEEDS_MAX:
        raise CipherfabError(f"--seeds must be a whole number in 1..{SEEDS_MAX} (each seed is a "
                             f"full place and route), got {count}")
    if first + count - 1 > seed_max:
        raise CipherfabError(f"--seed {first} --seeds {count} goes past seed {seed_max} "
                             "(nextpnr's seed is a C int)")
    return list(range(first, first + count))


def _value(rec: dict, path: str):
    cur = rec
    for k in path.split("."):
        cur = cur.get(k) if isinstance(cur, dict) else None
    return cur


def summary(records: list[dict]) -> dict:
    """Per metric: each seed's value, the median of the N seeds and the best of the N seeds
    (the values of the seed with the highest Fmax, named by ``best_seed``)."""
    if not records:
        raise CipherfabError("no seed was built")
    n = len(records)
    best = max(records, key=lambda r: _value(r, "timing.fmax_mhz") or 0)
    out = {"seeds": [r["seed"] for r in records], "best_seed": best["seed"],
           "median_label": f"median of {n} seeds",
           "best_label": f"best of {n} seeds (highest Fmax: seed {best['seed']})",
           "metrics": {}}
    for label, path in METRICS:
        values = [_value(r, path) for r in records]
        known = [v for v in values if v is not None]
        out["metrics"][path] = {"label": label, "by_seed": values,
                                "median": statistics.median(known) if known else None,
                                "best": _value(best, path)}
    return out


def build_seeds(build, source, seeds: list[int], **kwargs) -> dict:
    """Build ``source`` once per seed with ``build`` (``flow.build.build``); the document
    ``--json`` writes: every seed's record and the summary."""
    records = [build(source, seed=s, **kwargs) for s in seeds]
    return {"seeds": seeds, "records": records, "summary": summary(records)}
