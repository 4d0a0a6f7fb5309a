"""``cipherfab pick``: which measured core point fits a budget, from committed study results.

The answer comes only from records a study measured (``results.json``): the
median over placer seeds of LUT4, EBR, Fmax and ECB throughput.  A point fits
when it meets every given limit and the target device's capacity; the smallest
one (LUT4, then EBR) wins, or the fastest with ``--fastest``.  The answer names
the device the numbers were measured on, and the ``generate`` command that
writes the core.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import CipherfabError
from ..flow.devices import DEVICES, get_device

#: LUT4 and EBR (18 kbit) of the ECP5 parts (Lattice ECP5 family data sheet, table 1.1).
CAPACITY = {"ecp5-25k": (24_288, 56), "ecp5-45k": (43_848, 108), "ecp5-85k": (83_640, 208)}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "pick", help="the smallest (or fastest) measured core that meets a throughput and area budget",
        description="Answer from committed study results (docs/results/*/results.json, or --results): "
                    "the smallest measured core point of CIPHER that reaches --min-gbps within the "
                    "limits and fits the device, with its numbers and the generate command.")
    p.add_argument("cipher", metavar="CIPHER", help="cipher, e.g. aes")
    p.add_argument("--device", default="ecp5-85k", help=f"the device it must fit: {', '.join(CAPACITY)}")
    p.add_argument("--min-gbps", type=float, default=0.0, help="least ECB throughput, Gbit/s")
    p.add_argument("--max-lut4", type=int, help="most LUT4")
    p.add_argument("--max-ebr", type=int, help="most block RAMs (EBR)")
    p.add_argument("--key-agile", action="store_true", help="only cores that take a new key with every block")
    p.add_argument("--fastest", action="store_true", help="the fastest point within the budget instead")
    p.add_argument("--results", nargs="+", metavar="FILE", help="results.json files (default: docs/results/*/)")
    p.set_defaults(func=run)


def _results_files(given) -> list[Path]:
    if given:
        return [Path(f) for f in given]
    for folder in (Path.cwd(), *Path.cwd().parents):
        found = sorted((folder / "docs" / "results").glob("*/results.json"))
        if found:
            return found
    raise CipherfabError("no study results found (docs/results/*/results.json); "
                         "run `cipherfab study aes-space` or give --results FILE")


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except OSError as e:
        raise CipherfabError(f"cannot read {path}: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CipherfabError(f"{path} is not a results.json: {e}") from None


def candidates(files, cipher: str) -> list[dict]:
    """One row per measured generated point of ``cipher``: params, medians and where measured."""
    rows = {}
    for path in files:
        res = _load(path)
        if not isinstance(res, dict) or "aggregates" not in res:
            raise CipherfabError(f"{path} is not a results.json (no aggregates)")
        for agg in res["aggregates"]:
            p, st = agg.get("params") or {}, agg.get("stats") or {}
            if agg.get("external") or p.get("cipher") != cipher or not agg.get("ok_seeds"):
                continue
            med = {k: (st.get(k) or {}).get("median") for k in
                   ("area.lut4", "area.ebr", "area.ff", "timing.fmax_mhz", "performance.throughput_ecb_mbps")}
            if None in (med["area.lut4"], med["performance.throughput_ecb_mbps"]):
                continue
            rows[agg["label"]] = {"label": agg["label"], "params": p, "device": str(res.get("device") or "?"),
                                  "file": str(path), **med}
    return list(rows.values())


def _key_agile(params: dict) -> bool:
    from ..generate import declaration
    from ..registry import resolve
    values = {k: v for k, v in params.items() if k not in ("cipher", "arch")}
    return declaration(resolve(params["cipher"], params["arch"], **values)).key_interface == "per_block"


def pick(rows: list[dict], *, device: str, min_gbps: float = 0.0, max_lut4=None, max_ebr=None,
         key_agile: bool = False, fastest: bool = False) -> tuple[dict | None, int]:
    """(the chosen row or None, how many rows fit)."""
    lut_cap, ebr_cap = CAPACITY[device]
    fits = [r for r in rows
            if r["performance.throughput_ecb_mbps"] >= 1000 * min_gbps
            and r["area.lut4"] <= min(lut_cap, max_lut4 if max_lut4 is not None else lut_cap)
            and (r["area.ebr"] or 0) <= min(ebr_cap, max_ebr if max_ebr is not None else ebr_cap)
            and (not key_agile or _key_agile(r["params"]))]
    if fastest:
        fits.sort(key=lambda r: (-r["performance.throughput_ecb_mbps"], r["area.lut4"]))
    else:
        fits.sort(key=lambda r: (r["area.lut4"], r["area.ebr"] or 0, -r["performance.throughput_ecb_mbps"]))
    return (fits[0] if fits else None), len(fits)


def generate_command(params: dict) -> str:
    opts = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in params.items() if k != "cipher")
    return f"cipherfab generate {params['cipher']} {opts}"


def run(args) -> int:
    if args.device not in CAPACITY:
        get_device(args.device)                   # unknown names: the flow's one-line error
        raise CipherfabError(f"pick knows the capacity of {', '.join(CAPACITY)} only, not {args.device} "
                             f"(devices: {', '.join(DEVICES)})")
    if args.min_gbps < 0:
        raise CipherfabError(f"--min-gbps must be >= 0, got {args.min_gbps}")
    rows = candidates(_results_files(args.results), args.cipher)
    if not rows:
        raise CipherfabError(f"no measured {args.cipher} points in the study results")
    best, n = pick(rows, device=args.device, min_gbps=args.min_gbps, max_lut4=args.max_lut4,
                   max_ebr=args.max_ebr, key_agile=args.key_agile, fastest=args.fastest)
    if best is None:
        print(f"no measured {args.cipher} point meets the budget ({len(rows)} points measured)")
        return 1
    print(f"{'fastest' if args.fastest else 'smallest'} of {n} fitting points: {best['label']}")
    print(f"  {best['area.lut4']:.0f} LUT4, {best['area.ff']:.0f} FF, {best['area.ebr']:.0f} EBR; "
          f"Fmax {best['timing.fmax_mhz']:.1f} MHz; ECB {best['performance.throughput_ecb_mbps'] / 1000:.2f} Gbit/s "
          f"(medians over seeds, measured on {best['device']}; from {best['file']})")
    print(f"  {generate_command(best['params'])}")
    return 0
