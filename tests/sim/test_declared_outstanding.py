"""The timing check's bound on blocks outstanding, from the declaration: the most blocks taken
in any ``latency`` clocks when blocks come in bursts of ``blocks_in_flight`` (one a clock)."""

import math
from types import SimpleNamespace

import pytest

from cipherfab.sim.engine import declared_outstanding


@pytest.mark.parametrize("latency, cpb, burst, want", [
    (11, 10, 1, 2), (10, 10, 1, 1), (41, 1, 1, 41), (14, 14, 1, 1),
    (71, 10, 7, 8),          # the masked core before its output shares were registered
    (72, 10, 7, 9),          # and after: block 7 of the next burst is taken before block 0 leaves
    (21, 10, 2, 3), (20, 10, 2, 2),
])
def test_bursts_over_the_latency(latency, cpb, burst, want):
    info = SimpleNamespace(latency=latency, cycles_per_block=cpb, blocks_in_flight=burst, burst_spacing=1)
    assert declared_outstanding(info) == want
    if burst == 1:
        assert want == math.ceil(latency / cpb)


def test_a_burst_spaced_out_is_counted_as_taken():
    """The 4-S-box masked core's two lanes start 5 clocks apart (latency 112, 55 cycles a
    block): at most 3 blocks outstanding, where a burst one a clock would give 4."""
    spaced = SimpleNamespace(latency=112, cycles_per_block=55, blocks_in_flight=2, burst_spacing=5)
    assert declared_outstanding(spaced) == 3
    assert declared_outstanding(SimpleNamespace(**{**vars(spaced), "burst_spacing": 1})) == 4
