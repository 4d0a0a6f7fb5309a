import pytest

from cipherfab.generate import CoreParams
from cipherfab.sim.engine import HardwareEngine

_engines: dict = {}


@pytest.fixture(scope="session")
def engine():
    """engine(key_bits, direction, sbox) -> a cached HardwareEngine (Verilator build is cached on disk)."""
    def get(key_bits=128, direction="both", sbox="rom"):
        params = CoreParams("aes", "iterative", key_bits, direction, sbox)
        if params not in _engines:
            _engines[params] = HardwareEngine(params)
        return _engines[params]
    return get
