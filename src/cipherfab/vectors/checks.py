"""Per-record checks, written as generators so many records share one engine call.

Each check yields jobs ``(key, decrypt, blocks)``, receives the engine's
output blocks for that job, and finally returns ``None`` (pass) or a
:class:`Mismatch`.  CBC chaining and the Monte-Carlo loops run here, around
an engine that only ever computes single-key ECB blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import VectorRecord

__all__ = ["Mismatch", "kat_check", "iterated_check", "mct_check", "mct_inner"]


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
    if not decrypt:
        x = plain
        for step in range(1, max(rec.iterated) + 1):
            (x,) = yield (rec.key, False, [x])
            if step in rec.iterated and x != rec.iterated[step]:
                return Mismatch("encrypt", [plain], [rec.iterated[step]], [x],
                                f"plaintext encrypted {step} times")
        return None
    cur = dict(rec.iterated)
    for step in range(max(cur)):
        active = [n for n in sorted(cur) if step < n]
        out = yield (rec.key, True, [cur[n] for n in active])
        cur.update(zip(active, out))
    for n in sorted(cur):
        if cur[n] != plain:
            return Mismatch("decrypt", [rec.iterated[n]], [plain], [cur[n]],
                            f"'Iterated {n} times' value decrypted {n} times")
    return None


def mct_inner(key: bytes, iv: bytes | None, text: bytes, decrypt: bool, mode: str,
              inner: int, submission: bool):
    """One outer Monte-Carlo iteration (generator).

    AESAVS section 6.4 (100 x 1000) and the AES-submission rules (400 x 10000)
    agree except for the CBC decrypt chaining: AESAVS feeds CT[j+1] = PT[j-1]
    (CT[1] = IV) and continues with IV = PT[last], CT = PT[last-1]; the
    submission rules feed CT[j+1] = PT[j] and continue with IV = CT[last],
    CT = PT[last].  Returns ``(last, next_key, next_iv, next_text)``.
    """
    prev = last = None
    if mode == "ECB":
        inp = text
        for _ in range(inner):
            (out,) = yield (key, decrypt, [inp])
            prev, last, inp = last, out, out
        next_iv, next_text = None, last
    else:
        chain, prev_out, inp = iv, iv, text
        for _ in range(inner):
            if decrypt:
                (d,) = yield (key, True, [inp])
                out, chain = _xor(d, chain), inp
            else:
                (out,) = yield (key, False, [_xor(inp, chain)])
                chain = out
            if decrypt and submission:
                inp = out
            else:
                inp, prev_out = prev_out, out
            prev, last = last, out
        if decrypt and submission:
            next_iv, next_text = chain, last
        else:
            next_iv, next_text = last, prev
    tail = (prev + last)[-len(key):]
    return last, _xor(key, tail), next_iv, next_text


def mct_check(rec: VectorRecord, nxt: VectorRecord | None):
    """A Monte-Carlo outer record, started from its own KEY/IV/text; when the next
    record follows, also checks the KEY/IV/text it derives for that record."""
    decrypt = rec.decrypt
    direction = "decrypt" if decrypt else "encrypt"
    submission = rec.format == "submission"
    inner = 10000 if submission else 1000
    src, want = _io(rec, decrypt)
    last, key, iv, text = yield from mct_inner(rec.key, rec.iv, src[0], decrypt, rec.mode,
                                               inner, submission)
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
