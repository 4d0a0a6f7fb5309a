"""The GCM vector runner (cipherfab.vectors.gcm) on the CAVP file, with the reference as the
thing under test: every encrypt record passes (ciphertext, tag, decryption, a flipped tag
refused); runs that get something wrong fail; a decrypt file's FAIL records must be refused."""

from pathlib import Path

import pytest

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.hw.gcm import gcm_model
from cipherfab.vectors.gcm import parse_gcm, run_gcm_files

RSP = Path(__file__).parent / "vectors" / "aes" / "gcmtestvectors" / "gcmEncryptExtIV128.rsp"


def reference(key, decrypt, iv, aad, data, tag, tag_bytes):
    aes = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    block = lambda x: int.from_bytes(aes.update(x.to_bytes(16, "big")), "big")
    if decrypt:
        pt = gcm_model.decrypt(block, iv, aad, data, tag)
        return (pt or b""), None, pt is not None
    ct, t = gcm_model.encrypt(block, iv, aad, data, tag_bytes)
    return ct, t, None


def test_the_whole_cavp_file_passes_on_the_reference():
    records = parse_gcm(RSP)
    assert len(records) == 7875
    assert {len(r.iv) for r in records} == {1, 12, 128}
    assert {len(r.tag) for r in records} == {4, 8, 12, 13, 14, 15, 16}
    (rep,) = run_gcm_files([RSP], reference, 128, limit=1500)
    assert (rep.passed, rep.failed) == (1500, 0)


def test_every_kind_of_wrong_answer_fails():
    def wrong_ct(*a):
        out, tag, ok = reference(*a)
        return (bytes([out[0] ^ 1]) + out[1:] if out and not a[1] else out), tag, ok

    def any_tag(*a):
        out, tag, ok = reference(*a)
        return out, tag, True if a[1] else ok

    def wrong_tag(*a):
        out, tag, ok = reference(*a)
        return out, (bytes([tag[0] ^ 1]) + tag[1:] if tag else tag), ok
    for bad, words in ((wrong_ct, "ciphertext"), (any_tag, "a tag with one bit flipped was accepted"),
                       (wrong_tag, "tag ")):
        (rep,) = run_gcm_files([RSP], bad, 128, limit=600)     # the first 525 have no text
        assert rep.failed > 0 and words in rep.first_failure, (bad.__name__, rep.first_failure)


def test_decrypt_files_fail_records_must_be_refused(tmp_path):
    """A decrypt-file layout made from the encrypt file: every other record's tag changed
    and marked FAIL."""
    lines = RSP.read_text().splitlines()
    lines, out, n = lines[:lines.index("[Taglen = 120]")], [], 0     # the first section, 15
    for line in lines:
        if line.startswith("Tag = ") and n % 2:
            out += [line[:-1] + ("0" if line[-1] != "0" else "1"), "FAIL"]
        else:
            out.append(line)
        n += line.startswith("Tag = ")
    f = tmp_path / "gcmDecrypt128.rsp"
    f.write_text("\n".join(out) + "\n")
    records = parse_gcm(f)
    assert sum(r.plaintext is None for r in records) == len(records) // 2
    (rep,) = run_gcm_files([f], reference, 128)
    assert (rep.passed, rep.failed) == (len(records), 0)

    def accepts_all(*a):
        out, tag, ok = reference(*a)
        return out, tag, True if a[1] else ok
    (rep,) = run_gcm_files([f], accepts_all, 128)
    assert rep.failed == len(records)          # the FAIL ones, and the good ones' flipped tags
    fails = [r for r in parse_gcm(f) if r.plaintext is None]
    from cipherfab.vectors.gcm import _check
    assert _check(fails[0], accepts_all) == "a tag the file marks FAIL was accepted"
    assert _check(fails[0], reference) is None


def test_other_key_sizes_are_skipped_and_counted():
    (rep,) = run_gcm_files([RSP], reference, 256, limit=10)
    assert (rep.passed, rep.failed, rep.skipped) == (0, 0, 10)
    assert rep.skip_reasons == ["128-bit keys (the core takes 256)"]


CRYPTOPP = RSP.parent.parent / "cryptopp" / "gcm.txt"
EXAMPLE = RSP.parent.parent / "sp800-38a_examples" / "AES_GCM.txt"


def test_cryptopp_and_nist_example_files_pass_on_the_reference_at_every_key_size():
    from cipherfab.vectors.gcm import gcm_format, read_gcm
    assert (gcm_format(RSP), gcm_format(CRYPTOPP), gcm_format(EXAMPLE)) == \
        ("cavp", "cryptopp", "nist-example")
    tests, examples = read_gcm(CRYPTOPP), read_gcm(EXAMPLE)
    assert len(tests) == 22 and len(examples) == 18
    assert [r.plaintext is None for r in tests].count(True) == 1          # Test: NotVerify
    assert len(tests[-1].plaintext) == 11 * 65 and len(tests[-1].iv) == 16  # "r11 006bc1..."
    assert {len(r.iv) for r in tests} == {8, 12, 16, 60}
    assert {len(r.tag) for r in examples} == {12, 16} and {len(r.aad) for r in examples} == {0, 20, 64}
    assert examples[5].where.endswith("(GCM-AES128 example #6)")
    for bits, passed in ((128, (10, 6)), (192, (6, 6)), (256, (6, 6))):
        reports = run_gcm_files([CRYPTOPP, EXAMPLE], reference, bits)
        assert [(r.passed, r.failed) for r in reports] == [(passed[0], 0), (passed[1], 0)]

    def wrong_tag(*a):
        out, tag, ok = reference(*a)
        return out, (bytes([tag[0] ^ 1]) + tag[1:] if tag else tag), ok
    for f in (CRYPTOPP, EXAMPLE):
        (rep,) = run_gcm_files([f], wrong_tag, 128)
        assert rep.failed > 0 and "tag " in rep.first_failure


CRYPTOPP_OK = ("AlgorithmType: AuthenticatedSymmetricCipher\nName: AES/GCM\n"
               "Key: 00000000000000000000000000000000\nIV:  000000000000000000000000\n"
               "Plaintext: 00000000000000000000000000000000\n"
               "Ciphertext: 0388dace60b6a392f328c2b971b2fe78\n"
               "MAC: ab6e47d42cec13bdf53a67b21257bddf\nTest: Encrypt\n")
EXAMPLE_OK = EXAMPLE.read_text().split("Example #2")[0]


@pytest.mark.parametrize("text,words", [
    (CRYPTOPP_OK.replace("AES/GCM", "AES/CCM"), "line 2: Name: AES/CCM is not AES/GCM"),
    (CRYPTOPP_OK + "Nonce: 00\n", "line 9: unknown field 'Nonce'"),
    (CRYPTOPP_OK.replace("Test: Encrypt", "Test: Decrypt"), "line 8: Test: Decrypt is not one of"),
    (CRYPTOPP_OK.replace("Key: 0000", "Key: 0g00"), "line 3: Key is not hex: '0g00"),
    (CRYPTOPP_OK.replace("Key: 0000", "Key: 000"), "line 3: Key has an odd number of hex digits"),
    (CRYPTOPP_OK.replace("Key: 0000", "Key: 00"), "line 3: Key is 15 bytes; AES keys are 16, 24 or 32"),
    (CRYPTOPP_OK.replace("MAC: ab6e47d42cec13bdf53a67b21257bddf", "MAC: ab6e47d42c"), "line 7: MAC is 5 bytes"),
    (CRYPTOPP_OK.replace("MAC: ab6e47d42cec13bdf53a67b21257bddf", "MAC: ab6e47d42cec13bdf53a67b2"),
     None),                                                          # 12 bytes: allowed
    (CRYPTOPP_OK.replace("MAC: ab6e47d42cec13bdf53a67b21257bddf", "MAC: ab6e47d42cec13bdf53a"),
     "MAC is 10 bytes; SP 800-38D tags are 4, 8 or 12 to 16 bytes"),
    (CRYPTOPP_OK.replace("MAC: ab6e", "Test: Encrypt\nMAC: ab6e"), "line 7: test without MAC"),
    (CRYPTOPP_OK.replace("Ciphertext: 0388", "Ciphertext: 88"), "Plaintext has 16 bytes, Ciphertext 15"),
    (CRYPTOPP_OK.replace("IV:  000000000000000000000000", "IV:"), "line 4: IV is empty"),
    (CRYPTOPP_OK.replace("Plaintext: 00", "Plaintext: r2"), "line 5: Plaintext ends with a repeat count"),
    (CRYPTOPP_OK + "Key: 00 \\", "line 9: a value continued (\\) past the end of the file"),
    (CRYPTOPP_OK + "just words\n", "line 9: not a 'Name: value' line"),
    ("AlgorithmType: AuthenticatedSymmetricCipher\nName: AES/GCM\n", "no GCM tests"),
    (CRYPTOPP_OK.replace("Test: Encrypt\n", "\nTest: Encrypt\n"), "line 9: test without Key"),
    (EXAMPLE_OK.replace("FEFFE992 8665731C 6D6A8F94 67308308", "FEFFE992 8665731C 6D6A8F94", 1),
     "example #1: K has 96 bits under GCM-AES128"),
    (EXAMPLE_OK.replace("Taglen = 128", "Taglen = 96"), "example #1: Tag has 128 bits, Taglen = 96"),
    (EXAMPLE_OK.replace("PTlen = 0\n", ""), "example #1 without 'PTlen = '"),
    (EXAMPLE_OK.replace("Tag is", "Tog is"), "example #1 without 'Tag is'"),
    (EXAMPLE_OK.replace("The Mac verifies", ""), "no 'The Mac verifies' and 'P is' after Decrypt-Verify"),
    (EXAMPLE_OK.replace("GCM-AES128\n", ""), "an example before its GCM-AES128/192/256 heading"),
    (EXAMPLE_OK.replace("Encrypt-Generate\n", ""), "'K is' before Encrypt-Generate"),
    (EXAMPLE_OK.replace("CAFEBABE FACEDBAD DECAF888\n", "CAFEBABE FACEDBAD DECAF88\n", 1),
     "an odd number of hex digits: 'CAFEBABE FACEDBAD DECAF88'"),
    (EXAMPLE_OK.replace("Decrypt-Verify", "Decrypt-Verify\nP is\n00000000"),
     "P given twice after Decrypt-Verify"),
    (EXAMPLE_OK.replace("Taglen = 128", "Taglen = 128\nwhat is this"), "unrecognised line 'what is this'"),
    (EXAMPLE_OK.replace("Example #1", "Sample #1"), "'Sample #1' outside an example"),
])
def test_malformed_cryptopp_and_example_files_are_refused_in_one_line(tmp_path, text, words):
    from cipherfab.errors import CipherfabError
    from cipherfab.vectors.gcm import read_gcm
    f = tmp_path / "gcm.txt"
    f.write_text(text)
    if words is None:
        assert len(read_gcm(f)) == 1
        return
    with pytest.raises(CipherfabError) as e:
        read_gcm(f)
    assert words in str(e.value) and str(f) in str(e.value) and "\n" not in str(e.value)
