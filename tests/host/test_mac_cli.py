"""``cipherfab mac`` (CMAC through the system) and the CMAC reference it checks against."""

import os

import pytest
from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.cmac import CMAC

from cipherfab.cli import main
from cipherfab.host.driver import cmac_padded
from cipherfab.host.mode_reference import cmac_model, cmac_reference
from cipherfab.registry import get_cipher

K = "000102030405060708090a0b0c0d0e0f"
CORE = ["aes", "--sbox", "rom", "--direction", "both"]     # the system test_encrypt_cli compiles


def _openssl(algorithm, data):
    mac = CMAC(algorithm)
    mac.update(data)
    return mac.finalize()


@pytest.mark.parametrize("cipher, key_bytes, algorithm", [("aes", 16, algorithms.AES),
                                                          ("aes", 32, algorithms.AES),
                                                          ("tdes", 24, TripleDES)])
def test_the_cmac_model_equals_openssl(cipher, key_bytes, algorithm):
    """The model that checks the finalists' CMAC, over AES (R = 0x87) and TDES (R = 0x1B)
    blocks, equals OpenSSL's CMAC on every length class."""
    model = get_cipher(cipher).reference_model(8 * key_bytes)
    bb = model.block_bits // 8
    for n in (0, 1, bb - 1, bb, bb + 1, 3 * bb, 100):
        key, data = os.urandom(key_bytes), os.urandom(n)
        assert cmac_model(lambda b: model.encrypt(key, b), bb, data) == _openssl(algorithm(key), data), n
    assert cmac_reference("aes", bytes(16), b"abc") == _openssl(algorithms.AES(bytes(16)), b"abc")


def test_cmac_padding_is_10_star():
    assert cmac_padded(b"") == b"\x80" + bytes(15)
    assert cmac_padded(b"a" * 16) == b"a" * 16
    assert cmac_padded(b"a" * 17) == b"a" * 17 + b"\x80" + bytes(14)


def test_mac_writes_the_tag_and_verifies_it(tmp_path, capsys):
    """The tag file equals cryptography's CMAC; --verify accepts it, refuses a changed byte
    (exit 1, "authentication failed") and a changed message; a 64-bit tag of an empty message."""
    src, tag = tmp_path / "m.bin", tmp_path / "m.tag"
    src.write_bytes(bytes(range(200)))
    argv = ["mac", *CORE, "--key", K, "--in", str(src), "--quiet"]
    assert main([*argv, "--out", str(tag)]) == 0
    assert tag.read_bytes() == _openssl(algorithms.AES(bytes.fromhex(K)), src.read_bytes())
    assert "128-bit tag written; checked against the reference" in capsys.readouterr().out
    assert main([*argv, "--verify", str(tag)]) == 0
    assert "tag verified" in capsys.readouterr().out
    bad = tmp_path / "bad.tag"
    bad.write_bytes(bytes([tag.read_bytes()[0] ^ 1]) + tag.read_bytes()[1:])
    assert main([*argv, "--verify", str(bad)]) == 1
    assert capsys.readouterr().err.strip() == "cipherfab mac: error: authentication failed"
    src.write_bytes(bytes(range(199)))
    assert main([*argv, "--verify", str(tag)]) == 1
    empty, short = tmp_path / "e.bin", tmp_path / "e.tag"
    empty.write_bytes(b"")
    assert main(["mac", *CORE, "--key", K, "--in", str(empty), "--out", str(short), "--tag-bits", "64",
                 "--quiet"]) == 0
    assert short.read_bytes() == _openssl(algorithms.AES(bytes.fromhex(K)), b"")[:8]
