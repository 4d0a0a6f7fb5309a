"""Key-specific AES-128 cores (paper 004): what differs between keys, and what is refused.

Each variant's behaviour (KAT records of its key, a random run against the reference,
exact timing) is checked by tests/test_cores.py on the declared test points and by
``cipherfab verify aes --arch key_specific --all``.
"""

import re

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.generate import generate_verilog
from cipherfab.registry import resolve

K0, K1 = "000102030405060708090a0b0c0d0e0f", "2b7e151628aed2a6abf7158809cf4f3c"
ROM_INIT = re.compile(r"^\s*\w*keyed_sbox\d+\w*\[\d+\] = 8'h[0-9a-f]+;$")


def _verilog(variant: str, key: str) -> list[str]:
    text, info, _ = generate_verilog(resolve("aes", "key_specific", variant=variant, key=key))
    assert info.fixed_key == key and info.key_interface == "none"
    return text.replace(key, "KEY").splitlines()


def _differing(a: list[str], b: list[str]) -> list[str]:
    assert len(a) == len(b)
    return [x for x, y in zip(a, b) if x != y]


def test_xor_by_rom_all_keeps_the_key_only_in_rom_contents():
    """Another key changes block-RAM initial values and nothing else (re-keying without
    synthesis rests on this)."""
    diff = _differing(_verilog("xor_by_rom_all", K0), _verilog("xor_by_rom_all", K1))
    assert diff and all(ROM_INIT.match(line) for line in diff), diff[:3]


def test_xor_by_rom_partial_keeps_rounds_0_and_10_in_logic():
    a, b = _verilog("xor_by_rom_partial", K0), _verilog("xor_by_rom_partial", K1)
    logic = [{x for x in v if not ROM_INIT.match(x)} for v in (a, b)]
    assert logic[0] != logic[1]


@pytest.mark.parametrize("given, words", [
    ({"key": "12345"}, "a 128-bit key is 32 hex digits"),
    ({"key": "zz" * 16}, "a 128-bit key is 32 hex digits"),
    ({"variant": "xor_by_rom_all", "sbox": "lut"}, "use --sbox rom"),
    ({"key_bits": 256}, "--key-bits 256 is not supported"),
    ({"variant": "xor_by_magic"}, "--variant 'xor_by_magic' is not supported"),
])
def test_impossible_key_specific_points_are_refused(given, words):
    with pytest.raises(CipherfabError, match=re.escape(words)):
        resolve("aes", "key_specific", **given)
