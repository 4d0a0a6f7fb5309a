"""NESSIE block-cipher test-vector files (``*.test-vectors``).

Sets 1-4 give key, plain, cipher, decrypted and the plaintext encrypted 100
and 1000 times ("Iterated N times"); sets 5-8 give key, cipher, plain,
encrypted (decryption tests).  Long values continue on the next line(s).
The header's ``Primitive Name:`` line (``Rc6``, ``Rijndael``, ``Triple-Des (3-Key)``, ...)
is the cipher the file names.
"""

from __future__ import annotations

import re

from .records import VectorRecord, check_key, fail, field_bytes, header_name, read_lines

__all__ = ["parse_nessie", "nessie_cipher_named"]

_SET = re.compile(r"Set\s+(\d+),\s*vector#\s*(\d+):")
_FIELD = re.compile(r"(key|plain|cipher|decrypted|encrypted|Iterated\s+(\d+)\s+times)=(.*)")
_HEX = re.compile(r"[0-9A-Fa-f]+")
_SIZE = re.compile(r"(Key|Block) size:\s*(\d+)\s*bits")
_SKIP = re.compile(r"=+|Test vectors -- set \d+")
_NAME = re.compile(r"Primitive\s+Name\s*:(.*)", re.I)
#: NESSIE names Triple-DES by its keying option: "Triple-Des (2-Key)" (K1 K2 K1, a 128-bit key)
#: and "Triple-Des (3-Key)" (K1 K2 K3, 192 bits); the header's "Key size:" holds each record to it
_TRIPLE = re.compile(r"Triple-?DES\s*\(\s*[23]\s*-\s*Key\s*\)", re.I)


def nessie_cipher_named(lines) -> str | None:
    """The header's ``Primitive Name:`` (before the first record), as written."""
    for line in lines:
        line = line.strip()
        if _SET.fullmatch(line):
            break
        if m := _NAME.fullmatch(line):
            return "Triple-DES" if _TRIPLE.fullmatch(m.group(1).strip()) else header_name(m.group(1))
    return None


def parse_nessie(path, block_bytes: int = 16) -> list[VectorRecord]:
    """All records of a NESSIE file, in file order."""
    lines = read_lines(path)
    named = nessie_cipher_named(lines)
    sizes: dict[str, tuple[int, int]] = {}
    records: list[VectorRecord] = []
    rec: dict | None = None
    last_field = None
    started = ended = False

    def finish():
        if rec is not None:
            records.append(_record(path, rec, sizes, block_bytes, named))

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            last_field = None
            continue
        if ended:
            raise fail(path, n, f"text after 'End of test vectors': {line[:40]!r}")
        m = _SET.fullmatch(line)
        if not started and not m:
            if s := _SIZE.fullmatch(line):
                sizes[s.group(1)] = (int(s.group(2)), n)
            continue
        started = True
        if m:
            finish()
            rec = {"line": n, "set": int(m.group(1)), "count": int(m.group(2)), "fields": {}}
            last_field = None
        elif line == "End of test vectors":
            finish()
            rec, ended = None, True
        elif f := _FIELD.fullmatch(line):
            if rec is None:
                raise fail(path, n, f"{f.group(1)}= outside a 'Set n, vector# m:' record")
            name = f"iterated{f.group(2)}" if f.group(2) else f.group(1)
            if name in rec["fields"]:
                raise fail(path, n, f"{f.group(1)}= given twice in vector# {rec['count']}")
            rec["fields"][name] = [f.group(3).strip(), n]
            last_field = name
        elif _HEX.fullmatch(line) and last_field:
            rec["fields"][last_field][0] += line          # continuation of a long value
        elif not _SKIP.fullmatch(line):
            raise fail(path, n, f"unrecognised line {line[:40]!r}")
    finish()
    if not records:
        raise fail(path, None, "no test vectors (no 'Set n, vector# m:' records)")
    return records


def _record(path, rec, sizes, block_bytes, named) -> VectorRecord:
    fields, line, s = rec["fields"], rec["line"], rec["set"]
    what = f"Set {s}, vector# {rec['count']}"
    if not 1 <= s <= 8:
        raise fail(path, line, f"{what}: unknown set (NESSIE sets are 1-8)")
    decrypt = s >= 5
    check_name = "encrypted" if decrypt else "decrypted"

    def get(name):
        return field_bytes(fields, name, path, line, what, block_bytes, "key")

    key, plain, cipher, check = get("key"), get("plain"), get("cipher"), get(check_name)
    check_key(key, block_bytes, path, fields["key"][1])
    if "Key" in sizes and len(key) * 8 != sizes["Key"][0]:
        raise fail(path, fields["key"][1], f"{len(key) * 8}-bit key, but the header says "
                                           f"Key size: {sizes['Key'][0]} bits")
    if "Block" in sizes and sizes["Block"][0] != block_bytes * 8:
        raise fail(path, sizes["Block"][1], f"Block size: {sizes['Block'][0]} bits, but the "
                                            f"cipher has {block_bytes * 8}-bit blocks")
    if check != (cipher if decrypt else plain):
        raise fail(path, fields[check_name][1], f"{what}: {check_name}= differs from "
                                                f"{'cipher' if decrypt else 'plain'}=")
    iterated = {int(k[8:]): get(k) for k in fields if k.startswith("iterated")}
    if decrypt and iterated:
        raise fail(path, line, f"{what}: 'Iterated' values in a decryption set")
    return VectorRecord(kind="kat", mode="ECB", decrypt=decrypt, key=key, iv=None,
                        plaintext=[plain], ciphertext=[cipher], file=str(path), line=line,
                        count=rec["count"], section=f"Set {s}", format="nessie",
                        iterated=iterated, cipher_named=named)
