"""The block modes over a cipher's reference model (``encrypt|decrypt`` checks the system's
output against it before writing a file; ``verify`` checks the system's OFB and CFB with it):
ECB and CTR in bulk, CBC decryption and CFB decryption in bulk, CBC encryption, OFB and CFB
encryption one block after another.  For AES and DES the model is OpenSSL's through
``cryptography``."""

from __future__ import annotations

import numpy as np

from ..registry import get_cipher


def reference(cipher: str, key_bits: int, key: bytes, mode: str, iv: bytes, data: bytes,
              decrypt: bool) -> bytes:
    """The mode over the cipher's reference model, ECB calls in bulk where the mode allows."""
    model = get_cipher(cipher).reference_model(key_bits)
    bb = len(iv)
    if mode == "ecb":
        return (model.decrypt if decrypt else model.encrypt)(key, data)
    if mode == "ctr":
        n = -(-len(data) // bb)
        start = int.from_bytes(iv, "big")
        counters = b"".join(((start + i) % (1 << (8 * bb))).to_bytes(bb, "big") for i in range(n))
        stream = np.frombuffer(model.encrypt(key, counters), np.uint8)[:len(data)]
        return (np.frombuffer(data, np.uint8) ^ stream).tobytes()
    if mode in ("ofb", "cfb"):
        return _feedback_reference(model, key, mode, iv, data, decrypt)
    if decrypt:                                          # CBC decrypt: in bulk
        plain = np.frombuffer(model.decrypt(key, data), np.uint8)
        prev = np.frombuffer(iv + data[:-bb], np.uint8)
        return (plain ^ prev).tobytes()
    out, chain = bytearray(), iv                         # CBC encrypt: one block after another
    for at in range(0, len(data), bb):
        chain = model.encrypt(key, bytes(a ^ b for a, b in zip(data[at:at + bb], chain)))
        out += chain
    return bytes(out)


def _feedback_reference(model, key: bytes, mode: str, iv: bytes, data: bytes, decrypt: bool) -> bytes:
    """OFB, or CFB with full-block segments (SP 800-38A 6.3, 6.4), over the block model; a
    partial last block takes the first bytes of its keystream block.  CFB decryption in
    bulk (every cipher input is known: the IV, then each ciphertext block), the rest one
    block after another."""
    bb = len(iv)
    if mode == "cfb" and decrypt:
        n = -(-len(data) // bb)
        stream = model.encrypt(key, iv + data[:(n - 1) * bb])
        return bytes(a ^ b for a, b in zip(data, stream))
    out, chain = bytearray(), iv
    for at in range(0, len(data), bb):
        keystream = model.encrypt(key, chain)
        done = bytes(a ^ b for a, b in zip(data[at:at + bb], keystream))
        out += done
        chain = keystream if mode == "ofb" else done
    return bytes(out)


#: SP 800-38B 5.3: R_b of the subkeys' doubling, by block bytes
CMAC_R = {16: 0x87, 8: 0x1B}


def cmac_reference(cipher: str, key: bytes, data: bytes) -> bytes:
    """The full CMAC (SP 800-38B) of ``data``: OpenSSL's through ``cryptography`` for AES,
    else SP 800-38B 6.2 over the cipher's reference model (:func:`cmac_model`)."""
    if cipher == "aes":
        from cryptography.hazmat.primitives.ciphers import algorithms
        from cryptography.hazmat.primitives.cmac import CMAC
        mac = CMAC(algorithms.AES(key))
        mac.update(data)
        return mac.finalize()
    model = get_cipher(cipher).reference_model(8 * len(key))
    return cmac_model(lambda block: model.encrypt(key, block), model.block_bits // 8, data)


def cmac_model(encrypt, bb: int, data: bytes) -> bytes:
    """SP 800-38B 6.1 and 6.2 over the block function ``encrypt`` (bytes -> bytes) of ``bb``
    bytes: the subkeys from ``L = E(0)``, CBC from a zero block, the last block XORed with
    K1 (whole) or K2 (padded ``10*``)."""
    top, mask = 8 * bb - 1, (1 << 8 * bb) - 1

    def dbl(x: int) -> int:
        return (x << 1 & mask) ^ (CMAC_R[bb] if x >> top else 0)

    k1 = dbl(int.from_bytes(encrypt(bytes(bb)), "big"))
    k2 = dbl(k1)
    blocks = [data[i:i + bb] for i in range(0, len(data), bb)] or [b""]
    whole = len(blocks[-1]) == bb
    last = int.from_bytes(blocks[-1] if whole else (blocks[-1] + b"\x80").ljust(bb, b"\0"), "big")
    blocks[-1] = (last ^ (k1 if whole else k2)).to_bytes(bb, "big")
    chain = bytes(bb)
    for b in blocks:
        chain = encrypt(bytes(x ^ y for x, y in zip(chain, b)))
    return chain
