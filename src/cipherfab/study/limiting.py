"""Which part limits each study point's Fmax: the parts its worst routed path crosses.

A build record on ECP5 carries its worst register-to-register paths
(``timing.worst_paths``, see :mod:`cipherfab.flow.worst_paths`).  Per point, this reads
the worst path of each placer seed: the parts it crosses (in order of first appearance,
``key_schedule > control``), its LUT levels and its routing share.  Seeds may disagree;
each distinct answer is shown with its number of seeds.  Records without paths (other
devices, results from before paths were analysed, a hand-edited file) give nothing, shown
as a dash.
"""

from __future__ import annotations

from collections import Counter

DASH = "–"


def _worst(record: dict) -> dict | None:
    """The record's worst path, or None (not measured, or not in the shape the flow writes)."""
    paths = (record.get("timing") or {}).get("worst_paths")
    p = paths[0] if isinstance(paths, list) and paths else None
    numbers = isinstance(p, dict) and all(isinstance(p.get(k), (int, float)) and not isinstance(p.get(k), bool)
                                          for k in ("delay_ns", "routing_ns", "lut_levels"))
    return p if numbers and isinstance(p.get("parts"), list) else None


def _parts(path: dict) -> str:
    return " > ".join(dict.fromkeys(path.get("parts") or []))


def worst_paths(results: dict) -> dict[str, list[dict]]:
    """Point label -> the worst path of each ok seed that has one."""
    out: dict[str, list[dict]] = {}
    for r in results.get("records", []):
        if r.get("status") == "ok" and (p := _worst(r)):
            out.setdefault(r.get("study_point"), []).append(p)
    return out


def parts_cell(paths: list[dict]) -> str:
    """``key_schedule > control`` or, when seeds differ, each with its seeds (``... (2/3)``)."""
    if not paths:
        return DASH
    counts = Counter(_parts(p) for p in paths)
    if len(counts) == 1:
        return next(iter(counts))
    return "; ".join(f"{k} ({n}/{len(paths)})" for k, n in counts.most_common())


def _span(values: list) -> str:
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def levels_cell(paths: list[dict]) -> str:
    return _span([p["lut_levels"] for p in paths]) if paths else DASH


def routing_cell(paths: list[dict]) -> str:
    """Routing share of the worst path, in percent (range over seeds)."""
    if not paths:
        return DASH
    return _span([round(100 * p["routing_ns"] / p["delay_ns"]) for p in paths if p["delay_ns"]])
