"""`cipherfab sim` and `cipherfab verify`: bad input is one line and exit 2, before any compile."""

from pathlib import Path

import pytest

import cipherfab
from cipherfab.cli import main

KAT = "aes/KAT_AES/ECBGFSbox128.rsp"
SHIPPED = Path(cipherfab.__file__).parent / "vectors" / "kat" / "aes" / "KAT_AES"


@pytest.fixture
def places(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.txt").write_text("hello\n")
    (tmp_path / "rc6.rsp").write_text("")
    head = "# GCM Encrypt with keysize 128 test information\n\n"
    sec = "[Keylen = 128]\n[IVlen = 96]\n[PTlen = 0]\n[AADlen = 0]\n[Taglen = 128]\n\n"
    rec = ("Count = 0\nKey = 11754cd72aec309bf52f7687212e8957\nIV = 3c819d9a9bed087615030b65\n"
           "PT = \nAAD = \nCT = \nTag = 250327c674aaf477aef2675748cf6971\n")
    for name, text in {"gcm.rsp": head + sec + rec,
                       "gcm-hex.rsp": head + sec + rec.replace("Key = 1175", "Key = x175"),
                       "gcm-len.rsp": head + sec + rec.replace("PT = ", "PT = 00"),
                       "gcm-nosection.rsp": head + "[Keylen = 128]\n" + rec,
                       "gcm-missing.rsp": head + sec + rec.replace("Tag = 2503", "Tig = 2503"),
                       "gcm-twice.rsp": head + sec + rec.replace("AAD = ", "IV = 3c819d9a9bed087615030b65"),
                       "gcm-fail.rsp": head + sec + "FAIL\n" + rec,
                       "gcm-orphan.rsp": head + sec + "Key = 00\n" + rec,
                       "cryptopp-gcm.txt": "Name: AES/GCM\nKey: 00\nIV: 00\nMAC: 00\nTest: Encrypt\n",
                       "example-gcm.txt": "GCM-AES128\nExample #1\nTaglen = 128\nK is\n00\n"}.items():
        (tmp_path / name).write_text(text)
    ofb = ("# AESVS MMT test data for OFB\n[ENCRYPT]\n\nCOUNT = 0\nKEY = " + "0" * 32 + "\nIV = "
           + "0" * 32 + "\nPLAINTEXT = " + "0" * 32 + "\nCIPHERTEXT = " + "0" * 32 + "\n")
    for name, text in {"OFBMMT128.rsp": ofb, "CFB8MMT128.rsp": ofb.replace("OFB", "CFB8"),
                       "TOFBMonte1.rsp": ("# TDES Monte Carlo (Modes) Test for OFB\n[ENCRYPT]\n\nCOUNT = 0\n"
                                          + "".join(f"KEY{i} = {'01' * 8}\n" for i in (1, 2, 3))
                                          + "IV = " + "0" * 16 + "\nPLAINTEXT = " + "0" * 16
                                          + "\nCIPHERTEXT = " + "0" * 16 + "\n"),
                       "TOFBIMMT1.rsp": "# TDES Multi block Message Test for OFBI\n[ENCRYPT]\n",
                       "TCBCIMMT1.rsp": "# TDES Multi block Message Test for CBCI\n[ENCRYPT]\n",
                       "OFBnoiv.rsp": ofb.replace("IV = " + "0" * 32 + "\n", ""),
                       "modeless.rsp": ofb.replace("# AESVS MMT test data for OFB\n", "")}.items():
        (tmp_path / name).write_text(text)
    xts = ("#  XTSGen information\n[ENCRYPT]\n\nCOUNT = 1\nDataUnitLen = 120\nKey = " + "01" * 32
           + "\ni = " + "00" * 16 + "\nPT = " + "00" * 15 + "\nCT = " + "00" * 15 + "\n")
    (tmp_path / "XTSGenAES128.rsp").write_text(xts)
    (tmp_path / "kat.rsp").write_text("# ECB GFSbox\n[ENCRYPT]\n\nCOUNT = 0\nKEY = " + "0" * 32 +
                                      "\nPLAINTEXT = " + "0" * 32 + "\nCIPHERTEXT = " + "0" * 32 + "\n")
    return tmp_path


CASES = [
    # sim: what to run
    (["sim", "aes", "--random", "1e23"], "must lie in 1 to 1e+12, got 1e23"),
    (["sim", "aes", "--random", "17000000000000"], "must lie in 1 to 1e+12"),
    (["sim", "aes", "--random", "0"], "must lie in 1 to"),
    (["sim", "aes", "--random", "-5"], "must lie in 1 to"),
    (["sim", "aes", "--random", "nan"], "invalid integer 'nan'"),
    (["sim", "aes", "--random", "inf"], "invalid integer 'inf'"),
    (["sim", "aes", "--random", "1.5"], "invalid integer '1.5'"),
    (["sim", "aes", "--random", ""], "invalid integer ''"),
    (["sim", "aes"], "one of the arguments --vectors --random is required"),
    (["sim", "aes", "--random", "5", "--vectors", "x.rsp"], "not allowed with argument"),
    (["sim", "aes", "--vectors", "{tmp}/missing.rsp"], "missing.rsp"),
    (["sim", "aes", "--vectors", "{tmp}/empty"], "/empty: is a folder, not a file"),
    (["sim", "aes", "--vectors", "{tmp}/file.txt"], "file.txt"),
    # sim: how to run it
    (["sim", "aes", "--random", "5", "--limit", "0"], "must be >= 1"),
    (["sim", "aes", "--random", "5", "--seed", "x"], "invalid int value"),
    (["sim", "aes", "--random", "5", "--valid-prob", "0"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--valid-prob", "1.5"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--valid-prob", "nan"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--ready-prob", "-1"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--ready-prob", "inf"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--blocks-per-key", "0"], "must be >= 1"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "0"], "must lie in 0.05 to 20"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "nan"], "must lie in 0.05 to 20"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "100"], "must lie in 0.05 to 20"),
    (["sim", "aes", "--random", "5", "--key-bits", "100"], "--key-bits 100 is not supported"),
    (["sim", "aes", "--random", "5", "--arch", "nope"], "--arch 'nope' is not supported"),
    (["sim", "rot13", "--random", "5"], "rot13"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "2"], "no key clock"),
    # generate (a core; the system's cases are in tests/host/test_bad_input_host.py)
    (["generate", "aes", "-o", "/dev/null/x.v"], "cannot write /dev/null/x.v: /dev/null is not a directory"),
    (["generate", "aes", "-o", "/proc/x.v"], "cannot write /proc/x.v"),
    (["generate", "aes", "-o", "{tmp}/empty"], "it is a directory"),
    (["generate", "aes", "-o", "{tmp}/nowhere/x.v"], "no directory"),
    (["generate", "aes", "-o", "{tmp}/x.json"], "name the Verilog file"),
    (["generate", "aes", "--fusesoc", "{tmp}/file.txt"], "not a directory"),
    (["generate", "aes", "--fusesoc", "{tmp}/f", "-o", "x.v"], "drop -o"),
    (["generate", "aes", "--axis-width", "32"], "go with --system"),
    # GCM vector files through the system
    (["sim", "aes", "--mode", "gcm", "--random", "5"], "--mode gcm runs --vectors files"),
    (["sim", "aes", "--mode", "cbc", "--random", "5"], "argument --mode: invalid choice: 'cbc'"),
    (["sim", "aes", "--mode", "ofb", "--random", "5"], "--mode ofb runs --vectors files (NIST CAVP OFB .rsp)"),
    (["sim", "aes", "--mode", "cfb", "--vectors", "{tmp}/OFBMMT128.rsp"], "OFBMMT128.rsp: the file's mode is OFB, not CFB128"),
    (["sim", "aes", "--mode", "cfb", "--vectors", "{tmp}/CFB8MMT128.rsp"], "CFB8MMT128.rsp: the file's mode is CFB8, not CFB128"),
    (["sim", "tdes", "--mode", "cfb", "--vectors", "{tmp}/OFBMMT128.rsp"], "OFBMMT128.rsp: the file's mode is OFB, not CFB64"),
    (["sim", "aes", "--mode", "ofb", "--vectors", "{tmp}/OFBnoiv.rsp"], "OFBnoiv.rsp line 4: COUNT = 0 without IV"),
    (["sim", "aes", "--mode", "ofb", "--vectors", "{tmp}/modeless.rsp"],
     "modeless.rsp: neither the name nor the header says the mode (OFB)"),
    (["sim", "aes", "--mode", "ofb", "--vectors", "{tmp}/kat.rsp"], "kat.rsp: the file's mode is ECB, not OFB"),
    (["sim", "aes", "--mode", "ofb", "--valid-prob", "0.5", "--vectors", "{tmp}/OFBMMT128.rsp"],
     "--valid-prob applies to the core's own runs, not --mode ofb"),
    (["sim", "aes", "--mode", "cfb", "--direction", "decrypt", "--vectors", "{tmp}/OFBMMT128.rsp"],
     "cfb runs on the encrypting core; aes_iterative_128_decrypt_lut only decrypts"),
    (["sim", "aes", "--vectors", "{tmp}/OFBMMT128.rsp"], "OFB files run through the system: sim --mode ofb"),
    (["sim", "tdes", "--mode", "ofb", "--vectors", "{tmp}/TOFBIMMT1.rsp"], "the file's mode is OFBI, not OFB"),
    (["sim", "tdes", "--vectors", "{tmp}/TCBCIMMT1.rsp"], "CBCI mode is not supported (ECB and CBC only)"),
    (["sim", "aes", "--vectors", "{tmp}/XTSGenAES128.rsp"], "XTS files run through the system: sim --mode xts"),
    (["sim", "aes", "--mode", "xts", "--random", "5"], "--mode xts runs --vectors files (NIST CAVP XTSGenAES .rsp"),
    (["sim", "aes", "--mode", "xts", "--vectors", "{tmp}/XTSGenAES128.rsp"],
     "no record in the vector files ran on this core: data units under 16 bytes"),
    (["sim", "aes", "--mode", "xts", "--vectors", "{tmp}/OFBMMT128.rsp"], "OFBMMT128.rsp line 4: the record has no DataUnitLen"),
    (["sim", "tdes", "--mode", "xts", "--vectors", "{tmp}/XTSGenAES128.rsp"],
     "xts needs a 128-bit block cipher; tdes has 64-bit blocks"),
    (["sim", "tdes", "--mode", "ofb", "--vectors", "{tmp}/TOFBMonte1.rsp"],
     "no record in the vector files ran on this core: Monte-Carlo records of TDESVS (10,000 inner"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/kat.rsp"], "kat.rsp: not a GCM vector file"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/missing.rsp"], "missing.rsp: no such file"),
    (["sim", "tdes", "--mode", "gcm", "--vectors", "{tmp}/gcm.rsp"],
     "gcm needs a 128-bit block cipher that encrypts; tdes_iterative_192_encrypt has 64-bit blocks"),
    (["sim", "aes", "--mode", "gcm", "--direction", "decrypt", "--vectors", "{tmp}/gcm.rsp"],
     "gcm needs a 128-bit block cipher that encrypts"),
    (["sim", "aes", "--mode", "gcm", "--ready-prob", "0.5", "--vectors", "{tmp}/gcm.rsp"],
     "--ready-prob applies to the core's own runs, not --mode gcm"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-hex.rsp"], "gcm-hex.rsp line 10: Key is not hex"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-len.rsp"],
     "gcm-len.rsp line 12: PT has 8 bits, its section says PTlen = 0"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-nosection.rsp"],
     "a record before its [IVlen = ...] section header"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-missing.rsp"], "not a GCM vector line: 'Tig = "),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-twice.rsp"], "IV given twice in record Count = 0"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-fail.rsp"], "FAIL outside a record"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-orphan.rsp"], "Key outside a record"),
    (["sim", "aes", "--vectors", "{tmp}/gcm.rsp"], "GCM files run through the system: sim --mode gcm"),
    (["sim", "aes", "--vectors", "{tmp}/cryptopp-gcm.txt"], "GCM files run through the system: sim --mode gcm"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/cryptopp-gcm.txt"],
     "cryptopp-gcm.txt line 2: Key is 1 byte; AES keys are 16, 24 or 32"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/example-gcm.txt"],
     "example-gcm.txt line 4: 'K is' before Encrypt-Generate"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/file.txt"],
     "file.txt: not a GCM vector file (NIST CAVP GCM .rsp, Crypto++ gcm.txt or NIST's AES_GCM.txt"),
    # verify
    (["verify"], "nothing to verify"),
    (["verify", "aes", "--vectors-dir", "{tmp}/empty"], "lacks aes/KAT_AES/"),
    (["verify", "aes", "--vectors-dir", "{tmp}/missing"], "does not exist"),
    (["verify", "aes", "--vectors-dir", "{tmp}/file.txt"], "file.txt is not a folder"),
    (["verify", "aes", "--random", "0"], "must be >= 1"),
    (["verify", "aes", "-j", "0"], "must be >= 1"),
    (["verify", "aes", "--seed", "1.5"], "invalid int value"),
    (["verify", "--changed"], "--changed goes with --all"),
    (["verify", "--status", "--all"], "--status only reads the ledger"),
    (["verify", "--all", "-j", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
    (["verify", "--all", "--key-bits", "128"], "--all checks every point; --key-bits"),
    (["verify", "--all", "--scheduler", ""], "empty address"),
    (["verify", "--all", "--scheduler", "localhost"], "invalid scheduler address"),
    (["verify", "--all", "--scheduler", "http://h:1"], "unsupported scheme"),
    (["verify", "--all", "--scheduler", "tcp://h:99999"], "port must be 1..65535"),
    (["verify", "--all", "--update-readme"], "--update-readme goes with --status"),
    (["verify", "aes", "--arch", "pipelined-9"], "--arch 'pipelined-9' is not supported"),
    # a selection that matches no point is refused, naming the architectures (not "0 points")
    (["verify", "aes", "--arch", "iterativ", "--status"], "aes: --arch 'iterativ' is not supported; choose from iterative,"),
    (["verify", "--arch", "iterativ", "--status"], "--arch 'iterativ' is no cipher's architecture; choose from aes: iterative,"),
    (["verify", "aes", "--arch", "nope", "--all", "--ledger", "{tmp}/x.json"], "aes: --arch 'nope' is not supported"),
    (["verify", "--arch", "compact", "--all", "--ledger", "{tmp}/x.json"], "; tdes: iterative, pipeline,"),
    (["verify", "--arch", "", "--all", "--ledger", "{tmp}/x.json"], "--arch '' is no cipher's architecture"),
    (["verify", "rc6", "--arch", "pipeline", "--status"], "rc6: --arch 'pipeline' is not supported; choose from iterative"),
]


@pytest.mark.parametrize("argv, needle", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_refused_in_one_line(argv, needle, places, capsys, monkeypatch):
    monkeypatch.delenv("CIPHERFAB_VECTORS", raising=False)
    argv = [a.replace("{tmp}", str(places)) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert needle in err, err
    assert not (places / "x.json").exists()                    # no ledger written


def _wrong(text: str, field: str, every: bool) -> str:
    """The file with the first hex digit of one (or every) ``field`` changed."""
    out, n = [], 0
    for line in text.splitlines(keepends=True):
        if line.startswith(field + " = ") and (every or n == 0):
            i = len(field) + 3
            line = line[:i] + ("1" if line[i] != "1" else "2") + line[i + 1:]
            n += 1
        out.append(line)
    return "".join(out)


@pytest.fixture
def failing(places):
    kat = (SHIPPED / "ECBGFSbox128.rsp").read_text()
    (places / "one-wrong.rsp").write_text(_wrong(kat, "CIPHERTEXT", every=False))
    (places / "all-wrong.rsp").write_text(_wrong(_wrong(kat, "CIPHERTEXT", True), "PLAINTEXT", True))
    (places / "gcm-wrong-tag.rsp").write_text((places / "gcm.rsp").read_text().replace("Tag = 2503", "Tag = 3503"))
    return places


FAILURES = [   # a failed check is exit 1, whatever else is also wrong
    (["sim", "aes", "--vectors", "{tmp}/one-wrong.rsp"], "13 passed, 1 failed"),
    (["sim", "aes", "--vectors", "{tmp}/all-wrong.rsp"], "0 passed, 14 failed"),
    (["sim", "aes", "--vectors", "{tmp}/all-wrong.rsp", "{kat}/ECBGFSbox256.rsp"], "0 passed, 14 failed, 10 skipped"),
    (["sim", "aes", "--mode", "gcm", "--vectors", "{tmp}/gcm-wrong-tag.rsp"], "0 passed, 1 failed"),
]


def test_records_of_another_key_size_only_are_refused(capsys):
    assert main(["sim", "aes", "--vectors", str(SHIPPED / "ECBGFSbox256.rsp")]) == 2
    out, err = capsys.readouterr()
    assert out.strip().splitlines()[-1] == "0 passed, 0 failed, 10 skipped", out
    assert err.strip().splitlines()[-1] == ("cipherfab sim: error: no record in the vector files is "
                                            "for this core's key size")   # after a first compile's note


@pytest.mark.parametrize("argv, last", FAILURES, ids=[" ".join(a) for a, _ in FAILURES])
def test_a_failed_check_exits_1(argv, last, failing, capsys):
    argv = [a.replace("{tmp}", str(failing)).replace("{kat}", str(SHIPPED)) for a in argv]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out.strip().splitlines()[-1] == last, out
    assert "error" not in err, err
