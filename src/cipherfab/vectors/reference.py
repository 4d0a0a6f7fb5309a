"""A software engine: check vector files against a cipher's registered reference model.

The model is the one the cipher's registry entry names (``cryptography`` for
AES and DES/TDES), the same one random differential runs of hardware use.
"""

from __future__ import annotations

from ..errors import CipherfabError
from ..registry import ciphers, get_cipher
from .records import key_bits, key_size_text, normalise_cipher_name
from .runner import directions_of

__all__ = ["ReferenceEngine", "cipher_names"]


def cipher_names(cipher) -> frozenset[str]:
    """Names (normalised) a vector file may give for a registered cipher: its name and aliases
    (NIST CAVP "aes_values"/"# AESVS", "# TDES"/TMOVS, submissions' "Rijndael", NESSIE's
    "Triple-DES"/"DES"; a 64-bit TDES engine is single DES)."""
    return frozenset(normalise_cipher_name(a) for a in (cipher.name, *cipher.aliases))


def _find(name: str):
    """A registered cipher by name or alias (``"AES"``, ``"TDES"``, ``"rijndael"``)."""
    wanted = normalise_cipher_name(name)
    for c in ciphers().values():
        if wanted in cipher_names(c):
            return c
    return get_cipher(name)  # the one-line "unknown cipher" error


class ReferenceEngine:
    """ECB blocks from a cipher's reference model for one key size and a set of directions.

    Key sizes are bits on the key port, 8 per key byte (TDES: 64 = single DES,
    128 = 2-key EDE, 192 = 3-key EDE; 56/112/168 effective).  ``cipher_names``
    are the names a vector file may give for the cipher.
    """

    def __init__(self, key_bits: int = 128, directions="both", cipher: str = "AES"):
        entry = _find(cipher)
        self.block_bytes, sizes = entry.block_bits // 8, entry.key_bits
        self.cipher = entry.name.upper()
        if key_bits not in sizes:
            eff = {entry.effective_key_bits(b): b for b in sizes}
            takes = f"{'/'.join(map(str, sizes))}-bit keys"
            if list(eff) != list(sizes):
                takes += (f" (bits on the key port, parity bits included; "
                          f"{'/'.join(map(str, eff))} effective)")
            hint = f"; for {key_bits} effective bits give {eff[key_bits]}" if key_bits in eff \
                else ""
            raise CipherfabError(f"reference engine: {self.cipher} takes {takes}, not {key_bits}{hint}")
        self.key_bits = key_bits
        self.model = entry.reference_model(key_bits)
        self.cipher_names = cipher_names(entry)
        self.directions = directions_of(directions)
        self.calls = 0                       # engine.run calls so far (for batching tests)

    def _check_key(self, key: bytes) -> None:
        if key_bits(key) != self.key_bits:
            bb = self.block_bytes
            raise CipherfabError(f"reference engine takes {key_size_text(self.key_bits, bb, 'keys')}, "
                                 f"got a {key_size_text(key_bits(key), bb)}")

    def run(self, jobs):
        self.calls += 1
        bb, out = self.block_bytes, []
        for key, decrypt, blocks in jobs:
            if ("decrypt" if decrypt else "encrypt") not in self.directions:
                raise CipherfabError(f"reference engine ({'/'.join(sorted(self.directions))} only) "
                                     f"was asked to {'decrypt' if decrypt else 'encrypt'}")
            self._check_key(key)
            data = (self.model.decrypt if decrypt else self.model.encrypt)(key, b"".join(blocks))
            out.append([data[i:i + bb] for i in range(0, len(data), bb)])
        return out
