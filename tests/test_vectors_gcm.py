"""The GCM vector runner (cipherfab.vectors.gcm) on the CAVP file, with the reference as the
thing under test: every encrypt record passes (ciphertext, tag, decryption, a flipped tag
refused); runs that get something wrong fail; a decrypt file's FAIL records must be refused."""

from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.hw import gcm_model
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
