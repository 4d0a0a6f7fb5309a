"""CCM test-vector files (NIST SP 800-38C), two formats, read into :class:`CcmRecord`:

- NIST CAVP ``VADT*``, ``VNT*``, ``VPT*``, ``VTT*`` (generation: ``Count``, ``Adata``,
  ``Payload``, ``CT`` = ciphertext then tag) and ``DVPT*`` (decryption-verification:
  ``CT``, ``Result = Pass`` with its ``Payload``, or ``Fail``).  The lengths (``Alen``,
  ``Plen``, ``Nlen``, ``Tlen``) come from the header or the ``[...]`` section line; ``Key``
  and ``Nonce`` stay in force until the file sets them again; an empty AAD or payload is
  written ``00`` with its length 0.  They ship in the ``cryptography-vectors`` package
  (``ciphers/AES/CCM/``);
- Wycheproof's JSON (``aes_ccm_test.json``: ``key``, ``iv`` (the nonce), ``aad``, ``msg``,
  ``ct``, ``tag``, ``result`` valid or invalid).

A malformed file is one line naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .records import Located, fail, hex_field, read_lines, wycheproof_records


@dataclass
class CcmRecord(Located):
    key: bytes
    nonce: bytes
    aad: bytes
    payload: bytes | None     # None: a record whose tag must be refused (no payload given)
    ciphertext: bytes
    tag: bytes
    verify: bool              # a decryption-verification record: ``valid`` is the verdict
    valid: bool
    file: str
    line: int
    label: str
    skip: str | None = None   # why the record is not run (an ACVP test's); None: it is


_LENGTH = re.compile(r"(Alen|Plen|Nlen|Tlen)\s*=\s*(\d+)", re.I)


def parse_ccm(path) -> list[CcmRecord]:
    lines = read_lines(path)
    if "\n".join(lines).lstrip().startswith("{"):
        return _wycheproof(path, "\n".join(lines))
    lengths, sticky, fields, start, records = {}, {}, None, 0, []
    verify = "DVPT" in "\n".join(lines[:5]).upper() or "DVPT" in str(path).upper()
    for n, raw in enumerate([*lines, "[end]"], 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") or line.upper().startswith("COUNT"):
            if fields is not None:
                records.append(_record(path, start, lengths, sticky, fields, verify))
            fields, start = (None, n) if line.startswith("[") else ({}, n)
            if line.startswith("["):
                for name, value in _LENGTH.findall(line):
                    lengths[name.upper()] = int(value)
            if fields is None:
                continue
        if "=" not in line:
            raise fail(path, n, f"not a CCM field (NAME = value): {line[:40]!r}")
        name, _, value = (x.strip() for x in line.partition("="))
        name = name.upper()
        if name in ("ALEN", "PLEN", "NLEN", "TLEN") and fields is None:
            if not value.isdigit():
                raise fail(path, n, f"{name.capitalize()} is not a number: {value[:20]!r}")
            lengths[name] = int(value)
        elif name in ("KEY", "NONCE"):
            sticky[name] = (value, n)
        elif fields is None:
            raise fail(path, n, f"{name.capitalize()} outside a record (before its Count)")
        else:
            fields[name] = (value, n)
    if not records:
        raise fail(path, None, "no CCM records (Count, Key, Nonce, Adata, Payload, CT)")
    return records


def _record(path, start: int, lengths: dict, sticky: dict, fields: dict, verify: bool) -> CcmRecord:
    for name in ("ALEN", "PLEN", "NLEN", "TLEN"):
        if name not in lengths:
            raise fail(path, start, f"no {name.capitalize()} for this record (header or [...] line)")
    for name, where in (("KEY", sticky), ("NONCE", sticky), ("ADATA", fields), ("CT", fields)):
        if name not in where:
            raise fail(path, start, f"the record has no {name.capitalize()}")

    def hex_of(name, source, length=None):
        if length == 0:
            return b""
        data, line = hex_field(path, source[name], name.capitalize()), source[name][1]
        if length is not None and len(data) != length:
            raise fail(path, line, f"{name.capitalize()} holds {len(data)} bytes, not {length}")
        return data

    plen, tlen = lengths["PLEN"], lengths["TLEN"]
    key, nonce = hex_of("KEY", sticky), hex_of("NONCE", sticky, lengths["NLEN"])
    aad = hex_of("ADATA", fields, lengths["ALEN"])
    ct = hex_of("CT", fields, plen + tlen)
    result = fields.get("RESULT")
    if verify and result is None:
        raise fail(path, start, "a decryption-verification record without Result")
    valid = True if result is None else result[0].lower().startswith("pass")
    payload = hex_of("PAYLOAD", fields, plen) if "PAYLOAD" in fields else None
    if payload is None and valid:
        raise fail(path, start, "the record has no Payload")
    return CcmRecord(key=key, nonce=nonce, aad=aad, payload=payload, ciphertext=ct[:plen],
                     tag=ct[plen:], verify=result is not None, valid=valid, file=str(path),
                     line=start, label=f"Count = {fields['COUNT'][0]}" if "COUNT" in fields else "record")


def _wycheproof(path, text: str) -> list[CcmRecord]:
    def record(t) -> CcmRecord:
        valid = t["result"] == "valid"
        return CcmRecord(
            key=bytes.fromhex(t["key"]), nonce=bytes.fromhex(t["iv"]),
            aad=bytes.fromhex(t["aad"]), payload=bytes.fromhex(t["msg"]),
            ciphertext=bytes.fromhex(t["ct"]), tag=bytes.fromhex(t["tag"]),
            verify=not valid, valid=valid, file=str(path), line=0, label=f"tcId {t['tcId']}")
    return wycheproof_records(path, text, "CCM", record, "AES-CCM")
