"""CMAC test-vector files (SP 800-38B), three formats, read into :class:`CmacRecord`:

- NIST CAVP ``CMACGen*.rsp`` / ``CMACVer*.rsp`` (``Count``, ``Klen``, ``Mlen``, ``Tlen``,
  ``Key``, ``Msg``, ``Mac``, and for Ver ``Result = P`` or ``F``; an empty message is
  written ``Msg = 00`` with ``Mlen = 0``);
- the ``COUNT``/``KEY``/``MESSAGE``/``OUTPUT`` files of the ``cryptography-vectors`` package
  (``CMAC/nist-800-38b-*.txt``: SP 800-38B's examples; 3DES keys as ``KEY1..KEY3``);
- Wycheproof's JSON (``aes_cmac_test.json``: test groups of ``key``, ``msg``, ``tag``,
  ``result`` valid or invalid), every record a verification.

A malformed file is one line naming the file and line (:func:`~.records.fail`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import (Located, fail, hex_field as _hex, int_field as _int, read_lines,
                      wycheproof_records)


@dataclass
class CmacRecord(Located):
    key: bytes
    msg: bytes
    tag: bytes                # the expected tag (generate) or the one to check (verify)
    verify: bool              # a verification record: ``valid`` is the expected verdict
    valid: bool | None
    file: str
    line: int
    label: str


def parse_cmac(path) -> list[CmacRecord]:
    lines = read_lines(path)
    if "\n".join(lines).lstrip().startswith("{"):
        return _wycheproof(path, "\n".join(lines))
    records, fields, start = [], {}, 0
    for n, raw in enumerate([*lines, ""], 1):
        line = raw.strip()
        if line.startswith("#") or line.startswith("["):
            continue
        if not line or line.upper().startswith("COUNT"):
            if fields:
                records.append(_record(path, start, fields))
            fields, start = {}, n
            if not line:
                continue
        if "=" not in line:
            raise fail(path, n, f"not a CMAC field (NAME = value): {line[:40]!r}")
        name, _, value = line.partition("=")
        fields[name.strip().upper()] = (value.strip(), n)
    if not records:
        raise fail(path, None, "no CMAC records (COUNT/Count, Key, Msg/MESSAGE, Mac/OUTPUT)")
    return records


def _record(path, start: int, fields: dict) -> CmacRecord:
    def get(*names, required=True):
        for name in names:
            if name in fields:
                return fields[name]
        if required:
            raise fail(path, start, f"the record has no {' or '.join(names)}")
        return None

    if "KEY1" in fields:                       # 3DES: KEY1 KEY2 KEY3
        key = b"".join(_hex(path, fields[k], k) for k in ("KEY1", "KEY2", "KEY3") if k in fields)
    else:
        key = _hex(path, get("KEY"), "Key")
    msg_text, msg_line = get("MSG", "MESSAGE")
    mlen = get("MLEN", required=False)
    msg = b"" if not msg_text or (mlen and mlen[0] == "0") else _hex(path, (msg_text, msg_line), "Msg")
    if mlen and len(msg) != _int(path, mlen, "Mlen"):
        raise fail(path, mlen[1], f"Mlen = {mlen[0]}, but Msg holds {len(msg)} bytes")
    tag = _hex(path, get("MAC", "OUTPUT"), "Mac")
    tlen = get("TLEN", required=False)
    if tlen and len(tag) != _int(path, tlen, "Tlen"):
        raise fail(path, tlen[1], f"Tlen = {tlen[0]}, but Mac holds {len(tag)} bytes")
    result = get("RESULT", required=False)
    count = get("COUNT", required=False)
    return CmacRecord(key=key, msg=msg, tag=tag, verify=result is not None,
                      valid=None if result is None else result[0].upper().startswith("P"),
                      file=str(path), line=start, label=f"COUNT = {count[0]}" if count else "record")


def _wycheproof(path, text: str) -> list[CmacRecord]:
    return wycheproof_records(path, text, "CMAC", lambda t: CmacRecord(
        key=bytes.fromhex(t["key"]), msg=bytes.fromhex(t["msg"]), tag=bytes.fromhex(t["tag"]),
        verify=True, valid={"valid": True, "invalid": False}.get(t["result"]),
        file=str(path), line=0, label=f"tcId {t['tcId']}"))
