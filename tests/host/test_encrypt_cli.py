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


@pytest.mark.parametrize("mode", ["ofb", "cfb", "cfb8"])
def test_ofb_and_cfb_files_of_any_length_equal_cryptography(tmp_path, capsys, mode):
    """OFB, CFB (CFB128) and CFB8 through the system, a message that ends in a partial block:
    the file equals cryptography's, and decrypting (the encrypting core) gives it back."""
    from cryptography.hazmat.decrepit.ciphers.modes import CFB, CFB8, OFB
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    from cipherfab.cli import main
    src, enc, dec = tmp_path / "a.bin", tmp_path / f"a.{mode}", tmp_path / "a.out"
    src.write_bytes(bytes(range(256)) * 2 + b"tail")
    core = CORE                                   # the system test_cbc_file_there_and_back compiles
    assert main(["encrypt", *core, "--key", K, "--iv", IV, "--mode", mode, "--in", str(src),
                 "--out", str(enc), "--quiet"]) == 0
    lib = {"ofb": OFB, "cfb": CFB, "cfb8": CFB8}[mode](bytes.fromhex(IV))
    want = Cipher(algorithms.AES(bytes.fromhex(K)), lib).encryptor().update(src.read_bytes())
    assert enc.read_bytes() == want                            # 516 bytes: no padding
    assert main(["decrypt", *core, "--key", K, "--iv", IV, "--mode", mode, "--in", str(enc),
                 "--out", str(dec), "--quiet"]) == 0
    assert dec.read_bytes() == src.read_bytes()
    assert "checked against the reference" in capsys.readouterr().out


def test_cfb1_file_bit_by_bit_and_a_wrong_result_refused(tmp_path, capsys, monkeypatch):
    """CFB1 over a file's bits (most significant first): SP 800-38A over cryptography's AES
    block (cryptography has no CFB1; the construction is checked against NIST's CFB1 files in
    tests/host/test_mode_reference.py), back again by decrypting; a system whose output has
    one bit changed is refused, exit 1, no file."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cipherfab.cli import main
    from cipherfab.host.driver import Accelerator
    from cipherfab.host.mode_reference import cfb_segment_model
    src, enc, dec = tmp_path / "a.bin", tmp_path / "a.cfb1", tmp_path / "a.out"
    src.write_bytes(b"CFB1, a bit at a time: " + bytes(range(20)))
    args = [*CORE, "--key", K, "--iv", IV, "--mode", "cfb1", "--quiet"]
    assert main(["encrypt", *args, "--in", str(src), "--out", str(enc)]) == 0
    ecb = Cipher(algorithms.AES(bytes.fromhex(K)), modes.ECB()).encryptor()
    assert enc.read_bytes() == cfb_segment_model(ecb.update, 1, bytes.fromhex(IV), src.read_bytes(), False)
    assert main(["decrypt", *args, "--in", str(enc), "--out", str(dec)]) == 0
    assert dec.read_bytes() == src.read_bytes()
    real = Accelerator.run

    def one_bit_off(self, *a, **k):
        r = real(self, *a, **k)
        r.out = bytes([r.out[0] ^ 0x10]) + r.out[1:]
        return r
    monkeypatch.setattr(Accelerator, "run", one_bit_off)
    out = tmp_path / "b.cfb1"
    assert main(["encrypt", *args, "--in", str(src), "--out", str(out)]) == 1
    assert "differs from the reference model" in capsys.readouterr().err and not out.exists()


def test_ccm_there_and_back_and_a_tamper_refused_with_no_output(tmp_path, capsys):
    """CCM with AAD and a 64-bit tag: the file is cryptography's AESCCM output (ciphertext,
    then the tag); decrypting gives the plaintext; one changed ciphertext byte, a changed
    AAD or a truncated file is "authentication failed", exit 1, no output file."""
    from cryptography.hazmat.primitives.ciphers.aead import AESCCM
    from cipherfab.cli import main
    src, aad, enc, dec = (tmp_path / n for n in ("a.bin", "a.aad", "a.ccm", "a.out"))
    src.write_bytes(bytes(range(256)) * 3 + b"tail")
    aad.write_bytes(b"header bytes")
    nonce = IV[:22]                                        # 11 bytes
    args = ["--key", K, "--iv", nonce, "--aad", str(aad), "--tag-bits", "64", "--quiet"]
    assert main(["encrypt", *CORE, "--mode", "ccm", *args, "--in", str(src), "--out", str(enc)]) == 0
    want = AESCCM(bytes.fromhex(K), tag_length=8).encrypt(bytes.fromhex(nonce), src.read_bytes(), b"header bytes")
    assert enc.read_bytes() == want
    assert "two messages through the system: CBC-MAC" in capsys.readouterr().out
    assert main(["decrypt", *CORE, "--mode", "ccm", *args, "--in", str(enc), "--out", str(dec)]) == 0
    assert dec.read_bytes() == src.read_bytes()
    dec.unlink()
    bad = tmp_path / "bad.ccm"
    for changed in (want[:5] + bytes([want[5] ^ 1]) + want[6:], want[:7]):
        bad.write_bytes(changed)
        assert main(["decrypt", *CORE, "--mode", "ccm", *args, "--in", str(bad), "--out", str(dec)]) == 1
        assert "authentication failed" in capsys.readouterr().err and not dec.exists()
    aad.write_bytes(b"header bytez")
    assert main(["decrypt", *CORE, "--mode", "ccm", *args, "--in", str(enc), "--out", str(dec)]) == 1
    assert not dec.exists()


def test_xts_file_in_data_units_equals_cryptography(tmp_path, capsys):
    """XTS of a 1000-byte file in 400-byte data units from data unit 5 (the last unit, 200
    bytes, steals ciphertext): each unit equals cryptography's XTS under its tweak (the
    unit's number, little-endian); decrypting gives the file back; --tweak with the same
    16 bytes gives the same file."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cipherfab.cli import main
    src, enc, dec, enc2 = (tmp_path / n for n in ("a.bin", "a.xts", "a.out", "b.xts"))
    src.write_bytes(bytes(range(250)) * 4)
    key = K + IV
    assert main(["encrypt", *CORE, "--key", key, "--mode", "xts", "--data-unit", "5",
                 "--data-unit-bytes", "400", "--in", str(src), "--out", str(enc), "--quiet"]) == 0
    data = src.read_bytes()
    want = b"".join(Cipher(algorithms.AES(bytes.fromhex(key)), modes.XTS((5 + u).to_bytes(16, "little")))
                    .encryptor().update(data[400 * u:400 * u + 400]) for u in range(3))
    assert enc.read_bytes() == want
    assert "3 data units of 400 bytes" in capsys.readouterr().out
    assert main(["decrypt", *CORE, "--key", key, "--mode", "xts", "--data-unit", "5",
                 "--data-unit-bytes", "400", "--in", str(enc), "--out", str(dec), "--quiet"]) == 0
    assert dec.read_bytes() == data
    assert main(["encrypt", *CORE, "--key", key, "--mode", "xts", "--tweak", (5).to_bytes(16, "little").hex(),
                 "--data-unit-bytes", "400", "--in", str(src), "--out", str(enc2), "--quiet"]) == 0
    assert enc2.read_bytes() == want


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
    (["--mode", "cfb4"], "invalid choice: 'cfb4'"),
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


IV12 = "cafebabefacedbaddecaf888"


def test_gcm_there_and_back_and_every_forgery_refused(tmp_path):
    """GCM with AAD and a 96-bit tag, checked against cryptography inside the command and
    here; then a wrong tag, a truncated file, a wrong key and a changed AAD byte: one line
    "authentication failed", exit 1, and no output file (nor a temporary one) anywhere."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    src, aad, enc = tmp_path / "p.bin", tmp_path / "a.bin", tmp_path / "c.bin"
    src.write_bytes(bytes(range(256)) * 2 + b"odd tail")
    aad.write_bytes(b"header: 21 bytes long")
    gcm = [*CORE, "--mode", "gcm", "--iv", IV12, "--aad", aad]
    p = cli("encrypt", *gcm, "--key", K, "--tag-bits", 96, "--in", src, "--out", enc)
    assert p.returncode == 0, p.stderr
    assert "21 bytes of AAD, a 96-bit tag appended" in p.stdout
    sealed = AESGCM(bytes.fromhex(K)).encrypt(bytes.fromhex(IV12), src.read_bytes(), aad.read_bytes())
    assert enc.read_bytes() == sealed[:-4]                  # the 12-byte tag is the full one cut
    dec = tmp_path / "d.bin"
    p = cli("decrypt", *gcm, "--key", K, "--tag-bits", 96, "--in", enc, "--out", dec)
    assert p.returncode == 0, p.stderr
    assert dec.read_bytes() == src.read_bytes()
    dec.unlink()

    data = enc.read_bytes()
    forged = {"tag": data[:-1] + bytes([data[-1] ^ 1]), "truncated": data[:-20], "tiny": data[:5],
              "text": bytes([data[0] ^ 0x80]) + data[1:]}
    other_aad = tmp_path / "a2.bin"
    other_aad.write_bytes(b"header: 21 bytes lonG")
    cases = [(name, b, K, aad) for name, b in forged.items()]
    cases += [("key", data, K[:-1] + "e", aad), ("aad", data, K, other_aad)]
    for name, content, key, aad_file in cases:
        bad = tmp_path / f"{name}.bin"
        bad.write_bytes(content)
        before = sorted(f.name for f in tmp_path.iterdir())
        p = cli("decrypt", *CORE, "--mode", "gcm", "--iv", IV12, "--aad", aad_file, "--key", key,
                "--tag-bits", 96, "--in", bad, "--out", dec)
        assert p.returncode == 1, (name, p.stderr)
        assert p.stderr.strip() == "cipherfab decrypt: error: authentication failed", name
        assert sorted(f.name for f in tmp_path.iterdir()) == before, name     # nothing written
        bad.unlink()


def test_gcm_empty_message_and_long_iv(tmp_path):
    """Nothing to encrypt is a GCM message too (its output is the tag alone); a 60-byte IV is
    hashed into J0 by the system."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    iv = "ab" * 60
    empty, enc, dec = tmp_path / "e.bin", tmp_path / "e.gcm", tmp_path / "e.out"
    empty.write_bytes(b"")
    p = cli("encrypt", *CORE, "--mode", "gcm", "--iv", iv, "--key", K, "--in", empty, "--out", enc)
    assert p.returncode == 0, p.stderr
    assert enc.read_bytes() == AESGCM(bytes.fromhex(K)).encrypt(bytes.fromhex(iv), b"", None)
    p = cli("decrypt", *CORE, "--mode", "gcm", "--iv", iv, "--key", K, "--in", enc, "--out", dec)
    assert p.returncode == 0, p.stderr
    assert dec.read_bytes() == b""
