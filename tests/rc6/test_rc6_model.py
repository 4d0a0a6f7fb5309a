"""The RC6 reference model against the NESSIE file (and the RC6 paper's zero vector)."""

import random
from pathlib import Path

import pytest

import cipherfab
from cipherfab.ciphers.rc6 import model as rc6
from cipherfab.errors import CipherfabError
from cipherfab.registry import get_cipher
from cipherfab.vectors import parse_file

FILE = Path(cipherfab.__file__).parent / "vectors" / "kat" / "rc6" / "nessie" / "Rc6-128-128.verified.test-vectors"


def test_model_matches_nessie_file():
    records = parse_file(FILE)
    assert len(records) == 1028
    model = get_cipher("rc6").reference_model(128)
    checked = 0
    for n, rec in enumerate(records):
        (p,), (c,) = rec.plaintext, rec.ciphertext
        assert model.encrypt(rec.key, p) == c, rec.where
        assert model.decrypt(rec.key, c) == p, rec.where
        if rec.iterated and n % 16 == 0:        # "Iterated 100 / 1000 times" on a sample
            checked += 1
            x = p
            for i in range(1, max(rec.iterated) + 1):
                x = model.encrypt(rec.key, x)
                if i in rec.iterated:
                    assert x == rec.iterated[i], (rec.where, i)
    assert checked >= 16


def test_paper_zero_vector_and_round_trips():
    assert rc6.Model(128).encrypt(bytes(16), bytes(16)).hex() == "8fc3a53656b1f778c129df4e9848a41e"
    rng = random.Random(3)
    for bits in (128, 192, 256):
        key, data = rng.randbytes(bits // 8), rng.randbytes(48)
        m = rc6.Model(bits)
        assert m.decrypt(key, m.encrypt(key, data)) == data


def test_bad_sizes_are_one_line():
    with pytest.raises(CipherfabError, match="rc6 takes 128/192/256-bit keys, not 80"):
        rc6.Model(128).encrypt(bytes(10), bytes(16))
    with pytest.raises(CipherfabError, match="whole 16-byte blocks"):
        rc6.Model(128).encrypt(bytes(16), bytes(17))


def test_rc6_paper_vectors_all_key_sizes(check_model_against):
    # Crypto++'s rc6val.dat: the RC6 paper's vectors, two per key size
    records = parse_file(FILE.parent.parent / "cryptopp" / "rc6val.dat")
    assert {8 * len(r.key) for r in records} == {128, 192, 256}
    assert check_model_against("rc6", records) == 6
