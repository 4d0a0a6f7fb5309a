"""The families study's own tables (:data:`~cipherfab.study.studies.FAMILIES`): each core on
each device, fit or no fit, in the device family's own units, and the time its build took.

A point that does not fit is a failed build whose error names the device, the resource and
the count (``design does not fit: needs 9,120 LC, ice40-up5k has 5280``); the table says so
instead of leaving the row out.
"""

from __future__ import annotations

from ..flow.devices import get_device

NO_FIT = "design does not fit: "


def _core(params: dict) -> str:
    """How a table names a core: ``iterative lut``, ``interleaved rom, 3 stages``."""
    name = f"{params.get('arch')} {params.get('sbox')}"
    return name + (f", {params['stages']} stages" if params.get("stages") else "")


def _seconds(rec: dict) -> float | None:
    """The build's tool time: synthesis, place, route (and pack), as the record measured it."""
    t = rec.get("times") or {}
    parts = [t.get(k) for k in ("synthesize", "place", "route", "pack")]
    return round(sum(p for p in parts if p), 1) if any(parts) else None


def rows(results: dict) -> list[dict]:
    """One row per (device, core), in the study's point order; seed 1's record."""
    by_label = {}
    for r in results.get("records") or []:
        by_label.setdefault(r.get("study_point"), r)
    out = []
    for p in results.get("points") or []:
        rec = by_label.get(p["label"])
        if rec is None:
            continue
        device = p["params"].get("device", results.get("device"))
        row = {"device": device, "core": _core(p["params"]), "ok": rec.get("status") == "ok",
               "seconds": _seconds(rec) if rec.get("status") == "ok" else None,
               "worker_seconds": rec.get("worker_seconds"), "cached": bool(rec.get("cached"))}
        if row["ok"]:
            a, t, perf = rec.get("area") or {}, rec.get("timing") or {}, rec.get("performance") or {}
            row.update(lut4=a.get("lut4", a.get("lut")), ff=a.get("ff"), ram=a.get("ebr", 0),
                       slices=a.get("slices"), fmax=t.get("fmax_mhz"),
                       mbps=perf.get("throughput_ecb_mbps"), lc=a.get("lc"))
        else:
            err = rec.get("error") or "failed"
            row["why"] = err.removeprefix(NO_FIT) if err.startswith(NO_FIT) else err
            row["no_fit"] = err.startswith(NO_FIT)
        out.append(row)
    return out


def _ram_name(device: str) -> str:
    try:
        ram = get_device(device).kind.block_ram
    except Exception:   # noqa: BLE001 - a device this installation no longer knows
        return "block RAM"
    return f"{ram.name} ({ram.kbits} kbit)" if ram else "block RAM"


def _fmt(v, nd=1) -> str:
    if v is None:
        return "–"
    return f"{v:,.{nd}f}" if isinstance(v, float) else f"{v:,}"


def headline(results: dict) -> tuple[list[str], list[list[str]]]:
    """Per device: how many cores fit, the default iterative core's area and speed, the fastest
    core that fits, and the time the device's builds took."""
    headers = ["device", "cores that fit", "iterative lut: LUT4 / FF", "its Fmax MHz",
               "its ECB Mbit/s", "fastest that fits (ECB Mbit/s)", "build time, s"]
    body = []
    all_rows = rows(results)
    for device in dict.fromkeys(r["device"] for r in all_rows):
        mine = [r for r in all_rows if r["device"] == device]
        ok = [r for r in mine if r["ok"]]
        it = next((r for r in ok if r["core"] == "iterative lut"), None)
        fast = max(ok, key=lambda r: r.get("mbps") or 0, default=None)
        body.append([device, f"{len(ok)} of {len(mine)}",
                     f"{_fmt(it['lut4'])} / {_fmt(it['ff'])}" if it else "no fit",
                     _fmt(it["fmax"]) if it else "–", _fmt(it["mbps"]) if it else "–",
                     f"{fast['core']} ({_fmt(fast['mbps'])})" if fast else "none",
                     _fmt(sum(r["worker_seconds"] or 0 for r in mine))])
    return headers, body


def section(doc, results: dict) -> None:
    all_rows = rows(results)
    doc.h(2, "Each core on each family")
    doc.p("Area in each family's own cells, from the placed design: LUT4 (GateMate: its LUT "
          "trees), flip-flops, block RAMs, and the family's slice figure (ECP5 and Gowin: slices "
          "of 2 LUT4 and 2 FF; Nexus: slices of 2 LUT4; iCE40: logic cells; GateMate: CPEs "
          "occupied). Outside ECP5 the core sits behind the serial I/O wrapper, whose area is "
          "counted with it. Fmax is nextpnr's for the core's clock; ECB throughput is "
          "128 bits x Fmax / cycles per block. Build time is the tools' own (synthesis, place, "
          "route, pack) for a build measured in this run; a cached one shows the time it took "
          "when it was measured.")
    headers = ["core", "device", "fits", "LUT4", "FF", "block RAM", "slices / cells", "Fmax MHz",
               "ECB Mbit/s", "build s"]
    body = []
    for r in all_rows:
        if r["ok"]:
            body.append([r["core"], r["device"], "yes", _fmt(r["lut4"]), _fmt(r["ff"]),
                         f"{_fmt(r['ram'])} {_ram_name(r['device']).split(' (')[0]}", _fmt(r["slices"]),
                         _fmt(r["fmax"]), _fmt(r["mbps"]), _fmt(r["seconds"])])
        else:
            body.append([r["core"], r["device"], ("no: " if r.get("no_fit") else "failed: ") + r["why"],
                         "–", "–", "–", "–", "–", "–", "–"])
    doc.table(headers, body, align=["l", "l", "l"] + ["r"] * 7)
    doc.h(3, "Build time per device")
    headers, body = headline(results)
    doc.table(headers, body, align=["l", "r", "r", "r", "r", "l", "r"],
              notes=["build time: the workers' wall time for the device's builds (elaboration, "
                     "synthesis, place and route), failed ones included."])
    doc.p("Block RAM per device: " + "; ".join(f"{d}: {_ram_name(d)}"
                                                for d in dict.fromkeys(r["device"] for r in all_rows)) + ".")
