"""The MARS reference model against the AES-submission known-answer files."""

import random
from pathlib import Path

import pytest

import cipherfab
from cipherfab.ciphers.mars import model as mars
from cipherfab.errors import CipherfabError
from cipherfab.registry import get_cipher
from cipherfab.vectors import parse_file

VECTORS = Path(cipherfab.__file__).parent / "vectors" / "kat" / "mars" / "aes_submission_kat"
FILES = [("ecb_vk.txt", 576), ("ecb_vt.txt", 384), ("ecb_tbl.txt", 120)]


@pytest.mark.parametrize("name, count", FILES)
def test_model_matches_submission_files(name, count, check_model_against):
    records = parse_file(VECTORS / name)            # byte order as printed (no reversal)
    assert check_model_against("mars", records) == count


def test_the_files_exercise_the_key_fix_up():
    # the masked B-word step changes a multiplication key (beyond setting its low
    # two bits) for some keys of the files, so the test above checks the fix-up
    changed = 0
    for name, _ in FILES:
        for rec in parse_file(VECTORS / name):
            K, F = mars.expand_key(rec.key), mars.fix_up(mars.expand_key(rec.key))
            changed += any(F[i] != K[i] | 3 for i in range(5, 36, 2))
    assert changed >= 100


def test_sbox_and_fix_up_table():
    assert len(mars.S) == 512 and mars.S0 + mars.S1 == mars.S
    assert mars.S[0] == 0x09D0C479 and mars.S[511] == 0x19AF70EE
    assert mars.B == mars.S[265:269]
    assert mars.run_mask(0x3) == 0x7FFFFFF8             # bits 2..31 zero: bits 3..30
    assert mars.run_mask(0xA5A5A5A5) == 0


def test_random_blocks_round_trip():
    rng = random.Random(7)
    for bits in (128, 192, 256):
        m = mars.Model(bits)
        key = rng.randbytes(bits // 8)
        data = rng.randbytes(64)
        ct = m.encrypt(key, data)
        assert ct != data and m.decrypt(key, ct) == data


def test_bad_sizes_are_one_line():
    with pytest.raises(CipherfabError, match="mars takes 128/192/256-bit keys, not 64"):
        mars.Model(128).encrypt(bytes(8), bytes(16))
    with pytest.raises(CipherfabError, match="whole 16-byte blocks"):
        mars.Model(128).encrypt(bytes(16), bytes(15))
    with pytest.raises(CipherfabError, match="whole 16-byte blocks"):
        mars.Model(128).decrypt(bytes(16), bytes(17))
    with pytest.raises(CipherfabError, match="mars takes 128/192/256-bit keys, not 64"):
        get_cipher("mars").reference_model(64)
    with pytest.raises(CipherfabError, match="^mars takes 128/192/256-bit keys, not 160$"):
        mars.Model(128).encrypt(bytes(20), bytes(16))
