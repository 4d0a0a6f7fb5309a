"""The ``key-specific`` study (paper 004): every key-specific variant for N random keys.

Paper 004 builds each variant of an iterative and a pipelined AES-128 (and DES) core for
100 random keys and reports averages of area, speed and generation time (Tables 1-6).
Here every variant of every cipher's ``key_specific*`` architectures is built for N keys
(``--keys N``, default 100; ``--keys 5`` for a quick run), beside the generic core of
the same shape (paper 004's "original"), on one placer seed: the keys give the spread.
The tables give min / median / max over keys and the change of the median against the
generic core.  After the builds, each re-keyable variant (block-RAM key, see
:mod:`cipherfab.flow.rekey`) is built once in context for the first key and re-keyed to
every other key, each result checked (read-back and a gate-level simulation of 200
blocks); its re-keying time stands next to the full rebuild time of the same design.
"""

from __future__ import annotations

import random
import statistics
import tempfile
from pathlib import Path

#: (cipher, generic point, key-specific arches with their variant parameters, key bits)
FAMILIES = (
    ("aes", {"arch": "iterative", "key_bits": 128, "direction": "encrypt", "sbox": "rom"},
     "key_specific", {"sbox": "rom"}, 128, ""),
    ("aes", {"arch": "pipeline", "key_bits": 128, "direction": "encrypt", "sbox": "rom", "stages": 1},
     "key_specific_pipeline", {"sbox": "rom", "stages": 1}, 128, "pl_"),
    ("tdes", {"arch": "iterative", "key_bits": 64, "direction": "encrypt"},
     "key_specific", {"key_bits": 64, "direction": "encrypt"}, 64, ""),
    ("tdes", {"arch": "pipeline", "key_bits": 64, "direction": "encrypt"},
     "key_specific_pipeline", {"key_bits": 64, "direction": "encrypt"}, 64, "pl_"),
)
REKEYED = (("aes", "key_specific", "xor_by_rom_all"), ("aes", "key_specific", "fixed_round_key_rom"))
CHECK_BLOCKS = 200
METRICS = (("LUT4", "area.lut4", 0), ("FF", "area.ff", 0), ("EBR", "area.ebr", 0),
           ("Fmax MHz", "timing.fmax_mhz", 1), ("Mbit/s", "performance.throughput_ecb_mbps", 1))
STAGES = ("elaborate", "synthesize", "place", "route", "total")


def keys(n: int) -> list[str]:
    """N random 128-bit keys, the same for every run (DES takes the first 64 bits)."""
    rng = random.Random("cipherfab key-specific study")
    return [rng.randbytes(16).hex() for _ in range(n)]


def _variants(cipher: str, arch: str) -> tuple:
    from ..registry import get_cipher
    return get_cipher(cipher).arch(arch).param("variant").values


def points(key_list: list[str]) -> list[dict]:
    out = []
    for cipher, generic, arch, fixed, bits, _ in FAMILIES:
        out.append({"cipher": cipher, **generic})
        for v in _variants(cipher, arch):
            for k in key_list:
                out.append({"cipher": cipher, "arch": arch, **fixed, "variant": v, "key": k[:bits // 4]})
    return out


def _get(rec: dict, path: str):
    for part in path.split("."):
        rec = rec.get(part) if isinstance(rec, dict) else None
    return rec


def rows(results: dict) -> list[dict]:
    """One row per (cipher, family, variant): min/median/max over keys of each metric and of
    each generation stage, and the median's change against the family's generic core."""
    recs = [r for r in results.get("records", []) if r.get("status") == "ok"]
    out = []
    for cipher, generic, arch, fixed, bits, prefix in FAMILIES:
        def match(r, sel):
            d = r.get("design") or {}
            return all(d.get(k) == v for k, v in sel.items())
        base = [r for r in recs if match(r, {"cipher": cipher, **generic})]
        groups = [("original", base)] + [
            (f"{prefix}{v}", [r for r in recs if match(r, {"cipher": cipher, "arch": arch, "variant": v})])
            for v in _variants(cipher, arch)]
        base_med = {path: _median(base, path) for _, path, _ in METRICS}
        for name, group in groups:
            if not group:
                continue
            row = {"cipher": cipher, "name": f"{prefix}original" if name == "original" else name,
                   "keys": len({(r.get("design") or {}).get("key") for r in group}), "metrics": {},
                   "times": {}, "change": {}, "cached": sum(1 for r in group if r.get("cached"))}
            for label, path, nd in METRICS:
                vals = [v for v in (_get(r, path) for r in group) if v is not None]
                row["metrics"][label] = _stats(vals)
                med, b = row["metrics"][label].get("median"), base_med.get(path)
                if med is not None and b:
                    row["change"][label] = round(100 * (med - b) / b, 1)
            for stage in STAGES:
                row["times"][stage] = _stats([v for v in (_get(r, f"times.{stage}") for r in group)
                                              if v is not None])
            out.append(row)
    return out


def _median(group, path):
    vals = [v for v in (_get(r, path) for r in group) if v is not None]
    return statistics.median(vals) if vals else None


def _stats(vals):
    if not vals:
        return {}
    return {"min": min(vals), "median": statistics.median(vals), "max": max(vals), "n": len(vals)}


def after_builds(records, device: str, key_list: list[str]) -> dict:
    """The study's measurement after its builds: re-keying (an error kept as a row)."""
    from .jobs import one_line
    try:
        return {"rekey": measure_rekey(key_list, device)}
    except Exception as e:
        return {"rekey": [{"cipher": "-", "variant": "-", "error": one_line(e)}]}


def measure_rekey(key_list: list[str], device: str, console=None) -> list[dict]:
    """Build each re-keyable variant in context for the first key, re-key it to the others."""
    from ..errors import CipherfabError
    from ..flow.devices import get_device
    from ..flow.incontext import build_bitstream
    from ..flow.rekey import rekey
    from ..flow.source import design_source
    out = []
    if len(key_list) < 2:
        return out
    for cipher, arch, variant in REKEYED:
        entry = {"cipher": cipher, "arch": arch, "variant": variant, "keys": len(key_list) - 1}
        try:
            with tempfile.TemporaryDirectory(prefix="cipherfab-rekey-") as tmp:
                src = design_source(cipher, arch=arch, variant=variant, key=key_list[0])
                m = build_bitstream(src, Path(tmp) / "build", get_device(device))
                entry["build_times"] = m["times"]
                entry["block_rams"] = len({c["wid"] for c in m["cells"]})
                runs = []
                for k in key_list[1:]:
                    r = rekey(Path(tmp) / "build", k, Path(tmp) / k, blocks=CHECK_BLOCKS)
                    runs.append({"key": k, "times": r["times"], "check": r["check"]})
                entry["rekey_total"] = _stats([r["times"]["total"] for r in runs])
                entry["check_seconds"] = _stats([r["check"]["seconds"] for r in runs])
                entry["checked"] = sum(1 for r in runs if r["check"])
                entry["runs"] = runs
        except CipherfabError as e:
            entry["error"] = str(e)
        out.append(entry)
    return out


def _cell(s: dict, nd: int) -> str:
    if not s:
        return "-"
    f = (lambda v: f"{v:.{nd}f}") if nd else (lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    if s["min"] == s["max"]:
        return f(s["median"])
    return f"{f(s['median'])} ({f(s['min'])}-{f(s['max'])})"


def headline(results: dict) -> tuple[list[str], list[list[str]]]:
    """The variants table (also the README's): median (min-max) over keys, change of the
    median against the generic core."""
    headers = ["cipher", "variant", "keys"] + [m[0] for m in METRICS] + ["LUT4 change", "Mbit/s change"]
    body = []
    for r in rows(results):
        body.append([r["cipher"], _name(r), str(r["keys"])]
                    + [_cell(r["metrics"][m[0]], m[2]) for m in METRICS]
                    + [f"{r['change']['LUT4']:+.1f}%" if "LUT4" in r["change"] else "-",
                       f"{r['change']['Mbit/s']:+.1f}%" if "Mbit/s" in r["change"] else "-"])
    return headers, body


def _name(row: dict) -> str:
    """The variant's name, marked † when some of its builds came from the build cache."""
    from .report import CACHED_MARK
    return row["name"] + (f" {CACHED_MARK}" if row.get("cached") else "")


def section(doc, results: dict) -> None:
    """The study's own tables (paper 004 Tables 1-6 shape) into a report ``Doc``."""
    n = len(results.get("keys") or [])
    rs = rows(results)
    doc.h(2, f"Key-specific variants over {n} random keys (paper 004 Tables 1, 2, 4 shape)")
    doc.p("Median over keys (min-max in brackets); 'original' is the generic core of the same "
          "shape with its key port (paper 004: Usselmann's cores). Change = median against the "
          "original's. Paper 004's numbers (Virtex-II XC2V4000, Leonardo Spectrum + ISE 8.1, "
          "averages over 100 keys) are printed in the published tables below.")
    headers, body = headline(results)
    doc.table(headers, body, align=["l", "l", "r"] + ["r"] * (len(headers) - 3))
    doc.h(3, "Generation time per stage (paper 004 Tables 3 and 5 shape), seconds")
    from .report import CACHED_MARK
    doc.table(["cipher", "variant"] + list(STAGES),
              [[r["cipher"], _name(r)] + [_cell(r["times"][s], 1) for s in STAGES] for r in rs],
              align=["l", "l"] + ["r"] * len(STAGES),
              notes=[f"{CACHED_MARK} Includes builds reused from the build cache: their stage times "
                     "are those of the original builds, not of this run."]
              if any(r.get("cached") for r in rs) else [])
    rk = results.get("rekey") or []
    doc.h(3, "Re-keying without synthesis (beyond paper 004) beside the full rebuild")
    if not rk:
        doc.p("Not measured (it needs the real flow and at least two keys).")
        return
    doc.p("Each variant built once in context (behind the shared serial I/O wrapper, bitstream "
          "packed) for the first key, then `cipherfab rekey` to every other key: elaborate, "
          "patch the block-RAM contents of the config, pack. Every result checked: read-back "
          f"of the bitstream and a gate-level simulation of {CHECK_BLOCKS} random blocks. Paper "
          "004 regenerates each circuit: 100 s (iterative) to 1685 s (pipelined) with vendor "
          "tools.")
    body = []
    for e in rk:
        if "error" in e:
            body.append([f"{e['cipher']} {e['variant']}", "-", "-", "-", "-", e["error"]])
            continue
        b = e["build_times"]
        body.append([f"{e['cipher']} {e['variant']}", str(e["keys"]), _cell(e["rekey_total"], 2),
                     f"{b['total']:.1f} (synthesize {b['synthesize']:.1f}, place and route "
                     f"{b['place_route']:.1f}, pack {b['pack']:.1f})",
                     f"{b['total'] / e['rekey_total']['median']:.1f}x",
                     f"{e['checked']}/{e['keys']} ok ({_cell(e['check_seconds'], 1)} s each)"])
    doc.table(["design", "re-keyed", "rekey s (wall)", "full in-context build s", "speed-up", "checked"],
              body, align=["l", "r", "r", "l", "r", "l"])
