"""host.ccm: SP 800-38C's formatting and limits, the model against cryptography's AESCCM,
and CCM through the system (two messages: CBC-MAC and CTR) against it."""

import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.errors import CipherfabError
from cipherfab.host import ccm


def _ecb(key):
    c = Cipher(algorithms.AES(key), modes.ECB())
    return lambda x: c.encryptor().update(x)


def test_the_model_is_cryptographys_ccm_for_every_nonce_and_tag_length():
    """Every nonce length (7..13), every tag length, AAD of 0 to 300 bytes and one of 65,280
    (the length's 0xfffe form), payloads of 0 to 99 bytes, AES-128/192/256; decryption
    gives the payload back and a changed tag is refused."""
    rng = random.Random(38)
    cases = [(n, t, rng.choice((0, 1, 15, 16, 17, 300))) for n in ccm.NONCE_BYTES for t in ccm.TAG_BYTES]
    cases.append((12, 16, (1 << 16) - (1 << 8)))
    for n, t, a in cases:
        key = rng.randbytes(rng.choice((16, 24, 32)))
        nonce, aad, data = rng.randbytes(n), rng.randbytes(a), rng.randbytes(rng.randrange(100))
        ct, tag = ccm.model(_ecb(key), nonce, aad, data, t, False)
        assert (ct, tag) == ccm.reference("aes", key, nonce, aad, data, t, False), (n, t, a)
        assert ccm.model(_ecb(key), nonce, aad, ct, t, True, tag) == data
        assert ccm.model(_ecb(key), nonce, aad, ct, t, True, bytes([tag[0] ^ 0x80]) + tag[1:]) is None


def test_formatting_is_sp_800_38c_appendix_a():
    """SP 800-38C C.1's example 1: K = 40..4f, N = 10..16, A = 00..07, P = 20..23, Tlen 32:
    B0, the encoded AAD, Ctr_0 and the result."""
    nonce, aad, data = bytes(range(0x10, 0x17)), bytes(range(8)), bytes(range(0x20, 0x24))
    assert ccm.b0(nonce, 8, 4, 4).hex() == "4f101112131415160000000000000004"
    assert ccm.encoded_aad(aad).hex() == "00080001020304050607" + "00" * 6
    assert ccm.counter0(nonce).hex() == "07101112131415160000000000000000"
    ct, tag = ccm.reference("aes", bytes(range(0x40, 0x50)), nonce, aad, data, 4, False)
    assert (ct + tag).hex() == "7162015b4dac255d"
    assert ccm.encoded_aad(b"") == b""
    assert ccm.encoded_aad(bytes(1 << 16))[:6] == b"\xff\xfe\x00\x01\x00\x00"


@pytest.mark.parametrize("args, words", [
    ((6, 16, 0, 0), "a CCM nonce is 7 to 13 bytes, not 6"),
    ((14, 16, 0, 0), "a CCM nonce is 7 to 13 bytes, not 14"),
    ((12, 5, 0, 0), "a CCM tag is 4, 6, 8, 10, 12, 14 or 16 bytes, not 5"),
    ((12, 18, 0, 0), "not 18"),
    ((13, 16, 0, 1 << 16), "with a 13-byte nonce (a 2-byte length field) is at most 65535 bytes, not 65536"),
    ((12, 16, 0, 1 << 24), "with a 12-byte nonce (a 3-byte length field) is at most 16777215 bytes"),
])
def test_limits_are_one_line(args, words):
    with pytest.raises(CipherfabError, match=words.replace("(", r"\(").replace(")", r"\)")):
        ccm.check(*args)
    ccm.check(7, 4, 0, (1 << 64) - 1)                 # q = 8: any payload a file can be


def test_ccm_through_the_system():
    """Encrypt (ciphertext and tag as cryptography's), decrypt (accepted, payload back), and
    a changed tag, AAD or ciphertext refused with no payload, on the iterative core."""
    from cipherfab.host.driver import Accelerator
    from cipherfab.registry import resolve
    acc = Accelerator(resolve("aes", "iterative", sbox="rom"))
    rng = random.Random(7)
    for n, t, a, p in ((7, 4, 0, 0), (13, 16, 20, 33), (11, 10, 300, 100)):
        key, nonce, aad, data = rng.randbytes(16), rng.randbytes(n), rng.randbytes(a), rng.randbytes(p)
        r = ccm.run(acc, key, False, nonce, aad, data, None, t)
        ct, tag = ccm.reference("aes", key, nonce, aad, data, t, False)
        assert (r.out, r.tag) == (ct, tag)
        back = ccm.run(acc, key, True, nonce, aad, ct, tag, t)
        assert back.authentic and back.out == data
        forgeries = [(aad, ct, bytes([tag[0] ^ 1]) + tag[1:]), (aad + b"x", ct, tag)]
        if ct:
            forgeries.append((aad, ct[:-1] + bytes([ct[-1] ^ 1]), tag))
        for forged in forgeries:
            no = ccm.run(acc, key, True, nonce, *forged, t)
            assert no.authentic is False and no.out == b""
    with pytest.raises(CipherfabError, match="decrypting needs the received tag, 8 bytes"):
        ccm.run(acc, bytes(16), True, bytes(12), b"", b"x", bytes(4), 8)
    with pytest.raises(CipherfabError, match="a CCM nonce is 7 to 13 bytes, not 5"):
        ccm.run(acc, bytes(16), False, bytes(5), b"", b"x")
