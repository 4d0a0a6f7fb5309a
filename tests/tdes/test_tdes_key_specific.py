"""Key-specific DES / 3DES cores (paper 004): refusals, subkey tables, no key port.

Behaviour (KAT records of the key, a random run against the reference, exact timing)
is checked by tests/test_cores.py on the declared test points and by
``cipherfab verify tdes --arch key_specific[_pipeline] --all``.
"""

import re

import pytest

from cipherfab.ciphers.tdes.des import PC1, PC2, SHIFTS, _permute_int, _rol28
from cipherfab.ciphers.tdes.key_specific import KeySpecificPipelinedTDES, KeySpecificTDES
from cipherfab.errors import CipherfabError
from cipherfab.generate import generate_verilog
from cipherfab.registry import resolve

K64 = "133457799bbcdff1"


def _schedule(key_hex: str) -> list[int]:
    """K1..K16 of one DES key, the textbook way (PC-1, rotations, PC-2)."""
    cd = _permute_int(int(key_hex, 16), PC1, 64)
    c, d, out = cd >> 28, cd & 0xFFFFFFF, []
    for s in SHIFTS:
        c, d = _rol28(c, s), _rol28(d, s)
        out.append(_permute_int(c << 28 | d, PC2, 56))
    return out


def _core(*args) -> KeySpecificTDES:
    core = KeySpecificTDES(*args)
    core._MustUse__silence = True     # only its table is looked at
    return core


def test_iterative_subkey_table_follows_the_round_counter():
    ks = _schedule(K64)
    assert _core(64, "encrypt", "fixed_round_key", K64).table() == ks
    assert _core(64, "decrypt", "fixed_round_key", K64).table() == ks[::-1]
    assert _core(64, "both", "xor_collapse", K64).table() == ks + ks[::-1]
    k1, k2, k3 = "0123456789abcdef", "23456789abcdef01", "456789abcdef0123"
    t = _core(192, "encrypt", "fixed_round_key", k1 + k2 + k3).table()
    assert t[:48] == _schedule(k1) + _schedule(k2)[::-1] + _schedule(k3)
    assert t[48:] == _schedule(k3)       # pass value 3 never occurs: the last pass's repeated
    t = _core(128, "decrypt", "xor_collapse", k1 + k2).table()
    assert t[:48] == _schedule(k1)[::-1] + _schedule(k2) + _schedule(k1)[::-1]


def test_no_key_port_and_no_key_setup():
    text, info, _ = generate_verilog(resolve("tdes", "key_specific", variant="fixed_round_key",
                                             key=K64))
    assert info.key_interface == "none" and info.fixed_key == K64 and info.key_setup_cycles == 0
    assert info.latency == 17 and info.cycles_per_block == 16
    assert "key__" not in text and f"tdes_key_specific_64_encrypt_fixed_round_key_{K64}" in text


@pytest.mark.parametrize("given, words", [
    ({"key_bits": 128, "key": K64}, "--key must have --key-bits / 4 hex digits"),
    ({"key_bits": 192}, "(the default key is a 64-bit one)"),
    ({"key": "12345"}, "a key is 16, 32 or 48 hex digits"),
    ({"key": "zz" * 8}, "a key is 16, 32 or 48 hex digits"),
    ({"variant": "fixed_key"}, "--variant 'fixed_key' is not supported"),
    ({"key_bits": 256}, "--key-bits 256 is not supported"),
])
def test_impossible_key_specific_points_are_refused(given, words):
    for arch in ("key_specific", "key_specific_pipeline"):
        with pytest.raises(CipherfabError, match=re.escape(words)):
            resolve("tdes", arch, **given)


@pytest.mark.parametrize("core", [KeySpecificTDES, KeySpecificPipelinedTDES])
def test_the_constructors_refuse_a_key_of_another_size(core):
    with pytest.raises(CipherfabError, match=re.escape("a 128-bit key is 32 hex digits")):
        core(128, "encrypt", "xor_collapse", K64)
