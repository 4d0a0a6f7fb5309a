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

from .. import cache as _layout
from ..cache import root  # noqa: F401 - the cache root, for callers of this module


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
        tmp = d / f".{k}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, d / f"{k}.json")
    except OSError:
        pass  # a read-only cache only costs time
