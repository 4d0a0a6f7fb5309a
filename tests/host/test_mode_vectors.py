"""``cipherfab sim --mode ofb|cfb --vectors``: NIST's OFB and CFB128 MMT files (the copies in
the cryptography-vectors package) through the accelerator system around AES-128, every
record passing; the same file with one ciphertext byte changed fails with exit 1 and names
the record; records of another key size are skipped and counted."""

import pytest

from pathlib import Path

from cipherfab.cli import main

VEC = Path(__file__).parent.parent / "vectors" / "aes" / "cryptography_vectors"
CORE = ["aes", "--sbox", "rom", "--direction", "both"]      # the system test_encrypt_cli.py compiles


@pytest.mark.parametrize("mode, name", [("ofb", "OFBMMT128.rsp"), ("cfb", "CFB128MMT128.rsp")])
def test_nist_files_pass_and_a_changed_byte_fails(tmp_path, capsys, mode, name):
    assert main(["sim", *CORE, "--mode", mode, "--vectors", str(VEC / name)]) == 0
    out = capsys.readouterr().out
    assert f"{name}: 20 passed, 0 failed" in out and "20 passed, 0 failed" in out.splitlines()[-1]
    text = (VEC / name).read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(text) if ln.startswith("CIPHERTEXT") and "[DECRYPT]" not in ln)
    key, value = text[at].split("=")
    value = value.strip()
    text[at] = f"{key}= {'0' if value[0] != '0' else '1'}{value[1:]}\n"
    bad = tmp_path / name
    bad.write_text("".join(text))
    assert main(["sim", *CORE, "--mode", mode, "--vectors", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "19 passed, 1 failed" in out and f"first failure: {bad} line {at - 3}" in out


def test_another_key_size_is_skipped_and_counted(capsys):
    assert main(["sim", *CORE, "--key-bits", "256", "--mode", "ofb",
                 "--vectors", str(VEC / "OFBMMT128.rsp"), "--limit", "3"]) == 2
    assert "no record in the vector files is for this core's key size" in capsys.readouterr().err
