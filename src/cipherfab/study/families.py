"""The families study's own tables (:data:`~cipherfab.study.studies.FAMILIES`): each core on
each device, fit or no fit, in the device family's own units, and the time its builds took.

A point that does not fit is a failed build whose error names the device, the resource and
the count (``design does not fit: needs 9,120 LC, ice40-up5k has 5280``); the table says so
instead of leaving the row out.
"""

from __future__ import annotations

from ..errors import CipherfabError
from ..flow.devices import get_device
from .report import grouped

NO_FIT = "design does not fit: "


def _core(params: dict) -> str:
    """How a table names a core: ``iterative lut``, ``interleaved rom, 3 stages``."""
    name = f"{params.get('arch')} {params.get('sbox')}"
    return name + (f", {params['stages']} stages" if params.get("stages") else "")


def _median(agg: dict, path: str):
    s = (agg.get("stats") or {}).get(path)
    return s["median"] if s else None


def _build_seconds(rec: dict) -> float:
    """A build's time: its ``times.total`` (elaboration, synthesis, place, route, pack, paths)
    as measured, for a cached build too; a failed build's worker time."""
    return (rec.get("times") or {}).get("total") or rec.get("worker_seconds") or 0


def rows(results: dict) -> list[dict]:
    """One row per (device, core), in the study's point order: the medians over the seeds that
    placed and routed, the seeds that did not (with their errors), and the workers' time."""
    seconds: dict = {}
    for r in results.get("records") or []:
        seconds[r.get("study_point")] = seconds.get(r.get("study_point"), 0) + _build_seconds(r)
    out = []
    for agg in results.get("aggregates") or []:
        params = agg.get("params") or {}
        row = {"device": params.get("device", results.get("device")), "core": _core(params),
               "ok": bool(agg.get("ok_seeds")), "seeds": agg.get("seeds") or [],
               "ok_seeds": agg.get("ok_seeds") or [], "build_seconds": round(seconds.get(agg["label"], 0), 1),
               "seconds": _median(agg, "times.total"), "failed": agg.get("failed") or []}
        if row["ok"]:
            row.update(lut4=_median(agg, "area.lut4"), ff=_median(agg, "area.ff"),
                       ram=_median(agg, "area.ebr") or 0, slices=_median(agg, "area.slices"),
                       fmax=_median(agg, "timing.fmax_mhz"), mbps=_median(agg, "performance.throughput_ecb_mbps"))
        errors = [f["error"] or "failed" for f in row["failed"]]
        row["no_fit"] = bool(errors) and not row["ok"] and all(e.startswith(NO_FIT) for e in errors)
        row["why"] = "; ".join(dict.fromkeys(e.removeprefix(NO_FIT) for e in errors))
        out.append(row)
    return out


def _ram_name(device: str) -> str:
    try:
        ram = get_device(device).kind.block_ram
    except CipherfabError:          # a device this installation no longer knows
        return "block RAM"
    return f"{ram.name} ({ram.kbits} kbit)" if ram else "block RAM"


def _count(v) -> str:
    """A cell count: whole, or the .5 of a median of two seeds."""
    if v is None:
        return "–"
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,.1f}"


def headline(results: dict) -> tuple[list[str], list[list[str]]]:
    """Per device: how many cores fit, the default iterative core's area and speed, the fastest
    core that fits, and the time the device's builds took."""
    headers = ["device", "cores: fit / no fit / not measured", "iterative lut: LUT4 / FF", "its Fmax MHz",
               "its ECB Mbit/s", "fastest that fits (ECB Mbit/s)", "build time, s"]
    body = []
    all_rows = rows(results)
    for device in dict.fromkeys(r["device"] for r in all_rows):
        mine = [r for r in all_rows if r["device"] == device]
        ok = [r for r in mine if r["ok"]]
        it = next((r for r in ok if r["core"] == "iterative lut"), None)
        fast = max(ok, key=lambda r: r.get("mbps") or 0, default=None)
        no_fit = sum(r["no_fit"] for r in mine)
        body.append([device, f"{len(ok)} / {no_fit} / {len(mine) - len(ok) - no_fit}",
                     f"{_count(it['lut4'])} / {_count(it['ff'])}" if it else "no fit",
                     grouped(it["fmax"]) if it else "–", grouped(it["mbps"]) if it else "–",
                     f"{fast['core']} ({grouped(fast['mbps'])})" if fast else "none",
                     grouped(round(sum(r["build_seconds"] for r in mine), 1))])
    return headers, body


def section(doc, results: dict) -> None:
    all_rows = rows(results)
    doc.h(2, "Each core on each family")
    doc.p("Area in each family's own cells, from the placed design: LUT4 (GateMate: its LUT "
          "trees), flip-flops, block RAMs, and the family's slice figure (ECP5 and Gowin: slices "
          "of 2 LUT4 and 2 FF; Nexus: slices of 2 LUT4; iCE40: logic cells; GateMate: CPEs "
          "occupied). Outside ECP5 the core sits behind the serial I/O wrapper, whose area is "
          "counted with it (about 400 FF more than the ECP5 build of the same core). Fmax is "
          "nextpnr's for the core's clock; ECB throughput is 128 bits x Fmax / cycles per block. "
          "A point is *not measured* when every seed's tool run failed for a reason other than "
          "the device's size (the errors are named); *no* when the device is too small, with "
          "the resource and the count.")
    headers = ["core", "device", "fits", "LUT4", "FF", "block RAM", "slices / cells", "Fmax MHz",
               "ECB Mbit/s", "tool s", "seeds that failed"]
    body = []
    for r in all_rows:
        failed = "; ".join(f"seed {f['seed']}: {f['error']}" for f in r["failed"]) or "–"
        if r["ok"]:
            body.append([r["core"], r["device"], "yes", _count(r["lut4"]), _count(r["ff"]),
                         f"{_count(r['ram'])} {_ram_name(r['device']).split(' (')[0]}", _count(r["slices"]),
                         grouped(r["fmax"]), grouped(r["mbps"]), grouped(r["seconds"]), failed])
        else:
            body.append([r["core"], r["device"], "no: " + r["why"] if r["no_fit"] else "not measured",
                         "–", "–", "–", "–", "–", "–", "–", "–" if r["no_fit"] else failed])
    doc.table(headers, body, align=["l", "l", "l"] + ["r"] * 7 + ["l"],
              notes=["Figures: the median of the seeds that placed and routed. tool s: the build's "
                     "total (elaboration, synthesis, place, route, pack), the median of its seeds (a "
                     "cached build's as measured then)."])
    doc.h(3, "Build time per device")
    headers, body = headline(results)
    doc.table(headers, body, align=["l", "r", "r", "r", "r", "l", "r"],
              notes=["build time: the sum over every seed's build of the device's cores of its total "
                     "as measured (elaboration, synthesis, place, route, pack; a build the cache "
                     "answered counts the time it took when measured); a failed build, its worker's "
                     "time."])
    doc.p("Block RAM per device: " + "; ".join(f"{d}: {_ram_name(d)}"
                                                for d in dict.fromkeys(r["device"] for r in all_rows)) + ".")
