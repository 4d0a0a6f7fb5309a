"""One entry point for every vector-file format: :func:`parse_file`."""

from __future__ import annotations

import os
import re

from .acvp import acvp_algorithm, acvp_cipher_named, parse_acvp
from .cryptopp_val import looks_like as _cryptopp_val, parse_cryptopp_val
from .nessie import nessie_cipher_named, parse_nessie
from .nist_example import example_cipher_named, looks_like as _nist_example, parse_nist_example
from .records import VectorRecord, fail, read_lines
from .rsp import CORE_MODES, parse_rsp, rsp_cipher_named
from .submission import parse_submission, submission_cipher_named

__all__ = ["parse_file", "detect_format", "cipher_named", "parse_rsp", "parse_submission",
           "parse_nessie"]

_NAMED = {"cavp": rsp_cipher_named, "submission": submission_cipher_named,
          "nessie": nessie_cipher_named, "cryptopp-val": lambda lines: None,
          "nist-example": example_cipher_named, "acvp": acvp_cipher_named}


def detect_format(path) -> str:
    """``"cavp"``, ``"submission"``, ``"nessie"``, ``"cryptopp-val"``, ``"nist-example"`` or
    ``"acvp"`` (an ACVP JSON vector set of any algorithm: :func:`parse_file` refuses one the
    core does not run, naming where it runs), from the name and the text."""
    lines = read_lines(path)
    if str(path).lower().endswith(".rsp"):
        return "cavp"
    if acvp_algorithm(path, lines):
        return "acvp"
    for line in lines:
        line = line.strip()
        if re.fullmatch(r"Set\s+\d+,\s*vector#\s*\d+:", line) or "Project NESSIE" in line \
                or line.startswith("Primitive Name:"):
            return "nessie"
        if line.startswith(("KEYSIZE=", "FILENAME:")) or "Intermediate Value" in line:
            return "submission"
        if line in ("[ENCRYPT]", "[DECRYPT]") or line.startswith("COUNT ="):
            return "cavp"
    if _cryptopp_val(lines):
        return "cryptopp-val"
    if _nist_example(lines):
        return "nist-example"
    from .gcm import gcm_format
    if gcm_format(path):
        raise fail(path, None, "a GCM vector file; GCM files run through the system: "
                               "sim --mode gcm")
    raise fail(path, None, "unrecognised vector-file format (expected NIST .rsp, AES-submission, "
                           "NESSIE, Crypto++ *val.dat, a NIST TDES example text or an ACVP JSON "
                           "vector set)")


def cipher_named(path, format: str | None = None) -> str | None:
    """The cipher a vector file's header names, as written (``"Rc6"``, ``"TWOFISH"``,
    ``"aes"``), or None; reads only the header, so a file for another cipher
    can be refused before it is parsed.  The same value as every record's
    ``cipher_named``."""
    path = os.fspath(path)
    fmt = format or detect_format(path)
    if fmt not in _NAMED:
        raise fail(path, None, f"unknown vector-file format {fmt!r}")
    return _NAMED[fmt](read_lines(path))


def parse_file(path, block_bytes: int = 16, byte_reversed: bool = False,
               format: str | None = None) -> list[VectorRecord]:
    """Parse any supported vector file.

    ``byte_reversed`` applies to AES-submission files only (Serpent's print
    values byte-reversed); CAVP and NESSIE files are always in byte order.  ACVP
    files are AES (16-byte blocks) and give ECB and CBC records here.
    """
    path = os.fspath(path)
    fmt = format or detect_format(path)
    if fmt == "cavp":
        return parse_rsp(path, block_bytes)
    if fmt == "submission":
        return parse_submission(path, block_bytes, byte_reversed)
    if fmt == "nessie":
        return parse_nessie(path, block_bytes)
    if fmt == "cryptopp-val":
        return parse_cryptopp_val(path, block_bytes)
    if fmt == "nist-example":
        return parse_nist_example(path, block_bytes)
    if fmt == "acvp":
        return parse_acvp(path, modes=CORE_MODES)
    raise fail(path, None, f"unknown vector-file format {fmt!r}")
