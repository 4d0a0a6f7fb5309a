"""The Twofish reference model against the AES-submission ECB_TBL file."""

import random
from pathlib import Path

import pytest

import cipherfab
from cipherfab.ciphers.twofish import model as twofish
from cipherfab.errors import CipherfabError
from cipherfab.vectors import parse_file

FILE = Path(cipherfab.__file__).parent / "vectors" / "kat" / "twofish" / "aes_submission_kat" / "ECB_TBL.TXT"


def test_model_matches_ecb_tbl(check_model_against):
    records = parse_file(FILE)
    assert {8 * len(r.key) for r in records} == {128, 192, 256}
    assert check_model_against("twofish", records) == 147


def test_fixed_tables_and_round_trips():
    assert sorted(twofish.Q0) == list(range(256)) and sorted(twofish.Q1) == list(range(256))
    assert twofish.Q0[0] == 0xA9 and twofish.Q1[0] == 0x75       # the specification's q tables
    rng = random.Random(9)
    for bits in (128, 192, 256):
        key, data = rng.randbytes(bits // 8), rng.randbytes(48)
        m = twofish.Model(bits)
        assert m.decrypt(key, m.encrypt(key, data)) == data


def test_bad_sizes_are_one_line():
    with pytest.raises(CipherfabError, match="twofish takes 128/192/256-bit keys, not 64"):
        twofish.Model(128).encrypt(bytes(8), bytes(16))
    with pytest.raises(CipherfabError, match="whole 16-byte blocks"):
        twofish.Model(128).encrypt(bytes(16), bytes(8))
