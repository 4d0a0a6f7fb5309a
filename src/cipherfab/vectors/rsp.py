"""NIST CAVP ``.rsp`` files (AESAVS KAT/MMT/MCT, TDES KAT/MMT; OFB and CFB files for the
system's modes, ``sim --mode ofb|cfb``, when the caller asks for them).

Layout: ``#`` comment header, ``[ENCRYPT]``/``[DECRYPT]`` sections, records
that start with ``COUNT = n`` followed by ``KEY``, ``IV``, ``PLAINTEXT``,
``CIPHERTEXT``.  TDES files give the key as ``KEYs`` (one DES key, used as
K1=K2=K3, kept as 8 bytes) or ``KEY1``/``KEY2``/``KEY3`` (concatenated).

The cipher named in the header (:func:`rsp_cipher_named`): NIST's own files say
``Config info for aes_values`` / ``Config Info for : "tdes_values"`` (older ones
``"ECBVarTxt128" information for "aes_values"``); that prefix is taken first.
Otherwise a description line starting with the test-suite name (``# AESVS MCT
test data for CBC``, ``# TDES Multi block Message Test``, ``# TMOVS ...``).  A
vendor's config name (``Config Info for : Certicom FIPS 810``) is not a cipher.
"""

from __future__ import annotations

import os
import re

from .records import (VectorRecord, check_key, fail, header_name, parse_hex, read_lines,
                      split_blocks)

__all__ = ["parse_rsp", "rsp_cipher_named"]

_FIELDS = ("KEY", "KEYS", "KEY1", "KEY2", "KEY3", "IV", "PLAINTEXT", "CIPHERTEXT")
_LINE = re.compile(r"([A-Za-z0-9]+)\s*=\s*(.*)")
_MODES = r"(ECB|CBC|CFB\d*|OFB|CTR|GCM|CCM|XTS|KW)"
_NAME_MODE = re.compile(r"T?" + _MODES)            # ECBGFSbox128.rsp, TCBCvarkey.rsp, gcm...
_HEADER_MODE = re.compile(r"\b" + _MODES + r"\b")  # "# AESVS GFSbox test data for ECB"
#: TDES's interleaved and pipelined modes (TMOVS: three IVs): TCBCIMMT1.rsp, TOFBIinvperm.rsp,
#: TCFBP64MMT1.rsp, "... Test for OFBI"; their own modes, not CBC, OFB or CFB (the capital I or
#: P after the mode in NIST's names; TOFBinvperm.rsp is OFB)
_TMOVS_NAME = re.compile(r"T(CBCI|OFBI|CFBP\d*)")
_TMOVS_HEADER = re.compile(r"\b(CBCI|OFBI|CFBP\d*)\b")
#: the modes a core runs vector files in itself (the others run through the system)
CORE_MODES = ("ECB", "CBC")
_VALUES = re.compile(r"\b([A-Za-z0-9]+)_values\b")   # Config info for aes_values
_SUITE = re.compile(r"#\s*(AESVS|AES|TMOVS|TDES|TDEA|3DES|DES|SKIPJACK)\b")


def rsp_cipher_named(lines) -> str | None:
    """The cipher the leading ``#`` comments name, as written (``aes``, ``tdes``, ``AESVS``)."""
    header = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            break
        header.append(line)
    for line in header:
        if m := _VALUES.search(line):
            return header_name(m.group(1))
    for line in header:
        if m := _SUITE.match(line):
            return m.group(1)
    return None


def _detect(path, lines, modes=CORE_MODES) -> tuple[str, str | None]:
    """(kind, mode) from the file name, else the ``#`` header comments; a mode not in
    ``modes`` is refused in one line."""
    name = os.path.basename(str(path)).upper()
    header = " ".join(l for l in lines if l.lstrip().startswith("#")).upper()
    kind = "kat"
    for text in (name, header):
        if "MCT" in text or "MONTE" in text:
            kind = "mct"
            break
        if "MMT" in text or "MULTI BLOCK MESSAGE" in text:
            kind = "mmt"
            break
    found = (_TMOVS_NAME.match(os.path.basename(str(path))) or _TMOVS_HEADER.search(header)
             or _NAME_MODE.match(name) or _HEADER_MODE.search(header))
    mode = found.group(1) if found else None
    if mode not in (None, *modes):
        if modes != CORE_MODES:                     # a system mode's file, of another mode
            raise fail(path, None, f"the file's mode is {mode}, not {' or '.join(modes)}")
        system = {"GCM": "gcm", "OFB": "ofb", "CFB128": "cfb", "CFB64": "cfb", "CFB8": "cfb8", "CFB1": "cfb1",
                  "XTS": "xts"}.get(mode)
        raise fail(path, None, f"{mode} mode is not supported (ECB and CBC only)"
                   + (f"; {mode} files run through the system: sim --mode {system}" if system else ""))
    return kind, mode


def parse_rsp(path, block_bytes: int = 16, modes=CORE_MODES) -> list[VectorRecord]:
    """All records of a CAVP ``.rsp`` file, in file order; ``modes``: the modes taken (a
    file of another is refused; the system's ``sim --mode ofb`` asks for ``("OFB",)``)."""
    lines = read_lines(path)
    kind, mode = _detect(path, lines, tuple(modes))
    if mode is None and tuple(modes) != CORE_MODES:
        raise fail(path, None, f"neither the name nor the header says the mode ({' or '.join(modes)})")
    if mode is None:   # no hint anywhere: an IV field means CBC
        mode = "CBC" if any(_LINE.fullmatch(l.strip()) and l.strip().upper().startswith("IV")
                            for l in lines) else "ECB"
    named = rsp_cipher_named(lines)
    records: list[VectorRecord] = []
    section: str | None = None
    rec: dict | None = None

    def finish():
        if rec is not None:
            records.append(_record(path, rec, section, kind, mode, block_bytes, named))

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            name = line.strip("[]").strip().upper()
            if not line.endswith("]") or name not in ("ENCRYPT", "DECRYPT"):
                raise fail(path, n, f"unknown section {line[:40]} "
                                    "(expected [ENCRYPT] or [DECRYPT])")
            finish()
            rec, section = None, f"[{name}]"
            continue
        m = _LINE.fullmatch(line)
        if not m:
            raise fail(path, n, f"unrecognised line {line[:40]!r}")
        field, value = m.group(1).upper(), m.group(2).strip()
        if field != "COUNT" and field not in _FIELDS:
            raise fail(path, n, f"unknown field {m.group(1)}")
        if section is None:
            raise fail(path, n, f"{m.group(1)} outside an [ENCRYPT]/[DECRYPT] section")
        if field == "COUNT":
            if not value.isdigit():
                raise fail(path, n, f"COUNT is not a number: {value[:20]!r}")
            finish()
            rec = {"line": n, "count": int(value), "fields": {}}
            continue
        if rec is None:
            raise fail(path, n, f"{m.group(1)} before the first COUNT of the section")
        if field in rec["fields"]:
            raise fail(path, n, f"{m.group(1)} given twice in COUNT = {rec['count']}")
        rec["fields"][field] = (value, n)
    finish()
    if not records:
        raise fail(path, None, "no test vectors (no COUNT = records)")
    return records


def _record(path, rec, section, kind, mode, block_bytes, named) -> VectorRecord:
    fields, line, count = rec["fields"], rec["line"], rec["count"]
    what = f"COUNT = {count}"

    def get(name, required=True):
        if name not in fields:
            if required:
                raise fail(path, line, f"{what} without {name}")
            return None
        value, n = fields[name]
        return parse_hex(value, path, n, name)

    names = [k for k in ("KEY", "KEYS", "KEY1") if k in fields]
    if len(names) > 1:
        raise fail(path, line, f"{what} has both {names[0]} and {names[1]}")
    if not names:
        raise fail(path, line, f"{what} without KEY")
    if names[0] == "KEY1":
        key = get("KEY1") + get("KEY2") + get("KEY3")
    elif fields.keys() & {"KEY2", "KEY3"}:
        raise fail(path, line, f"{what} has KEY2/KEY3 without KEY1")
    else:
        key = get(names[0])
    check_key(key, block_bytes, path, fields[names[0]][1])
    iv = get("IV", required=(mode != "ECB"))
    if mode == "ECB" and iv is not None:
        raise fail(path, fields["IV"][1], "IV in an ECB file")
    if iv is not None and len(iv) != block_bytes:
        raise fail(path, fields["IV"][1], f"IV is {len(iv)} bytes, not {block_bytes}")
    if mode in SEGMENT_MODES:
        return _segment_record(path, rec, section, kind, mode, key, iv, named, what)
    pt = split_blocks(get("PLAINTEXT"), block_bytes, path, fields["PLAINTEXT"][1], "PLAINTEXT")
    ct = split_blocks(get("CIPHERTEXT"), block_bytes, path, fields["CIPHERTEXT"][1], "CIPHERTEXT")
    if len(pt) != len(ct):
        raise fail(path, line, f"{what}: PLAINTEXT has {len(pt)} blocks, CIPHERTEXT {len(ct)}")
    if kind == "mct" and len(pt) != 1:
        raise fail(path, line, f"{what}: a Monte-Carlo record must be one block")
    return VectorRecord(kind=kind, mode=mode, decrypt=(section == "[DECRYPT]"), key=key, iv=iv,
                        plaintext=pt, ciphertext=ct, file=str(path), line=line, count=count,
                        section=section, format="cavp", cipher_named=named)


#: CFB with segments narrower than a block (AESAVS, TDESVS): their texts are bytes (CFB8) or
#: bit strings (CFB1, ``PLAINTEXT = 011``), whole messages, not blocks
SEGMENT_MODES = ("CFB8", "CFB1")
_BITS = re.compile(r"[01]+")


def _segment_record(path, rec, section, kind, mode, key, iv, named, what) -> VectorRecord:
    """A CFB8 or CFB1 record: ``plaintext`` and ``ciphertext`` one element each, the message
    (CFB1: its bits packed most significant first, ``bits`` of them)."""
    texts, bits = [], None
    for name in ("PLAINTEXT", "CIPHERTEXT"):
        if name not in rec["fields"]:
            raise fail(path, rec["line"], f"{what} without {name}")
        value, n = rec["fields"][name]
        if mode == "CFB1":
            if not _BITS.fullmatch(value):
                raise fail(path, n, f"{name} is not a string of bits (CFB1 gives its text bit by "
                                    f"bit): {value[:20]!r}")
            if bits not in (None, len(value)):
                raise fail(path, n, f"{what}: PLAINTEXT has {bits} bits, CIPHERTEXT {len(value)}")
            bits = len(value)
            texts.append((int(value, 2) << (-bits % 8)).to_bytes(-(-bits // 8), "big"))
        else:
            texts.append(parse_hex(value, path, n, name))
    if mode == "CFB8" and len(texts[0]) != len(texts[1]):
        raise fail(path, rec["line"], f"{what}: PLAINTEXT has {len(texts[0])} bytes, CIPHERTEXT "
                                      f"{len(texts[1])}")
    if kind == "mct" and (bits or 8 * len(texts[0])) != (1 if mode == "CFB1" else 8):
        raise fail(path, rec["line"], f"{what}: a {mode} Monte-Carlo record must be one segment")
    return VectorRecord(kind=kind, mode=mode, decrypt=(section == "[DECRYPT]"), key=key, iv=iv,
                        plaintext=[texts[0]], ciphertext=[texts[1]], file=str(path),
                        line=rec["line"], count=rec["count"], section=section, format="cavp",
                        cipher_named=named, bits=bits)
