"""Every flow test gets its own empty build cache."""

import pytest


@pytest.fixture(autouse=True)
def cache_root(tmp_path, monkeypatch):
    """Every test gets its own empty build cache."""
    root = tmp_path / "cache"
    monkeypatch.setenv("CIPHERFAB_CACHE", str(root))
    return root
