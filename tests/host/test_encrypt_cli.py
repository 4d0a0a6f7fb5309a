"""``cipherfab encrypt|decrypt``: a file there and back with padding, and every refusal
in one line with no output file left behind."""

import subprocess
import sys

import pytest

K = "000102030405060708090a0b0c0d0e0f"
IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "cipherfab.cli", *map(str, args)],
                          capture_output=True, text=True)


CORE = ["aes", "--sbox", "rom", "--direction", "both"]


def test_cbc_file_there_and_back(tmp_path):
    src, enc, dec = tmp_path / "a.bin", tmp_path / "a.cbc", tmp_path / "a.out"
    src.write_bytes(bytes(range(256)) * 3 + b"tail")
    p = cli("encrypt", *CORE, "--key", K, "--iv", IV, "--mode", "cbc", "--in", src, "--out", enc,
            "--width", 64, "--link", "pilchard-wc", "--fmax", 96.8)
    assert p.returncode == 0, p.stderr
    assert len(enc.read_bytes()) == 784                     # 772 bytes padded to 49 blocks
    assert "checked against the reference" in p.stdout and "Fmax used: 96.8 MHz" in p.stdout
    p = cli("decrypt", *CORE, "--key", K, "--iv", IV, "--mode", "cbc", "--in", enc, "--out", dec)
    assert p.returncode == 0, p.stderr
    assert dec.read_bytes() == src.read_bytes()


@pytest.fixture(scope="module")
def encrypted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("enc")
    src, enc = folder / "a.bin", folder / "a.cbc"
    src.write_bytes(b"sixteen byte msg" * 2)
    assert cli("encrypt", *CORE, "--key", K, "--iv", IV, "--mode", "cbc", "--in", src,
               "--out", enc).returncode == 0
    return enc


@pytest.mark.parametrize("change,message", [
    (["--key", "00"], "--key has 2 hex digits"),
    (["--iv", "0011"], "--iv '0011': 4 hex digits; the IV is one 128-bit aes block"),
    (["--link", "modem"], "unknown link 'modem'"),
    (["--in", "missing.bin"], "--in missing.bin: no such file"),
    (["--mode", "xts"], "invalid choice: 'xts'"),
    (["--fmax", "-5"], "argument --fmax: must lie in 0.001 to 10000 MHz, got -5"),
    (["--key", K[:-2] + "ff"], "wrong padding after decryption"),
])
def test_bad_input_one_line_no_output(tmp_path, encrypted, change, message):
    out = tmp_path / "out.bin"
    args = {"--key": K, "--iv": IV, "--mode": "cbc", "--in": encrypted, "--out": out, "--link": "axi-dma"}
    args.update(dict(zip(change[::2], change[1::2])))
    p = cli("decrypt", *CORE, *[x for kv in args.items() for x in kv])
    assert p.returncode != 0
    assert message in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2          # argparse adds its usage line
    assert not out.exists()
