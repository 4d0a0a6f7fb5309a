"""``cipherfab pick``: which measured core point fits a budget, from committed study results.

The answer comes only from records a study measured: the median over placer seeds of LUT4,
EBR, Fmax and ECB throughput.  A point fits when it meets every given limit and the target
device's capacity (its family's declaration, :mod:`cipherfab.flow.families`); the smallest one
(LUT4, then block RAM) wins, or the fastest with ``--fastest``.  Only points measured on the
device's own family answer for it; ``--device any`` chooses across families, each point
against the capacity of the device it was measured on.  The answer names that device and
the ``generate`` command that writes the core.  Key-specific circuits (one random study key
built in) are never an answer.

The committed results (``docs/results/<study>/results.json``) ship inside the package as
compact copies (``cipherfab/study/measured/<study>.json``: what pick reads of them), so pick
answers from any folder and from an installed wheel; ``--results PATH`` reads other results
(a results.json, or a folder holding one or ``*/results.json``).  After a study rewrites
``docs/results``, refresh the copies with ``python -m cipherfab.study.pick --refresh``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
from importlib import resources
from pathlib import Path

from ..argtypes import non_negative, non_negative_number
from ..errors import CipherfabError
from ..flow.devices import DEVICES, get_device
from ..flow.options import NAMES as FLOW_OPTIONS
from ..userfiles import input_file, lookup, read_text

#: what ``--device`` takes besides a device: every device of every family
ANY = "any"


def capacity(device: str) -> tuple[int, int, int] | None:
    """(LUT4, FF, block RAMs) of a placed device, from its family's declaration; None: unknown."""
    dev = get_device(device)
    cap = None if dev.synthesis_only else dev.kind.capacity(device)
    return (cap["lut4"], cap["ff"], cap["ram"]) if cap else None


def _capacities() -> list[str]:
    return [d for d in DEVICES if capacity(d)]

#: the medians pick reads of each aggregate
METRICS = ("area.lut4", "area.ebr", "area.ff", "timing.fmax_mhz", "performance.throughput_ecb_mbps")

#: the shipped copies: this folder of the package, one ``<study>.json`` per committed study
SHIPPED = "measured"

#: where the committed results live in a checkout (for ``--refresh``)
REPO_RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "pick", help="the smallest (or fastest) measured core that meets a throughput and area budget",
        description="Answer from the committed study results (shipped with cipherfab; or "
                    "--results PATH): the smallest measured core point of CIPHER that reaches "
                    "--min-gbps within the limits and fits the device, with its numbers and the "
                    "generate command.")
    p.add_argument("cipher", metavar="CIPHER", help="cipher, e.g. aes")
    p.add_argument("--device", default="ecp5-85k",
                   help=f"the device it must fit ({', '.join(_capacities())}), or {ANY}: the best "
                        "point of any family, on the device it was measured on")
    p.add_argument("--min-gbps", type=non_negative_number, default=0.0,
                   help="least ECB throughput, Gbit/s (a finite number >= 0)")
    p.add_argument("--max-lut4", type=non_negative, metavar="N", help="most LUT4 (>= 0)")
    p.add_argument("--max-ebr", type=non_negative, metavar="N",
                   help="most block RAMs (the family's: EBR, BSRAM, RAM4K; >= 0)")
    p.add_argument("--key-agile", action="store_true", help="only cores that take a new key with every block")
    p.add_argument("--fastest", action="store_true", help="the fastest point within the budget instead")
    p.add_argument("--results", nargs="+", metavar="PATH",
                   help="results.json files, or folders holding results.json or */results.json "
                        "(default: the committed results shipped with cipherfab)")
    p.set_defaults(func=run)


# ------------------------------------------------------------------------------ the files

def shipped_files() -> list[Path]:
    """The compact copies of the committed study results inside the installed package."""
    folder = Path(str(resources.files("cipherfab") / "study" / SHIPPED))
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _in_folder(folder: Path) -> list[Path]:
    if os.path.lexists(folder / "results.json"):      # a FIFO there is refused when read
        return [folder / "results.json"]
    found = sorted(folder.glob("*/results.json"))
    if not found:
        raise CipherfabError(f"no results.json in {folder} (nor in its subfolders)")
    return found


def _results_files(given) -> list[Path]:
    if not given:
        files = shipped_files()
        if not files:
            raise CipherfabError("no study results shipped with this installation; give "
                                 "--results PATH (a study's results.json)")
        return files
    files = []
    for name in given:
        if not name.strip():
            raise CipherfabError("--results: empty path")
        kind = _kind(Path(name))
        if kind == "folder":
            files += _in_folder(Path(name))
        elif kind == "special":
            input_file(name, "json", "--results")       # names what it is, in one line
        else:                   # a file, or nothing there: reading it says which
            files.append(Path(name))
    return files


def _kind(path: Path) -> str | None:
    """"file", "folder", "special" (a device, a FIFO: reading would not end) or None (no such
    path: the read that follows says so); a name that cannot be looked up is one line."""
    st = lookup(path, "--results")
    if st is None:
        return None
    return "folder" if stat.S_ISDIR(st.st_mode) else "file" if stat.S_ISREG(st.st_mode) else "special"


def _load(path: Path) -> dict:
    try:
        data = json.loads(read_text(path, "json", "--results"))
    except json.JSONDecodeError as e:
        raise CipherfabError(f"{path} is not a results.json: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("aggregates"), list):
        raise CipherfabError(f"{path} is not a results.json (no list of aggregates)")
    return data


# ------------------------------------------------------------------------------ the rows

def _pickable(agg: dict) -> bool:
    """A generated point that built: not an external core, not a key-specific circuit,
    whose random study key nobody else holds, and not built with a flow option (the
    generate command gives the core, and every answer is measured with the default flow)."""
    params = agg.get("params") or {}
    return bool(not agg.get("external") and agg.get("ok_seeds") and "key" not in params
                and params.get("cipher") and not any(k in params for k in FLOW_OPTIONS))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _medians(agg: dict, path: Path, index: int) -> dict:
    """The medians of METRICS (None where not measured); one line naming what is malformed."""
    where = f"{path}: aggregate {index} ({agg.get('label', 'no label')})"
    stats = {} if agg.get("stats") is None else agg["stats"]
    if not isinstance(stats, dict):
        raise CipherfabError(f"{where} is malformed: stats is not an object")
    med = {}
    for m in METRICS:
        s = stats.get(m)
        v = s.get("median") if isinstance(s, dict) else s
        if v is not None and not (_number(v) and v >= 0):
            raise CipherfabError(f"{where} is malformed: the {m} median is {v!r}, not a number >= 0")
        med[m] = v
    return med


def _check_aggregate(agg, path: Path, index: int) -> None:
    if not (isinstance(agg, dict) and isinstance(agg.get("label"), str)
            and isinstance(agg.get("params", {}), dict) and isinstance(agg.get("ok_seeds", []), list)):
        raise CipherfabError(f"{path}: aggregate {index} is malformed (needs a label, params, "
                             "ok_seeds and stats)")


def _source(path: Path, res: dict) -> str:
    """How the answer names where its numbers come from."""
    if path.parent.name == SHIPPED and path.parent.parent.name == "study":
        date = str(res.get("finished") or "")[:10]
        return f"study {path.stem} shipped with cipherfab" + (f", measured {date}" if date else "")
    return str(path)


def candidates(files, cipher: str) -> list[dict]:
    """One row per measured generated point of ``cipher``: params, medians and where measured."""
    rows = {}
    for path in files:
        path = Path(path)
        res = _load(path)
        for i, agg in enumerate(res["aggregates"]):
            _check_aggregate(agg, path, i)
            if not _pickable(agg) or agg["params"].get("cipher") != cipher:
                continue
            med = _medians(agg, path, i)
            if None in (med["area.lut4"], med["performance.throughput_ecb_mbps"]):
                continue
            params = {k: v for k, v in agg["params"].items() if k != "device"}
            rows[agg["label"]] = {"label": agg["label"], "params": params,
                                  "device": str(agg["params"].get("device") or res.get("device") or "?"),
                                  "file": _source(path, res), **med}
    return list(rows.values())


def _key_agile(params: dict) -> bool:
    from ..generate import declaration
    from ..registry import resolve
    values = {k: v for k, v in params.items() if k not in ("cipher", "arch")}
    return declaration(resolve(params["cipher"], params["arch"], **values)).key_interface == "per_block"


def pick(rows: list[dict], *, device: str, min_gbps: float = 0.0, max_lut4=None, max_ebr=None,
         key_agile: bool = False, fastest: bool = False) -> tuple[dict | None, int]:
    """(the chosen row or None, how many rows fit).  A row answers for ``device`` when it was
    measured on a device of the same family (ECP5 parts share their cells); for ``any``, for
    the device it was measured on."""
    def answers(r) -> bool:
        on = r["device"] if device == ANY else device
        if on not in DEVICES or r["device"] not in DEVICES \
                or get_device(r["device"]).family != get_device(on).family:
            return False
        cap = capacity(on)
        if cap is None:
            return False
        lut_cap, ff_cap, ram_cap = cap
        return (r["performance.throughput_ecb_mbps"] >= 1000 * min_gbps
                and r["area.lut4"] <= min(lut_cap, max_lut4 if max_lut4 is not None else lut_cap)
                and (r["area.ff"] or 0) <= ff_cap
                and (r["area.ebr"] or 0) <= min(ram_cap, max_ebr if max_ebr is not None else ram_cap)
                and (not key_agile or _key_agile(r["params"])))
    fits = [r for r in rows if answers(r)]
    if fastest:
        fits.sort(key=lambda r: (-r["performance.throughput_ecb_mbps"], r["area.lut4"]))
    else:
        fits.sort(key=lambda r: (r["area.lut4"], r["area.ebr"] or 0, -r["performance.throughput_ecb_mbps"]))
    return (fits[0] if fits else None), len(fits)


def generate_command(params: dict) -> str:
    opts = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in params.items() if k != "cipher")
    return f"cipherfab generate {params['cipher']} {opts}"


def _check_device(name: str) -> None:
    if name == ANY:
        return
    if capacity(name) is None:             # unknown names: the flow's one-line error first
        raise CipherfabError(f"pick knows the capacity of {', '.join(_capacities())} only, not {name} "
                             f"(it is synthesis only: no placed point is measured on it)")


def _fmt(v, spec: str) -> str:
    return "?" if v is None else format(v, spec)


def run(args) -> int:
    from ..registry import get_cipher
    get_cipher(args.cipher)                   # unknown ciphers: the registry's one-line error
    _check_device(args.device)
    rows = candidates(_results_files(args.results), args.cipher)
    if not rows:
        raise CipherfabError(f"no measured {args.cipher} points in the study results")
    best, n = pick(rows, device=args.device, min_gbps=args.min_gbps, max_lut4=args.max_lut4,
                   max_ebr=args.max_ebr, key_agile=args.key_agile, fastest=args.fastest)
    if best is None:
        print(f"no measured {args.cipher} point meets the budget ({len(rows)} points measured)")
        return 1
    print(f"{'fastest' if args.fastest else 'smallest'} of {n} fitting points: {best['label']}")
    ram = get_device(best["device"]).kind.block_ram if best["device"] in DEVICES else None
    print(f"  {best['area.lut4']:.0f} LUT4, {_fmt(best['area.ff'], '.0f')} FF, "
          f"{best['area.ebr'] or 0:.0f} {ram.name if ram else 'EBR'}; Fmax {_fmt(best['timing.fmax_mhz'], '.1f')} MHz; "
          f"ECB {best['performance.throughput_ecb_mbps'] / 1000:.2f} Gbit/s "
          f"(medians over seeds, measured on {best['device']}; from {best['file']})")
    print(f"  {generate_command(best['params'])}")
    return 0


# ------------------------------------------------------------------------- shipped copies

def compact(results: dict) -> dict:
    """What pick reads of a results.json: the study, device and date, and per pickable point
    its label, parameters, seeds and the medians of METRICS."""
    aggs = []
    for agg in results.get("aggregates") or []:
        if not _pickable(agg):
            continue
        stats = agg.get("stats") or {}
        aggs.append({"label": agg["label"], "params": agg["params"], "external": False,
                     "ok_seeds": agg["ok_seeds"],
                     "stats": {m: {"median": stats[m]["median"]} for m in METRICS if m in stats}})
    return {"schema": 1, "study": {"name": (results.get("study") or {}).get("name")},
            "command": results.get("command"), "finished": results.get("finished"),
            "device": results.get("device"), "aggregates": aggs}


def shipped_text(results_json: Path) -> str:
    """The shipped copy of one committed results.json, as it is written in the package."""
    return json.dumps(compact(_load(results_json)), indent=1) + "\n"


def refresh(source: Path = REPO_RESULTS) -> list[Path]:
    """Rewrite the package's copies from ``source/<study>/results.json`` (a checkout's
    docs/results); copies of studies no longer there are removed."""
    files = sorted(source.glob("*/results.json"))
    if not files:
        raise CipherfabError(f"no */results.json under {source}")
    target = Path(__file__).resolve().parent / SHIPPED
    target.mkdir(exist_ok=True)
    written = []
    for f in files:
        out = target / f"{f.parent.name}.json"
        out.write_text(shipped_text(f))
        written.append(out)
    for old in set(target.glob("*.json")) - set(written):
        old.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m cipherfab.study.pick --refresh [DOCS_RESULTS]``: refresh the shipped copies."""
    parser = argparse.ArgumentParser(prog="python -m cipherfab.study.pick")
    parser.add_argument("--refresh", nargs="?", const=str(REPO_RESULTS), metavar="DIR", required=True,
                        help=f"copy DIR/*/results.json into the package (default {REPO_RESULTS})")
    args = parser.parse_args(argv)
    try:
        for f in refresh(Path(args.refresh)):
            print(f)
    except CipherfabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
