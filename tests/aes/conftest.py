import pytest

from cipherfab.registry import resolve
from cipherfab.sim.engine import HardwareEngine

_engines: dict = {}


@pytest.fixture(scope="session")
def engine():
    """engine(key_bits, direction, sbox) -> a cached HardwareEngine (Verilator build is cached on disk)."""
    def get(key_bits=128, direction="both", sbox="rom"):
        params = resolve("aes", "iterative", key_bits=key_bits, direction=direction, sbox=sbox)
        if params not in _engines:
            _engines[params] = HardwareEngine(params)
        return _engines[params]
    return get
