"""The accelerator system's modes in the verification ledger: GCM, CMAC, OFB, CFB (CFB8, CFB1), XTS and CCM
through the system, for every core class they apply to.

A class is a (cipher, architecture) whose cores encrypt (and take one clock); its
representative is the architecture's default point.  128-bit classes get every check below;
64-bit ones (TDES: no GCM, and the system's CMAC lives in its GCM layer) the OFB and CFB
ones.  Its check builds the accelerator
system around that core (its GCM layer with the GHASH style picked for it), compiles it
with Verilator and runs, through the driver:

* for AES with a key port, every record of the CAVP file ``gcmEncryptExtIV128.rsp`` for
  its key size: encrypted (ciphertext and tag), decrypted (tag accepted, plaintext back),
  and decrypted with one tag bit flipped (rejected), as ``sim --mode gcm`` does;
* random messages (IVs of 12 and of 1..64 bytes, AAD and text of 0..100 bytes, every tag
  length), encrypted and decrypted, with a flipped tag or AAD byte rejected: against
  ``cryptography``'s AESGCM for AES (IVs of 8 bytes and more) and hw.gcm.gcm_model over the
  cipher's reference model otherwise (the model itself is checked against the CAVP file).
  A key-specific core runs them under the key it is built for;
* random OFB, CFB encrypt and CFB decrypt messages (1 to 100 bytes: partial last blocks),
  against the mode over the cipher's reference model (``host.cli.reference``; OpenSSL's
  AES through ``cryptography`` for AES; CFB64 and OFB over TDES's model, OpenSSL's through
  ``cryptography``, for TDES); random CFB8 (1 to 40 bytes) and CFB1 (1 to a block and a
  byte of bits) messages, a fifth as many, encrypted and decrypted, against OpenSSL's CFB8 for AES and TDES and SP 800-38A
  over the model otherwise (``host.mode_reference.cfb_segment_reference``);
* random CMAC messages (0 to 100 bytes, every tag length from 4 to 16 bytes): the tag made
  against the reference (OpenSSL's CMAC for AES, SP 800-38B over the model otherwise), that
  tag verified, and a tag with one bit flipped or the message one byte longer refused;
* random XTS data units (128-bit classes with a key port: two random keys, 16 to 100 bytes
  as one unit or cut into units of 16 to 48 bytes, so ciphertext stealing and the tweak's
  +1 between units run), encrypted (and decrypted where the class's core decrypts)
  against the reference (OpenSSL's XTS for AES-128 and -256, the IEEE 1619 construction
  over the cipher's model otherwise);
* random CCM messages (128-bit classes: nonces of 7 to 13 bytes, every tag length, AAD and
  payload of 0 to 100 bytes, through :func:`.ccm.run`'s two messages): ciphertext and tag
  against the reference (``cryptography``'s AESCCM for AES, SP 800-38C over the model
  otherwise), decrypted back, and a tag with one bit flipped or one more AAD byte refused.

Its ledger entry (``gcm`` in the ledger, keyed ``gcm:<core top>``) holds the verdict,
the counts, what was checked (the sha256 of the system's Verilog and of the host driver that
runs GCM on it), the vector file's sha256 and the tools.  As for a core point
(docs/verification.md, "What a verdict depends on") it is fresh while those are unchanged and
Verilator is today's; the checking code (this module, the reference, the harness) does not
make it stale.  Its ``generator_digest`` (the files that make the Verilog, and the driver) is a
shortcut: while it holds, the Verilog is the entry's without generating it; when it does not,
the system is generated again (kept in the cache) and its sha256 compared.
"""

from __future__ import annotations

import hashlib
import random
import time
from pathlib import Path

from ..registry import CoreParams, ciphers, resolve
from ..sim import ledger
from .system_cache import system_digest, system_verilog

GCM_FILE = "aes/gcmtestvectors/gcmEncryptExtIV128.rsp"


def gcm_points(cipher: str | None = None, arch: str | None = None) -> list[CoreParams]:
    """The representative (default) point of every class the system's checks apply to."""
    from ..generate import declaration
    out = []
    for c in ciphers().values():
        if cipher and c.name != cipher:
            continue
        for a in c.architectures:
            if arch and a.name != arch:
                continue
            p = resolve(c.name, a.name)
            info = declaration(p)
            if "encrypt" in info.directions and not info.clocks:
                out.append(p)
    return out


def key(params: CoreParams) -> str:
    return f"gcm:{params.top}"


#: the host side of the system under test: the driver that runs GCM through its registers
DRIVER = Path(__file__).with_name("driver.py")


def digest(params: CoreParams) -> str:
    """The shortcut: the files that make the system's Verilog, and the driver."""
    return hashlib.sha256(f"{system_digest(params)}\0{ledger.file_digest(DRIVER)}".encode()).hexdigest()


def checked(params: CoreParams) -> dict[str, str]:
    """What a verdict is about: the sha256 of the system's Verilog and of the driver."""
    verilog = system_verilog(params)[0]
    return {"verilog_sha256": hashlib.sha256(verilog.encode()).hexdigest(),
            "driver_sha256": ledger.file_digest(DRIVER)}


def vectors(params: CoreParams, root: Path) -> dict:
    return ledger.vector_digests(root, [GCM_FILE] if _uses_cavp(params) else [])


def _uses_cavp(params: CoreParams) -> bool:
    from ..generate import declaration
    return params.cipher == "aes" and declaration(params).key_interface != "none"


def state(params: CoreParams, e: dict | None, root: Path) -> str:
    if e is None:
        return "never"
    if e.get("verdict") != "pass":
        return "failed"
    if e.get("generator_digest") == digest(params):
        return ledger.state(e, None, vectors(params, root))
    if not e.get("verilog_sha256") or not e.get("driver_sha256"):
        return "stale: the core or the system changed"
    now = checked(params)
    if e["driver_sha256"] != now["driver_sha256"]:
        return "stale: the host driver changed"
    result = ledger.state(e, now["verilog_sha256"], vectors(params, root))
    if result == "fresh":                   # the same system: the entry holds for today
        e["generator_digest"] = digest(params)
    return result


def recorded_state(params: CoreParams, e: dict | None, root: Path) -> str:
    """The state from the ledger alone (no system generated): an entry whose generator digest
    is not today's is stale until ``verify --status`` (which compares the system's Verilog and
    re-stamps it) or ``verify --all --changed`` has looked; the README's line says this."""
    if e is not None and e.get("verdict") == "pass" and e.get("generator_digest") != digest(params):
        return "stale: generator changed, system not compared yet"
    return state(params, e, root)


def verify(params: CoreParams, root: Path, seed: int = 1, messages: int = 200) -> dict:
    """``{"ok", "line", "entry"}`` for one class's representative point."""
    from ..generate import declaration
    from ..hw.gcm.gcm_model import TAG_BYTES
    from .gcm_reference import gcm_reference
    from .driver import Accelerator
    from ..vectors.gcm import run_gcm_files
    t0 = time.perf_counter()
    info = declaration(params)
    # a core with a seed port: one seed from the run's seed, sent after every reset (reproducible)
    entropy = random.Random(f"seed port {seed}").randbytes(-(-info.seed_bits // 8)) if info.seed_bits else None
    acc = Accelerator(params, entropy=entropy)
    phases = {"gcm compile": time.perf_counter() - t0}

    def through(k, decrypt, iv, aad, data, tag, tag_bytes):
        r = acc.run_gcm(k, decrypt, iv, aad, data, tag, tag_bytes, seed=seed)
        return r.out, r.tag, r.authentic
    t = time.perf_counter()
    cavp = {"passed": 0, "failed": 0, "skipped": 0}
    first = None
    if _uses_cavp(params):
        (rep,) = run_gcm_files([root / GCM_FILE], through, info.key_bits)
        cavp = {"passed": rep.passed, "failed": rep.failed, "skipped": rep.skipped}
        first = rep.first_failure
    phases["gcm cavp"] = time.perf_counter() - t
    t = time.perf_counter()
    rng = random.Random(seed)
    fixed = bytes.fromhex(info.fixed_key) if info.key_interface == "none" else None
    wide = info.block_bits == 128                 # GCM and CMAC: 128-bit block ciphers only
    gcm_messages = messages if wide else 0
    bad_random = 0
    for n in range(gcm_messages):
        k = fixed or rng.randbytes(info.key_bits // 8)
        iv = rng.randbytes(12 if n % 2 else rng.randrange(1, 65))
        aad, text = rng.randbytes(rng.randrange(101)), rng.randbytes(rng.randrange(101))
        tb = TAG_BYTES[n % len(TAG_BYTES)]
        ct, tag = gcm_reference(params.cipher, k, iv, aad, text, tb, False)
        problem = None
        out, got, _ = through(k, False, iv, aad, text, None, tb)
        if (out, got) != (ct, tag):
            problem = "ciphertext or tag differs from the reference"
        else:
            pt, _, ok = through(k, True, iv, aad, ct, tag, tb)
            if not ok or pt != text:
                problem = "decryption rejected the tag or gave other text"
            else:
                if n % 3 == 0:          # one more AAD byte, or the tag's last bit flipped
                    forged, bad_tag = aad + b"\0", tag
                else:
                    forged, bad_tag = aad, tag[:-1] + bytes([tag[-1] ^ 0x01])
                _, _, ok = through(k, True, iv, forged, ct, bad_tag, tb)
                if ok:
                    problem = "a forged message was accepted"
        if problem:
            bad_random += 1
            first = first or (f"random message {n} (IV {len(iv)}, AAD {len(aad)}, text {len(text)} "
                              f"bytes, {8 * tb}-bit tag): {problem}")
    phases["gcm random"] = time.perf_counter() - t
    quarter, wide_quarter = messages // 4, messages // 4 if wide else 0
    counts_of = {}
    for phase, check in (
            ("ofb cfb random", lambda: _feedback_modes(acc, params, info, rng, fixed, seed, quarter)),
            ("cmac random", lambda: _cmac(acc, params, info, rng, fixed, seed, wide_quarter)),
            ("xts random", lambda: _xts(acc, params, info, rng, seed, quarter)),
            ("ccm random", lambda: _ccm(acc, params, info, rng, fixed, seed, wide_quarter))):
        t = time.perf_counter()
        counts_of[phase], problem = check()
        first = first or problem
        phases[phase] = time.perf_counter() - t
    feedback, cmac, xts, ccm_counts = counts_of.values()
    ok = (cavp["failed"] == 0 and bad_random == 0 and (cavp["passed"] > 0 or not _uses_cavp(params))
          and all(c["failed"] == 0 for c in counts_of.values()))
    seconds = time.perf_counter() - t0
    cavp_text = (f"CAVP GCM {cavp['passed']} passed, {cavp['failed']} failed; " if _uses_cavp(params)
                 else "")
    ofb_cfb = (f"OFB/CFB/CFB8/CFB1 random {feedback['messages'] - feedback['failed']} passed, "
               f"{feedback['failed']} failed")
    if wide:
        line = (f"{'ok  ' if ok else 'FAIL'} {key(params)} ({acc.ghash} GHASH): {cavp_text}random "
                f"{messages - bad_random} passed, {bad_random} failed; {ofb_cfb}; "
                f"CMAC random {cmac['messages'] - cmac['failed']} passed, {cmac['failed']} failed"
                + (f"; XTS random {xts['messages'] - xts['failed']} passed, {xts['failed']} failed"
                   if xts["messages"] else "")
                + f"; CCM random {ccm_counts['messages'] - ccm_counts['failed']} passed, "
                  f"{ccm_counts['failed']} failed [{seconds:.1f} s]")
    else:
        line = (f"{'ok  ' if ok else 'FAIL'} {key(params)} (no GCM or CMAC: {info.block_bits}-bit "
                f"blocks): {ofb_cfb} [{seconds:.1f} s]")
    if first:
        line += f"\n     first failure: {first}"
    counts = {"cavp": cavp, "random": {"messages": gcm_messages, "failed": bad_random, "seed": seed},
              "ofb_cfb": feedback, "cmac": cmac, "xts": xts, "ccm": ccm_counts, "ghash": acc.ghash}
    now = checked(params)
    e = ledger.entry(params, ok, counts, now["verilog_sha256"], vectors(params, root), seconds,
                     line.split("\n")[0], phases)
    e["generator_digest"], e["driver_sha256"] = digest(params), now["driver_sha256"]
    return {"ok": ok, "line": line, "entry": e}


def _feedback_modes(acc, params: CoreParams, info, rng, fixed, seed: int, per_mode: int):
    """OFB, CFB encrypt and decrypt: ``per_mode`` random messages each through the system (1
    to 100 bytes); CFB8 and CFB1 encrypt and decrypt: a fifth as many (a block operation a
    segment; CFB8 1 to 40 bytes, CFB1 1 to a block and a byte of bits: past the IV), against
    the mode over the reference model; (counts, first failure or None)."""
    from .mode_reference import cfb_segment_reference, packed, reference, system_mode
    failed, first = 0, None
    bb = info.block_bits // 8
    runs = [(system_mode(name, decrypt), name, decrypt) for name, decrypt in (
        ("ofb", False), ("cfb", False), ("cfb", True), ("cfb8", False), ("cfb8", True),
        ("cfb1", False), ("cfb1", True))]
    count = {m: max(1, per_mode // 5) if m.segment_bits else per_mode for m, _, _ in runs}
    for mode, name, decrypt in runs:
        for n in range(count[mode]):
            k = fixed or rng.randbytes(info.key_bits // 8)
            iv, bits = rng.randbytes(bb), None
            if mode.segment_bits == 1:
                bits = rng.randrange(1, 8 * bb + 9)     # past a block: the IV shifted out
                data = packed([rng.getrandbits(1) for _ in range(bits)], 1)
            else:
                data = rng.randbytes(rng.randrange(1, 41 if mode.segment_bits else 101))
            got = acc.run(k, mode, data, iv, seed=seed, bits=bits).out
            want = (cfb_segment_reference(params.cipher, k, mode.segment_bits, iv, data, decrypt, bits)
                    if mode.segment_bits else reference(params.cipher, 8 * len(k), k, name, iv, data, decrypt))
            if got != want:
                failed += 1
                first = first or (f"random {mode.name} message {n} ({bits or 8 * len(data)} bits) "
                                  f"differs from the reference")
    return {"messages": sum(count.values()), "failed": failed, "seed": seed}, first


def _cmac(acc, params: CoreParams, info, rng, fixed, seed: int, messages: int):
    """``messages`` random CMAC messages through the system: the tag against the reference,
    verified, and a forgery refused; (counts, first failure or None)."""
    from ..hw.gcm.gcm_control import CMAC_TAG_BYTES
    from .mode_reference import cmac_reference
    failed, first = 0, None
    for n in range(messages):
        k = fixed or rng.randbytes(info.key_bits // 8)
        data, tb = rng.randbytes(rng.randrange(101)), CMAC_TAG_BYTES[n % len(CMAC_TAG_BYTES)]
        want = cmac_reference(params.cipher, k, data)[:tb]
        problem = None
        if acc.run_cmac(k, data, None, tb, seed=seed).tag != want:
            problem = "the tag differs from the reference"
        elif not acc.run_cmac(k, data, want, tb, seed=seed).authentic:
            problem = "its own tag was refused"
        else:
            forged, bad = (data + b"\0", want) if n % 2 else (data, want[:-1] + bytes([want[-1] ^ 1]))
            if acc.run_cmac(k, forged, bad, tb, seed=seed).authentic:
                problem = "a forged message was accepted"
        if problem:
            failed += 1
            first = first or f"random CMAC message {n} ({len(data)} bytes, {tb}-byte tag): {problem}"
    return {"messages": messages, "failed": failed, "seed": seed}, first


def _xts(acc, params: CoreParams, info, rng, seed: int, messages: int):
    """``messages`` random XTS inputs through the system where the class runs XTS (and
    as many decrypted where its core decrypts), against the reference; (counts, first
    failure or None)."""
    from ..hw.modes import Mode, modes_of
    from .mode_reference import xts_reference, xts_unit_tweaks
    runs = [d for d, m in ((False, Mode.XTS_ENCRYPT), (True, Mode.XTS_DECRYPT)) if m in modes_of(info)]
    failed, first, kb = 0, None, info.key_bits // 8
    for decrypt in runs:
        for n in range(messages):
            k = rng.randbytes(kb)
            key, tweak = k + bytes(b ^ 0xFF for b in k[:1]) + rng.randbytes(kb - 1), rng.randbytes(16)
            data = rng.randbytes(rng.randrange(16, 101))
            unit = None if n % 2 else rng.randrange(16, 49)
            if len(data) % (unit or len(data)) and len(data) % (unit or len(data)) < 16:
                unit = None                           # a last unit under 16 bytes: one unit
            parts = [data[i:i + (unit or len(data))] for i in range(0, len(data), unit or len(data))]
            want = b"".join(xts_reference(params.cipher, key, t, p, decrypt)
                            for t, p in zip(xts_unit_tweaks(tweak, len(parts)), parts))
            if acc.run_xts(key, decrypt, tweak, data, unit, seed=seed).out != want:
                failed += 1
                first = first or (f"random XTS {'decrypt' if decrypt else 'encrypt'} message {n} "
                                  f"({len(data)} bytes, units of {unit or len(data)}) differs from the reference")
    return {"messages": messages * len(runs), "failed": failed, "seed": seed}, first


def _ccm(acc, params: CoreParams, info, rng, fixed, seed: int, messages: int):
    """``messages`` random CCM messages through the system: ciphertext and tag against the
    reference, decrypted back, a forgery refused; (counts, first failure or None)."""
    from . import ccm
    failed, first = 0, None
    for n in range(messages):
        k = fixed or rng.randbytes(info.key_bits // 8)
        nonce = rng.randbytes(ccm.NONCE_BYTES[n % len(ccm.NONCE_BYTES)])
        tb = ccm.TAG_BYTES[n % len(ccm.TAG_BYTES)]
        aad, data = rng.randbytes(rng.randrange(101)), rng.randbytes(rng.randrange(101))
        ct, tag = ccm.reference(params.cipher, k, nonce, aad, data, tb, False)
        problem = None
        got = ccm.run(acc, k, False, nonce, aad, data, None, tb, seed=seed)
        if (got.out, got.tag) != (ct, tag):
            problem = "ciphertext or tag differs from the reference"
        else:
            back = ccm.run(acc, k, True, nonce, aad, ct, tag, tb, seed=seed)
            if not back.authentic or back.out != data:
                problem = "decryption refused the tag or gave other text"
            else:
                forged, bad = (aad + b"\0", tag) if n % 2 else (aad, tag[:-1] + bytes([tag[-1] ^ 1]))
                if ccm.run(acc, k, True, nonce, forged, ct, bad, tb, seed=seed).authentic:
                    problem = "a forged message was accepted"
        if problem:
            failed += 1
            first = first or (f"random CCM message {n} ({len(nonce)}-byte nonce, AAD {len(aad)}, "
                              f"text {len(data)} bytes, {tb}-byte tag): {problem}")
    return {"messages": messages, "failed": failed, "seed": seed}, first


def verify_one(params: CoreParams, root: Path, seed: int, opt: str) -> dict:
    """:func:`verify` as ``verify --all`` runs it in a worker: one line on any refusal,
    and the ledger key beside the result."""
    import os

    from ..errors import CipherfabError
    from ..sim.verilated import OPT_ENV
    os.environ[OPT_ENV] = opt
    try:
        res = verify(params, root, seed)
    except CipherfabError as e:
        res = {"ok": False, "line": f"FAIL {key(params)}: {e}", "entry": None}
    return {**res, "key": key(params), "gcm": True}
