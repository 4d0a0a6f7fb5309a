"""Per-record checks, written as generators so many records share one engine call.

Each check yields jobs ``(key, decrypt, blocks)``, receives the engine's
output blocks for that job, and finally returns ``None`` (pass) or a
:class:`Mismatch`.  CBC chaining and the Monte-Carlo loops run here, around
an engine that only ever computes single-key ECB blocks.

A long feedback loop (a Monte-Carlo inner loop, NESSIE's "Iterated 1000 times") is
yielded whole as a :class:`Chain`: an engine with ``run_chains`` (the compiled harness)
runs it without returning; any other engine gets it one block per call
(:func:`run_chains_by_blocks`), with the same result.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import VectorRecord

__all__ = ["Mismatch", "Chain", "RULES", "run_chains_by_blocks", "kat_check", "iterated_check",
           "mct_check", "mct_inner"]

#: how a chain makes each input from earlier outputs (see cf_chain in the Verilator harness):
#: ``ecb`` in = x, x = out; ``cbc-encrypt`` in = x ^ chain, chain = out, x = the output before;
#: ``cbc-decrypt-prev`` out = D(x) ^ chain, chain = x, x = the output before (AESAVS);
#: ``cbc-decrypt-out`` out = D(x) ^ chain, chain = x, x = out (AES submission, TDES)
RULES = {"ecb": 0, "cbc-encrypt": 1, "cbc-decrypt-prev": 2, "cbc-decrypt-out": 3}


@dataclass(frozen=True)
class Chain:
    """A feedback loop of ``inner`` blocks under one key; its result is
    ``(last three outputs, newest first, as a list; the final chain value)``."""

    key: bytes
    decrypt: bool
    rule: str                      # a key of RULES
    text: bytes                    # the first input
    iv: bytes | None
    inner: int


def run_chains_by_blocks(engine, chains: list[Chain]) -> list:
    """Chains on an engine that computes blocks only: all chains advance in lockstep,
    one block of each per engine call."""
    state = []
    for c in chains:
        iv = c.iv or bytes(len(c.text))
        state.append({"x": c.text, "chain": iv, "prev": iv, "tail": [bytes(len(c.text))] * 3})
    for _ in range(max((c.inner for c in chains), default=0)):
        live = [i for i, c in enumerate(chains) if c.inner > _]
        jobs = []
        for i in live:
            c, s = chains[i], state[i]
            jobs.append((c.key, c.decrypt, [_xor(s["x"], s["chain"]) if c.rule == "cbc-encrypt" else s["x"]]))
        for i, (out,) in zip(live, engine.run(jobs)):
            c, s = chains[i], state[i]
            if c.rule.startswith("cbc-decrypt"):
                out = _xor(out, s["chain"])
            s["tail"] = [out, *s["tail"][:2]]
            if c.rule == "ecb":
                s["x"] = out
            elif c.rule == "cbc-encrypt":
                s["chain"], s["x"], s["prev"] = out, s["prev"], out
            elif c.rule == "cbc-decrypt-prev":
                s["chain"], s["x"], s["prev"] = s["x"], s["prev"], out
            else:
                s["chain"], s["x"] = s["x"], out
    return [(s["tail"], s["chain"]) for s in state]


@dataclass
class Mismatch:
    direction: str                # "encrypt" | "decrypt"
    input: list[bytes]
    expected: list[bytes]
    got: list[bytes]
    note: str = ""


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def _io(rec: VectorRecord, decrypt: bool):
    return (rec.ciphertext, rec.plaintext) if decrypt else (rec.plaintext, rec.ciphertext)


def _compare(direction, src, want, got, note=""):
    if list(got) == list(want):
        return None
    return Mismatch(direction, list(src), list(want), list(got), note)


def kat_check(rec: VectorRecord, decrypt: bool, iterated: bool = True):
    """KAT/MMT record in one direction: ECB in one job; CBC chained around the engine."""
    direction = "decrypt" if decrypt else "encrypt"
    src, want = _io(rec, decrypt)
    if rec.mode == "ECB":
        got = yield (rec.key, decrypt, list(src))
    elif decrypt:                  # P_i = D(C_i) ^ C_{i-1}, C_0 = IV: all blocks at once
        d = yield (rec.key, True, list(src))
        got = [_xor(x, c) for x, c in zip(d, [rec.iv, *src[:-1]])]
    else:                          # C_i = E(P_i ^ C_{i-1}): one block per engine call
        got, prev = [], rec.iv
        for p in src:
            (prev,) = yield (rec.key, False, [_xor(p, prev)])
            got.append(prev)
    result = _compare(direction, src, want, got)
    if result is None and iterated and rec.iterated:
        result = yield from iterated_check(rec, decrypt)
    return result


def iterated_check(rec: VectorRecord, decrypt: bool):
    """NESSIE "Iterated N times" = E^N(plain); a decrypt-only core checks D^N(value) = plain."""
    plain = rec.plaintext[0]
    x, done = plain, 0
    for n in sorted(rec.iterated):
        if not decrypt:                       # E^100, then 900 more for E^1000
            (tail, _) = yield Chain(rec.key, False, "ecb", x, None, n - done)
            x, done = tail[0], n
            if x != rec.iterated[n]:
                return Mismatch("encrypt", [plain], [rec.iterated[n]], [x],
                                f"plaintext encrypted {n} times")
        else:
            (tail, _) = yield Chain(rec.key, True, "ecb", rec.iterated[n], None, n)
            if tail[0] != plain:
                return Mismatch("decrypt", [rec.iterated[n]], [plain], [tail[0]],
                                f"'Iterated {n} times' value decrypted {n} times")
    return None


def mct_inner(key: bytes, iv: bytes | None, text: bytes, decrypt: bool, mode: str,
              inner: int, submission: bool):
    """One outer Monte-Carlo iteration (generator, one :class:`Chain`).

    AESAVS section 6.4 (100 x 1000) and the AES-submission rules (400 x 10000)
    agree except for the CBC decrypt chaining: AESAVS feeds CT[j+1] = PT[j-1]
    (CT[1] = IV) and continues with IV = PT[last], CT = PT[last-1]; the
    submission rules (and TDESVS) feed CT[j+1] = PT[j] and continue with IV = CT[last],
    CT = PT[last].  Returns ``(outputs, next_iv, next_text)``: the last three outputs,
    newest first.
    """
    if mode == "ECB":
        rule = "ecb"
    elif not decrypt:
        rule = "cbc-encrypt"
    else:
        rule = "cbc-decrypt-out" if submission else "cbc-decrypt-prev"
    tail, chain = yield Chain(key, decrypt, rule, text, iv, inner)
    last, prev = tail[0], tail[1]
    if rule == "ecb":
        return tail, None, last
    if rule == "cbc-decrypt-out":
        return tail, chain, last
    return tail, last, prev


def aes_next_key(key: bytes, tail: list[bytes]) -> bytes:
    """AESAVS / AES-submission Monte-Carlo key update: KEY ^= the last len(KEY) bytes of
    out[j-1] || out[j] (``tail`` newest first)."""
    return _xor(key, (tail[1] + tail[0])[-len(key):])


def _odd_parity(k: bytes) -> bytes:
    """Each byte's low bit set so that the byte has an odd number of ones (DES keys)."""
    return bytes((b & 0xFE) | (bin(b >> 1).count("1") + 1) % 2 for b in k)


def tdes_next_key(key: bytes, tail: list[bytes]) -> bytes:
    """TDESVS Monte-Carlo key update from the last three outputs (newest first):
    KEY1 ^= out[j]; KEY2 ^= out[j-1] unless KEY2 = KEY1 (then the new KEY1); KEY3 ^= out[j-2]
    unless KEY3 = KEY1 (then the new KEY1): keying options 3 (K1 = K2 = K3), 2 (K3 = K1) and
    1 (three keys) in one rule; then odd parity.  An 8- or 16-byte key updates its parts alike."""
    parts = [key[i:i + 8] for i in range(0, len(key), 8)]
    new = [_xor(parts[0], tail[0])]
    for i, part in enumerate(parts[1:], 1):
        new.append(new[0] if part == parts[0] else _xor(part, tail[i]))
    return b"".join(_odd_parity(k) for k in new)


def mct_check(rec: VectorRecord, nxt: VectorRecord | None):
    """A Monte-Carlo outer record, started from its own KEY/IV/text; when the next
    record follows, also checks the KEY/IV/text it derives for that record."""
    decrypt = rec.decrypt
    direction = "decrypt" if decrypt else "encrypt"
    tdes = len(rec.plaintext[0]) == 8               # TDESVS: 400 x 10000, keys by option
    submission = rec.format == "submission" or tdes
    inner = 10000 if submission else 1000
    src, want = _io(rec, decrypt)
    tail, iv, text = yield from mct_inner(rec.key, rec.iv, src[0], decrypt, rec.mode,
                                          inner, submission)
    last = tail[0]
    if tdes:
        key = tdes_next_key(rec.key, tail)
    else:
        key = aes_next_key(rec.key, tail)
    if last != want[0]:
        return Mismatch(direction, src, want, [last], f"after {inner} iterations")
    if nxt is not None:
        n_src, _ = _io(nxt, decrypt)
        exp = [nxt.key, *([nxt.iv] if iv else []), n_src[0]]
        got = [key, *([iv] if iv else []), text]
        if exp != got:
            return Mismatch(direction, src, exp, got,
                            f"KEY{', IV' if iv else ''}, input derived for the next record "
                            f"(line {nxt.line}) differ from the file's")
    return None
