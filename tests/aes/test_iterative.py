"""The iterative AES core, Verilator-compiled, on official vectors, random runs and protocol cases."""

import random
from pathlib import Path

import pytest

from cipherfab.ciphers.aes import reference as ref
from cipherfab.sim.engine import random_run
from cipherfab.vectors import parse_file, run_records

VECTORS = Path(__file__).parent.parent / "vectors" / "aes"
# The KAT files, random runs and timing of every test point are in tests/test_cores.py;
# these are the AES-specific cases, on the same test points (so no extra compiles).


def _ids(c):
    return f"aes{c[0]}-{c[1]}-{c[2]}"


@pytest.mark.parametrize("config", [(128, "encrypt", "rom"), (128, "both", "lut")], ids=_ids)
def test_mmt_and_mct(engine, config):
    files = [VECTORS / "aesmmt" / "ECBMMT128.rsp", VECTORS / "aesmct" / "ECBMCT128.rsp"]
    # the MCT file's first 20 records of [ENCRYPT] and of [DECRYPT] (all 200: `cipherfab sim`)
    mmt, mct = (parse_file(f, 16) for f in files)
    picked = [r for section in ("[ENCRYPT]", "[DECRYPT]")
              for r in [r for r in mct if r.section == section][:20]]
    reports = run_records(mmt + picked, engine(*config))
    assert [(r.failed, r.passed + r.skipped) for r in reports] == [(0, 20), (0, 40)]
    assert reports[1].passed == (40 if config[1] == "both" else 20)


def test_long_random_differential_with_backpressure(engine):
    e = engine(256, "both", "rom")
    r = random_run(e, 10_000, seed=256, mean_blocks_per_key=25, in_valid_prob=0.6, out_ready_prob=0.4)
    assert r.mismatches == 0, r.first_mismatch
    assert r.keys > 100


def _expected(key, blocks, decrypt=False):
    f = ref.decrypt_block if decrypt else ref.encrypt_block
    return [f(key, b) for b in blocks]


def test_key_change_with_blocks_in_flight(engine):
    e = engine(128, "both", "lut")
    rng = random.Random(3)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    b = [rng.randbytes(16) for _ in range(6)]
    ops = [("key", k1)] + [("block", x, False) for x in b[:3]] + [("key", k2)] + \
          [("block", x, i % 2 == 1) for i, x in enumerate(b[3:])]
    r = e.core.run(ops, out_ready_prob=0.5, seed=9)
    assert r.ok
    assert r.outputs == _expected(k1, b[:3]) + [
        ref.decrypt_block(k2, x) if i % 2 else ref.encrypt_block(k2, x) for i, x in enumerate(b[3:])]
    # the second key waited until the third block had left the rounds
    assert r.op_cycle[4] >= r.accept_cycle[2] + e.info.cycles_per_block


def test_reset_mid_block_leaves_core_idle_and_clears_keys(engine):
    e = engine(128, "encrypt", "rom")
    rng = random.Random(4)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    b = [rng.randbytes(16) for _ in range(8)]
    ops = [("key", k1)] + [("block", x) for x in b[:4]] + [("reset", 5), ("key", k2)] + \
          [("block", x) for x in b[4:]]
    r = e.core.run(ops)
    assert r.ok and len(r.resets) == 1
    info = r.resets[0]
    assert info.clean and info.lost >= 1
    assert r.outputs[:info.outputs_before] == _expected(k1, b[:info.outputs_before])
    assert r.outputs[info.outputs_before:] == _expected(k2, b[4:])
    # without a new key after reset, no block is taken: the old key is gone
    r = e.core.run([("key", k1), ("block", b[0]), ("reset", 3), ("block", b[1])], timeout=200)
    assert r.hang and r.outputs == []
