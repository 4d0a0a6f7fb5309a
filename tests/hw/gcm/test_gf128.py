"""hw.gcm.gf128: Algorithm 1 against the reflected form, and GHASH inside a test-only GCM
against every NIST CAVP gcmEncryptExtIV128 record and against pyca/cryptography's AESGCM."""

import random
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from cipherfab.hw.gcm.gf128 import (GCM, ONE, Field, blocks_of, ghash, ghash_input, mul, mul_reflected,
                                pow_h, reverse)

GCM_RSP = Path(__file__).parents[2] / "vectors" / "aes" / "gcmtestvectors" / "gcmEncryptExtIV128.rsp"


# --- test-only GCM (SP 800-38D Algorithm 4), AES from cryptography's ECB -------------------

def gcm_encrypt(key: bytes, iv: bytes, pt: bytes, aad: bytes, tag_bytes: int) -> tuple[bytes, bytes]:
    aes = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    ciph = lambda v: int.from_bytes(aes.update(v.to_bytes(16, "big")), "big")
    h = ciph(0)
    if len(iv) == 12:
        j0 = int.from_bytes(iv, "big") << 32 | 1
    else:
        j0 = ghash(h, blocks_of(iv) + [8 * len(iv)])        # IV || 0^(s+64) || [len(IV)]_64
    inc32 = lambda v: (v & ~0xFFFFFFFF) | ((v + 1) & 0xFFFFFFFF)
    ct, cb = bytearray(), j0
    for i in range(0, len(pt), 16):
        cb = inc32(cb)
        chunk = pt[i:i + 16]
        ct += bytes(a ^ b for a, b in zip(chunk, ciph(cb).to_bytes(16, "big")))
    s = ghash(h, ghash_input(aad, bytes(ct)))
    return bytes(ct), (ciph(j0) ^ s).to_bytes(16, "big")[:tag_bytes]


def cavp_records(path: Path) -> list[dict]:
    """Records of a CAVP GCM encrypt file, each with its section's Taglen."""
    records, taglen, rec = [], None, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if m := re.fullmatch(r"\[Taglen = (\d+)\]", line):
            taglen = int(m.group(1))
        elif m := re.fullmatch(r"(\w+) = ?(.*)", line):
            field, value = m.groups()
            if field == "Count":
                rec = {"Count": int(value), "Taglen": taglen}
                records.append(rec)
            else:
                rec[field] = bytes.fromhex(value)
    return records


def test_every_cavp_gcm_encrypt_record():
    expected = len(re.findall(r"^Count = \d+$", GCM_RSP.read_text(), re.M))
    assert expected == 7875                       # the SOURCES.md row
    done = 0
    for r in cavp_records(GCM_RSP):
        assert 8 * len(r["Tag"]) == r["Taglen"]
        ct, tag = gcm_encrypt(r["Key"], r["IV"], r["PT"], r["AAD"], len(r["Tag"]))
        assert (ct, tag) == (r["CT"], r["Tag"]), (r["Count"], r["Taglen"], len(r["IV"]))
        done += 1
    assert done == expected


def test_random_against_cryptography_aesgcm():
    # AESGCM refuses IVs under 8 bytes; the CAVP file's 8-bit IVs cover those lengths
    rng = random.Random(128)
    lengths = set()
    for _ in range(200):
        key = rng.randbytes(16)
        iv = rng.randbytes(rng.choice([12, rng.randint(8, 64)]))
        aad, pt = rng.randbytes(rng.randint(0, 70)), rng.randbytes(rng.randint(0, 70))
        t = rng.choice([16, 15, 14, 13, 12])
        full = AESGCM(key).encrypt(iv, pt, aad)
        assert gcm_encrypt(key, iv, pt, aad, t) == (full[:-16], full[-16:][:t])
        lengths.add(len(iv))
    assert 12 in lengths and len(lengths) > 20


# --- the field itself ---------------------------------------------------------------------

def test_algorithm_1_equals_reflected_form():
    rng = random.Random(1)
    for _ in range(500):
        x, y = rng.getrandbits(128), rng.getrandbits(128)
        assert mul(x, y) == mul_reflected(x, y)
    bits = [0, 1, 2, 7, 63, 64, 120, 126, 127]
    for i in bits:
        for j in bits:
            assert mul(1 << i, 1 << j) == mul_reflected(1 << i, 1 << j), (i, j)


def test_field_laws_and_known_products():
    rng = random.Random(2)
    h = rng.getrandbits(128)
    assert mul(ONE, h) == h and mul(h, ONE) == h and mul(0, h) == 0
    # a * a^127 = a^128 = 1 + a + a^2 + a^7: the block 11100001 || 0^120 = R
    assert mul(ONE >> 1, 1) == 0xE1 << 120
    a, b, c = (rng.getrandbits(128) for _ in range(3))
    assert mul(a, b) == mul(b, a)
    assert mul(mul(a, b), c) == mul(a, mul(b, c))
    assert mul(a ^ b, c) == mul(a, c) ^ mul(b, c)
    assert pow_h(h, 0) == ONE and pow_h(h, 1) == h and pow_h(h, 5) == mul(pow_h(h, 2), pow_h(h, 3))
    assert pow_h(h, 2 ** 128 - 1) == ONE          # the multiplicative group has order 2^128 - 1


def test_ghash_is_horner_in_powers_of_h():
    rng = random.Random(3)
    h, xs = rng.getrandbits(128), [rng.getrandbits(128) for _ in range(5)]
    expect = 0
    for i, x in enumerate(xs):
        expect ^= mul(x, pow_h(h, len(xs) - i))
    assert ghash(h, xs) == expect and ghash(h, []) == 0


def test_ghash_input_padding_and_lengths():
    blocks = ghash_input(b"\x01" * 17, b"\xff" * 3)
    assert len(blocks) == 4
    assert blocks[1] == 0x01 << 120 and blocks[2] == 0xFFFFFF << 104
    assert blocks[3] == (136 << 64) | 24
    assert ghash_input(b"", b"") == [0]


def test_small_field_and_reverse():
    aes = Field(8, 0x11B)
    assert reverse(0b1101, 4) == 0b1011 and reverse(1, 128) == ONE
    # {53} * {CA} = {01} in the AES field (FIPS-197 4.2), here with reflected bytes
    assert aes.mul(reverse(0x53, 8), reverse(0xCA, 8)) == reverse(0x01, 8)
    assert GCM.mul(ONE, 12345) == 12345
    with pytest.raises(ValueError):
        Field(8, 0x1B)
