"""Parsers for what Yosys and nextpnr write: ``stat -json``, logs, report and placed JSON.

Pure functions over text/dicts, so they are tested on recorded outputs.
"""

from __future__ import annotations

import re
from collections import Counter

from .families import family as _family

# ---------------------------------------------------------------- cell kinds

def metric_of(family: str, cell_type: str) -> str | None:
    """Area metric a synthesized cell counts towards, or None (the family's cell map)."""
    return _family(family).metric_of(cell_type)


# ---------------------------------------------------------------- yosys stat

def module_base_name(name: str) -> str:
    """``\\top.ks`` -> ``top.ks``; ``$paramod\\ks\\W=8`` and ``$paramod$hash\\ks`` -> ``ks``."""
    if name.startswith("$paramod"):
        parts = name.split("\\")
        return parts[1] if len(parts) > 1 else name
    return name[1:] if name.startswith("\\") else name


def stat_modules(stat: dict) -> dict[str, Counter]:
    """Local cell counts per module from ``stat -json``, keyed as cells name them
    (no leading backslash); submodule instances appear as cells of their module's name."""
    return {m[1:] if m.startswith("\\") else m: Counter(d.get("num_cells_by_type", {}))
            for m, d in stat.get("modules", {}).items()}


def instance_counts(stat: dict, top: str) -> dict[str, int]:
    """How many times each module occurs in the hierarchy under ``top``."""
    mods = stat_modules(stat)
    counts: Counter = Counter()

    def walk(mod, mult, depth=0):
        counts[mod] += mult
        for cell, n in mods.get(mod, {}).items():
            if cell in mods and depth < 100:
                walk(cell, mult * n, depth + 1)

    walk(top.lstrip("\\"), 1)
    return dict(counts)


def part_of(module: str, parts: dict[str, str]) -> str | None:
    """The part whose prefix is the longest one matching ``module``'s base name."""
    name = module_base_name(module)
    best = None
    for prefix, part in parts.items():
        p = prefix.lstrip("\\")
        if name.startswith(p) and (best is None or len(p) > len(best[0])):
            best = (p, part)
    return best[1] if best else None


def synth_area(stat: dict, top: str, family: str, parts: dict[str, str]) -> tuple[dict, dict, dict]:
    """(cells by type, area totals, area per part) of the synthesized design, instance-weighted.

    Modules matching no prefix of ``parts`` count under ``"unassigned"``.
    """
    mods = stat_modules(stat)
    cells: Counter = Counter()
    totals: Counter = Counter()
    split: dict[str, Counter] = {}
    for mod, mult in instance_counts(stat, top).items():
        part = part_of(mod, parts) or "unassigned"
        for cell, n in mods.get(mod, {}).items():
            if cell in mods or cell.startswith("$"):
                continue
            cells[cell] += n * mult
            metric = metric_of(family, cell)
            if metric:
                totals[metric] += n * mult
                split.setdefault(part, Counter())[metric] += n * mult
    return dict(cells), dict(totals), {p: dict(c) for p, c in split.items()}


# ---------------------------------------------------------------- nextpnr log

_UTIL = re.compile(r"Info:\s+([A-Z][A-Z0-9_]+):\s+(\d+)/\s*(\d+)\s+\d+%")
# (with several clocks nextpnr pads the names to one width: "clock     'clk'")
_FMAX = re.compile(r"Max frequency for clock\s+'([^']+)': ([\d.]+) MHz")
_ROUTE_START = re.compile(r"Info: (Routing globals|Running router2|Routing\.\.|Routing\.\.\.)")
_CRIT = re.compile(r"Critical path report for (clock '([^']+)'|cross-domain)")
_CRIT_SPLIT = re.compile(r"([\d.]+) ns logic, ([\d.]+) ns routing")


def utilisation(lines: list[str]) -> dict[str, tuple[int, int]]:
    """``{bel type: (used, available)}`` from the "Device utilisation" table."""
    out: dict[str, tuple[int, int]] = {}
    started = False
    for line in lines:
        if "Device utilisation" in line:
            started, out = True, {}
            continue
        if started:
            m = _UTIL.search(line)
            if m:
                out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            elif out:
                started = False
    return out


def route_start(lines: list[str]) -> int | None:
    """Index of the first line of routing, or None if routing never started."""
    for i, line in enumerate(lines):
        if _ROUTE_START.search(line):
            return i
    return None


def fmax_lines(lines: list[str]) -> dict[str, float]:
    """Last ``Max frequency`` per clock in ``lines``."""
    out = {}
    for line in lines:
        m = _FMAX.search(line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def pre_and_post_route_fmax(lines: list[str]) -> tuple[dict, dict]:
    """(estimate after placement before routing, after routing), MHz per clock."""
    i = route_start(lines)
    if i is None:
        return fmax_lines(lines), {}
    return fmax_lines(lines[:i]), fmax_lines(lines[i:])


def critical_path_split(lines: list[str]) -> dict[str, dict[str, float]]:
    """Per clock: logic and routing ns of the final critical path report."""
    i = route_start(lines) or 0
    out, clock = {}, None
    for line in lines[i:]:
        m = _CRIT.search(line)
        if m:
            clock = m.group(2)
            continue
        m = _CRIT_SPLIT.search(line)
        if m and clock:
            out[clock] = {"logic_ns": float(m.group(1)), "routing_ns": float(m.group(2))}
            clock = None
    return out


def clock_base(name: str) -> str:
    """nextpnr's clock net name back to the port: ``$glbnet$clk``, ``clk$SB_IO_IN_$glb_clk`` -> ``clk``."""
    if name.startswith("$glbnet$"):
        name = name[len("$glbnet$"):]
    return name.split("$", 1)[0]


def pick_clock(fmax: dict[str, float], port: str = "clk") -> str | None:
    """The clock net in ``fmax`` that comes from ``port``."""
    for name in fmax:
        if name == port:
            return name
    for name in fmax:
        if clock_base(name) == port:
            return name
    return None


# ---------------------------------------------------------------- report / placed JSON

def report_fmax(report: dict) -> dict[str, float]:
    return {clk: float(v["achieved"]) for clk, v in report.get("fmax", {}).items()}


def report_utilisation(report: dict) -> dict[str, tuple[int, int]]:
    return {k: (int(v["used"]), int(v["available"])) for k, v in report.get("utilization", {}).items()}


def placed_counts(placed: dict, family: str) -> dict[str, int]:
    """Area of the placed design (nextpnr ``--write`` JSON), nextpnr's inserted cells
    included, counted by the family (:meth:`~cipherfab.flow.families.Family.placed_counts`)."""
    modules = placed.get("modules", {})
    cells = next(iter(modules.values()), {}).get("cells", {}) if modules else {}
    return dict(_family(family).placed_counts(cells.values()))


def resource_names() -> dict[str, str]:
    """nextpnr bel type -> the name a user knows, for "does not fit" messages (every family's)."""
    from .families import families
    return {k: v for f in families().values() for k, v in f.resource_names.items()}


def overflow_message(util: dict[str, tuple[int, int]], device: str) -> str | None:
    """``needs N LUT4, ecp5-25k has M`` for each over-used resource, or None if it fits."""
    names = resource_names()
    return over_message([(names.get(k, k), u, a) for k, (u, a) in util.items()], device)


def over_message(needs, device: str) -> str | None:
    """``needs 11,419 LC, ice40-hx8k has 7,680`` for each ``(what, used, available)`` used
    beyond what is available (placed or synthesized counts alike), or None."""
    return "; ".join(f"needs {u:,} {what}, {device} has {a:,}" for what, u, a in needs if u > a) or None
