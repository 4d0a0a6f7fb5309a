"""What the pure-Python reference models of the AES finalists share: 32-bit word
arithmetic and the ECB wrapper every cipher's ``Model`` presents to the tools
(``encrypt(key, data)``/``decrypt(key, data)`` over whole blocks, the key schedule
of the last key kept)."""

from __future__ import annotations

from ..errors import CipherfabError

MASK = 0xFFFFFFFF


def rol(x: int, n: int) -> int:
    """32-bit rotation left by ``n`` (taken mod 32)."""
    n &= 31
    return ((x << n) | (x >> (32 - n))) & MASK


def ror(x: int, n: int) -> int:
    n &= 31
    return ((x >> n) | (x << (32 - n))) & MASK


def words(data: bytes) -> list[int]:
    """Little-endian 32-bit words of a byte string (byte 0 lowest)."""
    return [int.from_bytes(data[4 * k:4 * k + 4], "little") for k in range(len(data) // 4)]


def from_words(ws) -> bytes:
    """Inverse of :func:`words`."""
    return b"".join(w.to_bytes(4, "little") for w in ws)


class EcbModel:
    """ECB over whole blocks of ``block_bits``.  Subclasses set ``name`` (and ``block_bits``
    if not 128) and give
    ``key_schedule(key)``, ``encrypt_block(schedule, block)`` and
    ``decrypt_block(schedule, block)`` (as static methods)."""

    name = "?"
    block_bits = 128

    def __init__(self, key_bits: int):
        self.key_bits = key_bits
        self._keys: dict[bytes, object] = {}

    def _ecb(self, key: bytes, data: bytes, block_fn) -> bytes:
        bb = self.block_bits // 8
        if len(data) % bb:
            raise CipherfabError(f"{self.name} works on whole {bb}-byte blocks, got {len(data)} bytes")
        if key not in self._keys:
            self._keys = {key: self.key_schedule(key)}
        ks = self._keys[key]
        return b"".join(block_fn(ks, data[i:i + bb]) for i in range(0, len(data), bb))

    def encrypt(self, key: bytes, data: bytes) -> bytes:
        return self._ecb(key, data, self.encrypt_block)

    def decrypt(self, key: bytes, data: bytes) -> bytes:
        return self._ecb(key, data, self.decrypt_block)
