"""The interleaved core with its key schedule on a clock of its own (--key-clock separate):
right at any ratio of the two clocks, key setup as declared, resets on either side, the
port and the declaration as every tool reads them."""

import random
from dataclasses import replace
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.errors import CipherfabError
from cipherfab.flow.record import key_setup_ns
from cipherfab.flow.source import DesignSource
from cipherfab.generate import declaration, generate_verilog
from cipherfab.hw.info import CoreInfo
from cipherfab.registry import resolve
from cipherfab.sim.engine import ExternalCore, HardwareEngine, check_timing, key_setup_bounds, random_run

POINT = resolve("aes", "interleaved", key_bits=128, direction="both", sbox="rom", stages=2,
                key_clock="separate")


def aes(key, data, decrypt=False):
    c = Cipher(algorithms.AES(key), modes.ECB())
    return (c.decryptor() if decrypt else c.encryptor()).update(data)


@pytest.fixture(scope="module")
def engine():
    return HardwareEngine(POINT)


def test_declaration_and_port(engine):
    text, info = generate_verilog(POINT)[0], engine.info
    assert info.clocks == ("key",)
    # 3 clk + (2 + 31 + 1) key_clk: block-RAM SubWord, 3 clocks per round key
    assert (info.key_setup_cycles, info.key_clock_cycles) == (37, 34)
    assert "  input key_clk;" in text
    sidecar = info.as_json()
    assert sidecar["clocks"] == ["key"] and CoreInfo.from_json(sidecar) == info
    # the shared-clock point is named and declared as before the option existed
    shared = resolve("aes", "interleaved", key_bits=128, direction="both", sbox="rom", stages=2)
    assert shared.top == "aes_interleaved_128_both_rom_2"
    info = declaration(shared)
    assert "clocks" not in info.as_json() and info.key_setup_cycles == 32
    lut = declaration(resolve("aes", "interleaved", key_bits=128, direction="both", sbox="lut",
                              stages=2))
    assert lut.key_setup_cycles == 22                   # logic SubWord: 2 clocks per round key


def test_declaration_rules(engine):
    base = engine.info
    with pytest.raises(ValueError, match="needs a 'key' clock"):
        replace(base, clocks=())
    with pytest.raises(ValueError, match="within key_setup_cycles"):
        replace(base, key_clock_cycles=base.key_setup_cycles + 1)
    with pytest.raises(ValueError, match="besides sync"):
        replace(base, clocks=("sync", "key"))


@pytest.mark.parametrize("key_period", [0.5, 11.0])
def test_random_run_with_backpressure_at_clock_ratio(engine, key_period):
    e = engine.at_key_period(key_period)
    r = random_run(e, 1500, seed=int(key_period * 100), mean_blocks_per_key=40,
                   in_valid_prob=0.7, out_ready_prob=0.6)
    assert r.mismatches == 0, r.first_mismatch
    assert r.keys > 10
    lo, hi = key_setup_bounds(e.info, key_period)
    first_after_reset = hi + 2 * key_period + 1      # the key domain leaving reset, at most 2 key clocks
    assert all(lo <= k <= first_after_reset for k in r.key_to_block), (sorted(r.key_to_block), lo, hi)


@pytest.mark.parametrize("key_period", [0.05, 5.0, 20.0])
def test_declared_timing(engine, key_period):
    assert check_timing(engine.at_key_period(key_period)) == []


def test_key_setup_exact_at_equal_clocks_and_scaled_otherwise(engine):
    info = engine.info
    assert key_setup_bounds(info, 1.0) == (37, 37)
    assert key_setup_bounds(info, 2.0) == (3 + 68 - 1, 3 + 68 + 2 + 1)


@pytest.mark.parametrize("reset_after", [0, 4, 11, 40])
def test_reset_during_key_expansion(engine, reset_after):
    """A reset at any point of the expansion (key side in reset asynchronously, sync side
    at the clock) leaves both sides agreeing: the next key works, the reset is clean."""
    rng = random.Random(reset_after)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    blocks = [rng.randbytes(16) for _ in range(6)]
    for key_period in (1.0, 3.3, 0.4):
        ops = [("key", k1), ("block", blocks[0]), ("key", k2), ("reset", reset_after), ("key", k2),
               *[("block", b) for b in blocks]]
        r = engine.core.run(ops, key_period=key_period, timeout=2000)
        assert r.ok, r.error
        assert r.resets[0].clean
        assert r.outputs[-6:] == [aes(k2, b) for b in blocks]


def test_first_key_after_reset_waits_for_the_key_domain(engine):
    """The key domain leaves reset two key clocks after rst falls: a key loaded at once
    waits that long more, a second key takes the declared setup."""
    rng = random.Random(9)
    k, b = rng.randbytes(16), rng.randbytes(16)
    r = engine.core.run([("key", k), ("block", b), ("key", k), ("block", b)], pair_prob=1.0)
    assert r.out == aes(k, b) * 2
    first, second = (int(x) for x in r.key_to_block_cycles)
    assert second == engine.info.key_setup_cycles and first in (37, 38)


def test_key_setup_time_in_the_flow_record(engine):
    info = engine.info
    src = DesignSource(verilog="", top=POINT.top, design={}, cycles_per_block_ecb=10,
                       key_setup_cycles=info.key_setup_cycles, info=info.as_json())
    # 3 clk cycles at 100 MHz, 34 key_clk cycles at 200 MHz
    assert key_setup_ns(src, 100.0, {"$glbnet$clk": 100.0, "$glbnet$key_clk": 200.0}) == (200.0, 200.0)
    assert key_setup_ns(src, 100.0, {"$glbnet$clk": 100.0}) == (None, None)   # no key clock timed
    single = DesignSource(verilog="", top="x", design={}, cycles_per_block_ecb=10, key_setup_cycles=22,
                          info=replace(info, clocks=(), key_clock_cycles=0, key_setup_cycles=22).as_json())
    assert key_setup_ns(single, 100.0, {"$glbnet$clk": 100.0}) == (220.0, None)


def test_refusals(engine):
    single = replace(engine.info, clocks=(), key_clock_cycles=0)
    with pytest.raises(CipherfabError, match="has no key clock"):
        HardwareEngine(ExternalCore("", "single", single), key_period=2.0)
    with pytest.raises(CipherfabError, match="must lie in 0.05 to 20"):
        engine.core.run([("key", bytes(16))], key_period=25.0)
    from cipherfab.flow.incontext import wrapped_verilog
    src = DesignSource(verilog="", top=POINT.top, design={}, cycles_per_block_ecb=10,
                       info=engine.info.as_json())
    with pytest.raises(CipherfabError, match="single-clock cores only"):
        wrapped_verilog(src, "")
    p = subprocess.run([sys.executable, "-m", "cipherfab.cli", "sim", "aes", "--random", "10",
                        "--key-clock-period", "30"], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines()[-1].endswith("--key-clock-period: must lie in 0.05 to 20 "
                                                      "clk periods, got 30.0")


def test_sim_cli_runs_the_key_clock():
    p = subprocess.run([sys.executable, "-m", "cipherfab.cli", "sim", "aes", "--arch", "interleaved",
                        "--direction", "both", "--sbox", "rom", "--key-clock", "separate",
                        "--random", "500", "--key-clock-period", "2.5", "--valid-prob", "0.8",
                        "--blocks-per-key", "50"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "500 passed, 0 failed" in p.stdout and "key_clk at 2.5 clk periods" in p.stdout
