"""``cipherfab sim --mode ofb|cfb --vectors``: NIST's OFB and CFB128 MMT files (the copies in
the cryptography-vectors package) through the accelerator system around AES-128, every
record passing; the same file with one ciphertext byte changed fails with exit 1 and names
the record; records of another key size are skipped and counted."""

import pytest

from pathlib import Path

from cipherfab.cli import main

VEC = Path(__file__).parent.parent / "vectors" / "aes" / "cryptography_vectors"
CORE = ["aes", "--sbox", "rom", "--direction", "both"]      # the system test_encrypt_cli.py compiles


def refusal(path, text: str, capsys, mode: str, core=CORE) -> str:
    """``text`` written to ``path`` and run with ``sim --mode``: refused with exit 2 and one
    line on stderr, which is returned."""
    path.write_text(text)
    assert main(["sim", *core, "--mode", mode, "--vectors", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("mode, name", [("ofb", "OFBMMT128.rsp"), ("cfb", "CFB128MMT128.rsp"),
                                        ("cfb8", "../cavp_modes/CFB8MMT128.rsp"),
                                        ("cfb1", "../cavp_modes/CFB1MMT128.rsp")])
def test_nist_files_pass_and_a_changed_byte_fails(tmp_path, capsys, mode, name):
    assert main(["sim", *CORE, "--mode", mode, "--vectors", str(VEC / name)]) == 0
    out = capsys.readouterr().out
    name = Path(name).name
    assert f"{name}: 20 passed, 0 failed" in out and "20 passed, 0 failed" in out.splitlines()[-1]
    text = (VEC.parent / "cavp_modes" / name if mode in ("cfb8", "cfb1") else VEC / name
            ).read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(text) if ln.startswith("CIPHERTEXT") and "[DECRYPT]" not in ln)
    key, value = text[at].split("=")
    value = value.strip()
    text[at] = f"{key}= {'0' if value[0] != '0' else '1'}{value[1:]}\n"
    bad = tmp_path / name
    bad.write_text("".join(text))
    assert main(["sim", *CORE, "--mode", mode, "--vectors", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "19 passed, 1 failed" in out and f"first failure: {bad} line {at - 3}" in out


@pytest.mark.parametrize("mode, name", [("ofb", "OFBMCT128.rsp"), ("cfb8", "CFB8MCT128.rsp"),
                                        ("cfb1", "CFB1MCT128.rsp")])
def test_monte_carlo_records_run_through_the_system(tmp_path, capsys, mode, name):
    """AESAVS MCT records: each one's 1000 inner iterations as one message, a segment at a
    time; the KEY, IV and input each derives are the next record's.  One changed CIPHERTEXT
    fails its record (its 1000th output); one changed IV fails the record before it (the
    IV it derives) too."""
    path = VEC.parent / "cavp_modes" / name
    assert main(["sim", *CORE, "--mode", mode, "--vectors", str(path), "--limit", "3"]) == 0
    assert f"{name}: 3 passed, 0 failed" in capsys.readouterr().out
    for field, counts, first in (("CIPHERTEXT", "2 passed, 1 failed", "COUNT = 1"),
                                 ("IV", "1 passed, 2 failed", "COUNT = 0")):
        text = path.read_text().splitlines(keepends=True)
        at = [i for i, ln in enumerate(text) if ln.startswith(field)][1]   # the second record's
        key, value = text[at].split("=")
        value = value.strip()
        text[at] = f"{key}= {'0' if value[0] != '0' else '1'}{value[1:]}\n"
        bad = tmp_path / name
        bad.write_text("".join(text))
        assert main(["sim", *CORE, "--mode", mode, "--vectors", str(bad), "--limit", "3"]) == 1
        out = capsys.readouterr().out
        assert counts in out and f"first failure: {bad} line" in out and first in out, out


def test_another_key_size_is_skipped_and_counted(capsys):
    assert main(["sim", *CORE, "--key-bits", "256", "--mode", "ofb",
                 "--vectors", str(VEC / "OFBMMT128.rsp"), "--limit", "3"]) == 2
    assert "no record in the vector files is for this core's key size" in capsys.readouterr().err


CMAC_FILE = VEC / "nist-800-38b-aes128.txt"


def test_cmac_examples_pass_and_a_changed_tag_fails(tmp_path, capsys):
    """SP 800-38B's AES-128 examples (the cryptography-vectors copy) make their tags; one
    tag byte changed: exit 1 naming the record."""
    assert main(["sim", *CORE, "--mode", "cmac", "--vectors", str(CMAC_FILE)]) == 0
    assert "nist-800-38b-aes128.txt: 4 passed, 0 failed" in capsys.readouterr().out
    bad = tmp_path / "cmac.txt"
    bad.write_text(CMAC_FILE.read_text().replace("OUTPUT = 070a", "OUTPUT = 170a"))
    assert main(["sim", *CORE, "--mode", "cmac", "--vectors", str(bad)]) == 1
    assert f"3 passed, 1 failed" in capsys.readouterr().out


def test_nists_cmac_verification_file_passes(capsys):
    """NIST's CMACVerAES128.rsp (CAVS 11.0): every record's verdict (P or F) from the
    system's CMAC verify."""
    path = VEC.parent / "cavp_modes" / "CMACVerAES128.rsp"
    assert main(["sim", *CORE, "--mode", "cmac", "--vectors", str(path)]) == 0
    assert "CMACVerAES128.rsp: 240 passed, 0 failed" in capsys.readouterr().out


def test_cmac_cavp_and_wycheproof_layouts(tmp_path, capsys):
    """A CAVP CMACVer record (Result P and F, the empty message as ``Msg = 00``), a CMACGen
    record with a 4-byte tag, and Wycheproof's JSON (valid, invalid, a key size the core
    cannot take: skipped and counted), each record's verdict or tag compared."""
    from cryptography.hazmat.primitives.ciphers import algorithms
    from cryptography.hazmat.primitives.cmac import CMAC
    key = bytes(range(16))

    def tag(msg):
        c = CMAC(algorithms.AES(key))
        c.update(msg)
        return c.finalize()

    good, msg = tag(b""), bytes(range(40))
    rsp = tmp_path / "CMACVerAES128.rsp"
    rsp.write_text(f"# CAVS 11.0\n[L=16]\n\nCount = 0\nKlen = 16\nMlen = 0\nTlen = 16\nKey = {key.hex()}\n"
                   f"Msg = 00\nMac = {good.hex()}\nResult = P\n\nCount = 1\nKlen = 16\nMlen = 40\nTlen = 8\n"
                   f"Key = {key.hex()}\nMsg = {msg.hex()}\nMac = {bytes(8).hex()}\nResult = F (3 - Mac changed)\n\n"
                   f"Count = 2\nKlen = 16\nMlen = 40\nTlen = 4\nKey = {key.hex()}\nMsg = {msg.hex()}\n"
                   f"Mac = {tag(msg)[:4].hex()}\n")
    import json
    wp = tmp_path / "aes_cmac_test.json"
    wp.write_text(json.dumps({"algorithm": "AES-CMAC", "testGroups": [{"keySize": 128, "tagSize": 128, "tests": [
        {"tcId": 1, "key": key.hex(), "msg": msg.hex(), "tag": tag(msg).hex(), "result": "valid"},
        {"tcId": 2, "key": key.hex(), "msg": msg.hex(), "tag": tag(msg)[::-1].hex(), "result": "invalid"},
        {"tcId": 3, "key": bytes(24).hex(), "msg": "", "tag": good.hex(), "result": "valid"}]}]}))
    assert main(["sim", *CORE, "--mode", "cmac", "--vectors", str(rsp), str(wp)]) == 0
    out = capsys.readouterr().out
    assert "CMACVerAES128.rsp: 3 passed, 0 failed" in out
    assert "aes_cmac_test.json: 2 passed, 0 failed, 1 skipped (192-bit keys (the core takes 128))" in out


@pytest.mark.parametrize("text, words", [
    ("COUNT = 0\nKEY = 00\nMESSAGE =\n", "line 1: the record has no MAC or OUTPUT"),
    ("Count = 0\nKey = zz\nMsg = 00\nMac = 00\n", "Key is not hex"),
    ("Count = 0\nMlen = 3\nKey = 00\nMsg = 0011\nMac = 00\n", "Mlen = 3, but Msg holds 2 bytes"),
    ("Count = 0\nTlen = x\nKey = 00\nMsg = 0011\nMac = 00\n", "Tlen is not a number"),
    ("just some text\n", "not a CMAC field (NAME = value)"),
    ("# only a comment\n", "no CMAC records"),
    ('{"testGroups": [{"tests": [{"tcId": 1}]}]}', "not a Wycheproof CMAC file (KeyError"),
])
def test_a_malformed_cmac_file_is_one_line(tmp_path, capsys, text, words):
    assert words in refusal(tmp_path / "bad.txt", text, capsys, "cmac")


XTS_FILE = VEC / "XTSGenAES128.rsp"


def test_xts_cavp_file_passes_and_a_changed_byte_fails(tmp_path, capsys):
    """NIST's XTSGenAES128 (tweaks as hex): every whole-byte record, [ENCRYPT] and
    [DECRYPT], through the system around a core with both directions; the 130-bit data
    units skipped and counted; one changed ciphertext byte fails naming its record."""
    assert main(["sim", *CORE, "--mode", "xts", "--vectors", str(XTS_FILE)]) == 0
    out = capsys.readouterr().out
    assert ("XTSGenAES128.rsp: 800 passed, 0 failed, 200 skipped (data units of 130 bits (not "
            "whole bytes; the system takes bytes))") in out
    lines = XTS_FILE.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("CT = "))
    lines[at] = lines[at][:-1] + ("0" if lines[at][-1] != "0" else "1")
    bad = tmp_path / "XTSGenAES128.rsp"
    bad.write_text("\n".join(lines) + "\n")
    assert main(["sim", *CORE, "--mode", "xts", "--vectors", str(bad), "--limit", "3"]) == 1
    out = capsys.readouterr().out
    assert "first failure: " in out and "line 12 ([ENCRYPT] COUNT = 1)" in out


def test_xts_decrypt_records_skip_on_an_encrypting_core_and_wycheproof_reads(tmp_path, capsys):
    """On the default (encrypting) core the [DECRYPT] records are skipped with their reason;
    a Wycheproof-layout file (tweak = iv, zero bytes after it) of two keys sizes runs the
    core's and skips the other."""
    import json
    from cipherfab.host.mode_reference import xts_reference
    key, other = bytes(range(32)), bytes(range(64))
    msg = bytes(range(40))
    tests = [{"tcId": i + 1, "key": k.hex(), "iv": "0102030405060708", "msg": msg.hex(),
              "ct": xts_reference("aes", k, bytes.fromhex("0102030405060708").ljust(16, b"\0"), msg,
                                  False).hex(), "result": "valid", "flags": []}
             for i, k in enumerate((key, other))]
    wp = tmp_path / "aes_xts_test.json"
    wp.write_text(json.dumps({"algorithm": "AES-XTS", "testGroups": [{"tests": tests}]}))
    assert main(["sim", "aes", "--sbox", "rom", "--mode", "xts", "--vectors", str(XTS_FILE), str(wp)]) == 0
    out = capsys.readouterr().out
    assert "XTSGenAES128.rsp: 400 passed, 0 failed, 600 skipped" in out
    assert "[DECRYPT] records (the core does not decrypt: --direction both runs them)" in out
    assert "aes_xts_test.json: 1 passed, 0 failed, 1 skipped (512-bit keys (the core takes 256))" in out


@pytest.mark.parametrize("text, words", [
    ("COUNT = 1\nDataUnitLen = 128\n", "line 1: an XTS record before any [ENCRYPT] or [DECRYPT] section"),
    ("[ENCRYPT]\nCOUNT = 1\nDataUnitLen = 128\nKey = " + "00" * 32 + "\ni = " + "00" * 16 + "\nPT = 00\nCT = 00\n",
     "DataUnitLen = 128 bits, but PT holds 1 bytes"),
    ("[ENCRYPT]\nCOUNT = 1\nDataUnitLen = x\n", "DataUnitLen is not a number"),
    ("[ENCRYPT]\nCOUNT = 1\nDataUnitLen = 128\nKey = " + "00" * 20 + "\n",
     "an XTS-AES key is two AES keys, 32, 48 or 64 bytes, not 20"),
    ("[ENCRYPT]\nCOUNT = 1\nDataUnitLen = 128\nKey = " + "00" * 32 + "\ni = 00\n", "the tweak i is 16 bytes, not 1"),
    ("[ENCRYPT]\nCOUNT = 1\nDataUnitLen = 128\nKey = " + "00" * 32 + "\nPT = 00\n", "the record has no i or DataUnitSeqNumber"),
    ("[ENCRYPT]\nCOUNT = 1\nDataUnitLen = 128\nKey = " + "00" * 32 + "\nDataUnitSeqNumber = " + str(1 << 128) + "\n",
     "DataUnitSeqNumber is over 128 bits"),
    ("[MONTE]\nCOUNT = 1\n", "not an XTS section ([ENCRYPT] or [DECRYPT])"),
    ("[ENCRYPT]\njust text\n", "not an XTS field (NAME = value)"),
    ("# only a comment\n", "no XTS records"),
    ('{"algorithm": "AES-GCM", "testGroups": []}', "its algorithm is 'AES-GCM', not 'AES-XTS'"),
    ('{"algorithm": "AES-XTS", "testGroups": [{"tests": [{"tcId": 1}]}]}', "not a Wycheproof XTS file (KeyError"),
])
def test_a_malformed_xts_file_is_one_line(tmp_path, capsys, text, words):
    assert words in refusal(tmp_path / "bad.rsp", text, capsys, "xts")


CFB1_HEAD = "# AESVS MMT test data for CFB1\n[ENCRYPT]\nCOUNT = 0\nKEY = " + "00" * 16 + "\nIV = " + "00" * 16 + "\n"


@pytest.mark.parametrize("mode, name, text, words", [
    ("cfb1", "CFB1MMT128.rsp", CFB1_HEAD + "PLAINTEXT = 012\nCIPHERTEXT = 011\n",
     "PLAINTEXT is not a string of bits (CFB1 gives its text bit by bit): '012'"),
    ("cfb1", "CFB1MMT128.rsp", CFB1_HEAD + "PLAINTEXT = 01\nCIPHERTEXT = 011\n",
     "COUNT = 0: PLAINTEXT has 2 bits, CIPHERTEXT 3"),
    ("cfb1", "CFB1MCT128.rsp", CFB1_HEAD + "PLAINTEXT = 01\nCIPHERTEXT = 01\n",
     "COUNT = 0: a CFB1 Monte-Carlo record must be one segment"),
    ("cfb1", "CFB1MMT128.rsp", CFB1_HEAD + "PLAINTEXT = 01\n", "COUNT = 0 without CIPHERTEXT"),
    ("cfb8", "CFB8MMT128.rsp", CFB1_HEAD.replace("CFB1", "CFB8") + "PLAINTEXT = 0102\nCIPHERTEXT = 01\n",
     "COUNT = 0: PLAINTEXT has 2 bytes, CIPHERTEXT 1"),
    ("cfb8", "CFB8MCT128.rsp", CFB1_HEAD.replace("CFB1", "CFB8") + "PLAINTEXT = 0102\nCIPHERTEXT = 0102\n",
     "a CFB8 Monte-Carlo record must be one segment"),
    ("cfb8", "CFB8MMT128.rsp", CFB1_HEAD.replace("CFB1", "CFB8") + "PLAINTEXT = 0x\nCIPHERTEXT = 01\n", "not hex"),
    ("cfb8", "CFB1MMT128.rsp", CFB1_HEAD + "PLAINTEXT = 0\nCIPHERTEXT = 1\n", "the file's mode is CFB1, not CFB8"),
    ("cfb", "CFB8MMT128.rsp", CFB1_HEAD.replace("CFB1", "CFB8") + "PLAINTEXT = 01\nCIPHERTEXT = 01\n",
     "the file's mode is CFB8, not CFB128"),
])
def test_a_malformed_cfb8_or_cfb1_file_is_one_line(tmp_path, capsys, mode, name, text, words):
    assert words in refusal(tmp_path / name, text, capsys, mode)


def test_a_cfb8_file_on_the_core_names_the_system_mode(capsys):
    assert main(["sim", *CORE, "--vectors", str(VEC.parent / "cavp_modes" / "CFB8MMT128.rsp")]) == 2
    assert "CFB8 mode is not supported (ECB and CBC only); CFB8 files run through the system: " \
           "sim --mode cfb8" in capsys.readouterr().err


def test_xts_needs_a_128_bit_block_and_a_key_port(capsys):
    assert main(["sim", "tdes", "--mode", "xts", "--vectors", str(XTS_FILE)]) == 2
    assert "xts needs a 128-bit block cipher; tdes has 64-bit blocks" in capsys.readouterr().err
    assert main(["sim", "aes", "--arch", "key_specific", "--mode", "xts", "--vectors", str(XTS_FILE)]) == 2
    assert "xts needs a core with a key port" in capsys.readouterr().err


def test_ccm_cavp_files_pass_and_a_changed_byte_fails(tmp_path, capsys):
    """NIST's CCM-VADT (generation: encrypted and decrypted back) and CCM-DVPT (verification:
    Pass records accepted with their payload, Fail records refused) through the system; a
    changed tag byte in a generation record fails naming it."""
    files = [str(VEC / "VADT128.rsp"), str(VEC / "DVPT128.rsp")]
    assert main(["sim", "aes", "--sbox", "rom", "--mode", "ccm", "--vectors", *files]) == 0
    out = capsys.readouterr().out
    assert "VADT128.rsp: 330 passed, 0 failed" in out and "DVPT128.rsp: 240 passed, 0 failed" in out
    lines = (VEC / "VADT128.rsp").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("CT = "))
    lines[at] = lines[at][:-1] + ("0" if lines[at][-1] != "0" else "1")
    bad = tmp_path / "VADT128.rsp"
    bad.write_text("\n".join(lines) + "\n")
    assert main(["sim", "aes", "--sbox", "rom", "--mode", "ccm", "--vectors", str(bad), "--limit", "2"]) == 1
    out = capsys.readouterr().out
    assert "first failure: " in out and "line 15 (Count = 0)" in out


def test_ccm_wycheproof_layout_runs_valid_and_invalid_records(tmp_path, capsys):
    """Wycheproof's layout: a valid record encrypts to its ciphertext and tag, an invalid
    one (a changed tag) is refused; a nonce CCM does not take is skipped with its reason."""
    import json
    from cipherfab.host import ccm
    key, nonce, aad, msg = bytes(range(16)), bytes(range(12)), b"head", b"payload of some bytes"
    ct, tag = ccm.reference("aes", key, nonce, aad, msg, 16, False)
    t = lambda i, n, tg, result: {"tcId": i, "key": key.hex(), "iv": n.hex(), "aad": aad.hex(),
                                 "msg": msg.hex(), "ct": ct.hex(), "tag": tg.hex(), "result": result}
    tests = [t(1, nonce, tag, "valid"), t(2, nonce, bytes([tag[0] ^ 1]) + tag[1:], "invalid"),
             t(3, bytes(6), tag, "invalid")]
    wp = tmp_path / "aes_ccm_test.json"
    wp.write_text(json.dumps({"algorithm": "AES-CCM", "testGroups": [{"tests": tests}]}))
    assert main(["sim", "aes", "--sbox", "rom", "--mode", "ccm", "--vectors", str(wp)]) == 0
    assert ("aes_ccm_test.json: 2 passed, 0 failed, 1 skipped (nonces outside CCM's 7 to 13 bytes)"
            in capsys.readouterr().out)


@pytest.mark.parametrize("text, words", [
    ("Count = 0\nAdata = 00\nCT = 00\n", "line 1: no Alen for this record"),
    ("Alen = 0\nPlen = 0\nNlen = 7\nTlen = 4\n[x]\nCount = 0\nAdata = 00\nCT = 00\n", "the record has no Key"),
    ("Alen = 0\nPlen = 0\nNlen = 7\nTlen = 4\nKey = " + "00" * 16 + "\nNonce = " + "00" * 7
     + "\nCount = 0\nAdata = 00\nCT = 0011\nPayload = 00\n", "Ct holds 2 bytes, not 4"),
    ("Alen = 0\nPlen = 0\nNlen = 8\nTlen = 4\nKey = " + "00" * 16 + "\nNonce = " + "00" * 7
     + "\nCount = 0\nAdata = 00\nCT = 00112233\nPayload = 00\n", "Nonce holds 7 bytes, not 8"),
    ("Alen = 0\nPlen = 0\nNlen = 7\nTlen = 4\nKey = " + "00" * 16 + "\nNonce = " + "00" * 7
     + "\nCount = 0\nAdata = 00\nCT = 00112233\n", "the record has no Payload"),
    ("Alen = x\n", "Alen is not a number"),
    ("Adata = 00\n", "Adata outside a record (before its Count)"),
    ("just text\n", "not a CCM field (NAME = value)"),
    ("# only a comment\n", "no CCM records"),
    ('{"algorithm": "AES-GCM", "testGroups": []}', "its algorithm is 'AES-GCM', not 'AES-CCM'"),
    ('{"algorithm": "AES-CCM", "testGroups": [{"tests": [{"tcId": 1}]}]}', "not a Wycheproof CCM file (KeyError"),
])
def test_a_malformed_ccm_file_is_one_line(tmp_path, capsys, text, words):
    assert words in refusal(tmp_path / "bad.rsp", text, capsys, "ccm", core=("aes", "--sbox", "rom"))


@pytest.mark.parametrize("args, words", [
    (["--vectors", str(VEC / "OFBMMT128.rsp")], "OFBMMT128.rsp: not an ACVP vector set: --mode ctr runs "
                                                 "NIST ACVP-AES-CTR JSON"),
    (["--random", "5"], "--mode ctr runs --vectors files (NIST ACVP-AES-CTR JSON)"),
])
def test_ctr_runs_acvp_vector_sets_only(capsys, args, words):
    """``--mode ctr`` reads NIST ACVP-AES-CTR JSON (tests/test_vectors_acvp.py runs them); a
    CAVP file, or no file, is one line."""
    assert main(["sim", *CORE, "--mode", "ctr", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
