"""A software engine backed by ``cryptography``: check files without hardware."""

from __future__ import annotations

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from ..errors import CipherfabError
from .records import effective_key_bits, key_bits, key_size_text
from .runner import directions_of

try:   # cryptography >= 43 moved TripleDES to "decrepit"
    from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
except ImportError:  # pragma: no cover
    TripleDES = algorithms.TripleDES

__all__ = ["ReferenceEngine", "CIPHER_NAMES"]

#: Names (normalised, see normalise_cipher_name) a vector file may give for each cipher:
#: NIST CAVP headers ("aes_values", "# AESVS ...", "tdes_values", "# TDES ...", TMOVS),
#: AES-submission "Algorithm Name: Rijndael", NESSIE "Primitive Name: Rijndael" /
#: "Triple-DES" / "DES" (a 64-bit TDES engine is single DES).
CIPHER_NAMES = {
    "AES": frozenset({"aes", "rijndael", "aesvs"}),
    "TDES": frozenset({"tdes", "tripledes", "tdea", "3des", "des", "tmovs"}),
}
_CIPHERS = {"AES": (16, (128, 192, 256)), "TDES": (8, (64, 128, 192))}


class ReferenceEngine:
    """ECB blocks from ``cryptography`` for one key size and a set of directions.

    Key sizes are bits on the key port, 8 per key byte.  ``cipher="AES"``
    (key_bits 128/192/256) or ``"TDES"`` (key_bits 64, 128, 192, parity bits
    included, 56/112/168 effective): 64 = single DES (EDE with K1 = K2 = K3),
    128 = 2-key EDE (K1 K2 K1), 192 = 3-key EDE (K1 K2 K3).
    ``cipher_names`` are the names a vector file may give (see :data:`CIPHER_NAMES`).
    """

    def __init__(self, key_bits: int = 128, directions="both", cipher: str = "AES"):
        cipher = cipher.upper()
        if cipher not in _CIPHERS:
            raise CipherfabError(f"reference engine: unknown cipher {cipher!r} (AES or TDES)")
        self.block_bytes, sizes = _CIPHERS[cipher]
        if key_bits not in sizes:
            eff = {effective_key_bits(b, self.block_bytes): b for b in sizes}
            takes = f"{'/'.join(map(str, sizes))}-bit keys"
            if list(eff) != list(sizes):
                takes += (f" (bits on the key port, parity bits included; "
                          f"{'/'.join(map(str, eff))} effective)")
            hint = f"; for {key_bits} effective bits give {eff[key_bits]}" if key_bits in eff \
                else ""
            raise CipherfabError(f"reference engine: {cipher} takes {takes}, not {key_bits}{hint}")
        self.cipher, self.key_bits = cipher, key_bits
        self.cipher_names = CIPHER_NAMES[cipher]
        self.directions = directions_of(directions)
        self.calls = 0                       # engine.run calls so far (for batching tests)
        self._ctx: dict = {}

    def _context(self, key: bytes, decrypt: bool):
        ctx = self._ctx.get((key, decrypt))
        if ctx is None:
            if key_bits(key) != self.key_bits:
                bb = self.block_bytes
                raise CipherfabError(f"reference engine takes "
                                     f"{key_size_text(self.key_bits, bb, 'keys')}, "
                                     f"got a {key_size_text(key_bits(key), bb)}")
            if self.cipher == "AES":
                algo = algorithms.AES(key)
            else:   # K1 (=K2=K3) and K1K2 (K3=K1) as the 24-byte key cryptography prefers
                algo = TripleDES({8: key * 3, 16: key + key[:8], 24: key}[len(key)])
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
