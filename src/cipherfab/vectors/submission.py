"""AES-submission (1998) KAT and Monte-Carlo files: ``ecb_tbl``, ``ecb_vk``,
``ecb_vt``, ``ecb_e_m``, ``ecb_d_m``, ``cbc_e_m``, ``cbc_d_m``.

Layout: free-text header (and ``/* ... */`` comments), then ``KEYSIZE=n``
sections of records ``I=n`` with ``KEY=``, ``IV=``, ``PT=``, ``CT=``.  Fields
written before a section's first ``I=`` (e.g. ``PT=`` in ``ecb_vk``, ``KEY=``
in ``ecb_tbl``) apply to every record of that section.  Text after ``I=n`` on
the same line (``Round=0 Input value=0``) is a comment.

``byte_reversed=True`` reverses every value's bytes: Serpent's submission
files print values as little-endian numbers (see tests/vectors/SOURCES.md).

The header's ``Algorithm Name:`` line (``Rijndael``, ``TWOFISH``, ``Mars``,
``Serpent``) is the cipher the file names; some files have none.
"""

from __future__ import annotations

import os
import re

from .records import VectorRecord, check_key, fail, field_bytes, header_name, read_lines

__all__ = ["parse_submission", "submission_cipher_named"]

_FIELD = re.compile(r"(KEY|PT|CT|IV)=(.*)")
_I = re.compile(r"I=(\d+)\b.*")
_KEYSIZE = re.compile(r"KEYSIZE=(.*)")
_NAME = re.compile(r"Algorithm\s+Name\s*:(.*)", re.I)


def submission_cipher_named(lines) -> str | None:
    """The header's ``Algorithm Name:`` (before the first ``KEYSIZE=``), as written."""
    for line in lines:
        line = line.strip()
        if _KEYSIZE.search(line):
            break
        if m := _NAME.fullmatch(line):
            return header_name(m.group(1))
    return None


def _detect(path, header: str) -> tuple[str, str, bool]:
    """(kind, mode, decrypt) from the file name, else the header text."""
    name = os.path.basename(str(path)).lower()
    head = header.lower()
    mct = bool(re.search(r"_[ed]_m\b", name)) or "monte carlo" in head
    mode = "CBC" if name.startswith("cbc") or "cipher block chaining" in head else "ECB"
    decrypt = mct and (bool(re.search(r"_d_m\b", name)) or "decryption" in head)
    return ("mct" if mct else "kat"), mode, decrypt


def parse_submission(path, block_bytes: int = 16,
                     byte_reversed: bool = False) -> list[VectorRecord]:
    """All records of an AES-submission-format file, values in normal byte order."""
    lines = read_lines(path)
    if "intermediate value" in " ".join(lines[:40]).lower():
        raise fail(path, None, "intermediate-value file (round-by-round values), "
                               "not KAT/Monte-Carlo vectors; not supported")
    first = next((n for n, l in enumerate(lines) if _KEYSIZE.fullmatch(l.strip())), None)
    if first is None:
        raise fail(path, None, "no KEYSIZE= line (not an AES-submission vector file)")
    kind, mode, decrypt = _detect(path, "\n".join(lines[:first]))
    named = submission_cipher_named(lines)
    records: list[VectorRecord] = []
    keysize = section_line = None
    defaults: dict = {}
    rec: dict | None = None
    in_comment = False
    section_records = 0

    def finish():
        nonlocal section_records
        if rec is not None:
            records.append(_record(path, rec, defaults, keysize, kind, mode, decrypt,
                                   block_bytes, byte_reversed, named))
            section_records += 1

    def end_section():
        if keysize is not None and section_records == 0:
            raise fail(path, section_line, f"KEYSIZE={keysize} section has no I= records")

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if in_comment or line.startswith("/*"):
            in_comment = "*/" not in line
            continue
        if n <= first:
            if _FIELD.fullmatch(line) or _I.fullmatch(line):
                raise fail(path, n, f"{line.split('=')[0]}= before the first KEYSIZE= line")
            continue
        if not line or set(line) == {"="}:
            continue
        if m := _KEYSIZE.fullmatch(line):
            finish()
            end_section()
            if m.group(1) not in ("128", "192", "256"):
                raise fail(path, n, f"KEYSIZE={m.group(1)[:20]} (expected 128, 192 or 256)")
            keysize, section_line, defaults, rec, section_records = int(m.group(1)), n, {}, None, 0
        elif m := _I.fullmatch(line):
            finish()
            rec = {"line": n, "count": int(m.group(1)), "fields": {}}
        elif m := _FIELD.fullmatch(line):
            target = defaults if rec is None else rec["fields"]
            if m.group(1) in target:
                where = f"I={rec['count']}" if rec else f"KEYSIZE={keysize} header"
                raise fail(path, n, f"{m.group(1)}= given twice in {where}")
            target[m.group(1)] = (m.group(2).strip(), n)
        else:
            raise fail(path, n, f"unrecognised line {line[:40]!r}")
    finish()
    end_section()
    return records


def _record(path, rec, defaults, keysize, kind, mode, decrypt, block_bytes, byte_reversed, named):
    fields = {**defaults, **rec["fields"]}
    line, count = rec["line"], rec["count"]

    def get(name):
        data = field_bytes(fields, name, path, line, f"I={count}", block_bytes, "KEY")
        return data[::-1] if byte_reversed else data

    key = get("KEY")
    check_key(key, block_bytes, path, fields["KEY"][1])
    if len(key) * 8 != keysize:
        raise fail(path, fields["KEY"][1], f"{len(key) * 8}-bit KEY in a KEYSIZE={keysize} section")
    iv = get("IV") if mode == "CBC" else None
    if mode == "ECB" and "IV" in fields:
        raise fail(path, fields["IV"][1], "IV= in an ECB file")
    return VectorRecord(kind=kind, mode=mode, decrypt=decrypt, key=key, iv=iv,
                        plaintext=[get("PT")], ciphertext=[get("CT")], file=str(path),
                        line=line, count=count, section=f"KEYSIZE={keysize}", format="submission",
                        cipher_named=named)
