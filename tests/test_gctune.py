"""The collector's thresholds while a core elaborates: raised inside, restored after."""

import gc

import pytest

from cipherfab.gctune import ELABORATION_THRESHOLDS, fewer_collections


@pytest.fixture
def python_default():
    """Python's default thresholds for the test (tests/conftest.py raises them for the run)."""
    run = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*run)


def test_thresholds_raised_inside_and_restored_after_also_on_error(python_default):
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold() == ELABORATION_THRESHOLDS
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError):
        with fewer_collections():
            raise RuntimeError("elaboration failed")
    assert gc.get_threshold() == before


def test_the_verilog_is_the_same_with_fewer_collections():
    from cipherfab.generate import generate_verilog
    from cipherfab.registry import resolve
    params = resolve("aes", "iterative", sbox="lut")
    plain = generate_verilog(params, waivers=False)[0]
    with fewer_collections():
        assert generate_verilog(params, waivers=False)[0] == plain
