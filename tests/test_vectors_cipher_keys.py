"""Vector files for another cipher are refused; key sizes are bits as given (port bits)."""

from pathlib import Path

import pytest

import cipherfab
from cipherfab.errors import CipherfabError
from cipherfab.vectors import (ReferenceEngine, cipher_named, effective_key_bits, format_report,
                               key_bits, key_size_text, normalise_cipher_name, parse_file,
                               run_files, run_records)

VEC = Path(__file__).parent / "vectors"
SHIPPED = Path(cipherfab.__file__).parent / "vectors" / "kat"   # the KAT files the package ships
SHARED = Path(__file__).resolve().parents[2] / "shared" / "vectors"   # beside the repository
RC6 = SHIPPED / "rc6/nessie/Rc6-128-128.verified.test-vectors"


# --- the cipher a file names ----------------------------------------------------------------

NAMED = [
    ("aes/KAT_AES/ECBVarTxt128.rsp", "aes"),             # "# Config info for aes_values"
    ("aes/aesmct/ECBMCT128.rsp", "aes"),
    ("aes/aesmmt/ECBMMT128.rsp", "aes"),
    ("tdes/KAT_TDES/TECBvarkey.rsp", "tdes"),            # '# Config Info for : "tdes_values"'
    ("tdes/KAT_TDES/TCBCvarkey.rsp", "tdes"),
    ("rc6/nessie/Rc6-128-128.verified.test-vectors", "Rc6"),   # "Primitive Name: Rc6"
    ("twofish/aes_submission_kat/ECB_TBL.TXT", "TWOFISH"),     # "Algorithm Name:       TWOFISH"
    ("serpent/aes_submission_kat/ecb_vk.txt", "Serpent"),
]
SHARED_NAMED = [
    ("mars/aes_submission_kat/ecb_vk.txt", "Mars"),
    ("mars/aes_submission_kat/ecb_tbl.txt", "Mars"),      # after a /* ... */ comment
    ("serpent/aes_submission_kat/ecb_tbl.txt", "Serpent"),  # after a long /* ... */ comment
    ("tdes/KAT_TDES/TECBsubtab.rsp", "tdes"),
    ("aes/KAT_AES/CBCKeySbox256.rsp", "aes"),
]


@pytest.mark.parametrize("name,named", NAMED, ids=[n for n, _ in NAMED])
def test_parsers_record_the_cipher_the_file_names(name, named):
    block = 8 if name.startswith("tdes/") else 16
    path = SHIPPED / name if (SHIPPED / name).is_file() else VEC / name
    recs = parse_file(path, block)
    assert {r.cipher_named for r in recs} == {named}
    assert cipher_named(path) == named


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared vector collection here")
@pytest.mark.parametrize("name,named", SHARED_NAMED, ids=[n for n, _ in SHARED_NAMED])
def test_shared_collection_headers(name, named):
    assert cipher_named(SHARED / name) == named
    if "mars" not in name and "serpent" not in name:
        assert parse_file(SHARED / name, 8 if name.startswith("tdes/") else 16)[0].cipher_named == named


HEADERS = [
    # (file name, text, cipher named)
    ("x.rsp", "# CAVS 11.1\n# Config info for aes_values\n# AESVS GFSbox test data for ECB\n", "aes"),
    ("x.rsp", '# CAVS 6.1\n# "ECBVarTxt128" information for "aes_values"\n', "aes"),
    ("x.rsp", "# CAVS 20.2\n# Config Info for : Certicom FIPS 810\n"
              "# TDES Multi block Message Test for ECB\n", "TDES"),
    ("x.rsp", "# CAVS 11.1\n# Config Info for : IUT\n# AESVS KAT test data for ECB\n", "AESVS"),
    ("x.rsp", "# TMOVS Monte Carlo test\n", "TMOVS"),
    ("x.rsp", "# CAVS 20.2\n# Config Info for : Certicom FIPS 810\n# VARIABLE KEY - KAT for ECB\n", None),
    ("x.rsp", "", None),
    ("ecb_tbl.txt", "FILENAME:  \"ecb_tbl.txt\"\n\nAlgorithm Name: Rijndael\n\n", "Rijndael"),
    ("ecb_tbl.txt", "FILENAME:  \"ecb_tbl.txt\"\n\n", None),
    ("ecb_tbl.txt", "FILENAME:  \"ecb_tbl.txt\"\nAlgorithm Name:   \n", None),
    ("n.test-vectors", "Primitive Name: Triple-DES\n", "Triple-DES"),
]


@pytest.mark.parametrize("name,head,named", HEADERS, ids=[f"{h[0]}:{h[2]}:{i}"
                                                         for i, h in enumerate(HEADERS)])
def test_header_names(tmp_path, name, head, named):
    if name.endswith(".rsp"):
        body = ("[ENCRYPT]\nCOUNT = 0\nKEY = 00000000000000000000000000000000\n"
                "PLAINTEXT = f34481ec3cc627bacd5dc3fb08f273e6\n"
                "CIPHERTEXT = 0336763e966d92595a567cc9ce537f5e\n")
    elif name.endswith(".txt"):
        body = ("==========\n\nKEYSIZE=128\n\nI=1\nKEY=00000000000000000000000000000000\n"
                "PT=00000000000000000000000000000000\nCT=9F589F5CF6122C32B6BFEC2F2AE8C35A\n")
    else:
        body = ("Key size: 128 bits\nBlock size: 128 bits\n\nSet 1, vector#  0:\n"
                "key=80000000000000000000000000000000\nplain=00000000000000000000000000000000\n"
                "cipher=1AD578A02A08162850A15A1552A17AD4\ndecrypted=00000000000000000000000000000000\n")
    path = tmp_path / name
    path.write_text(head + body)
    assert cipher_named(path) == named
    assert [r.cipher_named for r in parse_file(path)] == [named]


def test_normalise_cipher_name():
    assert normalise_cipher_name("Triple-DES") == "tripledes"
    assert normalise_cipher_name("  TWOFISH ") == "twofish"
    assert normalise_cipher_name("Rc6") == "rc6"
    assert normalise_cipher_name("AES_values") == "aesvalues"
    assert normalise_cipher_name("3-DES (EDE)") == "3desede"


# --- refusing a file for another cipher -------------------------------------------------------

def test_rc6_file_refused_against_an_aes_engine():
    with pytest.raises(CipherfabError) as err:
        run_files([RC6], ReferenceEngine(128, "both"))
    msg = str(err.value)
    assert msg == f"{RC6}: this is a Rc6 vector file; the engine runs AES"
    assert "\n" not in msg and err.value.exit_code == 2
    engine = ReferenceEngine(128, "both")
    with pytest.raises(CipherfabError, match=r"Rc6-128-128\.verified\.test-vectors: this is a Rc6 "
                                             r"vector file; the engine runs AES$"):
        run_records(parse_file(RC6), engine)
    assert engine.calls == 0                       # refused before anything ran


def test_refusal_comes_before_parsing_and_running_other_files():
    aes = SHIPPED / "aes/KAT_AES/ECBVarTxt128.rsp"
    engine = ReferenceEngine(128, "both")
    with pytest.raises(CipherfabError, match="this is a Rc6 vector file"):
        run_files([aes, RC6], engine)
    assert engine.calls == 0
    # against TDES (8-byte blocks) the RC6 file would not even parse: the cipher is named first
    with pytest.raises(CipherfabError, match="this is a Rc6 vector file; the engine runs TDES$"):
        run_files([RC6], ReferenceEngine(64, "both", cipher="TDES"))
    with pytest.raises(CipherfabError, match="this is a TWOFISH vector file; the engine runs AES$"):
        run_files([SHIPPED / "twofish/aes_submission_kat/ECB_TBL.TXT"], ReferenceEngine(128))
    with pytest.raises(CipherfabError, match="TECBvarkey.rsp: this is a tdes vector file; "
                                             "the engine runs AES$"):
        run_files([SHIPPED / "tdes/KAT_TDES/TECBvarkey.rsp"], ReferenceEngine(128))
    with pytest.raises(CipherfabError, match="ECBVarTxt128.rsp: this is an aes vector file; "
                                             "the engine runs TDES$"):
        run_files([aes], ReferenceEngine(64, cipher="TDES"))


def test_aes_files_accepted():
    aes = [SHIPPED / "aes/KAT_AES/ECBVarTxt128.rsp", VEC / "aes/aesmct/ECBMCT128.rsp"]
    reports = run_files(aes, ReferenceEngine(128, "both"), limit=4)
    assert [(r.passed, r.failed) for r in reports] == [(4, 0), (4, 0)]
    assert {"aes", "rijndael", "aesvs"} <= ReferenceEngine(128).cipher_names


def test_rijndael_and_aesvs_names_accepted(tmp_path):
    path = tmp_path / "ecb_tbl.txt"
    path.write_text("FILENAME:  \"ecb_tbl.txt\"\n\nAlgorithm Name: Rijndael\n\n==========\n\n"
                    "KEYSIZE=128\n\nI=1\nKEY=00000000000000000000000000000000\n"
                    "PT=00000000000000000000000000000000\nCT=66E94BD4EF8A2C3B884CFA59CA342B2E\n")
    (report,) = run_files([path], ReferenceEngine(128))
    assert (report.passed, report.failed) == (1, 0)
    rsp = tmp_path / "x.rsp"
    rsp.write_text("# CAVS 11.1\n# Config info for : my IUT\n# AESVS GFSbox test data for ECB\n"
                   "[ENCRYPT]\nCOUNT = 0\nKEY = 00000000000000000000000000000000\n"
                   "PLAINTEXT = f34481ec3cc627bacd5dc3fb08f273e6\n"
                   "CIPHERTEXT = 0336763e966d92595a567cc9ce537f5e\n")
    (report,) = run_files([rsp], ReferenceEngine(128))
    assert (report.passed, report.failed) == (1, 0)


def test_file_naming_no_cipher_accepted(tmp_path):
    path = tmp_path / "CBCMMT128.rsp"             # no header at all
    path.write_text("[ENCRYPT]\nCOUNT = 0\nKEY = 00000000000000000000000000000000\n"
                    "IV = 00000000000000000000000000000000\n"
                    "PLAINTEXT = f34481ec3cc627bacd5dc3fb08f273e6\n"
                    "CIPHERTEXT = 0336763e966d92595a567cc9ce537f5e\n")
    assert cipher_named(path) is None
    (report,) = run_files([path], ReferenceEngine(128, "both"))
    assert (report.passed, report.failed) == (1, 0)


def test_engine_without_cipher_names_is_not_checked():
    class Anonymous(ReferenceEngine):
        def __init__(self, *args):
            super().__init__(*args)
            self.cipher_names = None

    class Bare:                                   # no cipher_names attribute at all
        key_bits, block_bytes, directions = 128, 16, frozenset({"encrypt"})

        def __init__(self):
            self.inner = ReferenceEngine(128, "encrypt")

        def run(self, jobs):
            return self.inner.run(jobs)

    for engine in (Anonymous(128, "both"), Bare()):
        (report,) = run_files([RC6], engine, limit=3, iterated=False)
        assert report.failed == 3                 # runs (and fails: it is not AES)


def test_engine_names_are_normalised_and_named_in_the_message():
    class Wrapped:                                  # an engine that is not a ReferenceEngine
        key_bits, block_bytes, directions = 128, 16, frozenset({"encrypt"})

        def __init__(self, cipher, names):
            self.cipher, self.cipher_names = cipher, frozenset(names)
            self.inner = ReferenceEngine(128, "encrypt")

        def run(self, jobs):
            return self.inner.run(jobs)

    named = Wrapped("Fancy-AES", {"Rijndael", "A.E.S"})   # normalised by the runner
    (report,) = run_files([SHIPPED / "aes/KAT_AES/ECBGFSbox128.rsp"], named)
    assert (report.passed, report.failed) == (14, 0)
    with pytest.raises(CipherfabError, match="this is a Rc6 vector file; the engine runs Fancy-AES$"):
        run_files([RC6], named)
    unnamed = Wrapped(None, {"aes", "rijndael"})           # no display name: its names
    with pytest.raises(CipherfabError, match="the engine runs aes/rijndael$"):
        run_files([RC6], unnamed)


# --- key sizes: bits as given (port bits) -----------------------------------------------------

def test_key_bits_are_port_bits():
    assert [key_bits(bytes(n)) for n in (8, 16, 24, 32)] == [64, 128, 192, 256]
    assert [effective_key_bits(b, 8) for b in (64, 128, 192)] == [56, 112, 168]
    assert [effective_key_bits(b, 16) for b in (128, 192, 256)] == [128, 192, 256]
    assert key_size_text(192, 8) == "192-bit key (168 effective)"
    assert key_size_text(64, 8, "keys") == "64-bit keys (56 effective)"
    assert key_size_text(128, 16) == "128-bit key"


# NIST "TDES examples with intermediate values" (ECB-TDES): three keys, four blocks.
K1, K2, K3 = "0123456789abcdef", "23456789abcdef01", "456789abcdef0123"
PT = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
CT = "714772f339841d34267fcc4bd2949cc3ee11c22a576a303876183f99c0b6de87"


def test_tdes_reference_takes_64_128_192(tmp_path):
    for bits in (64, 128, 192):
        engine = ReferenceEngine(bits, "both", cipher="TDES")
        assert (engine.key_bits, engine.block_bytes) == (bits, 8)
        assert {"tdes", "tripledes", "des", "tdea"} <= engine.cipher_names
    # 192 = 3-key EDE: the NIST example, as a .rsp with KEY1/KEY2/KEY3
    path = tmp_path / "TECBMMT3.rsp"
    path.write_text("# CAVS 11.1\n# Config Info for : \"tdes_values\"\n"
                    "# TDES Multi block Message Test for ECB\n\n"
                    f"[ENCRYPT]\nCOUNT = 0\nKEY1 = {K1}\nKEY2 = {K2}\nKEY3 = {K3}\n"
                    f"PLAINTEXT = {PT}\nCIPHERTEXT = {CT}\n\n"
                    f"[DECRYPT]\nCOUNT = 0\nKEY1 = {K1}\nKEY2 = {K2}\nKEY3 = {K3}\n"
                    f"CIPHERTEXT = {CT}\nPLAINTEXT = {PT}\n")
    (report,) = run_files([path], ReferenceEngine(192, "both", cipher="TDES"))
    assert (report.passed, report.failed) == (2, 0), report.first_failure
    # ... and the same as E_K3(D_K2(E_K1(x))) with the 64-bit (single DES) engine
    des = ReferenceEngine(64, "both", cipher="TDES")
    h, blocks = bytes.fromhex, [bytes.fromhex(PT[i:i + 16]) for i in range(0, 64, 16)]

    def ede(ka, kb, kc, x):
        (x,) = des.run([(h(ka), False, x)])
        (x,) = des.run([(h(kb), True, x)])
        return des.run([(h(kc), False, x)])[0]

    assert b"".join(ede(K1, K2, K3, blocks)).hex() == CT
    # 128 = 2-key EDE, K1 K2 K1
    two = ReferenceEngine(128, "encrypt", cipher="TDES")
    assert two.run([(h(K1 + K2), False, blocks)])[0] == ede(K1, K2, K1, blocks)
    three = ReferenceEngine(192, "encrypt", cipher="TDES")
    assert three.run([(h(K1 + K2 + K1), False, blocks)])[0] == ede(K1, K2, K1, blocks)
    # 64 = single DES as EDE with K1 = K2 = K3
    assert three.run([(h(K1 * 3), False, blocks)]) == des.run([(h(K1), False, blocks)])


@pytest.mark.parametrize("bits,port", [(56, 64), (112, 128), (168, 192)])
def test_tdes_effective_sizes_refused(bits, port):
    with pytest.raises(CipherfabError) as err:
        ReferenceEngine(bits, "both", cipher="TDES")
    assert str(err.value) == (f"reference engine: TDES takes 64/128/192-bit keys (bits on the key "
                              f"port, parity bits included; 56/112/168 effective), not {bits}; "
                              f"for {bits} effective bits give {port}")


def test_tdes_key_size_mismatch_names_effective_bits(tmp_path):
    path = SHIPPED / "tdes/KAT_TDES/TECBvarkey.rsp"            # 8-byte KEYs: 64-bit keys
    with pytest.raises(CipherfabError) as err:
        run_files([path], ReferenceEngine(192, "both", cipher="TDES"))
    assert str(err.value) == (f"{path} line 8: 64-bit key (56 effective), but the core takes "
                              f"192-bit keys (168 effective)")
    (report,) = run_files([path], ReferenceEngine(128, "both", cipher="TDES"),
                          other_key_sizes="skip")
    assert report.skip_reasons == ["112 x 64-bit keys (56 effective), the core takes "
                                   "128-bit keys (112 effective)"]
    with pytest.raises(CipherfabError, match="takes 128-bit keys \\(112 effective\\), got a "
                                             "64-bit key \\(56 effective\\)$"):
        ReferenceEngine(128, "encrypt", cipher="TDES").run([(bytes(8), False, [bytes(8)])])
    assert format_report([report]).endswith("0 passed, 0 failed, 112 skipped")
