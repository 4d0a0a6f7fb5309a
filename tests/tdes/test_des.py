"""The DES pieces (tables, subkey selections) and the NIST TDES example-text parser."""

import os
from pathlib import Path

import pytest

import cipherfab
from cipherfab.ciphers.tdes.des import DECRYPT_SHIFTS, FP, IP, SHIFTS, des_block, sbox_table
from cipherfab.ciphers.tdes.model import Model
from cipherfab.errors import CipherfabError
from cipherfab.vectors import ReferenceEngine, detect_format, parse_file, run_files

EXAMPLE = Path(cipherfab.__file__).parent / "vectors" / "kat" / "tdes" / "nist_examples" / "TDES_ECB.txt"


def test_tables_against_the_model():
    model = Model(64)
    for _ in range(200):      # des_block also checks every composed subkey table
        key, block = os.urandom(8), os.urandom(8)
        assert des_block(key, block) == model.encrypt(key, block)
        assert des_block(key, block, decrypt=True) == model.decrypt(key, block)


def test_shapes():
    assert sorted(IP) == sorted(FP) == list(range(1, 65))
    assert [IP[FP[i] - 1] for i in range(64)] == list(range(1, 65))
    assert sum(SHIFTS) == 28 and sum(DECRYPT_SHIFTS) == 27
    assert sbox_table(0)[:2] == (14, 0) and sbox_table(0)[32:34] == (4, 15)  # S1 column 0
    for n in range(8):        # every row of every S-box is a permutation of 0..15
        rows = {}
        for x, v in enumerate(sbox_table(n)):
            rows.setdefault((x >> 4 & 2) | (x & 1), []).append(v)
        assert all(sorted(r) == list(range(16)) for r in rows.values())


def test_nist_example_text():
    assert detect_format(EXAMPLE) == "nist-example"
    recs = parse_file(EXAMPLE, 8)
    assert [(r.decrypt, len(r.key), len(r.plaintext)) for r in recs] == \
           [(False, 24, 4), (True, 24, 4), (False, 16, 4), (True, 16, 4)]
    assert recs[2].label == "example 3, ECB-TDES (Encryption)" and recs[2].line == 64
    assert recs[0].ciphertext[0].hex() == "714772f339841d34"
    for bits in (128, 192):
        (report,) = run_files([EXAMPLE], ReferenceEngine(bits, "both", cipher="TDES"),
                              other_key_sizes="skip")
        assert (report.passed, report.failed, report.skipped) == (2, 0, 2)


@pytest.mark.parametrize("text,problem", [
    ("CBC-TDES (Encryption)\nKey1 is\n01234567 89ABCDEF\n", "line 1: CBC-TDES examples are not supported"),
    ("ECB-TDES (Encryption)\nKey1 is\n01234567 89ABCDEF\nPlaintext is\n6BC1BEE2 2E409F96\n",
     "line 1: example without Key2"),
    ("ECB-TDES (Encryption)\nKey1 is\n01234567\nhello\n", "line 4: unrecognised line 'hello'"),
])
def test_nist_example_refusals(tmp_path, text, problem):
    path = tmp_path / "TDES_ECB.txt"
    path.write_text(text)
    with pytest.raises(CipherfabError, match=problem):
        parse_file(path, 8)
