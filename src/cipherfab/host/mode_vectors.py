"""``cipherfab sim ... --mode ofb|cfb --vectors FILE``: NIST CAVP OFB and CFB files (AESAVS
KAT and MMT; CFB with whole-block segments, ``CFB128*`` for AES) through the accelerator
system around a generated core (plugged into ``sim`` by :mod:`.cli`, as ``--mode gcm``).

Each record is one message: its key loaded, the IV written, the plaintext (``[ENCRYPT]``)
or the ciphertext (``[DECRYPT]``) streamed through the system in the mode, the output
compared with the file's.  Records the system cannot run are skipped with their reason and
counted, never passed: another key size, and Monte-Carlo records (their inner loop feeds
each ciphertext back as a later plaintext, one block at a time; not run through the system
yet).
"""

from __future__ import annotations

from ..errors import CipherfabError


def _file_mode(mode: str, block_bits: int) -> str:
    """The mode a CAVP file of ``--mode`` names: ``OFB``, or CFB with whole-block segments."""
    return "OFB" if mode == "ofb" else f"CFB{block_bits}"


def refuse_core_run_options(args, params) -> None:
    """``sim --mode M`` runs a generated core's system: an external core, and the options of
    the core's own runs, are one line each."""
    if not hasattr(params, "cipher") or not hasattr(params, "top"):
        raise CipherfabError(f"--mode {args.mode} runs a generated core in the accelerator system, "
                             f"not an external core")
    for option, default in (("valid_prob", 1.0), ("ready_prob", 1.0), ("key_clock_period", 1.0),
                            ("blocks_per_key", 1000)):
        if getattr(args, option) != default:
            raise CipherfabError(f"--{option.replace('_', '-')} applies to the core's own runs, "
                                 f"not --mode {args.mode}")


def run_mode_vectors(args, params) -> int:
    """OFB or CFB vector files through the simulated system (every file parsed first)."""
    refuse_core_run_options(args, params)
    from ..generate import declaration
    from ..hw.modes import Mode
    from ..vectors import exit_code, format_report
    from ..vectors.records import FileReport
    from ..vectors.rsp import parse_rsp
    info = declaration(params)
    if "encrypt" not in info.directions:
        raise CipherfabError(f"{args.mode} runs on the encrypting core; {params.top} only decrypts")
    bb, name = info.block_bits // 8, _file_mode(args.mode, info.block_bits)
    reports, runs = [], []
    for path in args.vectors:                     # every file parsed, every skip decided, first
        rep, run = FileReport(file=str(path)), []
        records = parse_rsp(path, bb, modes=(name,))
        for r in records[:args.limit] if args.limit else records:
            if 8 * len(r.key) != info.key_bits:
                rep.skip(f"{8 * len(r.key)}-bit keys (the core takes {info.key_bits})")
            elif r.kind == "mct":
                rep.skip("Monte-Carlo records (ciphertext fed back as plaintext block by block: "
                         "not run through the system yet)")
            else:
                run.append(r)
        reports.append(rep)
        runs.append(run)
    if not any(runs):                             # nothing to run: refused before compiling
        return exit_code(reports)
    from .driver import Accelerator
    acc = Accelerator(params)
    for rep, run in zip(reports, runs):
        for r in run:
            mode = (Mode.OFB if name == "OFB" else Mode.CFB_DECRYPT if r.decrypt else Mode.CFB_ENCRYPT)
            src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
            got = acc.run(r.key, mode, b"".join(src), r.iv, seed=args.seed).out
            if got == b"".join(want):
                rep.passed += 1
            else:
                rep.failed += 1
                rep.first_failure = rep.first_failure or (
                    f"first failure: {r.where} ({r.label}): {got.hex()} != {b''.join(want).hex()}")
    print(f"{acc.params.top} in the accelerator system, {name}:")
    print(format_report(reports))
    return exit_code(reports)
