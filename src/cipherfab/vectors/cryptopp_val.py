"""Crypto++'s ``*val.dat`` validation files (``rc6val.dat``, ``marsval.dat`` ...): records of
three hex strings, either the key on one line and ``plaintext ciphertext`` on the next
(``rc6val.dat``) or ``key plaintext ciphertext`` on one line (``twofishv.dat``,
``marsval.dat``), blank lines between records.  The file names no cipher; every record is an ECB encryption
(the tools also check the decryption).

Crypto++'s ``3desval.dat`` is three records that its validation suite (``validat1.cpp``)
reads as DES-EDE2, DES-EDE3 and DES-XEX3 in that order; the third is DESX (whitening
keys around single DES), not Triple-DES, and is skipped with that reason."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from .records import VectorRecord, fail, read_lines

_HEX = re.compile(r"[0-9A-Fa-f]+")


def looks_like(lines: list[str]) -> bool:
    """True when every non-blank line is hex strings and they come in key / pt ct pairs."""
    body = [ln.split() for ln in lines if ln.strip()]
    if not body or not all(all(_HEX.fullmatch(t) for t in toks) for toks in body):
        return False
    if all(len(toks) == 3 for toks in body):
        return True
    return len(body) % 2 == 0 and all(len(toks) == (1 if i % 2 == 0 else 2)
                                      for i, toks in enumerate(body))


def parse_cryptopp_val(path, block_bytes: int = 16) -> list[VectorRecord]:
    lines = read_lines(path)
    records, pending = [], None
    for n, line in enumerate(lines, 1):
        toks = line.split()
        if not toks:
            continue
        if not all(_HEX.fullmatch(t) and len(t) % 2 == 0 for t in toks):
            raise fail(path, n, f"not a hex string: {line.strip()!r}")
        if pending is None and len(toks) == 3:              # key plaintext ciphertext
            pending, toks = (n, bytes.fromhex(toks[0])), toks[1:]
        elif pending is None:
            if len(toks) != 1:
                raise fail(path, n, "expected a key line (one hex string) or 'key plaintext "
                                    "ciphertext'")
            pending = (n, bytes.fromhex(toks[0]))
            continue
        elif len(toks) != 2:
            raise fail(path, n, "expected 'plaintext ciphertext' after the key line")
        p, c = (bytes.fromhex(t) for t in toks)
        if len(p) != block_bytes or len(c) != block_bytes:
            raise fail(path, n, f"blocks must be {block_bytes} bytes")
        first, key = pending
        records.append(VectorRecord("kat", "ECB", False, key, None, [p], [c], str(path), first,
                                    len(records), "", format="cryptopp-val"))
        pending = None
    if pending is not None:
        raise fail(path, pending[0], "key line without 'plaintext ciphertext' after it")
    if not records:
        raise fail(path, None, "no records")
    if Path(path).name.lower() == "3desval.dat" and block_bytes == 8 and len(records) == 3:
        records[2] = dataclasses.replace(
            records[2], skip="DES-XEX3 (DESX) vector, not Triple-DES (Crypto++'s 3desval.dat: "
                              "DES-EDE2, DES-EDE3, DES-XEX3)")
    return records
