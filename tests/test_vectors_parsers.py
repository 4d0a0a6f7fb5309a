"""Vector-file parsers: real files (counts from the SOURCES.md of tests/vectors and of the
package's KAT folder) and malformed input."""

import re
from pathlib import Path

import pytest

import cipherfab
from cipherfab.errors import CipherfabError
from cipherfab.vectors import detect_format, parse_file, parse_nessie, parse_rsp, parse_submission

VEC = Path(__file__).parent / "vectors"
SHIPPED = Path(cipherfab.__file__).parent / "vectors" / "kat"   # the KAT files the package ships
ROWS = [(folder, m.group(1), int(m.group(2))) for folder in (VEC, SHIPPED) for m in
        re.finditer(r"^\| `([^`]+)` \| (\d+) \|", (folder / "SOURCES.md").read_text(), re.M)]


@pytest.mark.parametrize("folder", [VEC, SHIPPED], ids=["tests", "package"])
def test_sources_lists_every_copied_file(folder):
    files = {str(p.relative_to(folder)) for p in folder.rglob("*")
             if p.is_file() and p.name not in ("SOURCES.md", ".gitattributes")}
    assert files == {name for f, name, _ in ROWS if f == folder}


@pytest.mark.parametrize("folder,name,count", ROWS, ids=[n for _, n, _ in ROWS])
def test_record_counts_match_sources(folder, name, count):
    if "/gcmtestvectors/" in name or "gcm" in name.lower():    # GCM: tests/test_vectors_gcm.py
        text = (folder / name).read_text()
        counted = r"^CB is" if name.endswith("AES_GCM.txt") else r"^(Count = \d+|Test: \w+)\r?$"
        assert len(re.findall(counted, text, re.M)) == count      # AES_GCM.txt: counter blocks
        return
    if "cmac" in name.lower() or "800-38b" in name:   # CMAC: sim --mode cmac (vectors/cmac.py)
        from cipherfab.vectors.cmac import parse_cmac
        assert len(parse_cmac(folder / name)) == count
        return
    if Path(name).name.startswith(("VADT", "DVPT")):  # CCM: sim --mode ccm (vectors/ccm.py)
        from cipherfab.vectors.ccm import parse_ccm
        assert len(parse_ccm(folder / name)) == count
        return
    if Path(name).name.startswith("XTS"):             # XTS: sim --mode xts (vectors/xts.py)
        from cipherfab.vectors.xts import parse_xts
        assert len(parse_xts(folder / name)) == count
        return
    block = 8 if name.startswith("tdes/") else 16
    system_mode = next((m for m in ("OFB", "CFB128", "CFB8", "CFB1") if Path(name).name.startswith(m)), None)
    if system_mode:                                   # run through the system: sim --mode ofb|cfb
        assert len(parse_rsp(folder / name, block, modes=(system_mode,))) == count
        return
    assert len(parse_file(folder / name, block)) == count


def test_rsp_fields_sections_and_kinds():
    recs = parse_rsp(VEC / "aes/KAT_AES/CBCGFSbox128.rsp")
    first, dec = recs[0], recs[7]
    assert (first.kind, first.mode, first.decrypt, first.section, first.count, first.line) == \
           ("kat", "CBC", False, "[ENCRYPT]", 0, 10)
    assert first.iv == bytes(16) and first.key == bytes(16)
    assert first.plaintext == [bytes.fromhex("f34481ec3cc627bacd5dc3fb08f273e6")]
    assert first.ciphertext == [bytes.fromhex("0336763e966d92595a567cc9ce537f5e")]
    assert (dec.decrypt, dec.section, dec.count) == (True, "[DECRYPT]", 0)
    mmt = parse_rsp(VEC / "aes/aesmmt/ECBMMT128.rsp")
    assert mmt[0].kind == "mmt" and [len(r.plaintext) for r in mmt[:10]] == list(range(1, 11))
    mct = parse_rsp(VEC / "aes/aesmct/ECBMCT128.rsp")
    assert mct[0].kind == "mct" and mct[0].iv is None
    tdes = parse_rsp(VEC / "tdes/KAT_TDES/TCBCvarkey.rsp", block_bytes=8)
    assert tdes[0].key == bytes.fromhex("8001010101010101") and len(tdes[0].iv) == 8


def test_submission_fields_and_byte_reversal():
    vk = SHIPPED / "serpent/aes_submission_kat/ecb_vk.txt"
    plain = parse_submission(vk)[0]
    assert (plain.count, plain.section, plain.kind, plain.mode) == (1, "KEYSIZE=128", "kat", "ECB")
    assert plain.key == bytes.fromhex("80" + "00" * 15)                       # as printed
    assert plain.plaintext == [bytes(16)]                                     # section-level PT=
    rev = parse_file(vk, byte_reversed=True)[0]                               # SOURCES.md example
    assert rev.key == bytes.fromhex("00" * 15 + "80")
    assert rev.ciphertext[0].hex().startswith("ddd26b98") and rev.ciphertext[0].hex().endswith("bfaf49")
    tbl = parse_submission(SHIPPED / "twofish/aes_submission_kat/ECB_TBL.TXT")
    assert [len(r.key) for r in (tbl[0], tbl[49], tbl[98])] == [16, 24, 32]
    assert tbl[2].key == tbl[0].ciphertext[0]


def test_nessie_sets_and_iterated_values():
    recs = parse_nessie(SHIPPED / "rc6/nessie/Rc6-128-128.verified.test-vectors")
    first, last = recs[0], recs[-1]
    assert (first.section, first.count, first.decrypt, first.line) == ("Set 1", 0, False, 13)
    assert first.iterated[100].hex().upper() == "150B461D2ACDFC1EE9D404A6494632DD"
    assert sorted(first.iterated) == [100, 1000]
    assert (last.section, last.count, last.decrypt, last.iterated) == ("Set 8", 1, True, {})


def test_detect_format():
    assert detect_format(VEC / "aes/aesmct/ECBMCT128.rsp") == "cavp"
    assert detect_format(SHIPPED / "twofish/aes_submission_kat/ECB_TBL.TXT") == "submission"
    assert detect_format(SHIPPED / "rc6/nessie/Rc6-128-128.verified.test-vectors") == "nessie"


# --- malformed input: one-line CipherfabError naming the file and line ---------------------

RSP_OK = ("# CAVS 11.1\r\n# AESVS GFSbox test data for ECB\r\n\r\n[ENCRYPT]\r\n\r\n"
          "COUNT = 0\r\nKEY = 00000000000000000000000000000000\r\n"
          "PLAINTEXT = f34481ec3cc627bacd5dc3fb08f273e6\r\n"
          "CIPHERTEXT = 0336763e966d92595a567cc9ce537f5e\r\n")

SUB_OK = ("FILENAME:  \"ecb_tbl.txt\"\n\nElectronic Codebook (ECB) Mode\n\n==========\n\n"
          "KEYSIZE=128\n\nI=1\nKEY=00000000000000000000000000000000\n"
          "PT=00000000000000000000000000000000\nCT=9F589F5CF6122C32B6BFEC2F2AE8C35A\n")

NES_OK = ("Primitive Name: Rc6\nKey size: 128 bits\nBlock size: 128 bits\n\n"
          "Test vectors -- set 1\n=====================\n\nSet 1, vector#  0:\n"
          "                           key=80000000000000000000000000000000\n"
          "                         plain=00000000000000000000000000000000\n"
          "                        cipher=1AD578A02A08162850A15A1552A17AD4\n"
          "                     decrypted=00000000000000000000000000000000\n"
          "            Iterated 100 times=150B461D2ACDFC1EE9D404A6494632DD\n\nEnd of test vectors\n")

BAD = [
    # (file name, text, line named in the message (None: no line), words in the message)
    ("x.rsp", RSP_OK.replace("f34481ec", "f34481eZ"), 8, "not hex"),
    ("x.rsp", RSP_OK.replace("f34481ec", "f34481e"), 8, "odd number"),
    ("x.rsp", RSP_OK.replace("[ENCRYPT]", "[FOO]"), 4, "unknown section"),
    ("x.rsp", RSP_OK.replace("[ENCRYPT]\r\n", ""), 5, "outside"),
    ("x.rsp", RSP_OK.replace("COUNT = 0\r\n", ""), 6, "before the first COUNT"),
    ("x.rsp", RSP_OK.replace("KEY = 000", "XKEY = 000"), 7, "unknown field"),
    ("x.rsp", RSP_OK.replace("KEY = 000", "# KEY = 000"), 6, "COUNT = 0 without KEY"),
    ("x.rsp", RSP_OK.replace("CIPHERTEXT", "# C"), 6, "without CIPHERTEXT"),
    ("x.rsp", RSP_OK + "KEY = 00\r\n", 10, "twice"),
    ("x.rsp", RSP_OK.replace("PLAINTEXT = f3", "PLAINTEXT = 00f3"), 8, "whole number"),
    ("x.rsp", RSP_OK.replace("COUNT = 0", "COUNT = zero"), 6, "not a number"),
    ("x.rsp", RSP_OK.replace("KEY = 00", "KEY = 0000"), 7, "KEY is 17 bytes"),
    ("x.rsp", RSP_OK + "garbage here\r\n", 10, "unrecognised line"),
    ("x.rsp", "# header only\r\n[ENCRYPT]\r\n", None, "no test vectors"),
    ("x.rsp", "", None, "empty file"),
    ("x.rsp", "\n\n  \n", None, "empty file"),
    ("CFBGFSbox128.rsp", RSP_OK, None, "CFB mode is not supported"),
    ("ecb_tbl.txt", SUB_OK.replace("PT=00", "PT=0G"), 11, "not hex"),
    ("ecb_tbl.txt", SUB_OK.replace("KEYSIZE=128", "KEYSIZE=100"), 7, "KEYSIZE=100"),
    ("ecb_tbl.txt", SUB_OK.replace("KEYSIZE=128", "KEYSIZE=192"), 10, "128-bit KEY in a KEYSIZE=192"),
    ("ecb_tbl.txt", SUB_OK.replace("CT=9F", "XX=9F"), 12, "unrecognised line"),
    ("ecb_tbl.txt", SUB_OK.replace("CT=9F", "PT=9F"), 12, "twice"),
    ("ecb_tbl.txt", SUB_OK.replace("CT=9F589F5CF6122C32B6BFEC2F2AE8C35A\n", ""), 9, "I=1 without CT="),
    ("ecb_tbl.txt", SUB_OK.replace("I=1\n", ""), 7, "no I= records"),
    ("ecb_tbl.txt", SUB_OK.replace("CT=9F589F5CF6122C32B6BFEC2F2AE8C35A", "CT=9F58"), 12, "not one 16-byte block"),
    ("ecb_tbl.txt", "KEY=00\n" + SUB_OK, 1, "before the first KEYSIZE"),
    ("ecb_tbl.txt", SUB_OK.replace("KEYSIZE=128", "KEYSIZE 128"), None, "no KEYSIZE= line"),
    ("ecb_ival.txt", "Intermediate Value Tests\nKEYSIZE=128\n", None, "intermediate-value file"),
    ("n.test-vectors", NES_OK.replace("plain=00", "plain=0X"), 10, "not hex"),
    ("n.test-vectors", NES_OK.replace("decrypted=00", "decrypted=10"), 12, "decrypted= differs"),
    ("n.test-vectors", NES_OK.replace("                        cipher=1AD578A02A08162850A15A1552A17AD4\n", ""), 8, "without cipher="),
    ("n.test-vectors", NES_OK.replace("Block size: 128", "Block size: 64"), 3, "Block size: 64 bits"),
    ("n.test-vectors", NES_OK.replace("Key size: 128", "Key size: 256"), 9, "Key size: 256"),
    ("n.test-vectors", NES_OK.replace("Set 1, vector#  0:", "Set 9, vector#  0:"), 8, "unknown set"),
    ("n.test-vectors", NES_OK + "more\n", 16, "after 'End of test vectors'"),
    ("n.test-vectors", NES_OK.replace("End of test vectors", "what is this"), 15, "unrecognised line"),
    ("n.test-vectors", NES_OK.replace("Set 1, vector#  0:\n", ""), None, "no test vectors"),
    ("unknown.txt", "hello\nworld\n", None, "unrecognised vector-file format"),
]


@pytest.mark.parametrize("name,text,line,words", BAD, ids=[f"{b[0]}:{b[3]}" for b in BAD])
def test_malformed_input_names_file_and_line(tmp_path, name, text, line, words):
    path = tmp_path / name
    path.write_bytes(text.encode())
    with pytest.raises(CipherfabError) as err:
        parse_file(path)
    msg = str(err.value)
    assert "\n" not in msg and words in msg, msg
    assert msg.startswith(f"{path} line {line}: " if line else f"{path}: "), msg


def test_unreadable_and_binary_files(tmp_path):
    with pytest.raises(CipherfabError, match=r"vector file .*missing\.rsp: no such file"):
        parse_file(tmp_path / "missing.rsp")
    with pytest.raises(CipherfabError, match=r"is a folder, not a file"):
        parse_file(tmp_path)                                   # a directory
    (tmp_path / "b.rsp").write_bytes(b"\x00\x01\x02")
    with pytest.raises(CipherfabError, match=r"b\.rsp: binary file"):
        parse_file(tmp_path / "b.rsp")


def test_good_snippets_parse(tmp_path):
    for name, text in [("x.rsp", RSP_OK), ("ecb_tbl.txt", SUB_OK), ("n.test-vectors", NES_OK)]:
        (tmp_path / name).write_text(text)
        (rec,) = parse_file(tmp_path / name)
        assert rec.file == str(tmp_path / name) and len(rec.key) == 16


@pytest.mark.parametrize("text, needle", [
    ("00112233\n  0011 zz\n", "not a hex string"),
    ("0011223344556677\n", "key line without"),
    ("00\n  00 11 22\n", "expected 'plaintext ciphertext'"),
])
def test_cryptopp_val_files_refused_in_one_line(tmp_path, text, needle):
    from cipherfab.vectors.cryptopp_val import parse_cryptopp_val
    f = tmp_path / "xval.dat"
    f.write_text(text)
    with pytest.raises(CipherfabError, match=needle):
        parse_cryptopp_val(f)


def test_cryptopp_val_records():
    recs = parse_file(SHIPPED / "rc6/cryptopp/rc6val.dat")
    assert detect_format(SHIPPED / "rc6/cryptopp/rc6val.dat") == "cryptopp-val"
    assert [8 * len(r.key) for r in recs] == [128, 128, 192, 192, 256, 256]
    assert recs[0].ciphertext == [bytes.fromhex("8FC3A53656B1F778C129DF4E9848A41E")]


def test_tdes_interleaved_and_pipelined_modes_are_their_own():
    """TMOVS's CBC-I, OFB-I and CFB-P files (three IVs) are not CBC, OFB or CFB: the capital
    I or P after the mode in NIST's names, or the header's mode; TOFBinvperm.rsp is OFB."""
    from cipherfab.vectors.rsp import _detect
    assert _detect("TOFBinvperm.rsp", [], ("OFB",)) == ("kat", "OFB")
    assert _detect("TCFB64MMT1.rsp", [], ("CFB64",)) == ("mmt", "CFB64")
    for name, header, mode in (("TOFBIinvperm.rsp", "", "OFBI"), ("TCBCIMMT2.rsp", "", "CBCI"),
                               ("TCFBP64MMT1.rsp", "", "CFBP64"),
                               ("mmt.rsp", "# TDES Multi block Message Test for OFBI", "OFBI")):
        with pytest.raises(CipherfabError, match=f"the file's mode is {mode}, not OFB"):
            _detect(name, [header], ("OFB",))
