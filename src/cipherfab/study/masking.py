"""The masking study's own parts (:data:`~cipherfab.study.studies.MASKING`): randomness per
point, the robust-probing verdicts beside each point, the open anchors, the Fmax goal
against the unmasked core of the same datapath, and the plot of area against cycles a block.

Randomness is each point's declaration (``CoreInfo.random_bits_per_clock``: the bits its
generators give every clock, times its cycles a block); the robust verdicts from the committed runs of
``cipherfab leakage aes --model robust`` under ``docs/results/leakage/robust/`` (at the
repository root, found from the current folder up), matched to a point by the top module both name.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..generate import make_core
from ..registry import resolve
from .check import repo_root
from .report import grouped, median

ROBUST = Path("docs/results/leakage/robust")
#: the unmasked core of each masked point's datapath (S-boxes -> architecture)
DATAPATH = {20: "iterative", 4: "column", 1: "byte"}
FMAX_WITHIN = 0.25                   #: issue 36: every point's Fmax within 25% of its datapath's
#: published anchors, each on its own device (not built here): (name, shares, LUT, FF,
#: cycles a block, random bits a clock, device, source)
ANCHORS = (
    ("SMAesH", 2, 2701, 3089, 86, 4 * 36, "Artix-7 (LUT6)", "SMAesH documentation, docs/synth_rep/repd2.txt"),
    ("SMAesH", 3, 5511, 6536, 86, 4 * 96, "Artix-7 (LUT6)", "repd3.txt"),
    ("SMAesH", 4, 9068, 11362, 86, 4 * 192, "Artix-7 (LUT6)", "repd4.txt"),
    ("OpenTitan AES (masked, DOM)", 2, None, None, 56, None, "ASIC (no FPGA area published)",
     "OpenTitan hw/ip/aes documentation"),
)


def _masked(params: dict) -> bool:
    return params.get("arch") == "masked"


def _find_robust() -> Path | None:
    """``docs/results/leakage/robust`` at the repository root, if there."""
    root = repo_root()
    return root / ROBUST if root is not None and (root / ROBUST).is_dir() else None


def robust_runs(folder: Path | None) -> dict:
    """Each committed first-order robust run by its top module: its verdict and size (the
    largest run of a top, by simulations)."""
    runs: dict = {}
    for f in sorted(folder.glob("*/results.json")) if folder else []:
        r = json.loads(f.read_text())
        if r.get("model") != "robust" or r.get("transitions"):
            continue
        row = {"run": f.parent.name, "simulations": r["simulations"],
               "max_mlog10p": max(r["max_mlog10p"]), "threshold": r["threshold"],
               "first_failing": r["first_failing"], "seconds": r["seconds"]}
        if row["simulations"] > runs.get(r["top"], {}).get("simulations", -1):
            runs[r["top"]] = row
    return runs


def randomness(params: dict) -> dict:
    """Bits a clock and generated a block, from the point's declaration."""
    p = {k: v for k, v in params.items() if k not in ("cipher", "arch", "device")}
    info = make_core(resolve(params["cipher"], params["arch"], **p)).signature.info
    per_clock, cycles = info.random_bits_per_clock, info.cycles_per_block
    return {"per_clock": per_clock, "per_block": per_clock * cycles, "cycles_per_block": cycles}


def after_builds(records: list[dict], device: str, key_list=None) -> dict:
    folder = _find_robust()
    runs = robust_runs(folder)
    points = {}
    for r in records:
        params = r.get("design") or {}
        if not _masked(params) or r.get("study_point") in points:
            continue
        points[r["study_point"]] = {"top": r.get("top"), "randomness": randomness(params),
                                    "robust": runs.get(r.get("top"))}
    return {"masking": {"points": points,
                        "robust_folder": str(ROBUST) if folder else None}}


# -- the report ---------------------------------------------------------------------------
def _name(params: dict) -> str:
    if _masked(params):
        s, d, g = params.get("sboxes", 20), params.get("shares", 2), params.get("gadget", "hpc2")
        return f"masked, {s} S-box{'es' if s > 1 else ''}, {d} shares, {g.upper()}"
    return f"unmasked {params.get('arch')} {params.get('sbox')}"


def _robust_cell(run: dict | None) -> str:
    if not run:
        return "not run"
    verdict = (f"fails from {run['first_failing']:,}" if run["first_failing"] else "pass")
    return (f"{verdict}: {run['max_mlog10p']:.2f} / {run['threshold']:.2f} at "
            f"{run['simulations']:,} (`{run['run']}`)")


def rows(results: dict) -> list[dict]:
    """One row per point in the study's order, masked and unmasked, built or not."""
    extra = (results.get("masking") or {}).get("points") or {}
    out = []
    for agg in results.get("aggregates") or []:
        params = agg.get("params") or {}
        info = extra.get(agg["label"]) or {}
        bits = info.get("randomness") or {}
        row = {"label": agg["label"], "name": _name(params), "masked": _masked(params),
               "sboxes": params.get("sboxes", 20) if _masked(params) else None,
               "shares": params.get("shares", 2) if _masked(params) else 1,
               "gadget": params.get("gadget", "hpc2") if _masked(params) else None,
               "arch": params.get("arch"), "sbox": params.get("sbox"),
               "ok": bool(agg.get("ok_seeds")),
               "why": "; ".join(dict.fromkeys(f.get("error") or "failed" for f in agg.get("failed") or [])),
               "bits_clock": bits.get("per_clock"), "bits_block": bits.get("per_block"),
               "robust": info.get("robust")}
        for key, path in (("lut4", "area.lut4"), ("ff", "area.ff"), ("fmax", "timing.fmax_mhz"),
                          ("cycles", "performance.cycles_per_block_ecb"),
                          ("mbps", "performance.throughput_ecb_mbps")):
            row[key] = median(agg, path)
        out.append(row)
    return out


def _reference(row: dict, rows_: list[dict], sbox: str) -> dict | None:
    arch = DATAPATH.get(row["sboxes"])
    return next((r for r in rows_ if not r["masked"] and r["arch"] == arch and r["sbox"] == sbox
                 and r["ok"]), None)


def fmax_goals(rows_: list[dict]) -> list[list[str]]:
    """Each built masked point's Fmax against the unmasked core of its datapath (logic
    S-boxes: lut, composite), met when at least 75% of it."""
    body = []
    for r in rows_:
        if not (r["masked"] and r["ok"] and r["fmax"]):
            continue
        cells = []
        for sbox in ("composite", "lut"):
            ref = _reference(r, rows_, sbox)
            if ref is None or not ref["fmax"]:
                cells.append("not in this run")
                continue
            ratio = r["fmax"] / ref["fmax"]
            met = ratio >= 1 - FMAX_WITHIN
            cells.append(f"{ref['fmax']:.1f} MHz: {100 * (ratio - 1):+.0f}%, "
                         f"{'**met**' if met else 'not met'}")
        body.append([r["name"], f"{r['fmax']:.1f}", DATAPATH[r["sboxes"]], *cells])
    return body


def headline(results: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["point", "LUT4", "FF", "Fmax MHz", "cycles a block", "random bits a clock / a block",
               "robust, first order (max -log10 p / threshold)"]
    body = []
    for r in rows(results):
        if not r["masked"]:
            continue
        if not r["ok"]:
            body.append([r["name"], "not built: " + (r["why"] or "failed"), "", "", "", "", ""])
            continue
        body.append([r["name"], grouped(r["lut4"], 0), grouped(r["ff"], 0), grouped(r["fmax"], 1),
                     grouped(r["cycles"], 0), f"{grouped(r['bits_clock'], 0)} / {grouped(r['bits_block'], 0)}",
                     _robust_cell(r["robust"])])
    return headers, body


def section(doc, results: dict) -> None:
    rows_ = rows(results)
    doc.h(2, "Masked points: cost, randomness and the robust-probing verdict")
    doc.p("Each masked point (S-boxes x shares) with its medians over the placer seeds, the bits "
          "its Trivium bank gives every clock (what the gadgets and the key re-sharing take) and a "
          "block (bits a clock x cycles a block), and the largest committed first-order run of "
          "`cipherfab leakage aes --model robust` on the same top module (glitch-extended "
          "probes, fixed-vs-random key; `docs/results/leakage/report.md` has each run's command). "
          "Order d - 1 and d on one S-box in isolation: `docs/guide/leakage-robust.md`.")
    headers, body = headline(results)
    doc.table(headers, body, align=["l", "r", "r", "r", "r", "r", "l"])
    body = fmax_goals(rows_)
    if body:
        doc.table(["masked point", "Fmax MHz", "unmasked datapath", "its composite S-box core",
                   "its lut S-box core"], body, align=["l", "r", "l", "l", "l"],
                  caption=f"Fmax against the unmasked core of the same datapath (goal: within "
                          f"{FMAX_WITHIN:.0%}, same run, medians)")
    doc.table(["anchor (published, not built here)", "shares", "LUT", "FF", "cycles a block",
               "random bits a clock", "device", "source"],
              [[n, str(d), grouped(lut, 0), grouped(ff, 0), str(c), grouped(bits, 0), dev, src]
               for n, d, lut, ff, c, bits, dev, src in ANCHORS],
              align=["l", "r", "r", "r", "r", "r", "l", "l"],
              caption="The open anchors, each on its own device: an Artix-7 LUT6 is not an ECP5 "
                      "LUT4 (compare the shape, not the count)")


def plots(results: dict, folder: Path) -> list[dict]:
    """LUT4 against cycles a block (log axes): each built masked point (labelled S-boxes x
    shares), the unmasked cores of the same datapaths, and the anchors (their own devices)."""
    from .plots import _plt
    pts = [r for r in rows(results) if r["ok"] and r["lut4"] and r["cycles"]]
    if not pts:
        return []
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=110)
    colours = {1: "tab:gray", 2: "tab:blue", 3: "tab:orange", 4: "tab:red"}
    for r in pts:
        marker = "o" if r["masked"] else "s"
        label = (f"{r['sboxes']}S/{r['shares']}d{' DOM' if r['gadget'] == 'dom' else ''}" if r["masked"]
                 else f"{r['arch']} {r['sbox']}")
        if r["gadget"] == "dom":
            marker = "D"
        ax.scatter(r["cycles"], r["lut4"], marker=marker, color=colours.get(r["shares"], "k"), zorder=3)
        below = not r["masked"] and r["sbox"] == "composite"      # the unmasked pairs sit together
        ax.annotate(label, (r["cycles"], r["lut4"]), textcoords="offset points",
                    xytext=(5, -10 if below else 4), fontsize=7)
    for n, d, lut, _, c, _, dev, _ in ANCHORS:
        if lut:
            ax.scatter(c, lut, marker="^", color=colours.get(d, "k"), edgecolors="k", zorder=3)
            ax.annotate(f"{n} {d}d ({dev})", (c, lut), textcoords="offset points", xytext=(5, -10),
                        fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for n, d, lut, _, c, _, dev, _ in ANCHORS:
        if not lut:
            ax.axvline(c, color="tab:green", linestyle=":", linewidth=1)
            ax.annotate(f"{n}: {c} cycles", (c, ax.get_ylim()[0]), textcoords="offset points",
                        xytext=(3, 6), fontsize=7, rotation=90, color="tab:green")
    ax.set_xlabel("cycles a block (back to back)")
    ax.set_ylabel("LUT4 (ECP5; anchors: LUT6 on their device)")
    ax.set_title(f"masking: area against cycles a block on {results.get('device', '')}")
    ax.grid(True, which="both", alpha=0.3)
    path = Path(folder) / "area_vs_cycles_per_block.png"
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return [{"file": path.name, "title": "Area against cycles a block",
             "caption": "Medians over seeds, log axes. Circles: masked points (S-boxes/shares, "
                        "colour = shares); squares: unmasked cores; triangles: published "
                        "anchors on their own devices (LUT6); dotted: a published cycle count "
                        "with no FPGA area."}]
