"""NIST "Examples with intermediate values" for TDES, as extracted from the PDFs
(``TDES_ECB.txt``): ECB examples only.

Layout: an example starts with ``ECB-TDES (Encryption)`` or ``ECB-TDES (Decryption)``;
``Key1 is``, ``Key2 is``, ``Key3 is``, ``Plaintext is`` and ``Ciphertext is`` are
each followed by lines of 8-hex-digit groups; ``Block #n`` / ``Blockin`` /
``Blockout`` lines (the per-block values, the same as the message's) and the
PDF's page-break rules (``-----``, ``=====``, ``*****``, ``#####``) are skipped.
An example is one record of several blocks.

Keys in SP 800-67's keying options: three different keys are a 192-bit key
K1 K2 K3; K3 = K1 (option 2) is the 128-bit key K1 K2; K1 = K2 = K3 is the
64-bit single-DES key, as the CAVP files' ``KEYs`` field is.
"""

from __future__ import annotations

import re

from .records import VectorRecord, fail, parse_hex, read_lines, split_blocks

_START = re.compile(r"(ECB|CBC|CFB\d*|OFB|CTR)-(TDES|AES\d*)\s*\((Encryption|Decryption)\)")
_FIELD = re.compile(r"(Key1|Key2|Key3|Plaintext|Ciphertext) is")
_SKIP = re.compile(r"(-+|=+|\*+|#+|Block #\d+|Blockin .*|Blockout .*)")
_HEXLINE = re.compile(r"[0-9A-Fa-f]{8}( [0-9A-Fa-f]{8})*")


def looks_like(lines: list[str]) -> bool:
    return any(_START.fullmatch(ln.strip()) for ln in lines)


def example_cipher_named(lines) -> str | None:
    """The cipher of the first example heading (``TDES``)."""
    return next((m.group(2) for ln in lines if (m := _START.fullmatch(ln.strip()))), None)


def parse_nist_example(path, block_bytes: int = 8) -> list[VectorRecord]:
    lines = read_lines(path)
    records, cur, field = [], None, None

    def finish():
        if cur is None:
            return
        start, decrypt, values = cur
        missing = [k for k in ("Key1", "Key2", "Key3", "Plaintext", "Ciphertext") if k not in values]
        if missing:
            raise fail(path, start, f"example without {missing[0]}")
        get = {k: (parse_hex("".join(v), path, n, k), n) for k, (v, n) in values.items()}
        k1, k2, k3 = (get[k][0] for k in ("Key1", "Key2", "Key3"))
        if not len(k1) == len(k2) == len(k3) == 8:
            raise fail(path, start, "TDES keys must be 8 bytes each")
        key = k1 if k1 == k2 == k3 else k1 + k2 if k3 == k1 else k1 + k2 + k3
        pt = split_blocks(get["Plaintext"][0], block_bytes, path, get["Plaintext"][1], "Plaintext")
        ct = split_blocks(get["Ciphertext"][0], block_bytes, path, get["Ciphertext"][1], "Ciphertext")
        if len(pt) != len(ct):
            raise fail(path, start, f"Plaintext has {len(pt)} blocks, Ciphertext {len(ct)}")
        what = f"example {len(records) + 1}, ECB-TDES ({'Decryption' if decrypt else 'Encryption'})"
        records.append(VectorRecord("kat", "ECB", decrypt, key, None, pt, ct, str(path), start,
                                    None, what, format="nist-example", cipher_named="TDES"))

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or _SKIP.fullmatch(line) or line in ("Block Cipher Modes of Operation",
                                                         "Electronic Codebook (ECB)"):
            continue
        if m := _START.fullmatch(line):
            if m.group(1) != "ECB" or m.group(2) != "TDES":
                raise fail(path, n, f"{m.group(1)}-{m.group(2)} examples are not supported "
                                    "(ECB-TDES only)")
            finish()
            cur, field = (n, m.group(3) == "Decryption", {}), None
            continue
        if m := _FIELD.fullmatch(line):
            if cur is None:
                raise fail(path, n, f"{m.group(1)} before the first example heading")
            field = m.group(1)
            if field in cur[2]:
                raise fail(path, n, f"{field} given twice in one example")
            cur[2][field] = ([], n)
            continue
        if _HEXLINE.fullmatch(line) and field is not None:
            cur[2][field][0].append(line.replace(" ", ""))
            continue
        raise fail(path, n, f"unrecognised line {line[:40]!r}")
    finish()
    if not records:
        raise fail(path, None, "no ECB-TDES examples")
    return records
