"""A study's output folder: checked writable before the first build, the results and reports
published as one set, and an interrupted run's finished builds saved (``partial/builds/``)
for the next run to resume from."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import CipherfabError

#: the subfolder of ``OUT/NAME`` where an interrupted run's results go (the complete ones stay)
PARTIAL = "partial"

BUILDS = "builds"   # under partial/: the cache entries of an interrupted run's finished builds


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


def resume(folder: Path) -> list[str]:
    """Put the builds an interrupted run saved (``OUT/NAME/partial/builds/``, see
    :func:`save_builds`) into the build cache, so this run builds only the rest; a run on
    another machine (the folder committed) resumes as well.  Returns their keys."""
    saved = folder / PARTIAL / BUILDS
    if not saved.is_dir():
        return []
    from ..flow import cache
    return cache.import_from(saved)


def save_builds(records: list[dict], folder: Path, resumed: Sequence[str] = ()) -> int:
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

