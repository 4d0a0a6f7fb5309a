"""One GCM test vector, whatever file it came from (:mod:`.gcm` and the parsers beside it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GcmRecord:
    key: bytes
    iv: bytes
    aad: bytes
    plaintext: bytes | None        # None: the record says FAIL (its tag must be rejected)
    ciphertext: bytes
    tag: bytes
    file: str
    line: int
    count: int
    encrypt: bool = True           # check the ciphertext and tag (else only the decryption)
    label: str = ""                # how the file names the record ("Count = n" if empty)
    skip: str | None = None        # why the record is not run (an ACVP internal-IV test); None: run

    @property
    def where(self) -> str:
        return f"{self.file} line {self.line} ({self.label or f'Count = {self.count}'})"
