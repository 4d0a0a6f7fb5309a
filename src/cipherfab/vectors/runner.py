"""Run vector files through an *engine* (a core, a simulator, or the reference).

An engine computes single-key ECB blocks, many jobs per call; everything
else (directions, CBC chaining, Monte-Carlo loops) happens here.  All
records of all files advance in lockstep, so each engine call carries one
job from every record still running.

Before anything runs, a file whose header names another cipher than the
engine's (``Primitive Name: Rc6`` against an AES engine) is refused, and so
is a record whose key size (bits as given, 8 per byte) the engine does not take.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Protocol

from ..errors import CipherfabError
from .checks import Chain, Mismatch, kat_check, mct_check, run_chains_by_blocks
from .parsers import cipher_named, parse_file
from .records import FileReport, VectorRecord, key_bits, key_size_text, normalise_cipher_name

__all__ = ["Engine", "Job", "FileReport", "DIRECTIONS", "directions_of", "check_cipher",
           "run_records", "run_files", "format_report", "exit_code"]

Job = tuple[bytes, bool, list[bytes]]
DIRECTIONS = ("encrypt", "decrypt")


class Engine(Protocol):
    key_bits: int            # the single key size the engine accepts: bits on the key port,
                             # 8 per key byte (DES family: 64/128/192, parity bits included)
    block_bytes: int         # 16 for AES, 8 for DES
    directions: frozenset    # subset of {"encrypt", "decrypt"}
    #: Cipher names a vector file may give for this engine, normalised with
    #: normalise_cipher_name (AES: {"aes", "rijndael", "aesvs"}); None or absent:
    #: files are not checked.  An optional ``cipher: str`` names it in messages.
    cipher_names: frozenset[str] | None

    def run(self, jobs: list[Job]) -> list[list[bytes]]:
        """Each job = (key, decrypt, blocks); returns the output blocks of each job, in order."""


def directions_of(value) -> frozenset:
    """Normalise ``"encrypt"``, ``"decrypt"``, ``"both"`` or an iterable of those."""
    items = DIRECTIONS if value == "both" else (value,) if isinstance(value, str) else tuple(value)
    bad = [d for d in items if d not in DIRECTIONS]
    if bad or not items:
        raise CipherfabError(f"directions must be encrypt, decrypt or both, not {value!r}")
    return frozenset(items)


def _checks(rec: VectorRecord, nxt: VectorRecord | None, directions: frozenset, block_bytes: int,
            iterated: bool):
    """(generators, skip reason) for one record."""
    if rec.skip:
        return [], rec.skip
    if rec.kind != "mct":
        wanted = [d for d in DIRECTIONS if d in directions]
        return [kat_check(rec, d == "decrypt", iterated) for d in wanted], None
    need = "decrypt" if rec.decrypt else "encrypt"
    if need not in directions:
        have = "/".join(sorted(directions))
        return [], f"{rec.section} Monte-Carlo needs the {need} direction, the core has {have} only"
    return [mct_check(rec, nxt)], None


def _next_mct(records: list[VectorRecord], i: int) -> VectorRecord | None:
    """The Monte-Carlo record that ``records[i]``'s derived KEY/IV/input must match: the next
    one of its section and direction, numbered one more (CAVP, submission); ACVP's outer
    iterations of one test share its tcId and a section of their own, so any next one of the
    section follows."""
    rec = records[i]
    if rec.kind != "mct" or i + 1 >= len(records):
        return None
    nxt = records[i + 1]
    same = nxt.section == rec.section and nxt.decrypt == rec.decrypt and nxt.kind == "mct"
    if same and rec.format == "acvp" and nxt.format == "acvp":
        return nxt
    return nxt if same and rec.count is not None and nxt.count == rec.count + 1 else None


def _drive(engine: Engine, gens: list) -> list:
    """Advance all check generators in lockstep; returns each one's result."""
    results: list = [None] * len(gens)
    live: dict[int, Job] = {}
    for i, g in enumerate(gens):
        try:
            live[i] = g.send(None)
        except StopIteration as stop:
            results[i] = stop.value
    while live:
        order = [i for i in live if not isinstance(live[i], Chain)]
        jobs = [live[i] for i in order]
        outs = engine.run(jobs) if jobs else []
        _check_outputs(engine, jobs, outs)
        answers = [list(out) for out in outs]
        chained = [i for i in live if isinstance(live[i], Chain)]
        if chained:
            chains = [live[i] for i in chained]
            run = getattr(engine, "run_chains", None)
            answers += run(chains) if run else run_chains_by_blocks(engine, chains)
            order += chained
        for i, out in zip(order, answers):
            try:
                live[i] = gens[i].send(out)
            except StopIteration as stop:
                results[i] = stop.value
                del live[i]
    return results


def _check_outputs(engine: Engine, jobs: list[Job], outs) -> None:
    if outs is None or len(outs) != len(jobs):
        n = "no" if outs is None else len(outs)
        raise CipherfabError(f"engine returned {n} results for {len(jobs)} jobs")
    for (_, _, blocks), out in zip(jobs, outs):
        if len(out) != len(blocks) or any(not isinstance(b, (bytes, bytearray))
                                          or len(b) != engine.block_bytes for b in out):
            raise CipherfabError(f"engine returned {len(out)} blocks for a {len(blocks)}-block job "
                                 f"(or blocks that are not {engine.block_bytes} bytes)")


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def check_cipher(file: str, named: str | None, engine: Engine) -> None:
    """:func:`refuse_other_cipher` for the cipher the engine runs (``engine.cipher_names``,
    ``engine.cipher``); nothing is refused if the engine has no ``cipher_names``."""
    refuse_other_cipher(file, named, getattr(engine, "cipher_names", None), getattr(engine, "cipher", None))


def refuse_other_cipher(file: str, named: str | None, names, runs: str | None) -> None:
    """Refuse a file whose header names a cipher other than ``names`` (the names the cipher
    ``runs`` goes by in vector files): ``file: this is a Rc6 vector file; the engine runs AES``.
    Nothing is refused when the file names no cipher or ``names`` is None."""
    if named is None or names is None:
        return
    accepted = {normalise_cipher_name(n) for n in names}
    if normalise_cipher_name(named) in accepted:
        return
    if not isinstance(runs, str) or not runs:
        runs = "/".join(sorted(accepted)) or "no named cipher"
    raise CipherfabError(f"{file}: this is {_article(named)} {named} vector file; "
                         f"the engine runs {runs}")


def describe(rec: VectorRecord, m: Mismatch) -> str:
    """The full, multi-line description of a failed record."""
    note = f" ({m.note})" if m.note else ""
    lines = [f"FAILED {rec.where}: {rec.label}, {m.direction} "
             f"({rec.kind.upper()} {rec.mode}){note}",
             f"  KEY      = {rec.key.hex()}"]
    if rec.iv is not None:
        lines.append(f"  IV       = {rec.iv.hex()}")
    lines += [f"  input    = {b''.join(m.input).hex()}",
              f"  expected = {' '.join(b.hex() for b in m.expected)}",
              f"  got      = {' '.join(b.hex() for b in m.got)}"]
    return "\n".join(lines)


def run_records(records: list[VectorRecord], engine: Engine, limit: int | None = None,
                other_key_sizes: str = "error", iterated: bool = True) -> list[FileReport]:
    """Check records (grouped by file, in order) against an engine.

    First refuses (:func:`check_cipher`) a file whose records' ``cipher_named``
    the engine does not run, before anything runs.  ``limit``: only the first N
    records of each file.  ``other_key_sizes``: ``"error"`` refuses a record
    whose key size (bits as given, 8 per byte; DES family 64/128/192) the
    engine does not take;
    ``"skip"`` counts it as skipped (for files mixing 128/192/256-bit keys).
    ``iterated=False`` leaves out NESSIE's "Iterated 100/1000 times" checks
    (1000 sequential engine calls per file).

    A record passes when every direction the engine has passes.  A Monte-Carlo
    record runs from its own KEY/IV/input and must give its output; it also
    must derive the next record's KEY/IV/input (so the chain is checked too).
    """
    directions = directions_of(engine.directions)
    if limit is not None and limit < 1:
        raise CipherfabError(f"--limit must be a positive number of records, not {limit}")
    if other_key_sizes not in ("error", "skip"):
        raise CipherfabError(f"other_key_sizes must be 'error' or 'skip', not {other_key_sizes!r}")
    by_file: dict[str, list[VectorRecord]] = {}
    for rec in records:
        by_file.setdefault(rec.file, []).append(rec)
    for file, recs in by_file.items():
        for named in dict.fromkeys(rec.cipher_named for rec in recs):
            check_cipher(file, named, engine)
    reports, gens = [], []
    plan = []          # (report, record, [indices into gens] or a skip reason)
    for file, recs in by_file.items():
        recs = recs[:limit] if limit else recs
        report = FileReport(file)
        reports.append(report)
        for i, rec in enumerate(recs):
            if len(rec.plaintext[0]) != engine.block_bytes:
                raise CipherfabError(f"{rec.where}: {len(rec.plaintext[0]) * 8}-bit blocks, "
                                     f"but the core has {engine.block_bytes * 8}-bit blocks")
            bits = key_bits(rec.key)
            if bits != engine.key_bits:
                bb = engine.block_bytes
                takes = key_size_text(engine.key_bits, bb, "keys")   # "64-bit keys (56 effective)"
                if other_key_sizes == "skip":
                    why = f"{key_size_text(bits, bb, 'keys')}, the core takes {takes}"
                    plan.append((report, rec, why))
                    continue
                raise CipherfabError(f"{rec.where}: {key_size_text(bits, bb)}, "
                                     f"but the core takes {takes}")
            checks, reason = _checks(rec, _next_mct(recs, i), directions, engine.block_bytes,
                                     iterated)
            plan.append((report, rec, reason or list(range(len(gens), len(gens) + len(checks)))))
            gens += checks
    results = _drive(engine, gens)
    reasons: dict[int, Counter] = {}
    for report, rec, what in plan:
        if isinstance(what, str):
            report.skipped += 1
            reasons.setdefault(id(report), Counter())[what] += 1
            continue
        bad = [results[i] for i in what if results[i] is not None]
        if bad:
            report.failed += 1
            if report.first_failure is None:
                report.first_failure = describe(rec, bad[0])
        else:
            report.passed += 1
    for report in reports:
        for why, n in reasons.get(id(report), Counter()).items():
            report.skip_reasons.append(f"{n} x {why}")
    return reports


def run_files(paths: Iterable, engine: Engine, limit: int | None = None,
              byte_reversed: bool = False, other_key_sizes: str = "error",
              iterated: bool = True) -> list[FileReport]:
    """Parse every file (block size from the engine) and run them all in one batch.

    A file whose header names a cipher the engine does not run is refused
    (:func:`check_cipher`) before any file is parsed.  ``byte_reversed``
    applies to AES-submission files (Serpent's); the other options are those
    of :func:`run_records`.
    """
    paths = list(paths)
    for path in paths:
        check_cipher(str(path), cipher_named(path), engine)
    records: list[VectorRecord] = []
    for path in paths:
        recs = parse_file(path, engine.block_bytes, byte_reversed)
        records += recs[:limit] if limit else recs
    return run_records(records, engine, limit, other_key_sizes, iterated)


def format_report(reports: list[FileReport]) -> str:
    """One line per file, the first failure in full, then ``N passed, M failed[, K skipped]``."""
    lines = [r.summary for r in reports]
    first = next((r.first_failure for r in reports if r.first_failure), None)
    if first:
        lines.append(first)
    passed, failed, skipped = (sum(getattr(r, k) for r in reports)
                               for k in ("passed", "failed", "skipped"))
    lines.append(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return "\n".join(lines)


def exit_code(reports: list[FileReport]) -> int:
    """A vector run's exit code: 1 if any record failed, whatever else is also wrong (a
    failure is reported as a failure); a refusal (exit 2) when no record ran at all (every
    one of another key size, or needing a direction the core lacks); else 0."""
    if any(r.failed for r in reports):
        return 1
    if not any(r.passed for r in reports):
        other = [why for r in reports for why in r.skip_reasons if "the core takes" not in why]
        if other:          # records of its key size that need what the core lacks
            raise CipherfabError(f"no record in the vector files ran on this core: {'; '.join(other)}")
        raise CipherfabError("no record in the vector files is for this core's key size")
    return 0
