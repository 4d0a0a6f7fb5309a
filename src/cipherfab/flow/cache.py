"""On-disk cache of build measurements, in ``builds/`` under the cache root.

The root and its layout are :mod:`cipherfab.cache` (``$CIPHERFAB_CACHE`` or
``~/.cache/cipherfab``).  What is cached is the measurement (area, timing,
stage times, tools) plus when and by what it was measured (``measured_at``,
``measured_by``, the original ``elaborate_seconds``), not the cycle counts or
labels, which are recomputed from the DesignSource on every call.  Entries
without ``measured_at`` (written before it was recorded) count as misses.
Failures are never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from ..errors import CipherfabError

from .. import cache as _layout
from ..cache import root  # noqa: F401 - the cache root, for callers of this module
from ..userfiles import write_atomic


def key(**fields) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()[:32]


def load(k: str) -> dict | None:
    try:
        data = json.loads((_layout.builds() / f"{k}.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not data.get("measured_at"):
        return None
    return data


def store(k: str, data: dict) -> None:
    d = _layout.builds()
    try:
        d.mkdir(parents=True, exist_ok=True)
        write_atomic(d / f"{k}.json", json.dumps(data, indent=1, sort_keys=True))
    except OSError:
        pass  # a read-only cache only costs time


_KEY = re.compile(r"[0-9a-f]{32}")


def export(keys, folder: Path) -> int:
    """Copy the cache entries of ``keys`` (those this machine's cache holds) into ``folder``,
    replacing what it held; returns how many were copied.  An interrupted study keeps its
    finished builds this way, so a later run on another machine resumes from them."""
    staging = folder.with_name(f".{folder.name}-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    n = 0
    for k in sorted(set(keys)):
        src = _layout.builds() / f"{k}.json"
        if _KEY.fullmatch(k) and load(k) is not None:
            shutil.copyfile(src, staging / src.name)
            n += 1
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(staging, folder)
    return n


def import_from(folder: Path) -> list[str]:
    """Put the build measurements saved by :func:`export` into the cache (an entry the cache
    already holds is left as it is); returns the keys ``folder`` holds.  A file that is not
    one is refused with one line naming it, before anything is imported."""
    entries = []
    for f in sorted(folder.iterdir()):
        if f.name.startswith("."):
            continue
        try:
            data = json.loads(f.read_text())
        except (OSError, ValueError) as e:
            raise CipherfabError(f"cannot resume from {f}: not a saved build measurement "
                                 f"({getattr(e, 'strerror', None) or e}); delete it to rebuild")
        if not (f.suffix == ".json" and _KEY.fullmatch(f.stem) and isinstance(data, dict)
                and data.get("measured_at") and isinstance(data.get("timing"), dict)):
            raise CipherfabError(f"cannot resume from {f}: not a saved build measurement "
                                 f"(a <32 hex digits>.json with measured_at and timing); "
                                 f"delete it to rebuild")
        entries.append((f.stem, data))
    for k, data in entries:
        if load(k) is None:
            store(k, data)
    return [k for k, _ in entries]
