"""Evaluation flow: build a core on real device models with Yosys + nextpnr and measure it.

``build(source, device=..., seed=...)`` returns one record with every SPEC
section 5 metric; ``build_or_failure`` returns a ``status: "failed"`` record
instead of raising, for sweeps.  See ``devices`` for the targets.
"""

from .build import build, build_or_failure
from .devices import DEVICES, get_device
from .source import DesignSource

__all__ = ["build", "build_or_failure", "DEVICES", "get_device", "DesignSource"]
