"""``cipherfab sim ... --mode ofb|cfb|cfb8|cfb1|ctr|cmac|xts|ccm --vectors FILE``: NIST CAVP OFB
and CFB files (AESAVS KAT, MMT and MCT; ``cfb``: whole-block segments, ``CFB128*`` for AES;
``cfb8``, ``cfb1``: ``CFB8*``, ``CFB1*``), CMAC files (CAVP
CMACGen/CMACVer, ``cryptography-vectors``' SP 800-38B examples, Wycheproof's JSON:
:mod:`cipherfab.vectors.cmac`) and XTS files (CAVP XTSGenAES, Wycheproof's JSON:
:mod:`cipherfab.vectors.xts`; each record one data unit through
:meth:`~.driver.Accelerator.run_xts`) and CCM files (CAVP VADT, VNT, VPT, VTT, DVPT,
Wycheproof's JSON: :mod:`cipherfab.vectors.ccm`; each record one message through
:func:`.ccm.run`) through the accelerator system around a generated core
(plugged into ``sim`` by :mod:`.cli`, as ``--mode gcm``).  A CMAC generation record is one
message whose tag is compared, a verification record one whose verdict is.

OFB and CFB128 also come as NIST ACVP JSON vector sets (``ACVP-AES-OFB``,
``ACVP-AES-CFB128``: :mod:`cipherfab.vectors.acvp`); CTR only so (``ACVP-AES-CTR``: the
test's ``iv`` the initial counter block, +1 a block modulo 2^128), XTS and CCM also so
(``ACVP-AES-XTS``, ``ACVP-AES-CCM``).  Each OFB, CFB or CTR record is one message: its key
loaded, the IV written, the plaintext (``[ENCRYPT]``, an encrypt group) or the ciphertext
(``[DECRYPT]``) streamed through the system in the mode, the output compared with the
file's (CFB1: its bits).  An AESAVS Monte-Carlo record runs its 1000 inner iterations as
one message, a segment at a time, each input made from earlier outputs
(:mod:`.monte_carlo`), and checks the KEY, IV and input it derives against the next
record's.  Records the system cannot run are skipped with their reason and counted, never
passed: another key size, TDESVS Monte-Carlo records (other rules), and the ACVP tests
:mod:`cipherfab.vectors.acvp` gives a reason (payloads that are not whole bytes, CTR tests
without a counter block, ...).
"""

from __future__ import annotations

from ..errors import CipherfabError


def _file_mode(mode: str, block_bits: int) -> str:
    """The mode a vector file of ``--mode`` names: ``OFB``, ``CTR``, ``CFB8``, ``CFB1``, or
    CFB with whole-block segments."""
    return {"ofb": "OFB", "ctr": "CTR", "cfb8": "CFB8", "cfb1": "CFB1"}.get(mode, f"CFB{block_bits}")



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


def check_cmac_core(params, info) -> None:
    """CMAC runs in the system's GCM layer: a 128-bit block cipher, or one line."""
    if info.block_bits != 128:
        raise CipherfabError(f"cmac runs in the system's GCM layer, for 128-bit block ciphers; "
                             f"{params.cipher} has {info.block_bits}-bit blocks")


def run_mode_vectors(args, params) -> int:
    """OFB, CFB, CTR, CMAC, XTS or CCM vector files through the simulated system (every file
    parsed first)."""
    refuse_core_run_options(args, params)
    from ..generate import declaration
    info = declaration(params)
    if "encrypt" not in info.directions:
        raise CipherfabError(f"{args.mode} runs on the encrypting core; {params.top} only decrypts")
    if args.mode == "cmac":
        return _cmac_vectors(args, params, info)
    if args.mode == "xts":
        return _xts_vectors(args, params, info)
    if args.mode == "ccm":
        return _ccm_vectors(args, params, info)
    from .mode_reference import system_mode
    from ..vectors.acvp import acvp_algorithm, parse_acvp
    from ..vectors.records import fail
    from ..vectors.rsp import parse_rsp
    from .monte_carlo import check_record
    bb, name = info.block_bits // 8, _file_mode(args.mode, info.block_bits)

    def read(path):
        if acvp_algorithm(path):
            return parse_acvp(path, modes=(name,))
        if name == "CTR":
            raise fail(path, None, "not an ACVP vector set: --mode ctr runs NIST ACVP-AES-CTR "
                                   "JSON (internalProjection.json, or prompt.json with its "
                                   "expectedResults.json)")
        return parse_rsp(path, bb, modes=(name,))

    following = {}                        # a Monte-Carlo record -> the one after it

    def read_all(path):
        records = read(path)
        following.update((id(a), b) for a, b in zip(records, records[1:]))
        return records

    def skip(r):
        if r.skip:
            return r.skip
        if r.kind == "mct" and info.block_bits != 128:
            return ("Monte-Carlo records of TDESVS (10,000 inner iterations, its own key update; "
                    "the system runs AESAVS's)")
        return None

    def check(acc, r):
        mode = system_mode(args.mode, r.decrypt)
        if r.kind == "mct":
            def run(key, decrypt, iv, first, count, nxt):
                return acc.run_stepped(key, mode, iv, first, count, nxt, seed=args.seed)
            return check_record(r, following.get(id(r)), run, mode.segment_bits or 8 * bb, 8 * bb)
        src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
        got = acc.run(r.key, mode, b"".join(src), r.iv, seed=args.seed, bits=r.bits).out
        return got == b"".join(want), f"{got.hex()} != {b''.join(want).hex()}"
    return _through_system(args, params, info, name, read_all, skip, check)


def _cmac_vectors(args, params, info) -> int:
    """CMAC vector files through the system's GCM layer."""
    from ..hw.gcm.gcm_control import CMAC_TAG_BYTES
    from ..vectors.cmac import parse_cmac
    check_cmac_core(params, info)

    def skip(r):
        if len(r.tag) not in CMAC_TAG_BYTES:
            return f"{len(r.tag)}-byte tags (the system takes {CMAC_TAG_BYTES[0]} to {CMAC_TAG_BYTES[-1]})"
        if r.verify and r.valid is None:
            return "records whose verdict the file leaves open (acceptable)"
        return None

    def check(acc, r):
        res = acc.run_cmac(r.key, r.msg, r.tag if r.verify else None, len(r.tag), seed=args.seed)
        if r.verify:
            return res.authentic == r.valid, f"verdict {res.authentic} != {r.valid}"
        return res.tag == r.tag, f"{res.tag.hex()} != {r.tag.hex()}"
    return _through_system(args, params, info, "CMAC", parse_cmac, skip, check)


def _xts_vectors(args, params, info) -> int:
    """XTS vector files: each record one data unit, or (an ACVP 2.0 test's ``unit_bytes``)
    several (decrypt records on a core that also decrypts)."""
    from ..hw.modes import Mode, modes_of
    from ..vectors.acvp import acvp_algorithm, parse_acvp
    from ..vectors.xts import parse_xts
    from .mode_reference import check_two_key_core, check_wide_core
    check_wide_core("xts", params.cipher, info)
    check_two_key_core(params.top, info)

    def skip(r):
        if r.skip:
            return r.skip
        if r.decrypt and Mode.XTS_DECRYPT not in modes_of(info):
            return "[DECRYPT] records (the core does not decrypt: --direction both runs them)"
        return None

    def check(acc, r):
        src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
        got = acc.run_xts(r.key, r.decrypt, r.tweak, src, r.unit_bytes, seed=args.seed).out
        return got == want, f"{got.hex()} != {want.hex()}"

    def read(path):
        return parse_acvp(path, modes=("XTS",)) if acvp_algorithm(path) else parse_xts(path)
    return _through_system(args, params, info, "XTS", read, skip, check, keys=2)


def _ccm_vectors(args, params, info) -> int:
    """CCM vector files: a generation record encrypted (ciphertext and tag compared) and
    decrypted back; a verification record decrypted (the verdict compared, and a passing
    record's payload)."""
    from . import ccm
    from ..vectors.acvp import acvp_algorithm, parse_acvp
    from ..vectors.ccm import parse_ccm
    from .mode_reference import check_wide_core
    check_wide_core("ccm", params.cipher, info)

    def skip(r):
        if r.skip:                                # an ACVP test's reason
            return r.skip
        if len(r.nonce) not in ccm.NONCE_BYTES:
            return "nonces outside CCM's 7 to 13 bytes"
        if len(r.tag) not in ccm.TAG_BYTES:
            return "tags outside CCM's 4, 6, ..., 16 bytes"
        return None

    def check(acc, r):
        run = lambda *a: ccm.run(acc, r.key, *a, tag_bytes=len(r.tag), seed=args.seed)
        if not r.verify:
            got = run(False, r.nonce, r.aad, r.payload)
            if (got.out, got.tag) != (r.ciphertext, r.tag):
                return False, f"{got.out.hex()} {got.tag.hex()} != {r.ciphertext.hex()} {r.tag.hex()}"
        got = run(True, r.nonce, r.aad, r.ciphertext, r.tag)
        if got.authentic != r.valid:
            return False, f"verdict {got.authentic} != {r.valid}"
        return (not r.valid or got.out == r.payload), f"{got.out.hex()} != {(r.payload or b'').hex()}"

    def read(path):
        return parse_acvp(path, modes=("CCM",)) if acvp_algorithm(path) else parse_ccm(path)
    return _through_system(args, params, info, "CCM", read, skip, check)


def _through_system(args, params, info, title: str, read, skip, check, keys: int = 1) -> int:
    """``args.vectors`` through the system around ``params``: ``read(path)`` gives a file's
    records, ``skip(record)`` a reason not to run one (a key of another size is skipped
    here), ``check(acc, record)`` (passed, what differs).  Every file is read and every skip
    decided before the system is compiled; nothing to run is refused before it.  ``keys``:
    the records' keys hold that many of the core's keys (XTS: 2)."""
    from ..vectors import exit_code, format_report
    from ..vectors.records import FileReport
    reports, runs = [], []
    for path in args.vectors:
        rep, run = FileReport(file=str(path)), []
        records = read(path)
        for r in records[:args.limit] if args.limit else records:
            reason = (f"{8 * len(r.key)}-bit keys (the core takes {keys * info.key_bits})"
                      if 8 * len(r.key) != keys * info.key_bits else skip(r))
            if reason:
                rep.skip(reason)
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
            ok, shown = check(acc, r)
            if ok:
                rep.passed += 1
            else:
                rep.failed += 1
                rep.first_failure = rep.first_failure or f"first failure: {r.where} ({r.label}): {shown}"
    print(f"{acc.params.top} in the accelerator system, {title}:")
    print(format_report(reports))
    return exit_code(reports)
