"""The DES/3DES reference: OpenSSL through ``cryptography`` (TripleDES, ECB)."""

from __future__ import annotations

from cryptography.hazmat.primitives.ciphers import Cipher, modes

try:  # cryptography >= 43 keeps TripleDES under "decrepit"
    from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
except ImportError:  # pragma: no cover
    from cryptography.hazmat.primitives.ciphers.algorithms import TripleDES


class Model:
    """ECB over whole 8-byte blocks; 8-byte keys are single DES, 16-byte 2-key EDE."""

    block_bits = 64

    def __init__(self, key_bits: int):
        self.key_bits = key_bits

    @staticmethod
    def _key24(key: bytes) -> bytes:
        return {8: key * 3, 16: key + key[:8], 24: key}[len(key)]

    def _ctx(self, key: bytes, decrypt: bool):
        c = Cipher(TripleDES(self._key24(key)), modes.ECB())
        return c.decryptor() if decrypt else c.encryptor()

    def encrypt(self, key: bytes, data: bytes) -> bytes:
        return self._ctx(key, False).update(data)

    def decrypt(self, key: bytes, data: bytes) -> bytes:
        return self._ctx(key, True).update(data)
