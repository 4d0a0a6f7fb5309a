"""The interactive throughput-against-area chart of a study's report.html (issue 35).

Every measured point (median over seeds of slices and ECB throughput), the peers (external
cores) and the papers' published points (area in slices or CLBs as printed, throughput in
Mbit/s; their devices differ) on log axes.  Hovering a point shows its label and the command
that generates it; checkboxes filter by architecture and S-box style (also from the URL:
``report.html#arch=iterative&sbox=rom``).  Self-contained: the data are a JSON block of the
page and the drawing code (``data/chart.js``) is inlined, so nothing is fetched at view time.
"""

from __future__ import annotations

import html
import json
from importlib import resources

from . import papers
from .pick import generate_command

#: the published columns the chart reads: area (slices, or CLBs as paper 003 prints slices)
AREA_KEYS = ("slices", "area_clb")


def _median(agg: dict, path: str):
    s = (agg.get("stats") or {}).get(path)
    return s.get("median") if isinstance(s, dict) else None


def _ours(aggs: list[dict]) -> list[dict]:
    out = []
    for a in aggs:
        x, y = _median(a, "area.slices"), _median(a, "performance.throughput_ecb_mbps")
        if not x or not y:
            continue
        p = a.get("params") or {}
        external = bool(a.get("external"))
        out.append({"label": a["label"], "kind": "peer" if external else "ours",
                    "arch": "external" if external else str(p.get("arch", "")),
                    "sbox": str(p.get("sbox", "-")), "slices": x, "mbps": y,
                    "command": "" if external or "cipher" not in p else generate_command(p)})
    return out


def _published(results: dict) -> list[dict]:
    out, seen = [], set()
    for t, e in papers.selected_entries((results.get("study") or {}).get("published")):
        v = e["values"]
        area = next((v[k] for k in AREA_KEYS if k in v and v[k].get("value")), None)
        mbps = v.get("throughput_mbps", {}).get("value")
        key = (e["paper_short"], e["row"], area and area["value"], mbps)
        if not area or not mbps or key in seen:
            continue
        seen.add(key)
        out.append({"label": f"{e['paper_short']} {t.table}: {e['row']}", "kind": "paper",
                    "arch": "paper", "sbox": "-", "slices": area["value"], "mbps": mbps,
                    "command": f"{area['printed']} {area.get('unit') or ''} on {e['device'] or '?'}".strip()})
    return out


def chart_data(results: dict, aggs: list[dict]) -> dict:
    """The points of the chart and its axes (what the page's JSON block holds)."""
    return {"title": f"{(results.get('study') or {}).get('name', '')}: throughput (ECB) against area",
            "device": (results.get("device") or ""),
            "x": "slices (median over seeds; papers: slices or CLBs as printed, their devices)",
            "y": "throughput ECB, Mbit/s (median over seeds)",
            "points": _ours(aggs) + _published(results)}


def script() -> str:
    """The drawing code, inlined into the page."""
    return resources.files(__package__).joinpath("data", "chart.js").read_text()


def data_json(data: dict) -> str:
    """The JSON block's text, safe inside ``<script type="application/json">``."""
    return json.dumps(data, sort_keys=True).replace("</", "<\\/")


def page(data: dict) -> str:
    """The chart alone as a self-contained page (``chart.html`` beside report.html)."""
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>"
            + html.escape(data["title"]) + "</title></head>\n<body style='font-family:sans-serif'>"
            "<div id='cf-chart'></div>\n<script type='application/json' id='cf-chart-data'>"
            + data_json(data) + "</script>\n<script>" + script() + "</script>\n</body></html>\n")
