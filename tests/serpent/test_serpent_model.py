"""The Serpent reference model against the AES-submission known-answer files."""

import random
from pathlib import Path

import pytest

import cipherfab
from cipherfab.ciphers.serpent import model as serpent
from cipherfab.errors import CipherfabError
from cipherfab.registry import get_cipher
from cipherfab.vectors import parse_file

VECTORS = Path(cipherfab.__file__).parent / "vectors" / "kat" / "serpent" / "aes_submission_kat"


@pytest.mark.parametrize("name, count", [("ecb_vk.txt", 576), ("ecb_vt.txt", 384), ("ecb_tbl.txt", 1536)])
def test_model_matches_submission_files(name, count, check_model_against):
    records = parse_file(VECTORS / name, byte_reversed=True)
    assert check_model_against("serpent", records) == count


def test_one_vector_in_both_conventions():
    # SOURCES.md: submission ecb_vk I=1 KEY=80..00 CT=49afbfad..6bd2dd is NESSIE Set 1
    # vector#120: key 00..80 (byte-array convention), cipher DDD26B98..BFAF49
    ct = serpent.Model(128).encrypt(bytes(15) + b"\x80", bytes(16))
    assert ct.hex() == "ddd26b98a5ffd82c05345a9dadbfaf49"


def test_random_blocks_round_trip_and_the_linear_layer_inverts():
    rng = random.Random(5)
    for bits in (128, 192, 256):
        m = serpent.Model(bits)
        key = rng.randbytes(bits // 8)
        data = rng.randbytes(64)
        assert m.decrypt(key, m.encrypt(key, data)) == data
    x = [rng.getrandbits(32) for _ in range(4)]
    assert serpent.inv_lt(serpent.lt(x)) == x


def test_bad_sizes_are_one_line():
    with pytest.raises(CipherfabError, match="serpent takes 128/192/256-bit keys, not 64"):
        serpent.Model(64).encrypt(bytes(8), bytes(16))
    with pytest.raises(CipherfabError, match="whole 16-byte blocks"):
        serpent.Model(128).encrypt(bytes(16), bytes(15))
    with pytest.raises(CipherfabError, match="serpent takes 128/192/256-bit keys, not 64"):
        get_cipher("serpent").reference_model(64)
