"""Checks shared by the tests of the small AES-128 encrypt cores (column, byte).

Each takes the architecture name; engines (Verilator builds) are cached per point.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from cipherfab import registry
from cipherfab.ciphers.aes import reference as ref
from cipherfab.generate import generate_verilog, make_core
from cipherfab.hw.info import info_of
from cipherfab.sim.engine import HardwareEngine
from cipherfab.sim.verilated import verilator_root
from cipherfab.vectors import run_files

VECTORS = Path(__file__).parent.parent / "vectors"
_engines: dict = {}


def engine(arch: str, sbox: str = "rom") -> HardwareEngine:
    params = registry.resolve("aes", arch, sbox=sbox)
    if params not in _engines:
        _engines[params] = HardwareEngine(params)
    return _engines[params]


def declared(arch: str):
    """The CoreInfo of the default point, inspected without building it."""
    core = make_core(registry.resolve("aes", arch))
    core._MustUse__silence = True
    return info_of(core)


def check_lint_clean(arch: str, sbox: str, tmp_path: Path, latency: int):
    text, _, _ = generate_verilog(registry.resolve("aes", arch, sbox=sbox))
    assert text.startswith(f"// aes_{arch}_128_encrypt_{sbox}:") and f"Latency: {latency} cycles" in text
    (tmp_path / "core.v").write_text(text)
    root = verilator_root()
    p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", "core.v"], cwd=tmp_path,
                       capture_output=True, text=True, env={"VERILATOR_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[:2000]


def check_mmt_and_monte_carlo(arch: str):
    files = [VECTORS / "aes" / "aesmmt" / "ECBMMT128.rsp", VECTORS / "aes" / "aesmct" / "ECBMCT128.rsp"]
    # the first 20 records of each (the MCT file's 100 chained records are 100,000 blocks:
    # 20 s on the byte-serial core; the full files run in `cipherfab sim`)
    reports = run_files(files, engine(arch), limit=20)
    assert [r.failed for r in reports] == [0, 0]
    # MMT decrypt records are checked by encrypting their plaintext; Monte-Carlo decrypt
    # chains need a decrypting core and are skipped
    assert [r.passed for r in reports] == [20, 20]


def check_result_waits_and_keys_change_between_blocks(arch: str):
    rng = random.Random(5)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    b = [rng.randbytes(16) for _ in range(6)]
    ops = [("key", k1)] + [("block", x) for x in b[:3]] + [("key", k2)] + [("block", x) for x in b[3:]]
    r = engine(arch).core.run(ops, out_ready_prob=0.05, seed=11)  # results wait long for ready
    assert r.ok
    assert r.outputs == [ref.encrypt_block(k1, x) for x in b[:3]] + [ref.encrypt_block(k2, x) for x in b[3:]]


def check_reset_mid_block(arch: str, reset_at: int, timeout: int):
    """A reset mid-block leaves the core idle and clears its key."""
    e = engine(arch)
    rng = random.Random(4)
    k1, k2 = rng.randbytes(16), rng.randbytes(16)
    b = [rng.randbytes(16) for _ in range(6)]
    ops = [("key", k1)] + [("block", x) for x in b[:3]] + [("reset", reset_at), ("key", k2)] + \
          [("block", x) for x in b[3:]]
    r = e.core.run(ops)
    assert r.ok and len(r.resets) == 1
    info = r.resets[0]
    assert info.clean and info.lost >= 1
    assert r.outputs[:info.outputs_before] == [ref.encrypt_block(k1, x) for x in b[:info.outputs_before]]
    assert r.outputs[info.outputs_before:] == [ref.encrypt_block(k2, x) for x in b[3:]]
    # without a new key after reset, no block is taken: the old key is gone
    r = e.core.run([("key", k1), ("block", b[0]), ("reset", 3), ("block", b[1])], timeout=timeout)
    assert r.hang and r.outputs == []
