"""The study tests' fakes (tests/study/fakes.py) must import in worker processes too.

Jobs name their build and generator functions as ``"fakes:fake_build"`` strings,
resolved inside process-pool (forkserver) and Dask workers.  This fixture puts
this folder on ``sys.path`` and on ``PYTHONPATH`` (inherited by pools, Dask
workers and subprocesses started after it) before any test starts one.
"""

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

@pytest.fixture(autouse=True)
def fakes_importable(monkeypatch):
    old = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), *([old] if old else [])]))
    monkeypatch.syspath_prepend(str(HERE))
