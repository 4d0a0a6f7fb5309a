"""Tests never touch the user's ~/.cache/cipherfab (tests/conftest.py), subprocesses included."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_cache_root_is_the_repo_test_cache():
    from cipherfab import cache
    assert cache.root() == REPO / ".cipherfab-cache" / "tests"
    assert os.environ["CIPHERFAB_CACHE"] == str(REPO / ".cipherfab-cache" / "tests")
    out = subprocess.run([sys.executable, "-c", "from cipherfab import cache; print(cache.root())"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(REPO / ".cipherfab-cache" / "tests")
