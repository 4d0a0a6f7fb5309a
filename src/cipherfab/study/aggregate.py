"""Records over seeds: per point, the seeds tried/ok/failed and min/median/max of every
numeric metric; and a record's metric by dotted path."""

from __future__ import annotations

import statistics
from typing import Any, Sequence

from .points import Point

#: record sections whose numeric leaves are aggregated over seeds
AGGREGATED_SECTIONS = ("area", "timing", "performance", "times")


def get_path(d: dict, path: str, *alternatives: str):
    """The value at a dotted path (or at the first alternative path that exists)."""
    for p in (path, *alternatives):
        v = _get_path(d, p)
        if v is not None:
            return v
    return None


def _get_path(d: dict, path: str):
    cur: Any = d
    for k in path.split("."):
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur


def _numeric_leaves(d: Any, prefix: str, out: dict):
    if isinstance(d, dict):
        for k, v in d.items():
            _numeric_leaves(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        out[prefix] = d


def stats(values: Sequence[float]) -> dict:
    v = sorted(values)
    return {"min": v[0], "median": statistics.median(v), "max": v[-1], "n": len(v)}


def aggregate(records: Sequence[dict], points: Sequence[Point]) -> list[dict]:
    """Per point: seeds tried/ok/failed and min/median/max of every numeric metric."""
    out = []
    for p in points:
        recs = [r for r in records if r.get("study_point") == p.label]
        ok = [r for r in recs if r.get("status") == "ok"]
        leaves: dict[str, list] = {}
        for r in ok:
            flat: dict = {}
            for sec in AGGREGATED_SECTIONS:
                _numeric_leaves(r.get(sec), sec, flat)
            for k, v in flat.items():
                leaves.setdefault(k, []).append(v)
        cached = [r for r in ok if r.get("cached")]
        out.append({
            "label": p.label, "params": p.params, "external": p.is_external,
            "seeds": [r.get("seed") for r in recs],
            "ok_seeds": [r.get("seed") for r in ok],
            # cached builds: their stage times are those of the original build, measured then
            "cached_seeds": [r.get("seed") for r in cached],
            "cached_measured_at": sorted({str(r.get("measured_at") or "unknown") for r in cached}),
            "failed": [{"seed": r.get("seed"), "stage": r.get("stage"), "error": r.get("error")}
                       for r in recs if r.get("status") != "ok"],
            "stats": {k: stats(v) for k, v in sorted(leaves.items())},
            "device": (ok[0].get("device") if ok else None),
        })
    return out

