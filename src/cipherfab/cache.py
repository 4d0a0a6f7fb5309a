"""The one cache root of cipherfab, and its layout.

``root()`` is ``$CIPHERFAB_CACHE`` if set, else ``~/.cache/cipherfab``.  Under it:

* ``builds/``     - build measurements, one JSON per cache key (:mod:`cipherfab.flow.cache`)
* ``verilated/``  - compiled Verilator harness libraries (:mod:`cipherfab.sim.verilated`)
* ``failed/``     - tool files and logs of failed builds, one folder per cache key
* ``systems/``    - accelerator-system Verilog the simulated system was made from, one JSON per
  key over the point, the shape and every source file it came from (:mod:`cipherfab.host.system_cache`)
* ``tools.json``  - the tools' own version lines, per installed package version

Everything here can be deleted at any time; it only costs time to rebuild.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "CIPHERFAB_CACHE"


def root() -> Path:
    """The cache root: ``$CIPHERFAB_CACHE`` or ``~/.cache/cipherfab``."""
    env = os.environ.get(ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "cipherfab"


def builds() -> Path:
    return root() / "builds"


def verilated() -> Path:
    return root() / "verilated"


def failed() -> Path:
    return root() / "failed"


def systems() -> Path:
    return root() / "systems"


def tools_file() -> Path:
    return root() / "tools.json"
