"""The block modes over a cipher's reference model (``encrypt|decrypt`` checks the system's
output against it before writing a file; ``verify`` checks the system's OFB, CFB and XTS
with it): ECB, CTR and XTS in bulk, CBC decryption and CFB decryption in bulk, CBC
encryption, OFB and CFB encryption one block after another.  For AES and DES the model is
OpenSSL's through ``cryptography``."""

from __future__ import annotations

import numpy as np

from ..errors import CipherfabError
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


def system_mode(name: str, decrypt: bool):
    """The system's mode (``hw.modes.Mode``) for a block mode's name (ecb, cbc, ctr, ofb, cfb,
    cfb8, cfb1) and direction (CTR and OFB: the same both ways)."""
    from ..hw.modes import Mode
    if name in ("ctr", "ofb"):
        return Mode[name.upper()]
    return Mode[f"{name.upper()}_{'DECRYPT' if decrypt else 'ENCRYPT'}"]


#: the ciphers whose CFB8 OpenSSL has (through ``cryptography``)
OPENSSL_CFB8 = ("aes", "tdes")


def segments(data: bytes, s: int, bits: int | None = None) -> list[int]:
    """A message as CFB's s-bit segments (s = 8 or 1), most significant bit first:
    ``bits`` of ``data`` (default all of it; CFB1 takes any number of bits)."""
    bits = 8 * len(data) if bits is None else bits
    if s == 8:
        return list(data[:bits // 8])
    return [data[i // 8] >> (7 - i % 8) & 1 for i in range(bits)]


def packed(segs: list[int], s: int) -> bytes:
    """Segments back to bytes (CFB1: the bits most significant first, the last byte's
    unused bits zero)."""
    if s == 8:
        return bytes(segs)
    out = bytearray(-(-len(segs) // 8))
    for i, b in enumerate(segs):
        out[i // 8] |= b << (7 - i % 8)
    return bytes(out)


def cfb_segment_inputs(iv: bytes, ciphertext: list[int], s: int) -> bytes:
    """The cipher inputs I_1 .. I_n of CFB with s-bit segments (SP 800-38A 6.3): the IV,
    then each shifted left by s with the ciphertext segment in; all known from the
    ciphertext, so decryption runs them in bulk."""
    n, mask = 8 * len(iv), (1 << 8 * len(iv)) - 1
    x, out = int.from_bytes(iv, "big"), []
    for c in ciphertext:
        out.append(x.to_bytes(n // 8, "big"))
        x = (x << s | c) & mask
    return b"".join(out)


def cfb_segment_reference(cipher: str, key: bytes, s: int, iv: bytes, data: bytes,
                          decrypt: bool, bits: int | None = None) -> bytes:
    """CFB8 or CFB1 (SP 800-38A 6.3 with s = 8, 1) of ``bits`` of ``data``, packed as
    :func:`packed`: OpenSSL's CFB8 through ``cryptography`` for AES and TDES; otherwise
    the construction over the cipher's reference model, decryption in bulk
    (:func:`cfb_segment_inputs`) and encryption a segment after another."""
    if s == 8 and cipher in OPENSSL_CFB8:
        from cryptography.hazmat.decrepit.ciphers.modes import CFB8
        from cryptography.hazmat.primitives.ciphers import Cipher
        if cipher == "aes":
            from cryptography.hazmat.primitives.ciphers.algorithms import AES as algorithm
        else:
            from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES as algorithm
        c = Cipher(algorithm(key), CFB8(iv))
        return (c.decryptor() if decrypt else c.encryptor()).update(data)
    model = get_cipher(cipher).reference_model(8 * len(key))
    return cfb_segment_model(lambda x: model.encrypt(key, x), s, iv, data, decrypt, bits)


def cfb_segment_agrees(cipher: str, key: bytes, s: int, iv: bytes, given: bytes, out: bytes,
                       decrypt: bool, bits: int | None = None) -> bool:
    """``out`` is CFB8 or CFB1 of ``given``: compared with :func:`cfb_segment_reference`,
    except where that would encrypt a segment after another (CFB1, and CFB8 of ciphers
    OpenSSL does not have): there ``out`` is decrypted in bulk and compared with ``given``.
    The same verdict: a CFB decryption is one-to-one (the first segment where two
    ciphertexts differ has the same cipher input in both, so their plaintexts differ there
    too), so the one ciphertext that decrypts to the plaintext is its encryption."""
    if decrypt or (s == 8 and cipher in OPENSSL_CFB8):
        return out == cfb_segment_reference(cipher, key, s, iv, given, decrypt, bits)
    return given == cfb_segment_reference(cipher, key, s, iv, out, True, bits)


def cfb_segment_model(encrypt, s: int, iv: bytes, data: bytes, decrypt: bool,
                      bits: int | None = None) -> bytes:
    """CFB with s-bit segments over the bulk block function ``encrypt`` (bytes -> bytes):
    decryption in bulk, encryption a segment after another."""
    segs, bb = segments(data, s, bits), len(iv)
    top = 8 * bb - s
    if decrypt:
        stream = encrypt(cfb_segment_inputs(iv, segs, s))
        return packed([c ^ int.from_bytes(stream[j * bb:(j + 1) * bb], "big") >> top
                       for j, c in enumerate(segs)], s)
    x, mask, out = int.from_bytes(iv, "big"), (1 << 8 * bb) - 1, []
    for p in segs:
        out.append(p ^ int.from_bytes(encrypt(x.to_bytes(bb, "big")), "big") >> top)
        x = (x << s | out[-1]) & mask
    return packed(out, s)


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


#: XTS's blocks are 128 bits (IEEE 1619)
XTS_BLOCK = 16


def check_wide_core(mode: str, cipher: str, info) -> None:
    """GCM, CCM and XTS are modes of 128-bit block ciphers: another block size is one line."""
    if info.block_bits != 128:
        raise CipherfabError(f"{mode} needs a 128-bit block cipher; {cipher} has "
                             f"{info.block_bits}-bit blocks")


def check_two_key_core(top: str, info) -> None:
    """XTS takes two keys: a core built for one key (no key port) is one line."""
    if info.key_interface == "none":
        raise CipherfabError(f"xts needs a core with a key port (two keys): {top} is built for "
                             f"one key")


def xts_alpha(t: bytes) -> bytes:
    """The tweak times alpha in GF(2^128) (IEEE 1619 5.2): the bytes a little-endian number,
    shifted left one bit, 0x87 folded into byte 0 when bit 127 falls out."""
    v = int.from_bytes(t, "little")
    return ((v << 1 & (1 << 128) - 1) ^ (0x87 if v >> 127 else 0)).to_bytes(16, "little")


def xts_tweaks(t0: bytes, count: int) -> list[bytes]:
    """T_0 .. T_{count-1}: the encrypted tweak ``t0`` times alpha^j."""
    ts = [t0]
    for _ in range(count - 1):
        ts.append(xts_alpha(ts[-1]))
    return ts[:count]


def xts_unit_tweaks(first: bytes, units: int) -> list[bytes]:
    """The tweaks of ``units`` consecutive data units from the first one's: +1 each, as
    little-endian 128-bit numbers (a data unit's sequence number, IEEE 1619 5.1)."""
    start = int.from_bytes(first, "little")
    return [((start + u) % (1 << 128)).to_bytes(16, "little") for u in range(units)]


def xts_steal(whole, data: bytes, decrypt: bool) -> bytes:
    """One data unit of XTS (IEEE 1619 5.3.2, 5.4.2) over ``whole(j, blocks) -> bytes``, XTS
    of whole blocks whose first takes the tweak T_j: the blocks as they are, and for a unit
    that is not whole blocks ciphertext stealing (encrypting: the last whole block's
    output lends its tail to the partial block, which is encrypted with T_n; decrypting:
    the last whole block is decrypted with T_n, the stolen block with T_{n-1})."""
    n, b = divmod(len(data), XTS_BLOCK)
    if b == 0:
        return whole(0, data)
    if not decrypt:
        head = whole(0, data[:XTS_BLOCK * n])
        cc = head[-XTS_BLOCK:]
        return head[:-XTS_BLOCK] + whole(n, data[XTS_BLOCK * n:] + cc[b:]) + cc[:b]
    head = whole(0, data[:XTS_BLOCK * (n - 1)]) if n > 1 else b""
    pp = whole(n, data[XTS_BLOCK * (n - 1):XTS_BLOCK * n])
    return head + whole(n - 1, data[XTS_BLOCK * n:] + pp[b:]) + pp[:b]


def xts_reference(cipher: str, key: bytes, tweak: bytes, data: bytes, decrypt: bool) -> bytes:
    """One data unit of XTS under ``key`` (K1 then K2, as IEEE 1619 and cryptography take
    it) and the 16-byte ``tweak``: OpenSSL's through ``cryptography`` for XTS-AES-128 and
    -256 (IEEE 1619's two), else :func:`xts_model` over the cipher's reference model (for
    AES-192 keys, which IEEE 1619 does not name, the same construction over OpenSSL's AES)."""
    if cipher == "aes" and len(key) in (32, 64):
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        c = Cipher(algorithms.AES(key), modes.XTS(tweak))
        return (c.decryptor() if decrypt else c.encryptor()).update(data)
    half = len(key) // 2
    model = get_cipher(cipher).reference_model(8 * half)
    k1, k2 = key[:half], key[half:]
    return xts_model(lambda x: model.encrypt(k1, x), lambda y: model.decrypt(k1, y),
                     model.encrypt(k2, tweak), data, decrypt)


def xts_model(encrypt, decrypt_fn, t0: bytes, data: bytes, decrypt: bool) -> bytes:
    """One data unit of XTS over the bulk block functions of K1 (bytes -> bytes, whole
    blocks) from the encrypted tweak ``t0``: the whole blocks in bulk, then
    :func:`xts_steal`."""
    ts = xts_tweaks(t0, len(data) // XTS_BLOCK + 1)
    f = decrypt_fn if decrypt else encrypt

    def whole(j, blocks):
        t = np.frombuffer(b"".join(ts[j:j + len(blocks) // XTS_BLOCK]), np.uint8)
        x = np.frombuffer(blocks, np.uint8) ^ t
        return (np.frombuffer(f(x.tobytes()), np.uint8) ^ t).tobytes()
    return xts_steal(whole, data, decrypt)
