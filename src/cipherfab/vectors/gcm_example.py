"""NIST's "Examples with intermediate values" for GCM (``AES_GCM.txt``, text extracted from
the PDF): the McGrew/Viega test cases with every step printed.

Layout: ``GCM-AES128`` (192, 256) heads a key size; ``Example #n`` an example, followed by
``Taglen = ``, ``AADlen = ``, ``PTlen = `` (bits); ``Encrypt-Generate`` prints ``K is``,
``IV is``, ``A is``, ``P is`` ... ``C is``, ``Tag is``, each followed by lines of up to
8-hex-digit groups or ``<empty>``; ``Decrypt-Verify`` prints the counter blocks again,
``The Mac verifies`` and ``P is``.  The intermediate values (``H``, ``J0``, ``CB``, ``CT``,
``E``, ``S``, ``Cipher(K, J0)``) and the PDF's page-break rules are skipped.  One example
is one encrypt record; every length is checked against its header, and the plaintext the
decryption prints against the encryption's.
"""

from __future__ import annotations

import re

from .gcm_record import GcmRecord
from .records import fail, read_lines

_KEYSIZE = re.compile(r"GCM-AES(128|192|256)")
_EXAMPLE = re.compile(r"Example #(\d+)")
_LENGTH = re.compile(r"(Taglen|AADlen|PTlen) = (\d+)")
_FIELD = re.compile(r"(.+?) is")
_HEXLINE = re.compile(r"[0-9A-Fa-f]{1,8}( [0-9A-Fa-f]{1,8})*")
_SKIP = re.compile(r"-+|=+|\*+|#+|Block #\d+:|GCM_Ctr|Block Cipher Modes of Operation|"
                   r"GCM Mode for Authentication and Confidentiality")
_KEPT = {"K": "Key", "IV": "IV", "A": "AAD", "P": "PT", "C": "CT", "Tag": "Tag"}
_BITS = {"AAD": "AADlen", "PT": "PTlen", "CT": "PTlen", "Tag": "Taglen"}


def looks_like(lines: list[str]) -> bool:
    return any(_KEYSIZE.fullmatch(ln.strip()) or ln.strip() == "Encrypt-Generate" for ln in lines)


def parse_gcm_example(path) -> list:
    records, key_bits, ex = [], None, None

    def finish():
        if ex is None:
            return
        v, start = ex["values"], ex["line"]
        for need in ("Key", "IV", "AAD", "PT", "CT", "Tag"):
            if need not in v:
                raise fail(path, start, f"example #{ex['n']} without '{_name(need)} is'")
        for length in ("Taglen", "AADlen", "PTlen"):
            if length not in ex["lengths"]:
                raise fail(path, start, f"example #{ex['n']} without '{length} = '")
        if 8 * len(v["Key"]) != key_bits:
            raise fail(path, start, f"example #{ex['n']}: K has {8 * len(v['Key'])} bits under "
                                    f"GCM-AES{key_bits}")
        for f, length in _BITS.items():
            if 8 * len(v[f]) != ex["lengths"][length]:
                raise fail(path, start, f"example #{ex['n']}: {_name(f)} has {8 * len(v[f])} bits, "
                                        f"{length} = {ex['lengths'][length]}")
        if not ex["verifies"] or ex["decrypted"] is None:
            raise fail(path, start, f"example #{ex['n']}: no 'The Mac verifies' and 'P is' "
                                    "after Decrypt-Verify")
        if ex["decrypted"] != v["PT"]:
            raise fail(path, start, f"example #{ex['n']}: Decrypt-Verify's P is not "
                                    "Encrypt-Generate's")
        records.append(GcmRecord(v["Key"], v["IV"], v["AAD"], v["PT"], v["CT"], v["Tag"],
                                 str(path), start, ex["n"], encrypt=True,
                                 label=f"GCM-AES{key_bits} example #{ex['n']}"))

    lines, field, phase = read_lines(path), None, None
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or _SKIP.fullmatch(line):
            continue
        if m := _KEYSIZE.fullmatch(line):
            finish()
            key_bits, ex, field = int(m.group(1)), None, None
        elif m := _EXAMPLE.fullmatch(line):
            finish()
            if key_bits is None:
                raise fail(path, n, "an example before its GCM-AES128/192/256 heading")
            ex, field, phase = {"n": int(m.group(1)), "line": n, "lengths": {}, "values": {},
                                "verifies": False, "decrypted": None}, None, None
        elif ex is None:
            raise fail(path, n, f"{line[:40]!r} outside an example")
        elif m := _LENGTH.fullmatch(line):
            ex["lengths"][m.group(1)] = int(m.group(2))
        elif line in ("Encrypt-Generate", "Decrypt-Verify"):
            phase, field = line, None
        elif line == "The Mac verifies":
            ex["verifies"] = True
        elif m := _FIELD.fullmatch(line):
            field = _field(m.group(1), phase, ex, path, n)
        elif line == "<empty>" or _HEXLINE.fullmatch(line):
            if field is None:
                raise fail(path, n, "a value before any 'X is' line")
            digits = "" if line == "<empty>" else line.replace(" ", "")
            if len(digits) % 2:
                raise fail(path, n, f"an odd number of hex digits: {line[:40]!r}")
            if field != "skip":
                field[0][field[1]] += bytes.fromhex(digits)
        else:
            raise fail(path, n, f"unrecognised line {line[:40]!r}")
    finish()
    if not records:
        raise fail(path, None, "no GCM examples (GCM-AES128 ... Example #1 ...)")
    return records


def _field(name, phase, ex, path, n):
    """Where the values after ``name is`` go: (dict, key), or "skip"."""
    if phase is None:
        raise fail(path, n, f"'{name} is' before Encrypt-Generate")
    if phase == "Decrypt-Verify":
        if name != "P":
            return "skip"
        if ex["decrypted"] is not None:
            raise fail(path, n, "P given twice after Decrypt-Verify")
        ex["decrypted"] = b""
        return (ex, "decrypted")
    if name not in _KEPT:
        return "skip"
    if _KEPT[name] in ex["values"]:
        raise fail(path, n, f"{name} given twice in example #{ex['n']}")
    ex["values"][_KEPT[name]] = b""
    return (ex["values"], _KEPT[name])


def _name(field: str) -> str:
    return next(k for k, v in _KEPT.items() if v == field)
