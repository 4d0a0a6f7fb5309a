"""The ECB wrapper every reference model presents: whole blocks of the model's own size."""

import pytest

from cipherfab.ciphers.ecb import EcbModel
from cipherfab.errors import CipherfabError


class _Swap64(EcbModel):
    """A 64-bit toy: swaps the block's halves and XORs the key's first byte into each byte."""
    name, block_bits = "swap64", 64

    @staticmethod
    def key_schedule(key):
        return key[0]

    @staticmethod
    def encrypt_block(k, block):
        assert len(block) == 8
        return bytes(b ^ k for b in block[4:] + block[:4])

    decrypt_block = encrypt_block


def test_a_64_bit_model_runs_on_8_byte_blocks():
    m = _Swap64(64)
    data = bytes(range(24))
    out = m.encrypt(b"\x01" * 8, data)
    assert out[:8] == bytes(b ^ 1 for b in (4, 5, 6, 7, 0, 1, 2, 3))
    assert m.decrypt(b"\x01" * 8, out) == data


def test_a_partial_block_is_refused_with_the_block_size():
    with pytest.raises(CipherfabError, match="whole 8-byte blocks, got 12 bytes"):
        _Swap64(64).encrypt(bytes(8), bytes(12))
