"""GCM (SP 800-38D Algorithm 4 and 5) over any 128-bit block function, in Python: the
reference the system's GCM is checked against for ciphers OpenSSL does not run in GCM
(for AES the host checks against ``cryptography``'s AESGCM as well).  Blocks are
big-endian integers, as in :mod:`.gf128`."""

from __future__ import annotations

from typing import Callable

from .gf128 import blocks_of, ghash, ghash_input

TAG_BYTES = (4, 8, 12, 13, 14, 15, 16)


def j0_of(h: int, iv: bytes) -> int:
    """The pre-counter block: IV || 0^31 || 1 for a 96-bit IV, else GHASH_H(IV || 0 || [len(IV)]64)."""
    if len(iv) == 12:
        return int.from_bytes(iv, "big") << 32 | 1
    return ghash(h, blocks_of(iv) + [8 * len(iv)])


def inc32(x: int) -> int:
    return (x & ~0xFFFFFFFF) | ((x + 1) & 0xFFFFFFFF)


def _gctr(encrypt: Callable[[int], int], icb: int, data: bytes) -> bytes:
    out, cb = bytearray(), icb
    for at in range(0, len(data), 16):
        chunk = data[at:at + 16]
        stream = encrypt(cb).to_bytes(16, "big")[:len(chunk)]
        out += bytes(a ^ b for a, b in zip(chunk, stream))
        cb = inc32(cb)
    return bytes(out)


def _check(iv: bytes, tag_bytes: int) -> None:
    if not iv:
        raise ValueError("the GCM IV must be at least one byte")
    if tag_bytes not in TAG_BYTES:
        raise ValueError(f"a GCM tag is {', '.join(map(str, TAG_BYTES))} bytes, not {tag_bytes}")


def encrypt(encrypt_block: Callable[[int], int], iv: bytes, aad: bytes, plaintext: bytes,
            tag_bytes: int = 16) -> tuple[bytes, bytes]:
    """(ciphertext, tag) of ``plaintext`` and ``aad`` under the block function."""
    _check(iv, tag_bytes)
    h = encrypt_block(0)
    j0 = j0_of(h, iv)
    ct = _gctr(encrypt_block, inc32(j0), plaintext)
    s = ghash(h, ghash_input(aad, ct))
    return ct, (encrypt_block(j0) ^ s).to_bytes(16, "big")[:tag_bytes]


def decrypt(encrypt_block: Callable[[int], int], iv: bytes, aad: bytes, ciphertext: bytes,
            tag: bytes) -> bytes | None:
    """The plaintext, or None when the tag does not match."""
    import hmac
    _check(iv, len(tag))
    h = encrypt_block(0)
    j0 = j0_of(h, iv)
    s = ghash(h, ghash_input(aad, ciphertext))
    want = (encrypt_block(j0) ^ s).to_bytes(16, "big")[:len(tag)]
    if not hmac.compare_digest(want, tag):
        return None
    return _gctr(encrypt_block, inc32(j0), ciphertext)
