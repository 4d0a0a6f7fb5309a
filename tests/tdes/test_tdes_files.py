"""Triple-DES vector files as published: NESSIE's "Triple-Des (2-Key)"/"(3-Key)" files are
TDES files (not refused by name), and Crypto++'s 3desval.dat has a DESX record that is
skipped with its reason, never reported as a hardware failure."""

from pathlib import Path

import pytest

from cipherfab.cli import main
from cipherfab.vectors import ReferenceEngine, parse_file, run_files

TDES = Path(__file__).parents[1] / "vectors" / "tdes"
NESSIE = {128: TDES / "nessie" / "Triple-Des-2-Key-128-64.unverified.test-vectors",
          192: TDES / "nessie" / "Triple-Des-3-Key-192-64.unverified.test-vectors"}
VAL = TDES / "cryptopp" / "3desval.dat"


@pytest.mark.parametrize("bits, count", [(128, 900), (192, 1028)])
def test_nessie_triple_des_files_pass_the_reference(bits, count):
    # without the "Iterated 100/1000 times" values here (1100 reference calls a record);
    # the hardware test below checks them
    (report,) = run_files([NESSIE[bits]], ReferenceEngine(bits, "both", cipher="TDES"), iterated=False)
    assert (report.passed, report.failed, report.skipped) == (count, 0, 0)


def test_nessie_triple_des_names_the_cipher():
    assert {parse_file(p, block_bytes=8)[0].cipher_named for p in NESSIE.values()} == {"Triple-DES"}


def test_nessie_triple_des_on_hardware(capsys):
    assert main(["sim", "tdes", "--key-bits", "192", "--direction", "both",
                 "--vectors", str(NESSIE[192]), "--limit", "40"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "40 passed, 0 failed"


def test_nessie_triple_des_is_refused_by_an_aes_core(capsys):
    assert main(["sim", "aes", "--vectors", str(NESSIE[192])]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "this is a Triple-DES vector file; the engine runs aes" in err[0], err


def test_3desval_desx_line_is_skipped_with_its_reason(capsys):
    assert main(["sim", "tdes", "--key-bits", "192", "--direction", "both",
                 "--vectors", str(VAL)]) == 0
    out = capsys.readouterr().out
    assert "1 x DES-XEX3 (DESX) vector, not Triple-DES" in out, out
    assert out.strip().splitlines()[-1] == "1 passed, 0 failed, 2 skipped", out


def test_3desval_records():
    recs = parse_file(VAL, block_bytes=8)
    assert [len(r.key) for r in recs] == [16, 24, 24]
    assert [r.skip is None for r in recs] == [True, True, False]
