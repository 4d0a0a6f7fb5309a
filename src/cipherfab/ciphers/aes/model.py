"""The AES reference for differential runs and vector checks: OpenSSL through ``cryptography``.

(:mod:`.reference` is the pure-Python FIPS-197 model the hardware is built and
unit-tested from; this one is the independent implementation the finished
cores are checked against.)
"""

from __future__ import annotations

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


class Model:
    """ECB over whole blocks with one key size."""

    block_bits = 128

    def __init__(self, key_bits: int):
        self.key_bits = key_bits

    def _ctx(self, key: bytes, decrypt: bool):
        c = Cipher(algorithms.AES(key), modes.ECB())
        return c.decryptor() if decrypt else c.encryptor()

    def encrypt(self, key: bytes, data: bytes) -> bytes:
        return self._ctx(key, False).update(data)

    def decrypt(self, key: bytes, data: bytes) -> bytes:
        return self._ctx(key, True).update(data)
