"""Test-vector harness: parsers for NIST CAVP, AES-submission and NESSIE files,
and a runner that checks them against any block-cipher *engine*.

    from cipherfab.vectors import run_files, format_report, ReferenceEngine
    print(format_report(run_files(["ECBVarTxt256.rsp"], ReferenceEngine(256, "both"))))
"""

from .parsers import (cipher_named, detect_format, parse_file, parse_nessie, parse_rsp,
                      parse_submission)
from .records import (VectorRecord, effective_key_bits, key_bits, key_size_text,
                      normalise_cipher_name)
from .reference import ReferenceEngine, cipher_names
from .runner import (Engine, FileReport, check_cipher, directions_of, exit_code, format_report,
                     run_files, run_records)

__all__ = [
    "VectorRecord", "parse_file", "detect_format", "parse_rsp", "parse_submission", "parse_nessie",
    "cipher_named", "normalise_cipher_name", "key_bits", "effective_key_bits", "key_size_text",
    "Engine", "FileReport", "run_records", "run_files", "format_report", "exit_code", "directions_of",
    "check_cipher", "ReferenceEngine", "cipher_names",
]
