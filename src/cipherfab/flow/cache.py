"""On-disk cache of build measurements.

Root: ``$CIPHERFAB_CACHE`` or ``~/.cache/cipherfab``; builds in ``builds/``,
tool version lines in ``tools.json``, logs of failed builds in ``failed/``.
What is cached is the measurement (area, timing, stage times, tools), not the
cycle counts or labels, which are recomputed from the DesignSource on every
call.  Failures are never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def root() -> Path:
    env = os.environ.get("CIPHERFAB_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "cipherfab"


def key(**fields) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()[:32]


def load(k: str) -> dict | None:
    try:
        return json.loads((root() / "builds" / f"{k}.json").read_text())
    except (OSError, ValueError):
        return None


def store(k: str, data: dict) -> None:
    d = root() / "builds"
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{k}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, d / f"{k}.json")
    except OSError:
        pass  # a read-only cache only costs time
