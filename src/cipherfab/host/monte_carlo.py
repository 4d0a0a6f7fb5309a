"""AESAVS Monte-Carlo tests of OFB and CFB (CFB128, CFB8, CFB1) through the system.

AESAVS section 6.4 (the same rule for OFB, CFB1, CFB8 and CFB128, with segments of s bits:
the block for OFB and CFB128): each record is an outer iteration from its KEY, IV and first
input (PLAINTEXT encrypting, CIPHERTEXT decrypting); the inner loop runs 1000 segments as
one message of the mode, the mode's state carrying on, each next input made from earlier
outputs::

    input[j+1] = segment j of the IV         j < b/s (b the block's bits)
               = output[j - b/s]             otherwise

The record's last output is the file's CIPHERTEXT (PLAINTEXT decrypting); the next record
starts from KEY xor the last (key bits) of the outputs, IV = the last b bits of the outputs
and the first input output[999 - b/s].  The inner loop needs each output before the input
after next, so :meth:`.driver.Accelerator.run_stepped` streams it a segment at a time.
TDESVS's Monte-Carlo rules (10,000 inner iterations, its own key update) differ and are
not run through the system.
"""

from __future__ import annotations

INNER = 1000


def next_input(iv: int, s: int, n: int):
    """``next_input(j, outputs)``: the inner loop's input j + 1 (AESAVS 6.4)."""
    per = n // s

    def nxt(j: int, outputs: list[int]) -> int:
        if j < per:
            return iv >> (n - s * (j + 1)) & ((1 << s) - 1)
        return outputs[j - per]
    return nxt


def following(key: bytes, outputs: list[int], s: int, n: int) -> tuple[bytes, int, int]:
    """The next record's (KEY, IV, first input) from this one's key and outputs."""
    k = 8 * len(key)
    take = -(-max(k, n) // s)
    tail = 0
    for y in outputs[-take:]:
        tail = tail << s | y
    new_key = int.from_bytes(key, "big") ^ (tail & ((1 << k) - 1))
    return new_key.to_bytes(len(key), "big"), tail & ((1 << n) - 1), outputs[-1 - n // s]


def check_record(r, nxt, run, s: int, n: int) -> tuple[bool, str]:
    """A Monte-Carlo record through ``run(key, decrypt, iv, first, count, next_input) ->
    outputs``: (passed, what differs): its last output against the file's, and the KEY,
    IV and input it derives against ``nxt``'s, the record after it, when that one
    follows in the same section."""
    src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
    first, iv = _value(src[0], s, r.bits), int.from_bytes(r.iv, "big")
    outputs = run(r.key, r.decrypt, r.iv, first, INNER, next_input(iv, s, n))
    if outputs[-1] != _value(want[0], s, r.bits):
        return False, f"output {INNER}: {outputs[-1]:x} != {_value(want[0], s, r.bits):x}"
    if nxt is not None and nxt.section == r.section:
        n_src = nxt.ciphertext if nxt.decrypt else nxt.plaintext
        exp = (nxt.key, int.from_bytes(nxt.iv, "big"), _value(n_src[0], s, nxt.bits))
        if following(r.key, outputs, s, n) != exp:
            return False, (f"KEY, IV and input derived for the next record (line {nxt.line}) "
                           f"differ from the file's")
    return True, ""


def _value(text: bytes, s: int, bits: int | None) -> int:
    """A record's one-segment text as a number of s bits (CFB1: its one bit)."""
    v = int.from_bytes(text, "big")
    return v >> (8 * len(text) - bits) if bits else v
