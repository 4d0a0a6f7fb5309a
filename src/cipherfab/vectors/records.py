"""The record type every parser returns, and the helpers they share.

A record is one test vector: a key, plaintext and ciphertext (as lists of
blocks, so multi-block MMT messages fit), an IV for CBC, where it came from
(file, line, COUNT, section) so a failure can name it exactly, and the cipher
the file names in its header, if it names one.

Key sizes are the bits of the key as given, 8 per byte (the bits on a core's
key port): DES-family keys are 64, 128 or 192 bits, parity bits included.
:func:`effective_key_bits` gives the 56/112/168 that matter, for messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import CipherfabError
from ..userfiles import read_bytes

__all__ = ["VectorRecord", "FORMATS", "read_lines", "parse_hex", "split_blocks", "wycheproof_records",
           "key_bits", "effective_key_bits", "key_size_text", "check_key", "fail",
           "normalise_cipher_name", "header_name"]

#: Source formats a record can come from (each has its own Monte-Carlo rules).
FORMATS = ("cavp", "submission", "nessie", "cryptopp-val", "nist-example", "acvp")


@dataclass
class VectorRecord:
    """One test vector, in normal byte order whatever the file printed."""

    kind: str                     # "kat" | "mmt" | "mct"
    mode: str                     # "ECB" | "CBC" (the system's: "OFB", "CFB128", "CFB64", "CFB8", "CFB1", ...)
    decrypt: bool                 # from a [DECRYPT] section / decryption set
    key: bytes
    iv: bytes | None
    plaintext: list[bytes]        # blocks
    ciphertext: list[bytes]       # blocks
    file: str
    line: int                     # line of the record's first line (COUNT =, I=, Set n, "tcId")
    count: int | None
    section: str                  # "[ENCRYPT]", "KEYSIZE=128", "Set 1", "tgId 1 encrypt", ...
    format: str = "cavp"          # one of FORMATS
    #: NESSIE "Iterated N times" values: N -> E^N(plaintext).
    iterated: dict[int, bytes] = field(default_factory=dict)
    #: The cipher the file's header names, as written ("Rc6", "TWOFISH", "aes", ...);
    #: None when the file names none.  Compare with :func:`normalise_cipher_name`.
    cipher_named: str | None = None
    #: Why the record is not checked (a vector of another cipher in a file of this one,
    #: known from the file's published layout; an ACVP test the system cannot run); None: checked.
    skip: str | None = None
    #: CFB1: the message's bits (``plaintext`` and ``ciphertext`` pack them most significant
    #: first); None: whole bytes
    bits: int | None = None

    @property
    def where(self) -> str:
        """``file line n`` for messages."""
        return f"{self.file} line {self.line}"

    @property
    def label(self) -> str:
        """``COUNT = 3, [ENCRYPT]``, ``I=3, KEYSIZE=128``, ``Set 1, vector# 3`` or (ACVP)
        ``tcId 3, tgId 1 encrypt``."""
        if self.format == "nessie":
            return f"{self.section}, vector# {self.count}"
        if self.format == "acvp":
            return f"tcId {self.count}, {self.section}"
        if self.count is None:
            return self.section
        return f"{'I=' if self.format == 'submission' else 'COUNT = '}{self.count}, {self.section}"


def fail(path, line: int | None, problem: str) -> CipherfabError:
    """The one-line error for a bad vector file: ``path line n: problem``."""
    where = f"{path} line {line}" if line else f"{path}"
    return CipherfabError(f"{where}: {problem}")


def read_lines(path) -> list[str]:
    """The file's lines without line ends (CRLF or LF); refuses special, oversized,
    unreadable, binary and empty files (:mod:`cipherfab.userfiles`)."""
    data = read_bytes(path, "vectors")
    if b"\0" in data:
        raise fail(path, None, "binary file, not a test-vector file")
    text = data.decode("latin-1")
    if not text.strip():
        raise fail(path, None, "empty file, no test vectors")
    return text.splitlines()


_HEX = re.compile(r"[0-9a-fA-F]*")


def field_bytes(fields: dict, name: str, path, line: int, missing: str, block_bytes: int,
                key_name: str) -> bytes:
    """A required ``name=hex`` field of a record (``fields``: name -> (value, line)); every
    field but the key must be exactly one block.  ``missing`` names the record in the error."""
    if name not in fields:
        raise fail(path, line, f"{missing} without {name}=")
    value, n = fields[name]
    data = parse_hex(value, path, n, name)
    if name != key_name and len(data) != block_bytes:
        raise fail(path, n, f"{name} is {len(data)} bytes, not one {block_bytes}-byte block")
    return data


def parse_hex(value: str, path, line: int, name: str) -> bytes:
    """Hex string -> bytes; refuses bad characters and odd lengths."""
    value = value.strip()
    if not value:
        raise fail(path, line, f"{name} has no value")
    if not _HEX.fullmatch(value):
        raise fail(path, line, f"{name} is not hex: {value[:40]!r}")
    if len(value) % 2:
        raise fail(path, line, f"{name} has an odd number of hex digits ({len(value)})")
    return bytes.fromhex(value)


def hex_field(path, field: tuple[str, int], name: str) -> bytes:
    """A ``(value, line)`` field of a ``NAME = value`` file as bytes (:func:`parse_hex`)."""
    value, line = field
    return parse_hex(value, path, line, name)


def int_field(path, field: tuple[str, int], name: str) -> int:
    """A ``(value, line)`` field as a non-negative number, or one line naming it."""
    value, line = field
    if not value.isdigit():
        raise fail(path, line, f"{name} is not a number: {value[:20]!r}")
    return int(value)


class Located:
    """A record that knows its ``file`` and ``line``: ``where`` for messages."""

    @property
    def where(self) -> str:
        return f"{self.file} line {self.line}"


def wycheproof_records(path, text: str, what: str, record, algorithm: str | None = None) -> list:
    """A Wycheproof JSON file's tests as records, ``record(test)`` each (it may raise
    ValueError for a test it cannot take); ``algorithm``: the file's must be it.  A file that
    is not such JSON, or has no tests, is one line naming ``what`` (CCM, CMAC, XTS)."""
    import json
    try:
        doc = json.loads(text)
        if algorithm is not None and doc.get("algorithm") != algorithm:
            raise ValueError(f"its algorithm is {doc.get('algorithm')!r}, not {algorithm!r}")
        records = [record(t) for group in doc["testGroups"] for t in group["tests"]]
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise fail(path, None, f"not a Wycheproof {what} file ({type(e).__name__}: {e})"[:160]) from None
    if not records:
        raise fail(path, None, f"no {what} records in its testGroups")
    return records


def split_blocks(data: bytes, block_bytes: int, path, line: int, name: str) -> list[bytes]:
    """Split into whole blocks; refuses a partial block."""
    if not data or len(data) % block_bytes:
        raise fail(path, line, f"{name} is {len(data)} bytes, not a whole number of "
                               f"{block_bytes}-byte blocks")
    return [data[i:i + block_bytes] for i in range(0, len(data), block_bytes)]


def normalise_cipher_name(text: str) -> str:
    """A cipher name for comparison: lower case, letters and digits only
    (``"Triple-DES"`` -> ``"tripledes"``, ``"TWOFISH"`` -> ``"twofish"``)."""
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def header_name(text: str | None) -> str | None:
    """A cipher name found in a header, stripped; None if it has no letters or digits."""
    if text is None:
        return None
    text = text.strip()
    return text if normalise_cipher_name(text) else None


def key_bits(key: bytes) -> int:
    """Key size: the bits of the key as given, 8 per byte (bits on the key port;
    DES-family keys count their parity bits: 64, 128, 192)."""
    return len(key) * 8


def effective_key_bits(bits: int, block_bytes: int) -> int:
    """The key bits that matter: DES family (8-byte blocks) 56/112/168 for 64/128/192
    port bits (one parity bit per byte); every other cipher, ``bits`` itself."""
    return bits // 8 * 7 if block_bytes == 8 else bits


def key_size_text(bits: int, block_bytes: int, noun: str = "key") -> str:
    """``"128-bit key"``, or ``"192-bit key (168 effective)"`` for the DES family."""
    eff = effective_key_bits(bits, block_bytes)
    return f"{bits}-bit {noun}" + ("" if eff == bits else f" ({eff} effective)")


def check_key(key: bytes, block_bytes: int, path, line: int) -> None:
    """Refuse key lengths no supported cipher takes."""
    allowed = (8, 16, 24) if block_bytes == 8 else (16, 24, 32)
    if len(key) not in allowed:
        raise fail(path, line, f"KEY is {len(key)} bytes; expected one of "
                               f"{', '.join(map(str, allowed))}")


@dataclass
class FileReport:
    """What one vector file gave: passed, failed and skipped records, the first failure."""

    file: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    first_failure: str | None = None
    skip_reasons: list[str] = field(default_factory=list)

    def skip(self, reason: str) -> None:
        """One record not run, for ``reason`` (each reason listed once)."""
        self.skipped += 1
        if reason not in self.skip_reasons:
            self.skip_reasons.append(reason)

    @property
    def summary(self) -> str:
        """``file: N passed, M failed[, K skipped (reasons)]``."""
        text = f"{self.file}: {self.passed} passed, {self.failed} failed"
        if self.skipped:
            text += f", {self.skipped} skipped ({'; '.join(self.skip_reasons)})"
        return text
