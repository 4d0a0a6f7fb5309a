"""The host's CFB8/CFB1 reference and the AESAVS Monte-Carlo rule, checked against NIST's
files before they judge the hardware: SP 800-38A's construction over cryptography's AES
block equals OpenSSL's CFB8 (AES and TDES) and NIST's CFB1 MMT file; the Monte-Carlo rule
(host.monte_carlo) over a software model passes NIST's OFB, CFB8 and CFB1 MCT records and
fails a record with one changed output; the bulk check of an encryption (its output
decrypted) refuses a wrong one."""

import random
from pathlib import Path

import pytest
from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
from cryptography.hazmat.decrepit.ciphers.modes import CFB8
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.host import monte_carlo
from cipherfab.host.mode_reference import (cfb_segment_agrees, cfb_segment_model,
                                           cfb_segment_reference, packed, segments)
from cipherfab.vectors.rsp import parse_rsp

VEC = Path(__file__).parent.parent / "vectors" / "aes" / "cavp_modes"


def _ecb(key, algorithm=algorithms.AES):
    return Cipher(algorithm(key), modes.ECB()).encryptor().update


def test_segments_and_packing_round_trip():
    assert segments(b"\xa5\x80", 1, 9) == [1, 0, 1, 0, 0, 1, 0, 1, 1]
    assert packed([1, 0, 1, 0, 0, 1, 0, 1, 1], 1) == b"\xa5\x80"
    assert segments(b"abc", 8) == [97, 98, 99] and packed([97, 98, 99], 8) == b"abc"


@pytest.mark.parametrize("algorithm, key_bytes", [(algorithms.AES, 16), (algorithms.AES, 32),
                                                  (TripleDES, 24)])
def test_the_construction_is_openssls_cfb8(algorithm, key_bytes):
    rng = random.Random(key_bytes)
    key = rng.randbytes(key_bytes)
    iv = rng.randbytes(algorithm.block_size // 8)
    data = rng.randbytes(77)
    for decrypt in (False, True):
        c = Cipher(algorithm(key), CFB8(iv))
        want = (c.decryptor() if decrypt else c.encryptor()).update(data)
        assert cfb_segment_model(_ecb(key, algorithm), 8, iv, data, decrypt) == want


def test_the_construction_passes_nists_cfb1_file_and_fails_a_changed_bit():
    records = parse_rsp(VEC / "CFB1MMT128.rsp", 16, modes=("CFB1",))
    assert len(records) == 20 and {r.bits for r in records} == set(range(1, 11))
    for r in records:
        src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
        got = cfb_segment_model(_ecb(r.key), 1, r.iv, src[0], r.decrypt, r.bits)
        assert got == want[0], r.label
        assert cfb_segment_agrees("aes", r.key, 1, r.iv, src[0], want[0], r.decrypt, r.bits)
        wrong = bytes([want[0][0] ^ 0x80]) + want[0][1:]           # its first bit changed
        assert not cfb_segment_agrees("aes", r.key, 1, r.iv, src[0], wrong, r.decrypt, r.bits)


def test_an_encryption_is_judged_by_decrypting_it():
    """CFB1 encryption checked in bulk: the output decrypted must be the input."""
    rng = random.Random(5)
    key, iv, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(40)
    enc = cfb_segment_reference("aes", key, 1, iv, data, False)
    assert enc == cfb_segment_model(_ecb(key), 1, iv, data, False)
    assert cfb_segment_agrees("aes", key, 1, iv, data, enc, False)
    for at in (0, 20, 39):
        bad = enc[:at] + bytes([enc[at] ^ 1]) + enc[at + 1:]
        assert not cfb_segment_agrees("aes", key, 1, iv, data, bad, False)


def soft_stepper(kind: str, s: int, n: int = 128):
    """``run(key, decrypt, iv, first, count, next_input)`` over cryptography's AES block:
    OFB or CFB with s-bit segments, a segment at a time, the state carried on."""
    def run(key, decrypt, iv, first, count, nxt):
        enc, chain, x, outs = _ecb(key), int.from_bytes(iv, "big"), first, []
        for j in range(count):
            o = int.from_bytes(enc(chain.to_bytes(16, "big")), "big")
            if kind == "OFB":
                chain, y = o, x ^ o
            else:
                y = x ^ (o >> (n - s))
                chain = (chain << s | (x if decrypt else y)) & ((1 << n) - 1)
            outs.append(y)
            if j < count - 1:
                x = nxt(j, outs)
        return outs
    return run


@pytest.mark.parametrize("name, kind, s", [("OFBMCT128.rsp", "OFB", 128), ("CFB8MCT128.rsp", "CFB8", 8),
                                           ("CFB1MCT128.rsp", "CFB1", 1)])
def test_the_monte_carlo_rule_passes_nists_records(name, kind, s):
    records = parse_rsp(VEC / name, 16, modes=(kind,))
    assert len(records) == 200 and all(r.kind == "mct" for r in records)
    run = soft_stepper(kind, s)
    picked = [0, 1, 98, 99, 100, 101, 199]                 # both sections, their ends
    for i in picked:
        nxt = records[i + 1] if i + 1 < len(records) else None
        assert monte_carlo.check_record(records[i], nxt, run, s, 128) == (True, ""), (name, i)


def test_the_monte_carlo_rule_fails_a_changed_record():
    records = parse_rsp(VEC / "CFB8MCT128.rsp", 16, modes=("CFB8",))
    run = soft_stepper("CFB8", 8)
    r, nxt = records[0], records[1]
    changed = type(r)(**{**r.__dict__, "ciphertext": [bytes([r.ciphertext[0][0] ^ 1])]})
    ok, why = monte_carlo.check_record(changed, nxt, run, 8, 128)
    assert not ok and why.startswith("output 1000:")
    moved = type(nxt)(**{**nxt.__dict__, "iv": bytes(16)})
    ok, why = monte_carlo.check_record(r, moved, run, 8, 128)
    assert not ok and "KEY, IV and input derived for the next record" in why
