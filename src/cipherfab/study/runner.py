"""Sweeps: design points x placer seeds, on a local process pool or a Dask cluster.

A *point* (:mod:`.points`) is either a set of keyword arguments for
``cipherfab.flow.source.design_source`` or a ready :class:`DesignSource` (an external core).
Every (point, seed) pair is one *job* (:mod:`.jobs`), run in a worker (:mod:`.pool`); a job
never raises, so a failure becomes a record and the sweep goes on.  Its progress shows as it
goes (:mod:`.display`); the records are aggregated over seeds (:mod:`.aggregate`), put in
results.json with the environment they ran in (:mod:`.environment`), and published as one set
(:mod:`.publish`).  Ctrl-C and SIGTERM stop a study the same way (:mod:`.signals`).

The build and generator functions are parameters (a callable, or a ``"module:attribute"``
string resolved in the worker), so the runner works with the real flow and with test
stand-ins (tests/study/fakes.py).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

from ..errors import CipherfabError
from ..flow.options import PLACING, check_placing
from ..flow.source import DesignSource
from . import jobs as _jobs, pool
from .aggregate import aggregate
from .display import Display
from .environment import command_line, environment
from .jobs import failure, one_line, run_job
from .points import Point, make_points
from .publish import PARTIAL, check_writable, publish, resume, save_builds
from .signals import StudyInterrupted, signals_held


def sweep(points: Sequence[Point], seeds: Sequence[int], *, device: str = "ecp5-85k",
          build: Callable | str | None = None, source_fn: Callable | str | None = None,
          jobs: int | None = None, scheduler: str | None = None, inline: bool = False,
          use_cache: bool = True, console=None, show_progress: bool = True,
          backend_info: dict | None = None, title: str = "sweep", out: str | None = None,
          backend=None) -> list[dict]:
    """Run every (point, seed); return the records in point order, then seed order.

    Before the first job it says what it is doing (``title``: N builds, where, ``out``)
    on the progress console, and, on stderr even without progress display, that the
    YoWASP tools are compiled first if they are.
    ``backend_info``, if given, is filled with a description of where the jobs ran.
    ``backend`` (from :func:`.pool.open_backend`) runs the jobs and stays open for the caller
    to close; without it the sweep opens its own from ``jobs``, ``scheduler`` and ``inline``.
    On KeyboardInterrupt the pending jobs are cancelled (a local pool's running ones killed)
    and the exception carries the records finished so far as ``exc.partial_records``.
    """
    own = backend is None
    if own:
        backend = pool.open_backend(jobs, scheduler, inline, builds=len(points) * len(seeds))
    if backend_info is not None:
        backend_info.update(backend.describe)
    results: dict[int, dict] = {}
    cancelled = False
    try:
        display = Display(list(points), seeds, backend.slots, console, show_progress)
        n = len(points) * len(seeds)
        on = list(dict.fromkeys(p.device(device) for p in points)) or [device]
        display.say(f"{title}: {n} build{'' if n == 1 else 's'} ({len(points)} design point"
                    f"{'' if len(points) == 1 else 's'} x seed{'' if len(seeds) == 1 else 's'} "
                    f"{', '.join(map(str, seeds))}) on {', '.join(on)}, {pool.where(backend.describe)}"
                    + (f"; results to {out}" if out else ""))
        for d in on:
            note = _jobs.first_use_note(build, d, backend.describe)
            if note:
                display.say(note, always=True)
                _jobs.compile_tools(d)
        futures = {}
        for i, (p, s) in enumerate((p, s) for p in points for s in seeds):
            f = backend.submit(run_job, p, s, device, build, source_fn, use_cache)
            futures[f] = (i, p, s)
        with display, display.heartbeat(title):
            for f in backend.as_completed(list(futures)):
                i, p, s = futures[f]
                try:
                    rec = f.result()
                except Exception as e:  # noqa: BLE001 - worker died, pickling failed...
                    rec = failure(p, s, p.device(device), "worker", one_line(e), time.time())
                results[i] = rec
                display.update(rec)
    except KeyboardInterrupt as e:
        cancelled = True
        e.partial_records = [results[i] for i in sorted(results)]
        raise
    finally:
        if own:
            with signals_held() if cancelled else contextlib.nullcontext():
                backend.close(cancel=cancelled)
    return [results[i] for i in sorted(results)]


def _now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


def run_study(study, *, out: str | Path = "reports", seeds: Sequence[int] | None = None,
              device: str | None = None, externals: Sequence[DesignSource | Point] = (),
              build: Callable | str | None = None, source_fn: Callable | str | None = None,
              jobs: int | None = None, scheduler: str | None = None, inline: bool = False,
              use_cache: bool = True, console=None, show_progress: bool = True,
              command: str | None = None, write_report: bool = True,
              keys: int | None = None, flow: dict | None = None) -> dict:
    """Run a :class:`~cipherfab.study.studies.Study` and write ``OUT/NAME/results.json``
    plus the reports; returns the results dict (with ``"folder"`` and ``"files"``).

    ``flow`` (flow options such as ``{"router": "router2"}``) applies to every point; a point
    that sets one of them itself is refused.  Synthesis-only estimates use the default flow.
    Every check (study, keys, points, the output folder, the Dask scheduler) comes before
    the first measurement.  A complete run replaces the folder's previous results as one set.
    On KeyboardInterrupt (or SIGTERM, see :func:`sigterm_as_interrupt`) the workers are stopped,
    the finished records go to ``OUT/NAME/partial/`` (``"interrupted": true``), the previous
    complete results stay untouched, and :class:`StudyInterrupted` is raised.
    """
    from .studies import Study, get_study
    if not isinstance(study, Study):
        study = get_study(study)
    seeds = list(seeds or study.seeds)
    study.builds_on(device)         # a --device the study's points do not take: refused
    device = device or study.device
    plugin = importlib.import_module(study.plugin) if study.plugin else None
    if keys is not None and not study.keys:
        raise CipherfabError(f"--keys applies to key studies (key-specific), not {study.name!r}")
    key_list = plugin.keys(keys or study.keys) if study.keys else None
    points = make_points(study.points + (plugin.points(key_list) if key_list else []), externals)
    if not points:
        raise CipherfabError(f"study {study.name!r} has no design points")
    flow = {k: v for k, v in (flow or {}).items() if v is not None}
    points = [p.with_flow(flow) for p in points] if flow else points
    if any(flow.get(k) for k in PLACING):   # one a point's device does not offer: refused now
        from ..flow.devices import get_device
        for d in dict.fromkeys(p.device(device) for p in points):
            check_placing(flow, get_device(d))
    folder = Path(out) / study.name
    check_writable(folder)  # before the first build, not after the last
    resumed = resume(folder) if use_cache else []
    backend = pool.open_backend(jobs, scheduler, inline, builds=len(points) * len(seeds))  # Dask: connects now
    started, t0 = _now(), time.time()
    info: dict = dict(backend.describe)
    interrupted: KeyboardInterrupt | None = None
    software, estimates, records, extra = None, {}, [], {}
    run = dict(build=build, source_fn=source_fn, use_cache=use_cache, console=console,
               show_progress=show_progress, out=str(folder), backend=backend)
    finished = False
    try:
        if study.software:  # first, while the machine is quiet: one core, no builds beside it
            if show_progress:
                print(f"study {study.name}: measuring the software baselines first, on one core "
                      "with no build beside it (about a minute)", file=sys.stderr, flush=True)
            from .software import measure
            software = measure(study.points)
        records = sweep(points, seeds, device=device, title=f"study {study.name}", **run)
        if plugin is not None and hasattr(plugin, "after_builds") and build is None:
            try:   # measurements that need the real flow's records (re-keying, the system)
                extra = plugin.after_builds(records, device, key_list)
            except Exception as e:   # the sweep's records are kept whatever happens here
                extra = {"after_builds_error": one_line(e)}
        for est in study.estimates:
            plain = [Point(p.label, p.split()[0], p.source) for p in points]   # no P&R, no synth_ecp5
            recs = sweep(plain, [1], device=est, title=f"study {study.name}: {est} estimates",
                         **run)
            estimates[est] = {"records": recs, "aggregates": aggregate(recs, points)}
        finished = True
    except KeyboardInterrupt as e:
        records = records or getattr(e, "partial_records", [])
        interrupted = e
    finally:
        with signals_held() if not finished else contextlib.nullcontext():
            backend.close(cancel=not finished)
    with signals_held():   # writing the results is not cut short by a second Ctrl-C
        results = _results(study, points, seeds, device, records, info, started, t0, command,
                           interrupted, software, key_list, extra, estimates)
        if flow:
            results["flow"] = flow
        if resumed:
            results["resumed_builds"] = len(resumed)
        if interrupted is None:
            files = publish(results, folder, write_report)
            shutil.rmtree(folder / PARTIAL, ignore_errors=True)   # superseded by this run
        else:
            kept = folder / "results.json"
            files = publish(results, folder / PARTIAL, write_report)
            folder = folder / PARTIAL
            results["saved_builds"] = save_builds(records, folder, resumed)
    results["folder"] = str(folder)
    results["files"] = [str(f) for f in files]
    if interrupted is not None:
        raise StudyInterrupted(results, kept if kept.is_file() else None,
                               getattr(interrupted, "signal_name", "SIGINT")) from None
    return results


def _published(rec: dict) -> dict:
    """A record as results.json keeps it: a failed build's error without the folder on this
    machine where its logs were kept (the run's own output names it)."""
    if rec.get("status") == "ok" or " (logs in " not in str(rec.get("error", "")):
        return rec
    return {**rec, "error": re.sub(r" \(logs in [^)]*\)", "", rec["error"])}


def _results(study, points, seeds, device, records, backend: dict, started: str, t0: float,
             command, interrupted, software, key_list, extra: dict, estimates: dict) -> dict:
    """The results.json document of a run (complete or interrupted)."""
    records = [_published(r) for r in records]
    results = {
        "schema": 1, "study": study.as_dict(), "command": command or command_line(),
        "started": started, "finished": _now(), "wall_seconds": round(time.time() - t0, 2),
        "interrupted": interrupted is not None,
        "device": device, "seeds": seeds,
        "environment": environment(records, backend),
        "points": [p.as_dict() for p in points],
        "records": records, "aggregates": aggregate(records, points),
        "failures": [{"label": r.get("study_point"), "seed": r.get("seed"),
                      "stage": r.get("stage"), "error": r.get("error")}
                     for r in records if r.get("status") != "ok"],
    }
    if software is not None:
        results["software"] = software
    if key_list is not None:
        results["keys"] = key_list
        results["rekey"] = None
    results.update(extra)
    if estimates:
        results["estimates"] = estimates
        results["failures"] += [{"label": f"{r.get('study_point')} ({est})", "seed": r.get("seed"),
                                 "stage": r.get("stage"), "error": r.get("error")}
                                for est, e in estimates.items() for r in e["records"]
                                if r.get("status") != "ok"]
    n_ok = sum(1 for r in records if r.get("status") == "ok")
    results["summary"] = {"builds": len(points) * len(seeds), "finished": len(records),
                          "ok": n_ok, "failed": len(records) - n_ok}
    return results
