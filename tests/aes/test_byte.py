"""The byte-serial AES-128 core: declared facts, lint, KAT/random/timing, MMT/MCT files, protocol cases.

Area and Fmax goals are measured with ``cipherfab build``, never asserted here.
"""

import dataclasses
import functools
import random
import subprocess
from pathlib import Path

import pytest

from cipherfab import registry
from cipherfab.ciphers.aes import reference as ref
from cipherfab.ciphers.aes.byte import BYTE, ByteAES
from cipherfab.errors import CipherfabError
from cipherfab.generate import generate_verilog, make_core
from cipherfab.hw.info import info_of
from cipherfab.sim.engine import HardwareEngine
from cipherfab.sim.verify import verify_point
from cipherfab.sim.verilated import verilator_root
from cipherfab.vectors import run_files

VECTORS = Path(__file__).parent.parent / "vectors"
_engines: dict = {}


@pytest.fixture(autouse=True)
def byte_registered(monkeypatch):
    """The byte architecture in the registry for the test (a no-op once it is registered)."""
    registry.ciphers.cache_clear()
    real = registry.ciphers()
    aes = real["aes"]
    if not any(a.name == BYTE.name for a in aes.architectures):
        patched = {**real, "aes": dataclasses.replace(aes, architectures=aes.architectures + (BYTE,))}
        monkeypatch.setattr(registry, "ciphers", functools.cache(lambda: patched))
    yield
    monkeypatch.undo()
    registry.ciphers.cache_clear()


def engine(sbox="rom"):
    """A cached HardwareEngine (the Verilator build is cached on disk too)."""
    params = registry.resolve("aes", "byte", sbox=sbox)
    if params not in _engines:
        _engines[params] = HardwareEngine(params)
    return _engines[params]


def test_declared_facts_and_refusals():
    params = registry.resolve("aes", "byte")
    assert params.top == "aes_byte_128_encrypt_rom"
    core = make_core(params)
    info = info_of(core)
    core._MustUse__silence = True                          # inspected, not built
    assert (info.latency, info.cycles_per_block, info.cycles_per_block_feedback,
            info.blocks_in_flight, info.key_setup_cycles) == (203, 204, 204, 1, 20)
    assert info.key_interface == "stream" and info.directions == ("encrypt",)
    assert info.parts == {"key_schedule": "key_schedule", "datapath": "datapath"}
    with pytest.raises(CipherfabError, match="--key-bits 256 is not supported"):
        registry.resolve("aes", "byte", key_bits=256)
    with pytest.raises(CipherfabError, match="--direction 'both' is not supported"):
        registry.resolve("aes", "byte", direction="both")
    with pytest.raises(CipherfabError, match="AES-128 encryption only"):
        ByteAES(direction="decrypt")


@pytest.mark.parametrize("sbox", ["rom", "lut"])
def test_generated_verilog_is_lint_clean(tmp_path, sbox):
    text, _, _ = generate_verilog(registry.resolve("aes", "byte", sbox=sbox))
    assert text.startswith(f"// aes_byte_128_encrypt_{sbox}:") and "Latency: 203 cycles" in text
    (tmp_path / "core.v").write_text(text)
    root = verilator_root()
    p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", "core.v"], cwd=tmp_path,
                       capture_output=True, text=True, env={"VERILATOR_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[:2000]


@pytest.mark.parametrize("sbox", ["rom", "lut"])
def test_kat_random_and_exact_timing(sbox):
    ok, line = verify_point(registry.resolve("aes", "byte", sbox=sbox), VECTORS, random_blocks=1000, seed=1)
    assert ok, line


def test_mmt_and_monte_carlo():
    files = [VECTORS / "aes" / "aesmmt" / "ECBMMT128.rsp", VECTORS / "aes" / "aesmct" / "ECBMCT128.rsp"]
    reports = run_files(files, engine("rom"))
    assert [r.failed for r in reports] == [0, 0]
    # MMT decrypt records are checked by encrypting their plaintext; Monte-Carlo decrypt
    # chains need a decrypting core and are skipped
    assert [r.passed for r in reports] == [20, 100]


def test_result_waits_for_ready_and_keys_change_between_blocks():
    e = engine("rom")
    rng = random.Random(5)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    b = [rng.randbytes(16) for _ in range(6)]
    ops = [("key", k1)] + [("block", x) for x in b[:3]] + [("key", k2)] + [("block", x) for x in b[3:]]
    r = e.core.run(ops, out_ready_prob=0.05, seed=11)       # results wait long in the state registers
    assert r.ok
    assert r.outputs == [ref.encrypt_block(k1, x) for x in b[:3]] + [ref.encrypt_block(k2, x) for x in b[3:]]


def test_reset_mid_block_leaves_core_idle_and_clears_keys():
    e = engine("rom")
    rng = random.Random(4)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    b = [rng.randbytes(16) for _ in range(6)]
    ops = [("key", k1)] + [("block", x) for x in b[:3]] + [("reset", 100), ("key", k2)] + \
          [("block", x) for x in b[3:]]
    r = e.core.run(ops)
    assert r.ok and len(r.resets) == 1
    info = r.resets[0]
    assert info.clean and info.lost >= 1
    assert r.outputs[:info.outputs_before] == [ref.encrypt_block(k1, x) for x in b[:info.outputs_before]]
    assert r.outputs[info.outputs_before:] == [ref.encrypt_block(k2, x) for x in b[3:]]
    # without a new key after reset, no block is taken: the old key is gone
    r = e.core.run([("key", k1), ("block", b[0]), ("reset", 3), ("block", b[1])], timeout=800)
    assert r.hang and r.outputs == []
