"""A software engine backed by ``cryptography``: check files without hardware."""

from __future__ import annotations

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from ..errors import CipherfabError
from .records import key_bits
from .runner import directions_of

try:   # cryptography >= 43 moved TripleDES to "decrepit"
    from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
except ImportError:  # pragma: no cover
    TripleDES = algorithms.TripleDES

__all__ = ["ReferenceEngine"]

_CIPHERS = {"AES": (16, (128, 192, 256)), "TDES": (8, (56, 112, 168))}


class ReferenceEngine:
    """ECB blocks from ``cryptography`` for one key size and a set of directions.

    ``cipher="AES"`` (key_bits 128/192/256) or ``"TDES"`` (key_bits 56, 112,
    168: one, two or three DES keys, parity bits not counted; 56 = single DES).
    """

    def __init__(self, key_bits: int = 128, directions="both", cipher: str = "AES"):
        cipher = cipher.upper()
        if cipher not in _CIPHERS:
            raise CipherfabError(f"reference engine: unknown cipher {cipher!r} (AES or TDES)")
        self.block_bytes, sizes = _CIPHERS[cipher]
        if key_bits not in sizes:
            takes = "/".join(map(str, sizes))
            raise CipherfabError(f"reference engine: {cipher} takes {takes}-bit keys, not {key_bits}")
        self.cipher, self.key_bits = cipher, key_bits
        self.directions = directions_of(directions)
        self.calls = 0                       # engine.run calls so far (for batching tests)
        self._ctx: dict = {}

    def _context(self, key: bytes, decrypt: bool):
        ctx = self._ctx.get((key, decrypt))
        if ctx is None:
            if key_bits(key, self.block_bytes) != self.key_bits:
                raise CipherfabError(f"reference engine takes {self.key_bits}-bit keys, "
                                     f"got {key_bits(key, self.block_bytes)}")
            if self.cipher == "AES":
                algo = algorithms.AES(key)
            else:   # K1 (=K2=K3) and K1K2 (K3=K1) as the 24-byte key cryptography prefers
                algo = TripleDES((key * 3)[:24] if len(key) == 8 else (key + key[:8])[:24])
            c = Cipher(algo, modes.ECB())
            ctx = c.decryptor() if decrypt else c.encryptor()
            if len(self._ctx) > 4096:
                self._ctx.clear()
            self._ctx[(key, decrypt)] = ctx
        return ctx

    def run(self, jobs):
        self.calls += 1
        bb, out = self.block_bytes, []
        for key, decrypt, blocks in jobs:
            if ("decrypt" if decrypt else "encrypt") not in self.directions:
                raise CipherfabError(f"reference engine ({'/'.join(sorted(self.directions))} only) "
                                     f"was asked to {'decrypt' if decrypt else 'encrypt'}")
            data = self._context(key, decrypt).update(b"".join(blocks))
            out.append([data[i:i + bb] for i in range(0, len(data), bb)])
        return out
