"""One job of a sweep, (point, seed), as a worker runs it: generate the design (for generator
points), then build it with the build function.  A job never raises: a failure becomes a
record with ``status: "failed"`` and a one-line ``error``.

The build and generator functions are parameters (a callable that pickles by reference, or a
``"module:attribute"`` string resolved in the worker): the defaults are
``cipherfab.flow:build_or_failure`` (falling back to ``cipherfab.flow:build``) and
``cipherfab.flow.source:design_source``.  A record's worst routed paths are kept as summaries,
without their hops (:func:`cipherfab.flow.worst_paths.without_hops`), so results.json stays small.

Also here: the YoWASP tools' first use, said and done once before a sweep rather than by
every worker.
"""

from __future__ import annotations

import contextlib
import importlib
import socket
import time
from typing import Callable

from ..errors import CipherfabError
from ..flow.worst_paths import without_hops
from .points import Point

DEFAULT_BUILD = "cipherfab.flow:build_or_failure"
DEFAULT_SOURCE = "cipherfab.flow.source:design_source"


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


def failure(point: Point, seed: int, device: str, stage: str, error: str, t0: float) -> dict:
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
    device = flow.pop("device", device)
    try:
        if point.source is not None:
            src = point.source
        else:
            src = resolve(source_fn, DEFAULT_SOURCE)(**design)
    except Exception as e:  # noqa: BLE001 - a failed point is data, not a crash
        return failure(point, seed, device, "generate", one_line(e), t0)
    try:
        fn = resolve(build, DEFAULT_BUILD + "|" + DEFAULT_BUILD.replace("build_or_failure", "build"))
        rec = fn(src, device=device, seed=seed, use_cache=use_cache, **flow)
    except Exception as e:  # noqa: BLE001
        return failure(point, seed, device, "build", one_line(e), t0)
    if not isinstance(rec, dict):
        return failure(point, seed, device, "build",
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


def compile_tools(device: str) -> None:
    """Let YoWASP compile the device's tools here, before any worker runs them: workers
    starting an uncompiled tool at once would each compile it (:func:`~cipherfab.flow.tools.compile_pending`)."""
    from ..flow import tools
    from ..flow.build import tools_needed
    from ..flow.devices import get_device
    tools.compile_pending(tools_needed(get_device(device)))

