"""PNG plots for study reports (matplotlib, Agg backend) and the Pareto front."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from .labels import common_parts, place_labels, shorten


def pareto_front(costs: Sequence[float | None], values: Sequence[float | None]) -> list[int]:
    """Indices of the points not dominated when minimising cost and maximising value.

    Point j dominates i when ``cost_j <= cost_i`` and ``value_j >= value_i`` with at
    least one strict.  Points with a missing (None/NaN) coordinate are never on the
    front; exact duplicates of a front point are on it too.  Sorted by cost, then by
    value descending.
    """
    pts = [(i, c, v) for i, (c, v) in enumerate(zip(costs, values))
           if c is not None and v is not None and not (math.isnan(c) or math.isnan(v))]
    front = []
    for i, c, v in pts:
        dominated = any((c2 <= c and v2 >= v) and (c2 < c or v2 > v) for _, c2, v2 in pts)
        if not dominated:
            front.append((c, -v, i))
    return [i for _, _, i in sorted(front)]


#: other names a metric has in some records (the flow's synthesis-only Xilinx estimates say
#: lut/bram; earlier drafts of the record used the names on the right)
ALIASES = {
    "area.lut4": ("area.lut",),
    "area.ebr": ("area.bram",),
    "timing.fmax_pre_route_mhz": ("timing.fmax_prefit_mhz",),
    "performance.key_setup_fraction_of_block": ("performance.key_setup_fraction",),
}


def lookup_stat(agg: dict | None, path: str) -> dict | None:
    """The min/median/max stats of ``path`` (or of one of its aliases) in an aggregate."""
    if not agg:
        return None
    st = agg.get("stats", {})
    for p in (path, *ALIASES.get(path, ())):
        if p in st:
            return st[p]
    return None


def _med(agg: dict, path: str):
    s = lookup_stat(agg, path)
    return s["median"] if s else None


def _plt():
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def _pad_log_limits(ax, factor: float = 1.6) -> None:
    """Widen both log axes by ``factor`` each side, so labels have room at the edges."""
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    ax.set_xlim(x0 / factor, x1 * factor)
    ax.set_ylim(y0 / factor, y1 * factor)


def plot_pareto(aggs: Sequence[dict], path: Path, *, x: str = "area.lut4",
                y: str = "performance.throughput_ecb_mbps", xlabel: str = "LUT4 (median over seeds)",
                ylabel: str = "throughput ECB (Mbit/s, median over seeds)", title: str = "") -> Path | None:
    pts = [(a["label"], _med(a, x), _med(a, y), a.get("external")) for a in aggs]
    pts = [p for p in pts if p[1] is not None and p[2] is not None]
    if not pts:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(11, 7.5), dpi=110)
    front = pareto_front([p[1] for p in pts], [p[2] for p in pts])
    on = set(front)
    for i, (label, xv, yv, ext) in enumerate(pts):
        ax.scatter([xv], [yv], s=36, zorder=3,
                   marker="s" if ext else "o",
                   color="tab:red" if i in on else "tab:blue",
                   edgecolors="black" if i in on else "none")
    if front:
        fx = [pts[i][1] for i in front]
        fy = [pts[i][2] for i in front]
        ax.step(fx, fy, where="post", color="tab:red", lw=1.2, ls="--", zorder=2,
                label="Pareto front (fewer LUT4, more Mbit/s)")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _pad_log_limits(ax)
    ours = [p[0] for p in pts if not p[3]]
    drop = common_parts(ours)
    title = title or "Throughput vs area"
    if drop:
        title += f"\n(our labels leave out {'-'.join(drop)})"
    ax.set_xlabel(xlabel, fontsize=10)
    ax.set_ylabel(ylabel, fontsize=10)
    ax.set_title(title, fontsize=11)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    # the front first, then the external cores, then the rest: the first placed get the
    # places nearest their points
    order = sorted(range(len(pts)), key=lambda i: (i not in on, not pts[i][3], pts[i][1]))
    steps = [(pts[a][1], pts[a][2]) for a in front]        # the front as drawn (where="post")
    front_line = [q for a, b in zip(steps, steps[1:]) for q in (a, (b[0], a[1]))] + steps[-1:]
    place_labels(ax, [(pts[i][1], pts[i][2]) for i in order],
                 [pts[i][0] if pts[i][3] else shorten(pts[i][0], drop) for i in order],
                 lines=[front_line] if len(front_line) > 1 else [])
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_vs_param(aggs: Sequence[dict], path: Path, *, param: str, group: str | None,
                  metrics: Sequence[tuple[str, str]], title: str = "") -> Path | None:
    """One subplot per metric: median with min-max error bars against ``param``,
    one line per value of ``group``.  External cores (no such parameter) are skipped."""
    rows = [a for a in aggs if not a.get("external") and param in a.get("params", {})]
    if not rows:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.2 * len(metrics), 4.2), dpi=110,
                             squeeze=False)
    groups: dict = {}
    for a in rows:
        groups.setdefault(a["params"].get(group) if group else None, []).append(a)
    xs_all = sorted({a["params"][param] for a in rows}, key=lambda v: (str(type(v)), v))
    numeric = all(isinstance(v, (int, float)) for v in xs_all)
    plotted = False
    for ax, (metric, label) in zip(axes[0], metrics):
        for gval, items in sorted(groups.items(), key=lambda kv: str(kv[0])):
            pts = []
            for a in items:
                s = lookup_stat(a, metric)
                if s:
                    xv = a["params"][param]
                    pts.append((xv if numeric else xs_all.index(xv), s["median"], s["min"], s["max"]))
            if not pts:
                continue
            pts.sort()
            xv = [p[0] for p in pts]
            med = [p[1] for p in pts]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            ax.errorbar(xv, med, yerr=err, marker="o", capsize=4,
                        label=f"{group}={gval}" if group else None)
            plotted = True
        ax.set_xlabel(param)
        ax.set_ylabel(label)
        if numeric:
            ax.set_xticks(xs_all)
        else:
            ax.set_xticks(range(len(xs_all)), [str(v) for v in xs_all])
        ax.grid(True, alpha=0.3)
        if group and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    if not plotted:
        plt.close(fig)
        return None
    fig.suptitle(title or f"vs {param} (median, bars = min-max over seeds)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_bars(aggs: Sequence[dict], path: Path, *, metric: str, ylabel: str, title: str):
    """One bar per design (median over seeds, whiskers min-max)."""
    rows = [(a["label"], lookup_stat(a, metric)) for a in aggs if a.get("ok_seeds")]
    rows = [(n, st) for n, st in rows if st and st.get("median") is not None]
    if not rows:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows) + 2), 4.5))
    med = [st["median"] for _, st in rows]
    err = [[m - (st.get("min", m)) for m, (_, st) in zip(med, rows)],
           [(st.get("max", m)) - m for m, (_, st) in zip(med, rows)]]
    ax.bar(range(len(rows)), med, yerr=err, capsize=3, color="tab:blue")
    ax.set_xticks(range(len(rows)), [n for n, _ in rows], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


#: every file name ``write_plots`` may write: what a newer report replaces in its folder
PLOT_FILES = ("throughput_vs_lut4.png", "bars.png", "fmax_vs_*.png", "area_vs_*.png")


def write_plots(results: dict, folder: Path) -> list[dict]:
    """All plots of a study; returns [{"file", "title", "caption"}] for the reports."""
    folder = Path(folder)
    aggs = results.get("aggregates", [])
    study = results.get("study", {})
    out = []
    p = plot_pareto(aggs, folder / "throughput_vs_lut4.png",
                    title=f"{study.get('name', '')}: throughput (ECB) vs LUT4 on "
                          f"{results.get('device', '')}")
    if p:
        out.append({"file": p.name, "title": "Throughput vs area, Pareto front",
                    "caption": "Median over seeds, log axes. Red = on the Pareto front (no other design has "
                               "both fewer LUT4 and more Mbit/s); squares = external cores."})
    bar = study.get("bar_metric")
    if bar:
        p = plot_bars(aggs, folder / "bars.png", metric=bar, ylabel=bar,
                      title=f"{study.get('name', '')}: {bar} on {results.get('device', '')}")
        if p:
            out.append({"file": p.name, "title": f"{bar} per design",
                        "caption": "Median over placer seeds; whiskers span min-max."})
    param, group = study.get("x_param"), study.get("group_param")
    if param:
        p = plot_vs_param(aggs, folder / f"fmax_vs_{param}.png", param=param, group=group,
                          metrics=[("timing.fmax_mhz", "Fmax post-route (MHz)"),
                                   ("performance.throughput_ecb_mbps", "throughput ECB (Mbit/s)")],
                          title=f"Fmax and throughput vs {param}")
        if p:
            out.append({"file": p.name, "title": f"Fmax and throughput vs {param}",
                        "caption": "Median; error bars span min-max over placer seeds."})
        p = plot_vs_param(aggs, folder / f"area_vs_{param}.png", param=param, group=group,
                          metrics=[("area.lut4", "LUT4"), ("area.ff", "FF"), ("area.ebr", "EBR")],
                          title=f"Area vs {param}")
        if p:
            out.append({"file": p.name, "title": f"Area vs {param}",
                        "caption": "LUT4, flip-flops and block RAMs (EBR) from the placed design."})
    if study.get("plugin"):          # a study's own plots (e.g. masking: area against cycles)
        import importlib
        plugin = importlib.import_module(study["plugin"])
        if hasattr(plugin, "plots"):
            out += plugin.plots(results, folder)
    return out
