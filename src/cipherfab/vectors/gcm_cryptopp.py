"""Crypto++'s GCM test vectors (``TestVectors/gcm.txt``): ``Name: value`` lines, a record
ends at each ``Test:`` line.

Crypto++'s rules (``datatest.cpp``): a field keeps its value from record to record until it
is set again (``Header:`` with nothing after it sets it empty); a blank line forgets every
field; a value ending in ``\\`` continues on the next line.  A data value is tokens: hex
(``0x`` optional, any case, spaces between pieces), ``"text"`` (its ASCII bytes), and
``rN`` (the next token N times).  Fields: ``Key``, ``IV``, ``Header`` (the AAD),
``Plaintext``, ``Ciphertext``, ``MAC`` (the tag, 4 to 16 bytes); ``AlgorithmType``,
``Name`` (must be ``AES/GCM``), ``Source`` and ``Comment`` describe.  ``Test: Encrypt``
checks ciphertext and tag, ``Test: Verify`` a tag that must be accepted and ``Test:
NotVerify`` one that must be refused.  Anything else is refused in one line naming the
file and line.
"""

from __future__ import annotations

import re

from .gcm_record import GcmRecord
from .records import fail, read_lines

_DATA = ("Key", "IV", "Header", "Plaintext", "Ciphertext", "MAC")
_TEXT = ("AlgorithmType", "Name", "Source", "Comment")
_TESTS = ("Encrypt", "Verify", "NotVerify")
_TOKEN = re.compile(r'"[^"]*"|\S+')
_HEX = re.compile(r"[0-9A-Fa-f]*")


def looks_like(lines: list[str]) -> bool:
    """A Crypto++ test file of an authenticated cipher, or one naming AES/GCM."""
    return any(re.fullmatch(r"Name:\s*AES/GCM|AlgorithmType:\s*AuthenticatedSymmetricCipher",
                            ln.strip()) for ln in lines)


def parse_cryptopp_gcm(path) -> list:
    records, fields, start = [], {}, None
    for n, name, value in _fields(path):
        if name is None:                          # a blank line: Crypto++ forgets every field
            fields, start = {}, None
            continue
        start = start or n
        if name in _TEXT:
            if name == "Name" and value != "AES/GCM":
                raise fail(path, n, f"Name: {value[:40]} is not AES/GCM")
            continue
        if name in _DATA:
            fields[name] = (_data(value, path, n, name), n)
            continue
        if name != "Test":
            raise fail(path, n, f"unknown field {name!r} (a GCM test has Key, IV, Header, "
                                "Plaintext, Ciphertext, MAC, Test)")
        if value not in _TESTS:
            raise fail(path, n, f"Test: {value[:40]} is not one of {', '.join(_TESTS)}")
        for need in ("Key", "IV", "MAC"):
            if need not in fields:
                raise fail(path, n, f"test without {need}")
        get = {f: fields.get(f, (b"", n))[0] for f in _DATA}
        _check_sizes(get, fields, path, n, value)
        label = f"test {len(records) + 1}, {value}"
        records.append(GcmRecord(get["Key"], get["IV"], get["Header"],
                                 None if value == "NotVerify" else get["Plaintext"],
                                 get["Ciphertext"], get["MAC"], str(path), start,
                                 len(records) + 1, encrypt=value == "Encrypt", label=label))
        start = None
    if not records:
        raise fail(path, None, "no GCM tests (Key, IV, MAC ... then Test: Encrypt)")
    return records


def _check_sizes(get, fields, path, n, test):
    if len(get["Key"]) not in (16, 24, 32):
        raise fail(path, fields["Key"][1], f"Key is {_bytes(len(get['Key']))}; AES keys are 16, 24 or 32")
    if not get["IV"]:
        raise fail(path, fields["IV"][1], "IV is empty; GCM needs at least one byte")
    if len(get["MAC"]) not in (4, 8, 12, 13, 14, 15, 16):
        raise fail(path, fields["MAC"][1], f"MAC is {_bytes(len(get['MAC']))}; SP 800-38D tags are "
                                           "4, 8 or 12 to 16 bytes")
    if test != "NotVerify" and len(get["Plaintext"]) != len(get["Ciphertext"]):
        raise fail(path, n, f"Plaintext has {len(get['Plaintext'])} bytes, Ciphertext "
                            f"{len(get['Ciphertext'])}")


def _bytes(n: int) -> str:
    return f"{n} byte{'' if n == 1 else 's'}"


def _fields(path):
    """(line, name, value) for each field, its continuation lines joined; (line, None, None)
    for a blank line."""
    lines = read_lines(path)
    n = 0
    while n < len(lines):
        line, first = lines[n].strip(), n + 1
        n += 1
        if not line:
            yield first, None, None
            continue
        if line.startswith("#"):
            continue
        while line.endswith("\\"):
            if n == len(lines):
                raise fail(path, first, "a value continued (\\) past the end of the file")
            line, n = line[:-1].rstrip() + " " + lines[n].strip(), n + 1
        name, colon, value = line.partition(":")
        if not colon or not re.fullmatch(r"[A-Za-z]+", name):
            raise fail(path, first, f"not a 'Name: value' line: {line[:40]!r}")
        yield first, name, value.strip()


def _data(value: str, path, n: int, name: str) -> bytes:
    out, repeat = bytearray(), 1
    for tok in _TOKEN.findall(value):
        if tok.startswith('"'):
            piece = tok[1:-1].encode("latin-1")
        elif re.fullmatch(r"r\d+", tok):
            repeat = int(tok[1:])
            continue
        else:
            digits = tok[2:] if tok[:2].lower() == "0x" else tok
            if not _HEX.fullmatch(digits):
                raise fail(path, n, f"{name} is not hex: {tok[:40]!r}")
            if len(digits) % 2:
                raise fail(path, n, f"{name} has an odd number of hex digits in {tok[:40]!r}")
            piece = bytes.fromhex(digits)
        out += piece * repeat
        repeat = 1
    if repeat != 1:
        raise fail(path, n, f"{name} ends with a repeat count and nothing to repeat")
    return bytes(out)
