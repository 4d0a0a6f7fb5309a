"""Test-wide settings, applied at import time (before any test, pool or subprocess starts).

The cipherfab cache root is ``<repo>/.cipherfab-cache/tests`` (git-ignored), never the
user's ``~/.cache/cipherfab``.  It is kept across runs so compiled Verilator harnesses
and build records are reused; subprocesses and pool workers inherit it via the
environment.  Tests that need an empty cache set their own (see tests/flow/conftest.py).
"""

import os
from pathlib import Path

TEST_CACHE = Path(__file__).resolve().parent.parent / ".cipherfab-cache" / "tests"
os.environ["CIPHERFAB_CACHE"] = str(TEST_CACHE)
