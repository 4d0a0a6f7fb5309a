"""Every registered core's test points: its KAT files, a random differential run with
backpressure and key changes, and every declared cycle count measured exactly.

This is ``cipherfab verify`` on each architecture's ``test_points``; ``cipherfab verify
--all`` runs the same on every valid parameter combination.
"""

from pathlib import Path

import pytest

import cipherfab
from cipherfab.registry import all_points
from cipherfab.sim.verify import verify_point

VECTORS = Path(cipherfab.__file__).parent / "vectors" / "kat"   # the KAT files verify runs


#: points whose Verilator build takes about a minute: checked with ``-m slow`` (and by
#: ``verify --all``); the default run checks the masked core in Amaranth's simulator
#: (tests/aes/test_masked_core.py)
SLOW = {"masked"}


@pytest.mark.parametrize("params", [pytest.param(p, marks=[pytest.mark.slow] if p.arch in SLOW else [])
                                    for p in all_points(test_only=True)], ids=lambda p: p.top)
def test_core_passes_kat_random_and_timing(params):
    res = verify_point(params, VECTORS, random_blocks=2000, seed=1)
    assert res["ok"], res["line"]
    assert res["entry"]["verdict"] == "pass" and len(res["entry"]["verilog_sha256"]) == 64
