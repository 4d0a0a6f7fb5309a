"""GCM over the reference, for checking the system's GCM (the host commands and verify)."""

from __future__ import annotations

from ..registry import get_cipher


def gcm_reference(cipher: str, key: bytes, iv: bytes, aad: bytes, data: bytes, tag_bytes: int,
                  decrypt: bool, tag: bytes | None = None):
    """GCM over the reference: (ciphertext, tag) when encrypting, the plaintext or None (a
    tag that does not match) when decrypting.  AES goes through OpenSSL's AESGCM (IVs of
    8 to 128 bytes, the lengths it takes), anything else through hw.gcm.gcm_model over the
    cipher's reference model."""
    if cipher == "aes" and 8 <= len(iv) <= 128:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        aead = AESGCM(key)
        if not decrypt:
            sealed = aead.encrypt(iv, data, aad)
            return sealed[:len(data)], sealed[len(data):][:tag_bytes]
        if tag_bytes < 16:          # AESGCM checks full tags: the model checks a truncated one
            return _gcm_model(cipher, key, iv, aad, data, tag_bytes, decrypt, tag)
        try:
            return aead.decrypt(iv, data + tag, aad)
        except InvalidTag:
            return None
    return _gcm_model(cipher, key, iv, aad, data, tag_bytes, decrypt, tag)


def _gcm_model(cipher, key, iv, aad, data, tag_bytes, decrypt, tag):
    from ..hw.gcm import gcm_model
    model = get_cipher(cipher).reference_model(8 * len(key))
    block = lambda x: int.from_bytes(model.encrypt(key, x.to_bytes(16, "big")), "big")
    if decrypt:
        return gcm_model.decrypt(block, iv, aad, data, tag)
    return gcm_model.encrypt(block, iv, aad, data, tag_bytes)
