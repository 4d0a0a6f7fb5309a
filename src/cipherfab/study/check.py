"""``cipherfab study NAME --check``: build a committed study's points again and compare.

The record is ``docs/results/NAME/results.json`` (or ``--results FILE``).  Its points (all,
or ``--sample N`` of them chosen at random) are built again with the record's device, seeds
and flow options, never from the build cache, and every figure of :data:`FIGURES` and the
generated Verilog's hash are compared with the record's, exactly: place-and-route with a
fixed seed, the same Verilog and the same tools is deterministic, so any difference means a
changed design, tool or flow (docs/guide/study.md, "Checking a committed study").  Stage
times are not compared (they measure the machine's load).  Nothing is written: the package
and tool versions that differ from the record, then a table of every point x seed, go to
stdout; progress to stderr.  Exit 0 if every build reproduced its record, 1 otherwise.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from pathlib import Path

from ..errors import CipherfabError
from ..userfiles import read_text
from . import runner
from .aggregate import get_path
from .environment import pkg_version
from .points import Point, make_points

#: the compared figures: (column, dotted path in a record); all exact
FIGURES = (("LUT4", "area.lut4"), ("FF", "area.ff"), ("CCU2", "area.ccu2"), ("EBR", "area.ebr"),
           ("DSP", "area.dsp"), ("Fmax MHz", "timing.fmax_mhz"))
#: packages whose version changes what a build measures (the generator and the tools)
BUILD_PACKAGES = ("cipherfab", "amaranth")


def repo_root() -> Path | None:
    """The repository root: the current folder or its first parent holding pyproject.toml or
    .git; None outside a repository."""
    here = Path.cwd().resolve()
    return next((d for d in (here, *here.parents)
                 if (d / "pyproject.toml").is_file() or (d / ".git").exists()), None)


def record_path(name: str, given: str | None) -> Path:
    """``--results FILE``, or ``docs/results/NAME/results.json`` at the repository root (found
    from the current folder upwards)."""
    if given is not None:
        if not given.strip():
            raise CipherfabError("--results: empty path")
        path = Path(given)
        try:
            special = path.exists() and not path.is_file()     # /dev/zero would never end
        except OSError:
            special = False
        if special:
            raise CipherfabError(f"--results {given}: not a file")
        return path
    root = repo_root()
    if root is None:
        raise CipherfabError(f"--check: no repository root in {Path.cwd().resolve()} or above; "
                             "give --results FILE")
    path = root / "docs" / "results" / name / "results.json"
    if not path.is_file():
        raise CipherfabError(f"--check: no committed results for study {name!r} ({path} "
                             "is missing); give --results FILE")
    return path


def _number(v) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


def load_record(path: Path, name: str) -> dict:
    """The results.json at ``path``, checked to be a complete record of study ``name``."""
    text = read_text(path, "json", "results file")   # a device, FIFO, folder, too big: one line
    try:
        data = json.loads(text)
    except ValueError as e:
        raise CipherfabError(f"{path} is not a study's results.json: {e}") from None

    def bad(why: str):
        return CipherfabError(f"{path} is not a study's results.json ({why})")

    if not isinstance(data, dict) or not isinstance(data.get("study"), dict):
        raise bad("no study")
    if data["study"].get("name") != name:
        raise CipherfabError(f"{path} is the record of study {data['study'].get('name')!r}, not {name!r}")
    if data.get("interrupted"):
        raise CipherfabError(f"{path} is an interrupted run's results: check a complete one")
    seeds, points, records = data.get("seeds"), data.get("points"), data.get("records")
    if not isinstance(data.get("device"), str):
        raise bad("no device")
    if not (isinstance(seeds, list) and seeds and all(type(s) is int for s in seeds)):
        raise bad("no list of seeds")
    if not (isinstance(points, list) and points and all(
            isinstance(p, dict) and isinstance(p.get("label"), str) and isinstance(p.get("params"), dict)
            for p in points)):
        raise bad("no list of points with label and params")
    if not (isinstance(records, list) and all(isinstance(r, dict) for r in records)):
        raise bad("no list of records")
    env = data.get("environment")
    if not (isinstance(env, dict) and isinstance(env.get("packages"), dict)):
        raise bad("no environment.packages")
    by_build = {}
    for r in records:
        by_build.setdefault((r.get("study_point"), r.get("seed")), r)
        for column, where in FIGURES:
            if r.get("status") == "ok" and not _number(get_path(r, where)):
                raise bad(f"{column} of {r.get('study_point')} seed {r.get('seed')} is "
                          f"{get_path(r, where)!r}, not a number")
    for p in points:
        for s in seeds:
            if (p["label"], s) not in by_build:
                raise bad(f"no record of {p['label']} seed {s}")
    data["by_build"] = by_build
    return data


def choose(points: list[dict], n: int | None, seed: int | None) -> tuple[list[dict], int | None]:
    """All points, or ``n`` of them chosen with ``seed`` (a new one if None), in study order."""
    if n is None:
        return points, None
    if n > len(points):
        raise CipherfabError(f"--sample {n}: the record has {len(points)} points")
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    picked = sorted(random.Random(seed).sample(range(len(points)), n))
    return [points[i] for i in picked], seed


def rebuild_points(chosen: list[dict], everything: list[dict], externals) -> list:
    """The chosen record points as the runner builds them: generated ones from their recorded
    parameters (flow options included); external ones from the given --peer/--verilog."""
    given = {p.label: p for p in make_points([], externals)}
    recorded = {p["label"] for p in everything if p.get("external")}
    for label in given:
        if label not in recorded:
            raise CipherfabError(f"the record has no external point {label!r}")
    for p in chosen:
        if p.get("external") and p["label"] not in given:
            raise CipherfabError(f"the record's external point {p['label']!r} needs its sources: "
                                 "give the --peer/--verilog options it was built with (see the "
                                 "record's command)")
    return [given[p["label"]] if p.get("external") else Point(p["label"], dict(p["params"]))
            for p in chosen]


def package_differences(recorded_env: dict) -> list[str]:
    """``name: X recorded, Y here`` for each recorded package whose installed version differs."""
    names = dict(recorded_env.get("packages") or {})
    tools = recorded_env.get("tools")
    for t in (tools if isinstance(tools, list) else [tools]):
        if isinstance(t, dict) and isinstance(t.get("packages"), dict):
            names.update(t["packages"])
    out = []
    for name, was in sorted(names.items()):
        now = pkg_version(name)
        if now != was:
            used = name in BUILD_PACKAGES or name.startswith("yowasp-")
            out.append(f"{name}: {was} recorded, {now or 'not installed'} here"
                       + ("" if used else " (not used by the builds)"))
    return out


def tool_differences(pairs) -> list[str]:
    """The tool version strings the builds reported that differ from their records'."""
    seen = []
    for was, rec in pairs:
        a, b = was.get("tools") or {}, rec.get("tools") or {}
        for tool in ("yosys", "nextpnr"):
            if rec.get("status") == "ok" and a.get(tool) != b.get(tool):
                line = f"{tool}: {a.get(tool)} recorded, {b.get(tool)} measured"
                if line not in seen:
                    seen.append(line)
    return seen


def _cell(v) -> str:
    return "-" if v is None else str(v)


def compare(was: dict, rec: dict) -> tuple[list[str], list[str], bool]:
    """(cells, names of the differing figures, failed) for one build against its record."""
    failed = rec.get("status") != "ok"
    if rec.get("cached") and not failed:      # the build function ignored use_cache=False
        return ["-"] * (len(FIGURES) + 1), ["taken from the build cache, not measured"], True
    if failed or was.get("status") != "ok":
        cells = ["-"] * (len(FIGURES) + 1)
        if failed:
            why = "failed as recorded" if was.get("status") != "ok" else "failed"
            return cells, [f"{why}: {rec.get('error')}"], True
        return cells, ["built (recorded: failed)"], False
    cells, diff = [], []
    for column, where in FIGURES:
        a, b = get_path(was, where), get_path(rec, where)
        cells.append(_cell(a) if a == b else f"**{_cell(a)} → {_cell(b)}**")
        if a != b:
            diff.append(column)
    same = was.get("verilog_sha256") == rec.get("verilog_sha256")
    cells.append("same" if same else "**changed**")
    if not same:
        diff.append("Verilog")
    return cells, diff, False


def table(rows) -> list[str]:
    head = ["point", "seed", *(c for c, _ in FIGURES), "Verilog", "result"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, seed, cells, diff, failed in rows:
        result = ("different: " + ", ".join(diff)) if diff and not failed else (diff[0] if diff else "equal")
        cells = [label, str(seed), *cells, result]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return out


def _shown(path: Path) -> Path:
    """``path`` relative to the current folder when it is inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):
        return path


def run_check(name: str, *, results: str | None = None, sample: int | None = None,
              sample_seed: int | None = None, externals=(), jobs: int | None = None,
              scheduler: str | None = None, show_progress: bool = True, build=None,
              source_fn=None, inline: bool = False, out=None) -> int:
    """Check study ``name`` against its record; returns the exit status (0 equal, 1 not)."""
    out = out or sys.stdout
    path = record_path(name, results)
    data = load_record(path, name)
    chosen, seed = choose(data["points"], sample, sample_seed)
    points = rebuild_points(chosen, data["points"], externals)
    seeds, device = data["seeds"], data["device"]

    def say(text=""):
        print(text, file=out, flush=True)

    say(f"{name} --check against {_shown(path)}: {len(data['points'])} points x seeds "
        f"{', '.join(map(str, seeds))} on {device}, recorded {data.get('finished', '?')} by "
        f"`{data.get('command', '?')}`")
    differ = package_differences(data["environment"])
    if differ:
        say("package versions that differ from the record (its figures need not reproduce):")
        for line in differ:
            say(f"  {line}")
    else:
        say("package versions: as recorded")
    if seed is not None:
        say(f"sample: {len(chosen)} of {len(data['points'])} points, chosen with --sample-seed "
            f"{seed}: {', '.join(p['label'] for p in chosen)}")
    t0 = time.time()
    recs = runner.sweep(points, seeds, device=device, build=build, source_fn=source_fn,
                        jobs=jobs, scheduler=scheduler, inline=inline, use_cache=False,
                        show_progress=show_progress, title=f"{name} --check")
    pairs = [(data["by_build"][(r.get("study_point"), r.get("seed"))], r) for r in recs]
    tools = tool_differences(pairs)
    if tools:
        say("tool versions the builds reported that differ from the record:")
        for line in tools:
            say(f"  {line}")
    rows = [(rec.get("study_point"), rec.get("seed"), *compare(was, rec)) for was, rec in pairs]
    say()
    for line in table(rows):
        say(line)
    say()
    say("A cell shows the recorded figure where the build measured it again exactly; "
        "**recorded → measured** where not (no tolerance).")
    failed = [r for r in rows if r[4]]
    different = [r for r in rows if r[3] and not r[4]]
    n, took = len(rows), f"built in {time.time() - t0:.0f} s"
    if not failed and not different:
        say(f"{name} --check: all {n} builds equal to the record ({took})")
        return 0
    first = (different or failed)[0]
    say(f"{name} --check: {len(different)} of {n} builds differ from the record, {len(failed)} "
        f"failed (first: {first[0]} seed {first[1]}: {', '.join(first[3])}); {took}")
    return 1
