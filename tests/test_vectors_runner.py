"""The vector runner with the `cryptography`-backed ReferenceEngine (and broken engines)."""

import re
from pathlib import Path

import pytest

import cipherfab
from cipherfab.errors import CipherfabError
from cipherfab.vectors import (FileReport, ReferenceEngine, directions_of, format_report,
                               parse_file, run_files, run_records)
from cipherfab.vectors.checks import aes_next_key, mct_inner, run_chains_by_blocks

VEC = Path(__file__).parent / "vectors"
SHIPPED = Path(cipherfab.__file__).parent / "vectors" / "kat"   # the KAT files the package ships
AES = sorted([*(VEC / "aes/KAT_AES").glob("*.rsp"), *(SHIPPED / "aes/KAT_AES").glob("*.rsp")],
             key=lambda p: p.name) + [VEC / "aes/aesmmt/ECBMMT128.rsp",
                                                     VEC / "aes/aesmct/ECBMCT128.rsp"]
DIRS = ["encrypt", "decrypt", "both"]
CLOSING = re.compile(r"\d+ passed, \d+ failed(, \d+ skipped)?")


def bits_of(path):
    return int(re.search(r"(128|192|256)\.rsp$", path.name).group(1))


class FlipEngine(ReferenceEngine):
    """Flips bit 0 of output block ``block`` for the job with this key and direction."""

    def __init__(self, bits, directions, key, decrypt, block=0):
        super().__init__(bits, directions)
        self.target, self.block = (key, decrypt), block

    def run(self, jobs):
        out = super().run(jobs)
        for (key, decrypt, _), blocks in zip(jobs, out):
            if (key, decrypt) == self.target and len(blocks) > self.block:
                b = blocks[self.block]
                blocks[self.block] = bytes([b[0] ^ 1]) + b[1:]
        return out


@pytest.mark.parametrize("directions", DIRS)
@pytest.mark.parametrize("path", AES, ids=[p.name for p in AES])
def test_reference_engine_passes_every_aes_file(path, directions):
    (report,) = run_files([path], ReferenceEngine(bits_of(path), directions))
    n = len(parse_file(path))
    if "MCT" in path.name and directions != "both":      # the other section needs its own direction
        assert (report.passed, report.failed, report.skipped) == (n // 2, 0, n // 2)
        other = "decrypt" if directions == "encrypt" else "encrypt"
        assert report.skip_reasons == [f"{n // 2} x [{other.upper()}] Monte-Carlo needs the "
                                       f"{other} direction, the core has {directions} only"]
    else:
        assert (report.passed, report.failed, report.skipped) == (n, 0, 0), report.first_failure
        assert report.summary == f"{path}: {n} passed, 0 failed"


@pytest.mark.parametrize("directions", DIRS)
def test_ecb_var_txt_256_example(directions):
    path = SHIPPED / "aes/KAT_AES/ECBVarTxt256.rsp"
    text = format_report(run_files([path], ReferenceEngine(256, directions)))
    assert text == f"{path}: 256 passed, 0 failed\n256 passed, 0 failed"


def test_whole_files_are_batched():
    files = [p for p in AES if p.name.endswith("256.rsp")]
    engine = ReferenceEngine(256, "both")
    reports = run_files(files, engine)
    assert sum(r.passed for r in reports) == sum(len(parse_file(p)) for p in files)
    assert engine.calls == 1          # one-block CBC records and all ECB records: a single call
    engine = ReferenceEngine(128, "encrypt")
    run_files([VEC / "aes/aesmmt/ECBMMT128.rsp", VEC / "aes/KAT_AES/CBCVarKey128.rsp"], engine)
    assert engine.calls == 1


def test_cbc_mmt_chaining_is_block_by_block(tmp_path):
    # SP 800-38A F.2.1/F.2.2 (CBC-AES128), four blocks, in .rsp form
    key, iv = "2b7e151628aed2a6abf7158809cf4f3c", "000102030405060708090a0b0c0d0e0f"
    pt = ("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
          "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
    ct = ("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
          "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
    path = tmp_path / "CBCMMT128.rsp"
    path.write_text(f"[ENCRYPT]\nCOUNT = 0\nKEY = {key}\nIV = {iv}\nPLAINTEXT = {pt}\nCIPHERTEXT = {ct}\n\n"
                    f"[DECRYPT]\nCOUNT = 0\nKEY = {key}\nIV = {iv}\nCIPHERTEXT = {ct}\nPLAINTEXT = {pt}\n")
    engine = ReferenceEngine(128, "both")
    (report,) = run_files([path], engine)
    assert (report.passed, report.failed) == (2, 0) and engine.calls == 4


def test_broken_engine_fails_exactly_that_record():
    path = VEC / "aes/aesmmt/ECBMMT128.rsp"
    rec = parse_file(path)[3]                                  # [ENCRYPT] COUNT = 3, 4 blocks
    for directions in ("encrypt", "both"):
        engine = FlipEngine(128, directions, rec.key, decrypt=False, block=2)
        (report,) = run_files([path], engine)
        assert (report.passed, report.failed) == (19, 1)
        lines = report.first_failure.splitlines()
        assert lines[0] == f"FAILED {path} line {rec.line}: COUNT = 3, [ENCRYPT], encrypt (MMT ECB)"
        want = b"".join(rec.ciphertext).hex()
        got = want[:64] + f"{int(want[64:66], 16) ^ 1:02x}" + want[66:]
        assert lines[1:] == [f"  KEY      = {rec.key.hex()}",
                             f"  input    = {b''.join(rec.plaintext).hex()}",
                             f"  expected = {' '.join(b.hex() for b in rec.ciphertext)}",
                             f"  got      = {' '.join(got[i:i + 32] for i in range(0, 128, 32))}"]
        text = format_report([report]).splitlines()
        assert text[0] == f"{path}: 19 passed, 1 failed"
        assert text[1:-1] == lines and text[-1] == "19 passed, 1 failed"
    dec = parse_file(path)[14]                                 # [DECRYPT] COUNT = 4
    (report,) = run_files([path], FlipEngine(128, "decrypt", dec.key, decrypt=True))
    assert (report.passed, report.failed) == (19, 1)
    assert f"line {dec.line}: COUNT = 4, [DECRYPT], decrypt" in report.first_failure


def test_broken_engine_in_cbc_and_monte_carlo():
    path = VEC / "aes/KAT_AES/CBCKeySbox128.rsp"
    rec = parse_file(path)[25]                    # [DECRYPT] COUNT = 4; [ENCRYPT] COUNT = 4 is the
    (report,) = run_files([path], FlipEngine(128, "both", rec.key, decrypt=True))  # same vector
    assert (report.passed, report.failed) == (40, 2)
    assert "COUNT = 4, [ENCRYPT], decrypt (KAT CBC)" in report.first_failure
    assert f"  IV       = {rec.iv.hex()}" in report.first_failure
    mct = VEC / "aes/aesmct/ECBMCT128.rsp"
    rec = parse_file(mct)[5]
    (report,) = run_files([mct], FlipEngine(128, "encrypt", rec.key, decrypt=False), limit=8)
    assert (report.passed, report.failed) == (7, 1)         # each outer record starts from the file
    assert "COUNT = 5, [ENCRYPT], encrypt (MCT ECB) (after 1000 iterations)" in report.first_failure


def test_format_report_closing_line():
    reports = [FileReport("a.rsp", 3, 0), FileReport("b.rsp", 1, 2, 4, "FAILED b\n  x", ["4 x why"])]
    lines = format_report(reports).splitlines()
    assert lines == ["a.rsp: 3 passed, 0 failed", "b.rsp: 1 passed, 2 failed, 4 skipped (4 x why)",
                     "FAILED b", "  x", "4 passed, 2 failed, 4 skipped"]
    assert format_report([FileReport("a.rsp", 3, 0)]).splitlines()[-1] == "3 passed, 0 failed"
    assert all(CLOSING.fullmatch(format_report(r).splitlines()[-1]) for r in ([], reports))


def test_key_size_mismatch_and_skip():
    path = SHIPPED / "aes/KAT_AES/ECBVarKey128.rsp"
    with pytest.raises(CipherfabError) as err:
        run_files([path], ReferenceEngine(256, "both"))
    assert str(err.value) == f"{path} line 10: 128-bit key, but the core takes 256-bit keys"
    files = [SHIPPED / "aes/KAT_AES/ECBGFSbox128.rsp", SHIPPED / "aes/KAT_AES/ECBGFSbox256.rsp"]
    reports = run_files(files, ReferenceEngine(128, "both"), other_key_sizes="skip")
    assert [(r.passed, r.failed, r.skipped) for r in reports] == [(14, 0, 0), (0, 0, 10)]
    assert reports[1].skip_reasons == ["10 x 256-bit keys, the core takes 128-bit keys"]
    assert format_report(reports).endswith("\n14 passed, 0 failed, 10 skipped")


def test_limit():
    files = [SHIPPED / "aes/KAT_AES/ECBVarTxt128.rsp", VEC / "aes/aesmct/ECBMCT128.rsp"]
    reports = run_files(files, ReferenceEngine(128, "both"), limit=3)
    assert [(r.passed, r.failed, r.skipped) for r in reports] == [(3, 0, 0), (3, 0, 0)]
    with pytest.raises(CipherfabError, match="--limit must be a positive"):
        run_files(files, ReferenceEngine(128, "both"), limit=0)


def test_aesavs_cbc_monte_carlo_matches_published_final_values():
    """CBCMCT128.rsp COUNT = 0 inputs and COUNT = 99 outputs, as quoted (NIST CAVS 11.1) in
    e.g. OpenSSL's and Nordic's test suites; runs the full 100 x 1000 chain both ways."""
    h = bytes.fromhex
    engine = ReferenceEngine(128, "both")
    cases = [(False, "8809e7dd3a959ee5d8dbb13f501f2274", "e5c0bb535d7d54572ad06d170a0e58ae",
              "1fd4ee65603e6130cfc2a82ab3d56c24", "7bed7671c8913aa1330f193761523e67"),
             (True, "287b07c78f8e3e1be7c41b3d96c04e6e", "41b461f9464fd515d25413b4241002b8",
              "7c54923b0490a9d4de4ec1ce6790aa4d", "4769317b0562c45949c18b3855f8bf4a")]
    for decrypt, key, iv, text, final in cases:
        key, iv, text = h(key), h(iv), h(text)
        for _ in range(100):
            gen = mct_inner(key, iv, text, decrypt, "CBC", 1000, submission=False)
            chain = gen.send(None)
            try:
                gen.send(run_chains_by_blocks(engine, [chain])[0])
            except StopIteration as stop:
                tail, iv, text = stop.value
            key = aes_next_key(key, tail)
        assert tail[0].hex() == final


def test_aesavs_cbc_monte_carlo_first_record(tmp_path):
    path = tmp_path / "mct.rsp"                 # CBCMCT128.rsp [ENCRYPT] COUNT = 0
    path.write_text("# AESVS MCT test data for CBC (Electronic...)\n[ENCRYPT]\nCOUNT = 0\n"
                    "KEY = 8809e7dd3a959ee5d8dbb13f501f2274\nIV = e5c0bb535d7d54572ad06d170a0e58ae\n"
                    "PLAINTEXT = 1fd4ee65603e6130cfc2a82ab3d56c24\n"
                    "CIPHERTEXT = b127a5b4c4692d87483db0c3b0d11e64\n")
    (report,) = run_files([path], ReferenceEngine(128, "encrypt"))
    assert (report.passed, report.failed) == (1, 0), report.first_failure


# Excerpts (first records of KEYSIZE sections) of the Rijndael AES-submission Monte-Carlo files
# from rijndael-vals.zip, as stored in github.com/mojadita/aes (ecb_e_m.txt, ecb_d_m.txt @ 456a911,
# cbc_e_m.txt, cbc_d_m.txt @ 7c4b6fe).  400 x 10000 procedure; each record runs 10000 iterations.
HEAD = "FILENAME:  \"{}\"\n\n{}\nMonte Carlo Test\n\nAlgorithm Name: Rijndael\n\n==========\n"
SUBMISSION_MCT = {
    "ecb_e_m.txt": ("Electronic Codebook (ECB) Mode - ENCRYPTION", """
KEYSIZE=128

I=0
KEY=00000000000000000000000000000000
PT=00000000000000000000000000000000
CT=C34C052CC0DA8D73451AFE5F03BE297F

I=1
KEY=C34C052CC0DA8D73451AFE5F03BE297F
PT=C34C052CC0DA8D73451AFE5F03BE297F
CT=0AC15A9AFBB24D54AD99E987208272E2

I=2
KEY=C98D5FB63B68C027E88317D8233C5B9D
PT=0AC15A9AFBB24D54AD99E987208272E2
CT=A3D43BFFA65D0E80092F67A314857870
"""),
    "ecb_d_m.txt": ("Electronic Codebook (ECB) Mode - DECRYPTION", """
KEYSIZE=128

I=0
KEY=00000000000000000000000000000000
CT=00000000000000000000000000000000
PT=44416AC2D1F53C583303917E6BE9EBE0

I=1
KEY=44416AC2D1F53C583303917E6BE9EBE0
CT=44416AC2D1F53C583303917E6BE9EBE0
PT=E3FD51123B48A2E2AB1DB29894202222

I=2
KEY=A7BC3BD0EABD9EBA981E23E6FFC9C9C2
CT=E3FD51123B48A2E2AB1DB29894202222
PT=877B88A77AEF04F05546539E17259F53
"""),
    "cbc_e_m.txt": ("Cipher Block Chaining (CBC) Mode - ENCRYPTION", """
KEYSIZE=128

I=0
KEY=00000000000000000000000000000000
IV=00000000000000000000000000000000
PT=00000000000000000000000000000000
CT=8A05FC5E095AF4848A08D328D3688E3D

I=1
KEY=8A05FC5E095AF4848A08D328D3688E3D
IV=8A05FC5E095AF4848A08D328D3688E3D
PT=204F17E2444381F6114FF53934C0BCD3
CT=192D9B3AA10BB2F7846CCBA0085C657A

I=2
KEY=93286764A85146730E641888DB34EB47
IV=192D9B3AA10BB2F7846CCBA0085C657A
PT=983BF6F5A6DFBCDAA19370666E83A99A
CT=40D8DAF6D1FDA0A073B3BD18B7695D2E
"""),
    "cbc_d_m.txt": ("Cipher Block Chaining (CBC) Mode - DECRYPTION", """
KEYSIZE=128

I=0
KEY=00000000000000000000000000000000
IV=00000000000000000000000000000000
CT=00000000000000000000000000000000
PT=FACA37E0B0C85373DF706E73F7C9AF86

I=1
KEY=FACA37E0B0C85373DF706E73F7C9AF86
IV=52D0C29FF8793A519BD6A8289FC80E6A
CT=FACA37E0B0C85373DF706E73F7C9AF86
PT=F5372F9735C5685F1DA362AF6ECB2940

==========

KEYSIZE=192

I=31
KEY=8663BEBF11817A3060B6323A4EB8655DD245218FED50E4A8
IV=7CC24DC4B003DE90EE7CEA12B6E92F65
CT=8DDA96BD88D3D756306D249ABF99F5F9
PT=479E96E558540B71508FEF3173A6FC68

I=32
KEY=831519BE48B0021A2728A4DF16EC6E2C82CACEBE9EF618C0
IV=59FFA792DC8618070576A7015931782A
CT=479E96E558540B71508FEF3173A6FC68
PT=080EA053745BEEBDBC5F7D964EEBD2F7

==========

KEYSIZE=256

I=338
KEY=44B7FFFA042DCA1BF276D4911D4B0BE2779526DFD2792C9B871C0E4AD3393242
IV=A6FC8B6305158553409194540C3EE8F3
CT=841EF37B4AF82CC5EB00E11775079D81
PT=1725AF7F70B65FBB060D29B3BCDF0A31

I=339
KEY=B724B2CD569E436B20594E10576934BF60B089A0A2CF7320811127F96FE63873
IV=F3934D3752B38970D22F9A814A223F5D
CT=1725AF7F70B65FBB060D29B3BCDF0A31
PT=2CCC6D09954E5FE6C6A87E18950EED02
"""),
}


@pytest.mark.parametrize("name", SUBMISSION_MCT)
def test_submission_monte_carlo(tmp_path, name):
    title, body = SUBMISSION_MCT[name]
    path = tmp_path / name
    path.write_text(HEAD.format(name, title) + body + "\n===========\n")
    recs = parse_file(path)
    assert all(r.kind == "mct" and r.format == "submission" for r in recs)
    assert {r.decrypt for r in recs} == {"_d_" in name}
    direction = "decrypt" if "_d_" in name else "encrypt"
    for bits in sorted({len(r.key) * 8 for r in recs}):
        reports = run_records(recs, ReferenceEngine(bits, direction), other_key_sizes="skip")
        n = sum(len(r.key) * 8 == bits for r in recs)
        assert (reports[0].passed, reports[0].failed) == (n, 0), reports[0].first_failure
    # a wrong input in the next record: that record fails, and so does the derivation check
    # of the record before it
    field = "CT=" if "_d_" in name else "PT="
    recs = parse_file(path)
    text = (recs[1].ciphertext if "_d_" in name else recs[1].plaintext)[0].hex().upper()
    path.write_text(path.read_text().replace(field + text, field + "0" + text[1:], 1))
    (report,) = run_records(parse_file(path), ReferenceEngine(128, direction),
                            other_key_sizes="skip")
    assert report.failed == 2 and "differ from the file's" in report.first_failure


# NESSIE Rijndael-256-128 (AES-256), Set 1 vectors 0 and 1, from github.com/cantora/avr-crypto-lib
# testvectors/Rijndael-256-128.unverified.test-vectors @ d6a35f0 (long keys wrap onto two lines).
NESSIE_AES256 = """Primitive Name: Rijndael
========================
Key size: 256 bits
Block size: 128 bits

Test vectors -- set 1
=====================

Set 1, vector#  0:
                           key=80000000000000000000000000000000
                               00000000000000000000000000000000
                         plain=00000000000000000000000000000000
                        cipher=E35A6DCB19B201A01EBCFA8AA22B5759
                     decrypted=00000000000000000000000000000000
            Iterated 100 times=13758F7C544655456990850D7FB19656
           Iterated 1000 times=B2C0E7ED6C95994D480C5309619F8BCB

Set 1, vector#  1:
                           key=40000000000000000000000000000000
                               00000000000000000000000000000000
                         plain=00000000000000000000000000000000
                        cipher=5075C2405B76F22F553488CAE47CE90B
                     decrypted=00000000000000000000000000000000
            Iterated 100 times=E121A62E49F8149C79AA6F4010EE2D76
           Iterated 1000 times=40D71D338D5969DF647BA13757D57C53
"""


@pytest.mark.parametrize("directions", DIRS)
def test_nessie_with_iterated_values(tmp_path, directions):
    path = tmp_path / "Rijndael-256-128.test-vectors"
    path.write_text(NESSIE_AES256)
    (report,) = run_files([path], ReferenceEngine(256, directions))
    assert (report.passed, report.failed) == (2, 0), report.first_failure
    path.write_text(NESSIE_AES256.replace("=40D71D33", "=40D71D34"))
    engine = ReferenceEngine(256, directions)
    (report,) = run_files([path], engine)
    assert (report.passed, report.failed) == (1, 1)
    assert "line 18: Set 1, vector# 1" in report.first_failure and "1000 times" in report.first_failure
    # both records iterate in lockstep: E^100 then 900 more; D^100 and D^1000 one after the other
    assert engine.calls == 1 + (1000 if directions == "encrypt" else 1100)
    (report,) = run_files([path], ReferenceEngine(256, directions), iterated=False)
    assert (report.passed, report.failed) == (2, 0)


def test_tdes_reference_on_tdes_kat_files():
    files = [SHIPPED / "tdes/KAT_TDES/TECBvarkey.rsp", VEC / "tdes/KAT_TDES/TCBCvarkey.rsp"]
    reports = run_files(files, ReferenceEngine(64, "both", cipher="TDES"))   # KEYs: single DES
    assert [(r.passed, r.failed) for r in reports] == [(112, 0), (112, 0)]


def test_engine_contract_errors():
    class Short(ReferenceEngine):
        def run(self, jobs):
            return super().run(jobs)[:-1]

    class Wide(ReferenceEngine):
        def run(self, jobs):
            return [[b + b"\0" for b in out] for out in super().run(jobs)]

    path = SHIPPED / "aes/KAT_AES/ECBGFSbox128.rsp"
    with pytest.raises(CipherfabError, match="engine returned 13 results for 14 jobs"):
        run_files([path], Short(128, "encrypt"))
    with pytest.raises(CipherfabError, match="not 16 bytes"):
        run_files([path], Wide(128, "encrypt"))
    with pytest.raises(CipherfabError, match="takes 128/192/256-bit keys, not 64"):
        ReferenceEngine(64)
    with pytest.raises(CipherfabError, match="directions must be"):
        directions_of("sideways")
    assert directions_of("both") == directions_of(["decrypt", "encrypt"])
    with pytest.raises(CipherfabError, match="encrypt only\\) was asked to decrypt"):
        ReferenceEngine(128, "encrypt").run([(bytes(16), True, [bytes(16)])])
