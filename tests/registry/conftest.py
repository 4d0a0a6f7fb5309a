import sys
from pathlib import Path

import pytest

import cipherfab.ciphers
from cipherfab import registry

TOYS = Path(__file__).parent / "toyciphers"


@pytest.fixture
def toy_registry(monkeypatch):
    """The registry with the toy cipher package of tests/registry/toyciphers added."""
    monkeypatch.syspath_prepend(str(TOYS))
    monkeypatch.setattr(cipherfab.ciphers, "__path__", [*cipherfab.ciphers.__path__, str(TOYS)])
    registry.ciphers.cache_clear()
    yield registry.ciphers()
    registry.ciphers.cache_clear()
    for name in [m for m in sys.modules if m.startswith(("toyxor", "cipherfab.ciphers.toyxor"))]:
        del sys.modules[name]
