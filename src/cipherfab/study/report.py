"""report.md and report.html from a study's results.json, with the papers' numbers alongside.

This module decides what a report says: it builds one :class:`~.document.Doc`
(headings, paragraphs, tables, images) from the results, and :mod:`.document`
renders that one document to Markdown and to HTML through two Jinja2 templates, so
the two formats always say the same thing.  The HTML is self-contained (plots
embedded as data URIs) and also links the PNG files written beside it.

Regenerate a report without rebuilding:  ``python -m cipherfab.study.report reports/quick/results.json``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..errors import CipherfabError
from . import chart, limiting, papers
from .document import Doc, render_html, render_md  # noqa: F401  (Doc, render_md: the plug-ins' API)
from .plots import lookup_stat, write_plots
from .studies import device_note

# ------------------------------------------------------------------------------ formatting

def fmt(v: Any, nd: int = 1) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if nd == 0:
            return str(int(round(v)))
        return f"{v:.{nd}f}"
    return str(v)


def stat_cell(agg: dict, path: str, nd: int = 1, show_range: bool = True) -> str:
    s = lookup_stat(agg, path)
    if not s:
        return "–"
    med = fmt(s["median"], nd)
    if show_range and fmt(s["min"], nd) != fmt(s["max"], nd):
        return f"{med} ({fmt(s['min'], nd)}–{fmt(s['max'], nd)})"
    return med


def grouped(v: Any, nd: int = 1) -> str:
    """A count with thousands grouped (``6,570``; a float with ``nd`` decimals), or ``–``."""
    if v is None:
        return "–"
    return f"{v:,.{nd}f}" if isinstance(v, float) else f"{v:,}"


def median(agg: dict, path: str):
    s = lookup_stat(agg, path)
    return s["median"] if s else None


def _seeds_cell(agg: dict) -> str:
    n, ok = len(agg.get("seeds", [])), len(agg.get("ok_seeds", []))
    return f"{ok}/{n}"


# ---------------------------------------------------------------------------- our tables

def _ok_aggs(results: dict) -> list[dict]:
    aggs = [dict(a) for a in results.get("aggregates", []) if a.get("ok_seeds")]
    for a in aggs:
        if "cached_seeds" not in a:  # results.json from before aggregates said so
            recs = [r for r in results.get("records", [])
                    if r.get("study_point") == a["label"] and r.get("status") == "ok" and r.get("cached")]
            a["cached_seeds"] = [r.get("seed") for r in recs]
            a["cached_measured_at"] = sorted({str(r.get("measured_at") or "unknown") for r in recs})
    return aggs


CACHED_MARK = "†"


def _label(a: dict) -> str:
    """Row label; † marks a row that includes cached builds."""
    return a["label"] + (f" {CACHED_MARK}" if a.get("cached_seeds") else "")


def _measured(a: dict) -> str:
    return ", ".join(a.get("cached_measured_at") or ["unknown"])


def _cached_note(aggs: list[dict]) -> list[str]:
    """The footnote for † rows, or nothing when every build ran in this study."""
    cached = [a for a in aggs if a.get("cached_seeds")]
    if not cached:
        return []
    whens = sorted({w for a in cached for w in (a.get("cached_measured_at") or ["unknown"])})
    return [f"{CACHED_MARK} Includes cached builds (records reused from the build cache, not rebuilt "
            f"in this study): their stage times are those of the original build, measured at "
            f"{', '.join(whens)}, not of this run; area and timing are the same design, device, "
            "seed and tools."]


def _times_from(a: dict) -> str:
    cached, ok = a.get("cached_seeds") or [], a.get("ok_seeds") or []
    if not cached:
        return "this run"
    fresh = [s for s in ok if s not in cached]
    where = f"cache (measured {_measured(a)})"
    if not fresh:
        return f"{CACHED_MARK} {where}"
    return (f"{CACHED_MARK} mixed: seeds {', '.join(map(str, fresh))} this run; "
            f"seeds {', '.join(map(str, cached))} {where}")


def best_cell(agg: dict, path: str, nd: int = 1) -> str:
    """The best of the seeds (the highest value: Fmax, throughput) of ``path``."""
    s = lookup_stat(agg, path)
    return fmt(s["max"], nd) if s else "–"


def _main_table(doc: Doc, aggs: list[dict], n_seeds: int = 1):
    """Our results; with N > 1 seeds, Fmax and ECB throughput as the median of N seeds and,
    beside them, the best of N seeds, each named so in its header."""
    fmax, ecb = "Fmax MHz", "Mbit/s ECB"
    if n_seeds > 1:
        fmax, ecb = f"Fmax MHz, median of {n_seeds} seeds", f"Mbit/s ECB, median of {n_seeds} seeds"
    headers = ["Design", "LUT4", "FF", "CCU2", "EBR", "DSP", "slices", fmax, "cycles/block ECB",
               "cycles/block CBC", ecb, "Mbit/s CBC", "Mbit/s per LUT4",
               "key-setup cycles", "seeds ok"]
    best = n_seeds > 1
    if best:
        headers[8:8] = [f"Fmax MHz, best of {n_seeds} seeds"]
        headers[12:12] = [f"Mbit/s ECB, best of {n_seeds} seeds"]
    rows = []
    for a in aggs:
        ext = " (external)" if a.get("external") and "(external)" not in a["label"] else ""
        rows.append([a["label"] + ext + (f" {CACHED_MARK}" if a.get("cached_seeds") else ""),
                     stat_cell(a, "area.lut4", 0), stat_cell(a, "area.ff", 0),
                     stat_cell(a, "area.ccu2", 0), stat_cell(a, "area.ebr", 0),
                     stat_cell(a, "area.dsp", 0),
                     stat_cell(a, "area.slices", 0), stat_cell(a, "timing.fmax_mhz", 1),
                     stat_cell(a, "performance.cycles_per_block_ecb", 0),
                     stat_cell(a, "performance.cycles_per_block_cbc", 0),
                     stat_cell(a, "performance.throughput_ecb_mbps", 1),
                     stat_cell(a, "performance.throughput_cbc_mbps", 1),
                     stat_cell(a, "performance.mbps_per_lut4", 3),
                     stat_cell(a, "performance.key_setup_cycles", 0), _seeds_cell(a)])
        if best:
            rows[-1][8:8] = [best_cell(a, "timing.fmax_mhz")]
            rows[-1][12:12] = [best_cell(a, "performance.throughput_ecb_mbps")]
    best_note = ([f"'Best of {n_seeds} seeds' is the highest of the seeds that built (see 'seeds "
                  "ok'): what trying that many placer seeds gives, not what one build can be "
                  "expected to give; the median is that."] if best else [])
    doc.table(headers, rows, caption="Our results (shape of paper 003 Table 7.1 / paper 004 Table 1)",
              notes=["Cells show the median over placer seeds, with (min–max) where the seeds "
                     "differ. Throughput = block bits × Fmax / cycles per block. ECB = steady "
                     "state with independent blocks; CBC = each block waits for the previous "
                     "ciphertext."] + best_note + _cached_note(aggs))


def _class_of(a: dict) -> str:
    return a["label"] if a.get("external") else (a.get("params") or {}).get("arch", "?")


def _best_table(doc: Doc, aggs: list[dict]):
    """Per architecture (external cores each their own class): the point with the most
    Mbit/s per LUT4 and, if another, the fastest."""
    classes: dict[str, list[dict]] = {}
    for a in aggs:
        classes.setdefault(_class_of(a), []).append(a)
    if len(classes) < 2:
        return
    rows = []
    for name, items in classes.items():
        picks = []
        for why, path in (("most Mbit/s per LUT4", "performance.mbps_per_lut4"),
                          ("fastest", "performance.throughput_ecb_mbps")):
            best = max(items, key=lambda a: median(a, path) or 0)
            if best in [b for _, b in picks]:
                picks = [(f"{w} and {why}", b) if b is best else (w, b) for w, b in picks]
            else:
                picks.append((why, best))
        for why, a in picks:
            thr = median(a, "performance.throughput_ecb_mbps")
            rows.append([name, why, _label(a), stat_cell(a, "area.lut4", 0, False),
                         stat_cell(a, "area.ff", 0, False), stat_cell(a, "area.ebr", 0, False),
                         stat_cell(a, "timing.fmax_mhz", 1, False),
                         fmt(thr / 1000 if thr is not None else None, 2),
                         stat_cell(a, "performance.mbps_per_lut4", 3, False)])
    doc.table(["class", "best by", "design", "LUT4", "FF", "EBR", "Fmax MHz", "Gbit/s ECB",
               "Mbit/s per LUT4"], rows,
              caption="Best point per architecture (medians over seeds)",
              align=["l", "l", "l", "r", "r", "r", "r", "r", "r"])


#: how a goal's metric is written: (name, decimals)
_GOAL_METRICS = {"performance.mbps_per_lut4": ("Mbit/s per LUT4", 3),
                 "performance.throughput_ecb_mbps": ("Mbit/s ECB", 0),
                 "timing.fmax_mhz": ("MHz", 1), "area.lut4": ("LUT4", 0), "area.ebr": ("EBR", 0),
                 "performance.cycles_per_block_ecb": ("cycles a block", 0)}


_OPS = {">=": "≥", "<=": "≤"}


def _goal_cell(a: dict, goal) -> str:
    metric, op, value = goal
    name, nd = _GOAL_METRICS.get(metric, (metric, 2))
    got = median(a, metric)
    if got is None:
        return f"{_OPS[op]} {fmt(value, nd)} {name}: not measured"
    met = got >= value if op == ">=" else got <= value
    return f"{_OPS[op]} {fmt(value, nd)} {name}: {'**met**' if met else 'not met'} ({fmt(got, nd)})"


def _peer_cell(a: dict, g: dict, aggs: list[dict]) -> str:
    if not g.get("peer"):
        return ""
    peer = next((p for p in aggs if p.get("external") and p.get("label") == g["peer"]), None)
    if peer is None:
        return f"{g['peer']}: not in this run"
    name, nd = _GOAL_METRICS.get(g["best_by"], (g["best_by"], 2))
    ours, theirs = median(a, g["best_by"]), median(peer, g["best_by"])
    if not ours or not theirs:
        return f"{g['peer']}: –"
    better = ours < theirs if g.get("lowest") else ours > theirs
    by = max(ours, theirs) / min(ours, theirs)          # the better one over the other
    return (f"{g['peer']} {fmt(theirs, nd)} {name}: ours {'ahead' if better else 'behind'} "
            f"by {100 * (by - 1):.0f}%")


def _goals_table(doc: Doc, results: dict, aggs: list[dict]):
    """Per class of the study's goals: its best point, each goal met or not with the number,
    and the open peer of the same run (ahead or behind, by how much)."""
    rows = []
    for g in results.get("study", {}).get("goals") or []:
        items = [a for a in aggs if any(_matches(a, sel) for sel in g["points"])]
        if not items:
            rows.append([g["name"], "not in this run", *[""] * 7])
            continue
        pick = min if g.get("lowest") else max
        best = pick(items, key=lambda a: median(a, g["best_by"]) or (float("inf") if g.get("lowest") else 0))
        thr = median(best, "performance.throughput_ecb_mbps")
        rows.append([g["name"], _label(best), stat_cell(best, "area.lut4", 0, False),
                     stat_cell(best, "area.ebr", 0, False), stat_cell(best, "timing.fmax_mhz", 1),
                     fmt(thr / 1000 if thr is not None else None, 2),
                     stat_cell(best, "performance.mbps_per_lut4", 3, False),
                     "; ".join(_goal_cell(best, goal) for goal in g["goals"]),
                     _peer_cell(best, g, aggs)])
    if rows:
        seeds = results.get("seeds") or []
        doc.table(["class", "best point", "LUT4", "EBR", "Fmax MHz", "Gbit/s ECB",
                   "Mbit/s per LUT4", "goal", "open peer, same run"], rows,
                  caption="Classes and their goals (best point of each class, medians over "
                          f"placer seeds {', '.join(map(str, seeds))}; the router and flow as above)",
                  align=["l", "l", "r", "r", "r", "r", "r", "l", "l"])


def _timing_table(doc: Doc, aggs: list[dict], results: dict):
    rows = [[_label(a), stat_cell(a, "timing.fmax_mhz", 1), stat_cell(a, "timing.fmax_pre_route_mhz", 1),
             stat_cell(a, "timing.wiring_ratio", 3)] for a in aggs]
    headers = ["Design", "Fmax post-route (MHz)", "Fmax pre-route estimate (MHz)", "Ratio"]
    notes = ["Ratio = post-route / pre-route Fmax; smaller means wiring delay matters more."]
    worst = limiting.worst_paths(results)
    if worst:   # results from before paths were analysed keep their table as it was
        for row, a in zip(rows, aggs):
            paths = worst.get(a["label"], [])
            row += [limiting.parts_cell(paths), limiting.levels_cell(paths), limiting.routing_cell(paths)]
        headers += ["Limiting part (worst path crosses)", "LUT levels", "routing %"]
        notes.append("Limiting part: the parts the worst register-to-register path of the routed "
                     "design crosses, in order (static timing analysis of nextpnr's routed delays; "
                     "`cipherfab build ... --paths N` shows the paths), with its LUT levels and the "
                     "share of its delay spent in routing; seeds that differ are counted.")
    doc.table(headers, rows, caption="Wiring delay (shape of paper 004 Table 2)", notes=notes,
              align=["l", "r", "r", "r"] + ["l", "r", "r"] * bool(worst))


def _efficiency_table(doc: Doc, aggs: list[dict]):
    rows = []
    for a in aggs:
        thr, ebr = median(a, "performance.throughput_ecb_mbps"), median(a, "area.ebr")
        ebr_gbps = fmt(ebr / (thr / 1000), 2) if thr and ebr is not None else "–"
        rows.append([_label(a), stat_cell(a, "area.slices", 0),
                     stat_cell(a, "performance.mbps_per_slice", 3),
                     stat_cell(a, "performance.slices_per_gbps", 1), ebr_gbps,
                     stat_cell(a, "area.lut_ff_ratio", 2),
                     stat_cell(a, "performance.latency_cycles", 0),
                     stat_cell(a, "performance.key_setup_cycles", 0),
                     stat_cell(a, "performance.key_setup_ns", 1),
                     stat_cell(a, "performance.key_setup_fraction_of_block", 3)])
    doc.table(["Design", "slices", "Mbit/s per slice", "slices per Gbit/s", "EBR per Gbit/s", "LUT/FF",
               "latency cycles", "key-setup cycles", "key-setup ns",
               "key setup / block time"], rows,
              caption="Efficiency and key setup (shape of paper 002 Table 3, paper 001's "
                      "LUT/register ratio, paper 000 Table 6)")


def _parts_table(doc: Doc, aggs: list[dict]):
    parts: list[str] = []
    for a in aggs:
        for k in a.get("stats", {}):
            if k.startswith("area.parts."):
                p = k.split(".")[2]
                if p not in parts:
                    parts.append(p)
    if not parts:
        return
    order = [p for p in ("key_schedule", "datapath", "control") if p in parts]
    order += [p for p in parts if p not in order]
    rows = []
    for a in aggs:
        row = [_label(a)]
        for p in order:
            cells = [stat_cell(a, f"area.parts.{p}.{m}", 0, show_range=False) for m in ("lut4", "ff", "ebr")]
            row.append(" / ".join(cells))
        rows.append(row)
    doc.table(["Design"] + [f"{p} LUT4 / FF / EBR" for p in order], rows,
              caption="Area by part (shape of paper 000 Table 8: key setup vs core)")


def _times_table(doc: Doc, aggs: list[dict]):
    stages = ["elaborate", "synthesize", "place", "route", "pack"]
    rows = [[_label(a), stat_cell(a, "times.total", 1)] +
            [stat_cell(a, f"times.{s}", 1, show_range=False) for s in stages] + [_times_from(a)]
            for a in aggs]
    doc.table(["Design", "Total (s)"] + [f"{s} (s)" for s in stages] + ["times from"], rows,
              caption="Generation time per stage (shape of paper 004 Table 3)",
              notes=["Wall seconds per tool stage (median over seeds), as measured by the build "
                     "that ran the tools: 'this run' or, for cached builds, the original build "
                     "(the date it was measured is given)."] + _cached_note(aggs),
              align=["l"] + ["r"] * (1 + len(stages)) + ["l"])


# ----------------------------------------------------------------------- published tables

def _matches(a: dict, sel: dict) -> bool:
    """One of our points (not a peer) with every parameter of ``sel``."""
    return not a.get("external") and all((a.get("params") or {}).get(k) == v for k, v in sel.items())


def _find_agg(aggs: list[dict], sel: dict) -> dict | None:
    return next((a for a in aggs if _matches(a, sel)), None)


def _ratio_str(num, den, nd=2) -> str:
    if num is None or den is None:
        return "–"
    if den == 0:
        return "∞" if num else "–"
    return f"{num / den:.{nd}f}"


def _ratios_table(doc: Doc, results: dict, aggs: list[dict]):
    ratios = results.get("study", {}).get("ratios") or []
    if not ratios:
        return
    rows = []
    for r in ratios:
        a_num, a_den = _find_agg(aggs, r["ours_num"]), _find_agg(aggs, r["ours_den"])
        on = median(a_num, r["metric"]) if a_num else None
        od = median(a_den, r["metric"]) if a_den else None
        nd = (3 if r["metric"].endswith("ratio") or "_per_" in r["metric"]
              else 0 if r["metric"].startswith("area.") else 1)
        pn = pd = None
        src = dev = ""
        if r.get("paper"):
            try:
                en = papers.get_row(r["paper"], r["table"], r["paper_num"])
                ed = papers.get_row(r["paper"], r["table"], r["paper_den"])
                vn, vd = en["values"][r["key"]], ed["values"][r["key"]]
                pn, pd = vn["value"], vd["value"]
                src = (f"paper {en['paper_short']} {en['table']}: {en['row']} / {ed['row']} "
                       f"({vn['printed']} / {vd['printed']}" + (f" {vn['unit']})" if vn["unit"] else ")"))
                dev = en["device"] or ""
            except KeyError as e:
                src = f"(paper value not found: {e})"
        note = r.get("note", "")
        finding = r["finding"]
        cached = [a for a in (a_num, a_den) if a and a.get("cached_seeds")]
        if cached and r["metric"].startswith("times."):
            finding += f" {CACHED_MARK}"
            note = "; ".join(n for n in (note, f"{CACHED_MARK} times of cached builds are their original "
                                         f"builds' ({', '.join(_measured(a) for a in cached)})") if n)
        rows.append([finding,
                     f"{fmt(on, nd)} / {fmt(od, nd)}", _ratio_str(on, od),
                     _ratio_str(pn, pd), src, dev, note])
    doc.table(["Finding", "ours (num / den)", "ours ratio", "paper ratio", "paper source",
               "paper device", "note"], rows,
              caption="Relative findings: our ratios beside the papers' ratios",
              align=["l", "r", "r", "r", "l", "l", "l"])


def _rankings(doc: Doc, results: dict, aggs: list[dict]):
    """Our order of the named designs by a metric beside the paper's order."""
    for r in results.get("study", {}).get("rankings") or []:
        ours, theirs = [], []
        for name, sel in r["names"].items():
            a = _find_agg(aggs, sel)
            v = median(a, r["metric"]) if a else None
            if v is not None:
                ours.append((v, name))
            try:
                pv = papers.value(r["paper"], r["table"], name, r["key"])
            except KeyError:
                pv = None
            if pv is not None:
                theirs.append((pv, name))
        ours.sort(reverse=True)
        theirs.sort(reverse=True)
        nd = 3 if max((v for v, _ in ours), default=1) < 10 else 1
        doc.p(f"**{r['finding']}** Ours ({r['metric']}, median over seeds): "
              + (" > ".join(f"{n} {fmt(v, nd)}" for v, n in ours) or "no data")
              + f". Paper {r['paper']} {r['table']} ({r['key']}): "
              + (" > ".join(f"{n} {fmt(v, 1)}" for v, n in theirs) or "no data") + ".")
        both = [n for _, n in ours if n in {m for _, m in theirs}]
        p_order = [n for _, n in theirs if n in both]
        k = min(2, len(both))
        if k:
            same_top = set(both[:k]) == set(p_order[:k])
            doc.p(f"Same order: {'yes' if both == p_order else 'no'}; same top {k} "
                  f"({', '.join(p_order[:k])} in the paper): {'yes' if same_top else 'no'}"
                  f" (ours: {', '.join(both[:k])}).")


def _software_table(doc: Doc, results: dict, aggs: list[dict]):
    """Measured software baselines beside our fastest point of each cipher (paper 000
    Table 10's shape)."""
    rows = []
    for sw in results.get("software") or []:
        mine = [a for a in aggs if not a.get("external")
                and (a.get("params") or {}).get("cipher") == sw["cipher"]
                and (a.get("params") or {}).get("key_bits", sw["key_bits"]) == sw["key_bits"]]
        best = max(mine, key=lambda a: median(a, "performance.throughput_ecb_mbps") or 0,
                   default=None)
        hw = median(best, "performance.throughput_ecb_mbps") if best else None
        ks = median(best, "performance.key_setup_ns") if best else None
        hw_us = ks / 1000 if ks is not None else None
        if sw.get("error"):
            rows.append([f"{sw['cipher']}-{sw['key_bits']}", sw["provider"], sw["error"],
                         "–", "–", _label(best) if best else "–", fmt(hw, 1), "–",
                         fmt(hw_us, 3), "–"])
            continue
        su = sw["throughput_mbps"]
        rows.append([f"{sw['cipher']}-{sw['key_bits']}", sw["provider"],
                     f"{sw['algorithm']} ({sw['impl']})", fmt(su, 1), fmt(sw["key_setup_us"], 3),
                     _label(best) if best else "–", fmt(hw, 1), _ratio_str(hw, su),
                     fmt(hw_us, 3), _ratio_str(sw["key_setup_us"], hw_us, 1)])
    if not rows:
        return
    cmds = sorted({sw.get("command", "") for sw in results["software"]})
    doc.table(["Cipher", "software", "algorithm (implementation)", "Mbit/s", "key setup µs",
               "our fastest core", "Mbit/s", "speed-up", "key setup µs", "key-setup speed-up"],
              rows, caption="Software on this machine vs our cores (shape of paper 000 Table 10)",
              notes=["Software measured in this run, one core, on the machine named above, by: "
                     + "; ".join(f"`{c}`" for c in cmds) + ". Crypto++ prints MiB/s "
                     "(converted: × 8.389). Speed-up = ours / software (key setup: software / "
                     "ours). Our key setup = declared key-setup cycles / Fmax."])


def _estimates_table(doc: Doc, results: dict):
    for dev, e in (results.get("estimates") or {}).items():
        rows = []
        for a in e.get("aggregates", []):
            if not a.get("ok_seeds"):
                continue
            rows.append([a["label"], stat_cell(a, "area.lut", 0), stat_cell(a, "area.ff", 0),
                         stat_cell(a, "area.bram", 0), stat_cell(a, "area.dsp", 0),
                         stat_cell(a, "area.slices", 0)])
        if rows:
            doc.table(["Design", "LUT", "FF", "BRAM", "DSP", "slices (estimate)"], rows,
                      caption=f"Synthesis-only estimates for {dev} (the papers' device family; "
                              "no place-and-route, no Fmax)",
                      notes=["Yosys synth_xilinx for the old family, which it marks experimental; "
                             "compare with the papers' slice counts as an order of magnitude."])


#: our shape's columns -> the paper keys that fill them (first present wins)
_SHAPE = [
    ("LUT", ("lut",)), ("FF", ("ff",)), ("area", ("slices", "area_clb")),
    ("BRAM", ("bram",)), ("Fmax MHz", ("fmax_mhz",)),
    ("cycles", ("latency_cycles", "cycles_per_block")), ("output every", ("output_every_cycles",)),
    ("Mbit/s", ("throughput_mbps",)), ("key setup", ("key_setup_latency_us",)),
    ("gen. time", ("gen_time_s",)),
]


def _printed(v: dict, with_unit: bool) -> str:
    if with_unit and v.get("unit") and v.get("value") is not None:
        return f"{v['printed']} {v['unit']}"
    return v["printed"]


def _published_in_our_shape(doc: Doc, results: dict):
    """The selected published rows merged per (paper, row) across tables, in our table's shape."""
    merged: dict = {}
    for t, e in papers.selected_entries(results.get("study", {}).get("published")):
        i = e["row_index"]
        labels_unique = sum(r.label == t.rows[i].label for r in t.rows) == 1
        key = (t.paper, e["row"]) if labels_unique else (t.paper, t.table, i)
        m = merged.setdefault(key, {"paper": e["paper_short"], "tables": [], "row": e["row"],
                                    "device": e["device"], "values": {}})
        if t.table not in m["tables"]:
            m["tables"].append(t.table)
        for k, v in e["values"].items():
            m["values"].setdefault(k, v)
    if not merged:
        return
    rows = []
    for m in merged.values():
        cells = []
        for _col, keys in _SHAPE:
            v = next((m["values"][k] for k in keys if k in m["values"]), None)
            unit_matters = _col in ("area", "key setup", "gen. time")
            cells.append(_printed(v, unit_matters) if v else "")
        src = f"{m['paper']} " + ", ".join(m["tables"])
        rows.append([src, m["row"]] + cells + [m["device"] or ""])
    keep = [j for j in range(len(_SHAPE)) if any(r[2 + j] for r in rows)]
    headers = ["Paper, table", "Design"] + [_SHAPE[j][0] for j in keep] + ["Device"]
    rows = [r[:2] + [r[2 + j] for j in keep] + [r[-1]] for r in rows]
    doc.table(headers, rows,
              caption="Published rows in the same shape (values as printed; devices differ)",
              notes=["Area is printed with its unit (slices, CLB): a Virtex slice holds two "
                     "4-input LUTs and two flip-flops, like our ECP5 slice count; Virtex-II "
                     "BlockRAMs hold 18 kbit like an ECP5 EBR, Virtex/Virtex-E block RAMs 4 kbit. "
                     "'output every' b/c = b blocks every c cycles. Full tables, notes and text "
                     "quotes are further down."],
              align=["l", "l"] + ["r"] * len(keep) + ["l"])


def _published_tables(doc: Doc, results: dict):
    for sel in results.get("study", {}).get("published") or []:
        paper, table, rows, why = sel["paper"], sel["table"], list(sel.get("rows") or []), sel.get("why", "")
        pid = papers._paper_id(paper)
        meta = papers.PAPERS[pid]
        if table == "text":
            ents = []
            for r in rows:
                try:
                    ents.append(papers.get_anchor(paper, r))
                except KeyError:
                    pass
            if not ents:
                continue
            trs = []
            for e in ents:
                (key, v), = e["values"].items()
                trs.append([e["row"], v["printed"], v["unit"] or "", e["table"].replace("text ", ""),
                            e["device"] or "", f"“{e['quote']}”" + (f" — {e['note']}" if e["note"] else "")])
            doc.table(["Quantity", "Value", "Unit", "Where", "Device", "Quote / note"], trs,
                      caption=f"Paper {meta['short']} ({meta['cite']}), numbers from the text",
                      notes=[why] if why else [], align=["l", "r", "l", "l", "l", "l"])
            continue
        try:
            t = papers.get_table(paper, table)
        except KeyError:
            continue
        td = papers.table_dict(t, rows or None)
        cols = [c for c in td["columns"] if c["key"] != "device"]
        headers = [td["label_header"]] + [c["header"] for c in cols] + ["Device", "Note"]
        trs = []
        for r in td["rows"]:
            cells = [cell for c, cell in zip(td["columns"], r["cells"]) if c["key"] != "device"]
            trs.append([r["label"]] + cells + [r["device"] or "", r["note"] or ""])
        notes = []
        if why:
            notes.append(f"Why here: {why}.")
        if td["note"]:
            notes.append(td["note"])
        doc.table(headers, trs,
                  caption=f"Paper {meta['short']} ({meta['cite']}) {td['table']}: {td['caption']}",
                  notes=notes, align=["l"] + ["r"] * len(cols) + ["l", "l"])


# --------------------------------------------------------------------------------- report

def _env_items(results: dict) -> list[str]:
    env = results.get("environment", {})
    be = env.get("backend", {})
    if be.get("kind") == "dask":
        where = f"Dask cluster `{be.get('scheduler')}` ({be.get('workers')} workers, {be.get('threads')} threads)"
    else:
        where = f"{be.get('kind', 'local')} process pool, {be.get('workers')} workers"
    items = [f"Wall time: **{fmt(results.get('wall_seconds'), 1)} s** "
             f"({results.get('started')} → {results.get('finished')})",
             f"Ran on: {where}; host `{env.get('host')}` with {env.get('cpu_count')} CPUs"
             + (f" ({env.get('cpu_model')}" + (f", {env.get('os')})" if env.get("os") else ")")
                if env.get("cpu_model") else "")
             + (f"; worker hosts: {', '.join(env.get('worker_hosts') or [])}" if be.get("kind") == "dask" else ""),
             f"{_devices_line(results)}; placer seeds: {', '.join(map(str, results.get('seeds', [])))}"]
    s = results.get("summary", {})
    n_cached = sum(1 for r in results.get("records", []) if r.get("status") == "ok" and r.get("cached"))
    items.append(f"Builds: {s.get('builds')} planned, {s.get('ok')} ok, {s.get('failed')} failed"
                 + (f"; {n_cached} of the ok builds came from the build cache (marked {CACHED_MARK})"
                    if n_cached else "")
                 + (" — **interrupted**, partial results" if results.get("interrupted") else ""))
    flow = results.get("flow")
    if flow:
        from ..flow.options import label_part
        items.append("Flow options for every point (not the default flow): "
                     + ", ".join(f"{k} {label_part(k, v)}" for k, v in flow.items()))
    tools = env.get("tools")
    if tools:
        if isinstance(tools, dict):
            items.append("Tools: " + _flat_versions(tools))
        else:
            items.append("Tools (differing between records): "
                         + " | ".join(_flat_versions(t) for t in tools))
    pk = {k: v for k, v in (env.get("packages") or {}).items() if v}
    if pk:
        items.append("Python " + str(env.get("python")) + "; packages: "
                     + ", ".join(f"{k} {v}" for k, v in pk.items()))
    return items


def _flat_versions(d: dict) -> str:
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out.append(_flat_versions(v))
        elif v is not None:
            out.append(f"{k} {v}")
    return ", ".join(o for o in out if o)


def _chart_data(results: dict) -> dict | None:
    """The interactive chart's data (:mod:`.chart`), or None when it has no point."""
    aggs = _ok_aggs(results)
    data = chart.chart_data(results, aggs) if aggs else None
    return data if data and data["points"] else None


def _point_devices(results: dict) -> list[str]:
    """The devices a study's points name themselves (the families study), in order; empty when
    every point is built on the study's device."""
    return list(dict.fromkeys(p["params"]["device"] for p in results.get("points") or []
                              if "device" in (p.get("params") or {})))


def _devices_line(results: dict) -> str:
    own = _point_devices(results)
    if own:
        return "Devices: each point's own, " + ", ".join(f"`{d}`" for d in own)
    return f"Device: `{results.get('device')}`"


def build_doc(results: dict, plots: list[dict], chart_data: dict | None = None) -> Doc:
    """The report; ``chart_data``: :func:`_chart_data` of ``results`` (made here if not given)."""
    study = results.get("study", {})
    doc = Doc()
    doc.h(1, f"Study `{study.get('name')}`: {study.get('title', '')}")
    doc.p(study.get("description", ""))
    doc.p("Produced by:")
    doc.code(results.get("command", ""))
    doc.ul(_env_items(results))
    rule = None
    for r in results.get("records", []):
        rule = (r.get("area") or {}).get("slice_rule")
        if rule:
            break
    if _point_devices(results):
        doc.p("**Devices differ.** Each point names its device, and each family counts its own "
              "cells (see the table of each core on each family below); the papers' Virtex numbers "
              "are not beside these.")
    else:
        doc.p(f"**Devices differ.** {device_note()}"
              + (f" Our slice count uses the rule `{rule}`." if rule else ""))

    aggs = _ok_aggs(results)
    doc.h(2, "Our results")
    if aggs:
        _goals_table(doc, results, aggs)
        _best_table(doc, aggs)
        _main_table(doc, aggs, len(results.get("seeds") or []))
    else:
        doc.p("**No build succeeded**; see the failures below.")
    if study.get("plugin") and aggs:
        import importlib
        importlib.import_module(study["plugin"]).section(doc, results)
    _published_in_our_shape(doc, results)
    if aggs and results.get("software"):
        _software_table(doc, results, aggs)
    if aggs and study.get("rankings"):
        doc.h(2, "Rankings beside the papers")
        _rankings(doc, results, aggs)
    _estimates_table(doc, results)

    if aggs and study.get("ratios"):
        doc.h(2, "Relative findings beside the papers")
        doc.p("Absolute numbers are not comparable across devices; ratios between two of our "
              "designs and between the corresponding two published designs are.")
        _ratios_table(doc, results, aggs)

    if aggs:
        doc.h(2, "Timing, efficiency, area split and generation time")
        _timing_table(doc, aggs, results)
        _efficiency_table(doc, aggs)
        _parts_table(doc, aggs)
        _times_table(doc, aggs)

    data = chart_data or _chart_data(results)
    if plots or data:
        doc.h(2, "Plots")
        if data:
            doc.chart(chart.data_json(data), chart.script(),
                      "Throughput against area, log axes: circles ours, squares peers, triangles the "
                      "papers' points (their devices; area as printed). Hover a point for its command; "
                      "filter by architecture and S-box style.")
        for p in plots:
            doc.img(p["file"], p["title"], p["caption"])

    if study.get("published"):
        doc.h(2, "Published numbers (as printed, with their devices)")
        doc.p("Transcribed from the papers' tables and text, exactly as printed; '/', '-' and "
              "'---' are the papers' own marks for a missing value. See "
              "`cipherfab.study.papers` for the full set and per-cell notes.")
        _published_tables(doc, results)

    fails = results.get("failures") or []
    doc.h(2, "Failures")
    if fails:
        doc.table(["Design", "Seed", "Stage", "Error"],
                  [[f["label"], str(f["seed"]), str(f.get("stage") or ""), str(f["error"])] for f in fails],
                  align=["l", "r", "l", "l"])
    else:
        doc.p("None: every build succeeded.")
    return doc


def write_report(results: dict, folder: str | Path) -> list[Path]:
    """Write the PNG plots, report.md and report.html into ``folder``; return their paths."""
    papers.tables()  # a broken papers data file stops us here, before any file is written
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    plots = write_plots(results, folder)
    data = _chart_data(results)
    doc = build_doc(results, plots, data)
    md = folder / "report.md"
    md.write_text(render_md(doc))
    ht = folder / "report.html"
    ht.write_text(render_html(doc, folder, title=f"cipherfab study {results.get('study', {}).get('name')}"))
    out = [folder / p["file"] for p in plots] + [md, ht]
    if data:
        (folder / "chart.html").write_text(chart.page(data))
        out.append(folder / "chart.html")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m cipherfab.study.report RESULTS.json", file=sys.stderr)
        return 2
    path = Path(argv[0])
    from ..errors import CipherfabError
    from ..userfiles import read_text
    try:
        results = json.loads(read_text(path, "json", "results file"))
    except CipherfabError as e:
        print(e, file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"{path} is not a study's results.json: {e}", file=sys.stderr)
        return 2
    if not (isinstance(results, dict) and isinstance(results.get("study"), dict)
            and isinstance(results.get("aggregates"), list)):
        print(f"{path} is not a study's results.json (no study and aggregates)", file=sys.stderr)
        return 2
    try:
        written = write_report(results, path.parent)
    except CipherfabError as e:
        print(e, file=sys.stderr)
        return e.exit_code
    for f in written:
        print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
