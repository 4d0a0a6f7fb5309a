"""XTS test-vector files (IEEE 1619, SP 800-38E), two formats, read into :class:`XtsRecord`:

- NIST CAVP ``XTSGenAES128.rsp`` / ``XTSGenAES256.rsp`` (``[ENCRYPT]`` / ``[DECRYPT]``
  sections of ``COUNT``, ``DataUnitLen`` in bits, ``Key`` (K1 then K2), the tweak as
  ``i`` (16 bytes in hex) or ``DataUnitSeqNumber`` (a number, the tweak its 16
  little-endian bytes), ``PT``, ``CT``); both ship in the ``cryptography-vectors`` package
  (``ciphers/AES/XTS/tweak-128hexstr/`` and ``tweak-dataunitseqno/``);
- Wycheproof's JSON (``aes_xts_test.json``: test groups of ``key``, ``iv`` (the tweak's
  first bytes, zero bytes after them), ``msg``, ``ct``), every record an encryption.

A data unit that is not whole bytes (CAVP's ``DataUnitLen = 130``) is read with its skip
reason: the system takes bytes.  A malformed file is one line naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import (Located, fail, hex_field as _hex, int_field as _int, read_lines,
                      wycheproof_records)


@dataclass
class XtsRecord(Located):
    key: bytes                # K1 then K2
    tweak: bytes              # 16 bytes
    plaintext: bytes
    ciphertext: bytes
    decrypt: bool
    file: str
    line: int
    label: str
    skip: str | None = None   # why the record is not run; None: it is
    unit_bytes: int | None = None   # a payload of data units of this many bytes (None: one)


def parse_xts(path) -> list[XtsRecord]:
    lines = read_lines(path)
    if "\n".join(lines).lstrip().startswith("{"):
        return _wycheproof(path, "\n".join(lines))
    records, fields, start, decrypt = [], {}, 0, None
    for n, raw in enumerate([*lines, ""], 1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line or line.upper().startswith("COUNT") or line.startswith("["):
            if fields:
                records.append(_record(path, start, fields, decrypt))
            fields, start = {}, n
            if line.startswith("["):
                section = line.strip("[] ").upper()
                if section not in ("ENCRYPT", "DECRYPT"):
                    raise fail(path, n, f"not an XTS section ([ENCRYPT] or [DECRYPT]): {line[:40]!r}")
                decrypt = section == "DECRYPT"
            if not line or line.startswith("["):
                continue
        if "=" not in line:
            raise fail(path, n, f"not an XTS field (NAME = value): {line[:40]!r}")
        name, _, value = line.partition("=")
        fields[name.strip().upper()] = (value.strip(), n)
    if not records:
        raise fail(path, None, "no XTS records (COUNT, DataUnitLen, Key, i or DataUnitSeqNumber, PT, CT)")
    return records


def _record(path, start: int, fields: dict, decrypt: bool | None) -> XtsRecord:
    if decrypt is None:
        raise fail(path, start, "an XTS record before any [ENCRYPT] or [DECRYPT] section")

    def get(name, label):
        if name not in fields:
            raise fail(path, start, f"the record has no {label}")
        return fields[name]

    bits = _int(path, get("DATAUNITLEN", "DataUnitLen"), "DataUnitLen")
    key = _hex(path, get("KEY", "Key"), "Key")
    if len(key) not in (32, 48, 64):
        raise fail(path, fields["KEY"][1], f"an XTS-AES key is two AES keys, 32, 48 or 64 bytes, not {len(key)}")
    if "I" in fields:
        tweak = _hex(path, fields["I"], "i")
        if len(tweak) != 16:
            raise fail(path, fields["I"][1], f"the tweak i is 16 bytes, not {len(tweak)}")
    else:
        number = _int(path, get("DATAUNITSEQNUMBER", "i or DataUnitSeqNumber"), "DataUnitSeqNumber")
        if number >= 1 << 128:
            raise fail(path, fields["DATAUNITSEQNUMBER"][1], "DataUnitSeqNumber is over 128 bits")
        tweak = number.to_bytes(16, "little")
    pt, ct = _hex(path, get("PT", "PT"), "PT"), _hex(path, get("CT", "CT"), "CT")
    for text, name in ((pt, "PT"), (ct, "CT")):
        if len(text) != -(-bits // 8):
            raise fail(path, fields[name][1], f"DataUnitLen = {bits} bits, but {name} holds {len(text)} bytes")
    skip = (f"data units of {bits} bits (not whole bytes; the system takes bytes)" if bits % 8
            else "data units under 16 bytes" if bits < 128 else None)
    count = fields.get("COUNT")
    return XtsRecord(key=key, tweak=tweak, plaintext=pt, ciphertext=ct, decrypt=decrypt,
                     file=str(path), line=start, skip=skip,
                     label=f"{'[DECRYPT]' if decrypt else '[ENCRYPT]'} COUNT = {count[0] if count else '?'}")


def _wycheproof(path, text: str) -> list[XtsRecord]:
    def record(t) -> XtsRecord:
        iv = bytes.fromhex(t["iv"])
        if len(iv) > 16:
            raise ValueError(f"tcId {t['tcId']}: an iv of {len(iv)} bytes")
        msg = bytes.fromhex(t["msg"])
        return XtsRecord(
            key=bytes.fromhex(t["key"]), tweak=iv.ljust(16, b"\0"), plaintext=msg,
            ciphertext=bytes.fromhex(t["ct"]), decrypt=False, file=str(path), line=0,
            label=f"tcId {t['tcId']}",
            skip=(None if t["result"] == "valid" else f"records with result {t['result']!r}")
            if len(msg) >= 16 else "messages under 16 bytes")
    return wycheproof_records(path, text, "XTS", record, "AES-XTS")
