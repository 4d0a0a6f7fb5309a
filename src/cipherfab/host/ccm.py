"""CCM (NIST SP 800-38C) for 128-bit block ciphers: its formatting (Appendix A), its limits,
and the reference the system's CCM is checked against.

CCM is CBC-MAC over ``B0 || encoded AAD || payload`` (each zero-padded to whole blocks)
and CTR over the payload from the counter block ``Ctr_1``; the tag is the MAC's first
``t`` bytes XORed with ``E_K(Ctr_0)``.  The system runs both halves in its own modes (CBC
encrypt from a zero IV, CTR: :meth:`cipherfab.host.driver.Accelerator.run_ccm`); this
module formats what they take.
"""

from __future__ import annotations

import numpy as np

from ..errors import CipherfabError
from ..registry import get_cipher

TAG_BYTES = (4, 6, 8, 10, 12, 14, 16)      #: SP 800-38C A.1: t
NONCE_BYTES = tuple(range(7, 14))           #: SP 800-38C A.1: n (and q = 15 - n)
BLOCK = 16


def check(nonce_bytes: int, tag_bytes: int, aad_bytes: int, text_bytes: int) -> None:
    """SP 800-38C's limits, one line each: the nonce 7 to 13 bytes, the tag 4 to 16 bytes
    and even, the payload within what its length field (q = 15 - n bytes) holds."""
    if nonce_bytes not in NONCE_BYTES:
        raise CipherfabError(f"a CCM nonce is 7 to 13 bytes, not {nonce_bytes}")
    if tag_bytes not in TAG_BYTES:
        raise CipherfabError(f"a CCM tag is 4, 6, 8, 10, 12, 14 or 16 bytes, not {tag_bytes}")
    q = 15 - nonce_bytes
    if text_bytes >= 1 << 8 * q:
        raise CipherfabError(f"a CCM payload with a {nonce_bytes}-byte nonce (a {q}-byte length "
                             f"field) is at most {(1 << 8 * q) - 1} bytes, not {text_bytes}")
    if aad_bytes >= 1 << 64:
        raise CipherfabError("CCM's associated data is under 2^64 bytes")


def b0(nonce: bytes, aad_bytes: int, text_bytes: int, tag_bytes: int) -> bytes:
    """The first block (A.2.1): flags (Adata, (t - 2) / 2, q - 1), the nonce, Q."""
    q = 15 - len(nonce)
    flags = (64 if aad_bytes else 0) | ((tag_bytes - 2) // 2) << 3 | (q - 1)
    return bytes([flags]) + nonce + text_bytes.to_bytes(q, "big")


def encoded_aad(aad: bytes) -> bytes:
    """The associated data with its length in front (A.2.2), zero-padded to whole blocks;
    nothing when there is none."""
    a = len(aad)
    if not a:
        return b""
    head = (a.to_bytes(2, "big") if a < (1 << 16) - (1 << 8)
            else b"\xff\xfe" + a.to_bytes(4, "big") if a < 1 << 32 else b"\xff\xff" + a.to_bytes(8, "big"))
    return _padded(head + aad)


def counter0(nonce: bytes) -> bytes:
    """Ctr_0 (A.3): flags q - 1, the nonce, a zero count; Ctr_i is it plus i (the count
    never leaves its q bytes: a payload has fewer blocks than 2^(8q))."""
    return bytes([14 - len(nonce)]) + nonce + bytes(15 - len(nonce))


def mac_input(nonce: bytes, aad: bytes, text: bytes, tag_bytes: int) -> bytes:
    """What CBC-MAC runs over: B0, the encoded AAD, the payload zero-padded."""
    return b0(nonce, len(aad), len(text), tag_bytes) + encoded_aad(aad) + _padded(text)


def _padded(data: bytes) -> bytes:
    return data + bytes(-len(data) % BLOCK)


def reference(cipher: str, key: bytes, nonce: bytes, aad: bytes, data: bytes, tag_bytes: int,
              decrypt: bool, tag: bytes | None = None):
    """Encrypting: (ciphertext, tag).  Decrypting ``data`` with ``tag``: the plaintext, or
    None when the tag does not check.  OpenSSL's through ``cryptography``'s AESCCM for AES,
    else :func:`model` over the cipher's reference model."""
    if cipher == "aes":
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESCCM
        ccm = AESCCM(key, tag_length=tag_bytes)
        if not decrypt:
            out = ccm.encrypt(nonce, data, aad or None)
            return out[:len(data)], out[len(data):]
        try:
            return ccm.decrypt(nonce, data + tag, aad or None)
        except InvalidTag:
            return None
    ref = get_cipher(cipher).reference_model(8 * len(key))
    return model(lambda x: ref.encrypt(key, x), nonce, aad, data, tag_bytes, decrypt, tag)


def model(encrypt, nonce: bytes, aad: bytes, data: bytes, tag_bytes: int, decrypt: bool,
          tag: bytes | None = None):
    """SP 800-38C 6.1 and 6.2 over the bulk block function ``encrypt`` (bytes -> bytes,
    whole 16-byte blocks), results as :func:`reference`'s."""
    n = -(-len(data) // BLOCK)
    c0 = int.from_bytes(counter0(nonce), "big")
    stream = encrypt(b"".join((c0 + i).to_bytes(BLOCK, "big") for i in range(n + 1)))
    s0, keystream = stream[:BLOCK], np.frombuffer(stream[BLOCK:BLOCK + len(data)], np.uint8)
    text = (np.frombuffer(data, np.uint8) ^ keystream).tobytes()
    plain = text if decrypt else data
    y = bytes(BLOCK)
    blocks = mac_input(nonce, aad, plain, tag_bytes)
    for at in range(0, len(blocks), BLOCK):
        y = encrypt(bytes(a ^ b for a, b in zip(y, blocks[at:at + BLOCK])))
    mine = bytes(a ^ b for a, b in zip(y[:tag_bytes], s0))
    if not decrypt:
        return text, mine
    import hmac
    return text if hmac.compare_digest(mine, tag) else None


def run(acc, key: bytes, decrypt: bool, nonce: bytes, aad: bytes, data: bytes,
        tag: bytes | None = None, tag_bytes: int = 16, link="axi-dma", seed: int = 1):
    """CCM through the system around ``acc`` (a :class:`~cipherfab.host.driver.Accelerator`)
    as two messages in its own modes: CBC encrypt from a zero IV over :func:`mac_input` (the
    last output block is the MAC) and CTR from Ctr_0 over a zero block and the payload (the
    first output block is S_0, the rest the payload's keystream applied).  Decrypting, CTR
    runs first and the MAC over the plaintext it gave; the verdict is the driver's constant
    time comparison of the tags, and the plaintext is returned only with it.  A Run: ``out``
    the ciphertext (or plaintext, or b"" when the tag does not check), ``tag`` (encrypting)
    or ``authentic`` (decrypting), ``cycles`` both messages' together."""
    import hmac
    from dataclasses import replace
    from ..hw.modes import Mode
    from .mode_reference import check_wide_core
    check_wide_core("ccm", acc.params.cipher, acc.info)
    check(len(nonce), tag_bytes, len(aad), len(data))
    if decrypt and (tag is None or len(tag) != tag_bytes):
        raise CipherfabError(f"decrypting needs the received tag, {tag_bytes} bytes")

    def mac(plain):
        r = acc.run(key, Mode.CBC_ENCRYPT, mac_input(nonce, aad, plain, tag_bytes), bytes(BLOCK),
                    link=link, seed=seed)
        return r, r.out[-BLOCK:][:tag_bytes]

    ctr = acc.run(key, Mode.CTR, bytes(BLOCK) + data, counter0(nonce), link=link, seed=seed)
    s0, text = ctr.out[:BLOCK], ctr.out[BLOCK:]
    mac_run, t = mac(text if decrypt else data)
    mine = bytes(a ^ b for a, b in zip(t, s0))
    both = dict(cycles=ctr.cycles + mac_run.cycles, blocks=-(-len(data) // BLOCK),
                in_link_wait=ctr.in_link_wait + mac_run.in_link_wait,
                out_link_wait=ctr.out_link_wait + mac_run.out_link_wait,
                counters={k: ctr.counters[k] + mac_run.counters[k] for k in ctr.counters},
                notes=[f"CBC-MAC {mac_run.cycles} clocks ({len(mac_run.out) // BLOCK} blocks), "
                       f"CTR {ctr.cycles} clocks ({-(-len(ctr.out) // BLOCK)} blocks)"],
                message_bytes=len(data))
    if not decrypt:
        return replace(ctr, out=text, tag=mine, **both)
    ok = hmac.compare_digest(mine, tag)
    return replace(ctr, out=text if ok else b"", authentic=ok, **both)
