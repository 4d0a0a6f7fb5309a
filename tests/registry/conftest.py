"""The toy registry fixture lives in tests/conftest.py (shared with tests/sim)."""
