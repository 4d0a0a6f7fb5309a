"""``cipherfab study NAME --update-readme``: regenerate a results section of README.md.

The section is the text between ``<!-- results:NAME:begin -->`` and
``<!-- results:NAME:end -->`` in the README.md at the repository root (the nearest
of the current folder and its parents with a README.md beside pyproject.toml or
.git).  It is rewritten from the study's results.json: the command that produced
it, the date, the machine (CPU model, cores, OS), the tool versions, the headline
table and the throughput-vs-area plot.  The plot is copied to
``docs/NAME_throughput_vs_lut4.png`` beside the README (the reports folder is not
in git), and linked by its relative path.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import CipherfabError
from ..readme import check_markers, replace_section
from .report import CACHED_MARK, fmt, stat_cell

PLOT = "throughput_vs_lut4.png"


# ------------------------------------------------------------------------------- section

def design_name(agg: dict, constant: dict) -> str:
    """'AES-128 encrypt, rom' for a generated point (parameters shared by every point left
    out, except direction); the label for an external core."""
    p = agg.get("params") or {}
    if agg.get("external") or "cipher" not in p:
        return agg["label"]
    head = str(p["cipher"]).upper() + (f"-{p['key_bits']}" if "key_bits" in p else "")
    rest = [str(v) for k, v in p.items()
            if k not in ("cipher", "key_bits") and (k == "direction" or constant.get(k, object()) != v)]
    if len(rest) > 1:
        return f"{head} {' '.join(rest[:-1])}, {rest[-1]}"
    return " ".join([head, *rest])


def _constant_params(aggs: list[dict]) -> dict:
    gen = [a.get("params") or {} for a in aggs if not a.get("external")]
    if len(gen) < 2:
        return {}
    return {k: v for k, v in gen[0].items() if all(g.get(k) == v for g in gen[1:])}


def headline_table(results: dict) -> tuple[list[str], list[list[str]], bool]:
    """(headers, rows, any row with cached builds) from the results' aggregates."""
    aggs = [a for a in results.get("aggregates", []) if a.get("ok_seeds")]
    const = _constant_params(aggs)
    headers = ["design", "LUT4", "FF", "EBR", "Fmax MHz", "cycles/block ECB", "Mbit/s ECB",
               "Mbit/s CBC", "Mbit/s per LUT4"]
    rows, cached = [], False
    for a in aggs:
        mark = ""
        if a.get("cached_seeds") or _cached_records(results, a):
            mark, cached = f" {CACHED_MARK}", True
        rows.append([design_name(a, const) + mark,
                     stat_cell(a, "area.lut4", 0, show_range=False),
                     stat_cell(a, "area.ff", 0, show_range=False),
                     stat_cell(a, "area.ebr", 0, show_range=False),
                     stat_cell(a, "timing.fmax_mhz", 1),
                     stat_cell(a, "performance.cycles_per_block_ecb", 0, show_range=False),
                     stat_cell(a, "performance.throughput_ecb_mbps", 1, show_range=False),
                     stat_cell(a, "performance.throughput_cbc_mbps", 1, show_range=False),
                     stat_cell(a, "performance.mbps_per_lut4", 3, show_range=False)])
    return headers, rows, cached


def _cached_records(results: dict, agg: dict) -> bool:
    return any(r.get("cached") and r.get("status") == "ok" and r.get("study_point") == agg["label"]
               for r in results.get("records", []))


def _tools(env: dict) -> str:
    tools = env.get("tools")
    if isinstance(tools, list):  # differing between records: name them all
        return " | ".join(_tools({"tools": t}) for t in tools)
    if not isinstance(tools, dict):
        return "unknown"
    names = [tools[k] for k in ("yosys", "nextpnr") if tools.get(k)]
    pk = ", ".join(f"{k} {v}" for k, v in (tools.get("packages") or {}).items() if v)
    return "; ".join(names) + (f" (packages {pk})" if pk else "")


def _device(results: dict) -> str:
    for r in results.get("records", []):
        d = r.get("device") or {}
        if r.get("status") == "ok" and d.get("full_part"):
            ooc = ", out of context" if "--out-of-context" in (d.get("pnr_flags") or []) else ""
            return f"`{d.get('name')}` ({d['full_part']}{ooc})"
    return f"`{results.get('device')}`"


def _seeds(seeds: list) -> str:
    s = [str(x) for x in seeds]
    return s[0] if len(s) == 1 else ", ".join(s[:-1]) + " and " + s[-1]


def section(results: dict, readme_dir: Path, plot: Path | None) -> str:
    """The Markdown that goes between the markers."""
    env = results.get("environment") or {}
    summ = results.get("summary") or {}
    date = str(results.get("finished") or results.get("started") or "")[:10]
    seeds = results.get("seeds") or []
    machine = ", ".join(str(x) for x in (env.get("cpu_model") or "unknown CPU",
                                           f"{env.get('cpu_count')} cores", env.get("os") or env.get("platform"))
                        if x)
    lines = [
        f"Produced with `{results.get('command')}` on {date} ({summ.get('ok')} of {summ.get('builds')} "
        f"builds ok; wall time {fmt(results.get('wall_seconds'), 1)} s). Machine: {machine}. "
        f"Tools: {_tools(env)}. Device {_device(results)}; placer seed{'s' if len(seeds) > 1 else ''} "
        f"{_seeds(seeds)}; Fmax is the median over seeds, with min–max in brackets.",
        "",
    ]
    plugin = (results.get("study") or {}).get("plugin")
    if plugin:   # a study with its own headline (e.g. key-specific: one row per variant)
        import importlib
        headers, rows = importlib.import_module(plugin).headline(results)
        cached = any(r.get("cached") for r in results.get("records", []))
    else:
        headers, rows, cached = headline_table(results)
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|---|" + "---:|" * (len(headers) - 1) if not plugin else
                 "|---|---|" + "---:|" * (len(headers) - 2))
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    if not rows:
        lines.append("| (no build succeeded) |" + " |" * (len(headers) - 1))
    if cached:
        lines += ["", f"{CACHED_MARK} Includes builds reused from the build cache: area and timing as "
                      "measured then (same design, device, seed and tools)."]
    if plot is not None:
        rel = Path(os.path.relpath(plot, readme_dir)).as_posix()
        lines += ["", f"![throughput vs LUT4]({rel})"]
    return "\n".join(lines)


def update_readme(readme: Path, name: str, results: dict, folder: str | Path) -> Path | None:
    """Rewrite the ``name`` results section of ``readme``; return the plot it links (or None)."""
    text = check_markers(readme, name)
    plot = None
    src = Path(folder) / PLOT
    if src.is_file():
        plot = readme.parent / "docs" / f"{name}_{PLOT}"
        try:
            plot.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, plot)
        except OSError as e:
            raise CipherfabError(f"--update-readme: cannot copy the plot to {plot}: {e.strerror or e}") from None
    replace_section(readme, name, section(results, readme.parent, plot), text)
    return plot
