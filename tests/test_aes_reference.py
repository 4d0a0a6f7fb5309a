"""The pure-Python AES model (FIPS-197) against the official files and `cryptography`."""

import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import cipherfab
from cipherfab.ciphers.aes import reference as aes
from cipherfab.vectors import format_report, parse_file, run_files, run_records

VEC = Path(__file__).parent / "vectors" / "aes"
SHIPPED = Path(cipherfab.__file__).parent / "vectors" / "kat" / "aes"   # the KAT files the package ships
KAT = sorted([*(VEC / "KAT_AES").glob("*.rsp"), *(SHIPPED / "KAT_AES").glob("*.rsp")],
             key=lambda p: p.name)


class ModelEngine:
    """The reference model as a runner engine; ``equivalent`` decrypts with EqInvCipher."""

    block_bytes = 16
    directions = frozenset({"encrypt", "decrypt"})

    def __init__(self, key_bits, equivalent=False):
        self.key_bits = key_bits
        self.decrypt = aes.decrypt_block_equivalent if equivalent else aes.decrypt_block

    def run(self, jobs):
        return [[(self.decrypt if d else aes.encrypt_block)(key, b) for b in blocks]
                for key, d, blocks in jobs]


def test_fips197_appendix_c():
    pt = bytes.fromhex("00112233445566778899aabbccddeeff")
    for bits, ct in [(128, "69c4e0d86a7b0430d8cdb78070b4c55a"),
                     (192, "dda97ca4864cdfe06eaf70a0ec0d7191"),
                     (256, "8ea2b7ca516745bfeafc49904b496089")]:
        key = bytes(range(bits // 8))
        assert aes.encrypt_block(key, pt).hex() == ct
        assert aes.decrypt_block(key, bytes.fromhex(ct)) == pt
        assert aes.decrypt_block_equivalent(key, bytes.fromhex(ct)) == pt


@pytest.mark.parametrize("bits", [128, 192, 256])
@pytest.mark.parametrize("equivalent", [False, True], ids=["InvCipher", "EqInvCipher"])
def test_model_passes_kat_and_mmt_files(bits, equivalent):
    files = [f for f in KAT if f.stem.endswith(str(bits))]
    if bits == 128:
        files.append(VEC / "aesmmt" / "ECBMMT128.rsp")
    reports = run_files(files, ModelEngine(bits, equivalent))
    text = format_report(reports)
    assert all(r.failed == 0 and r.skipped == 0 and r.passed > 0 for r in reports), text
    assert len(reports) == len(files)


def test_model_passes_monte_carlo_records():
    recs = parse_file(VEC / "aesmct" / "ECBMCT128.rsp")
    enc = [r for r in recs if not r.decrypt][:3]
    dec = [r for r in recs if r.decrypt][:3]
    (report,) = run_records(enc + dec, ModelEngine(128))
    assert (report.passed, report.failed) == (6, 0), report.first_failure


@pytest.mark.parametrize("bits", [128, 192, 256])
def test_model_matches_cryptography_on_random_inputs(bits):
    rnd = random.Random(bits)
    for _ in range(1000):
        key, block = rnd.randbytes(bits // 8), rnd.randbytes(16)
        c = Cipher(algorithms.AES(key), modes.ECB())
        ct = c.encryptor().update(block)
        assert aes.encrypt_block(key, block) == ct
        pt = c.decryptor().update(block)
        assert aes.decrypt_block(key, block) == pt
        assert aes.decrypt_block_equivalent(key, block) == pt
