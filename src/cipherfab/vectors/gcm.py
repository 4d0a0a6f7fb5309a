"""GCM vector files, and running them through anything that does GCM (the simulated system,
or the reference).  :func:`read_gcm` takes four formats: NIST CAVP files
(``gcmEncryptExtIV*.rsp``, ``gcmDecrypt*.rsp``, parsed here), Crypto++'s ``gcm.txt``
(:mod:`.gcm_cryptopp`), NIST's GCM example text ``AES_GCM.txt`` (:mod:`.gcm_example`) and
NIST's ACVP JSON vector sets (:mod:`.acvp`).

CAVP files:
Layout: ``#`` comments, then sections of ``[Keylen = 128]``, ``[IVlen = 96]``,
``[PTlen = 0]``, ``[AADlen = 0]``, ``[Taglen = 128]`` (bits), each followed by records
``Count``, ``Key``, ``IV``, ``PT``, ``AAD``, ``CT``, ``Tag``.  A decrypt file's record whose
tag must be rejected has a line ``FAIL`` in place of ``PT``.  Every field is checked against
its section's length; anything else is refused in one line naming the file and line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from ..errors import CipherfabError
from . import gcm_cryptopp, gcm_example
from .acvp import acvp_algorithm, parse_acvp
from .gcm_cryptopp import parse_cryptopp_gcm
from .gcm_example import parse_gcm_example
from .gcm_record import GcmRecord
from .records import FileReport, read_lines

_SECTION = re.compile(r"\[(Keylen|IVlen|PTlen|AADlen|Taglen)\s*=\s*(\d+)\]")
_FIELD = re.compile(r"(Count|Key|IV|PT|AAD|CT|Tag)\s*=\s*(.*)")
_LENGTH_OF = {"Key": "Keylen", "IV": "IVlen", "PT": "PTlen", "AAD": "AADlen", "CT": "PTlen",
              "Tag": "Taglen"}


def gcm_format(path) -> str | None:
    """``"cavp"``, ``"cryptopp"``, ``"nist-example"`` or ``"acvp"`` for a GCM vector file (any
    ACVP vector set: :func:`read_gcm` refuses one of another algorithm, naming where it runs),
    None for any other file (unreadable, empty and binary files are refused in one line)."""
    lines = read_lines(path)
    if acvp_algorithm(path, lines):
        return "acvp"
    for line in lines:
        s = line.strip()
        if s.startswith("["):
            return "cavp" if _SECTION.fullmatch(s) else None
    if gcm_cryptopp.looks_like(lines):
        return "cryptopp"
    return "nist-example" if gcm_example.looks_like(lines) else None


def is_gcm_file(path) -> bool:
    return gcm_format(path) is not None


def read_gcm(path) -> list[GcmRecord]:
    """Every record of a GCM vector file of any of the four formats."""
    fmt = gcm_format(path)
    if fmt is None:
        raise CipherfabError(f"{path}: not a GCM vector file (NIST CAVP GCM .rsp, Crypto++ "
                             f"gcm.txt or NIST's AES_GCM.txt example; or an ACVP-AES-GCM JSON "
                             f"vector set)")
    return {"cavp": parse_gcm, "cryptopp": parse_cryptopp_gcm, "nist-example": parse_gcm_example,
            "acvp": lambda p: parse_acvp(p, modes=("GCM",))}[fmt](path)


def parse_gcm(path) -> list[GcmRecord]:
    """Every record of a CAVP GCM file; a malformed one is refused in one line."""
    name, lines = str(path), read_lines(path)
    section: dict[str, int] = {}
    records, cur, start = [], None, 0

    def bad(n: int, why: str):
        raise CipherfabError(f"{name} line {n}: {why}")

    def close(n: int):
        if cur is None:
            return
        need = ["Key", "IV", "AAD", "CT", "Tag"] + ([] if cur.get("FAIL") else ["PT"])
        missing = [f for f in need if f not in cur]
        if missing:
            bad(start, f"GCM record Count = {cur['Count']} has no {missing[0]}")
        records.append(GcmRecord(cur["Key"], cur["IV"], cur["AAD"], None if cur.get("FAIL") else cur["PT"],
                                 cur["CT"], cur["Tag"], name, start, cur["Count"],
                                 encrypt="decrypt" not in Path(name).name.lower()))

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if m := _SECTION.fullmatch(line):
            close(n)
            cur = None
            section[m.group(1)] = int(m.group(2))
            continue
        if line == "FAIL":
            if cur is None:
                bad(n, "FAIL outside a record")
            cur["FAIL"] = True
            continue
        m = _FIELD.fullmatch(line)
        if not m:
            bad(n, f"not a GCM vector line: {line[:40]!r}")
        field_, value = m.group(1), m.group(2).strip()
        if field_ == "Count":
            close(n)
            if not value.isdigit():
                bad(n, f"Count {value!r} is not a number")
            missing = [s for s in ("Keylen", "IVlen", "PTlen", "AADlen", "Taglen") if s not in section]
            if missing:
                bad(n, f"a record before its [{missing[0]} = ...] section header")
            cur, start = {"Count": int(value)}, n
            continue
        if cur is None:
            bad(n, f"{field_} outside a record (no Count before it)")
        if field_ in cur:
            bad(n, f"{field_} given twice in record Count = {cur['Count']}")
        try:
            data = bytes.fromhex(value)
        except ValueError:
            bad(n, f"{field_} is not hex: {value[:40]!r}")
        bits = section[_LENGTH_OF[field_]]
        if 8 * len(data) != bits:
            bad(n, f"{field_} has {8 * len(data)} bits, its section says {_LENGTH_OF[field_]} = {bits}")
        cur[field_] = data
    close(len(lines))
    if not records:
        raise CipherfabError(f"{name}: no GCM records (Count, Key, IV, PT, AAD, CT, Tag)")
    return records


def run_gcm_files(paths, run: Callable, key_bits: int, limit: int | None = None) -> list[FileReport]:
    """Each file's records through ``run(key, decrypt, iv, aad, data, tag, tag_bytes)`` ->
    ``(text out, tag out or None, verdict or None)``.  An encrypt record passes when the
    ciphertext and tag match, then its decryption gives the plaintext back with the tag
    accepted, and with one tag bit flipped the tag is rejected; a decrypt record passes when
    the verdict is the file's (FAIL: rejected) and an accepted one gives the plaintext.
    Records of another key size, and records that carry a skip reason, are skipped and counted."""
    reports = []
    for path in paths:
        records = read_gcm(path)[:limit] if limit else read_gcm(path)
        rep = FileReport(file=str(path))
        for r in records:
            if 8 * len(r.key) != key_bits:
                rep.skip(f"{8 * len(r.key)}-bit keys (the core takes {key_bits})")
                continue
            if r.skip:
                rep.skip(r.skip)
                continue
            problem = _check(r, run)
            if problem:
                rep.failed += 1
                rep.first_failure = rep.first_failure or f"first failure: {r.where}: {problem}"
            else:
                rep.passed += 1
        reports.append(rep)
    return reports


def _check(r: GcmRecord, run: Callable) -> str | None:
    t = len(r.tag)
    flipped = bytes([r.tag[0] ^ 1]) + r.tag[1:]
    if r.plaintext is not None and r.encrypt:
        ct, tag, _ = run(r.key, False, r.iv, r.aad, r.plaintext, None, t)
        if ct != r.ciphertext:
            return f"ciphertext {ct.hex()} != {r.ciphertext.hex()}"
        if tag != r.tag:
            return f"tag {tag.hex()} != {r.tag.hex()}"
    pt, _, ok = run(r.key, True, r.iv, r.aad, r.ciphertext, r.tag, t)
    if r.plaintext is None:
        return "a tag the file marks FAIL was accepted" if ok else None
    if not ok:
        return "the right tag was rejected"
    if pt != r.plaintext:
        return f"plaintext {pt.hex()} != {r.plaintext.hex()}"
    _, _, ok = run(r.key, True, r.iv, r.aad, r.ciphertext, flipped, t)
    return "a tag with one bit flipped was accepted" if ok else None

