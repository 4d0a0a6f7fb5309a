"""The DES/3DES reference model against the NIST TDES known-answer files."""

from pathlib import Path

import pytest

import cipherfab
from cipherfab.registry import get_cipher
from cipherfab.vectors import parse_file

VECTORS = Path(__file__).parent.parent / "vectors" / "tdes" / "KAT_TDES"
SHIPPED = Path(cipherfab.__file__).parent / "vectors" / "kat" / "tdes" / "KAT_TDES"   # the KAT files the package ships


@pytest.mark.parametrize("path", [SHIPPED / "TECBvarkey.rsp", VECTORS / "TCBCvarkey.rsp"],
                         ids=["TECBvarkey.rsp", "TCBCvarkey.rsp"])
def test_model_matches_kat_files(path):
    cipher = get_cipher("tdes")
    records = parse_file(path, block_bytes=8)
    assert len(records) > 100
    for rec in records:
        model = cipher.reference_model(8 * len(rec.key))
        iv = rec.iv or bytes(8)
        if rec.decrypt:
            got, prev = [], iv
            for c in rec.ciphertext:
                got.append(bytes(a ^ b for a, b in zip(model.decrypt(rec.key, c), prev)) if rec.mode == "CBC"
                           else model.decrypt(rec.key, c))
                prev = c
            assert got == rec.plaintext, rec.where
        else:
            got, prev = [], iv
            for p in rec.plaintext:
                x = bytes(a ^ b for a, b in zip(p, prev)) if rec.mode == "CBC" else p
                prev = model.encrypt(rec.key, x)
                got.append(prev)
            assert got == rec.ciphertext, rec.where


def test_key_sizes_are_port_bits_with_effective_bits_beside():
    c = get_cipher("tdes")
    assert c.key_bits == (64, 128, 192)
    assert [c.effective_key_bits(k) for k in c.key_bits] == [56, 112, 168]
    assert [a.name for a in c.architectures] == ["iterative", "pipeline", "key_specific",
                                                "key_specific_pipeline"]
    assert sum(len(a.test_points) for a in c.architectures) <= 5      # CI time: 3 + 2 key-specific
