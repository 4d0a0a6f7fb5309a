"""The host driver (host.driver.Accelerator) on the Verilated system: every mode against
the reference, messages of any length in CTR, XTS data units with ciphertext stealing, the
link model's effect, bad input."""

import os
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.errors import CipherfabError
from cipherfab.host.cli import reference
from cipherfab.host.driver import Accelerator
from cipherfab.host.mode_reference import cfb_segment_reference, xts_model, xts_reference, xts_unit_tweaks
from cipherfab.host.link import LINKS, get_link
from cipherfab.hw.modes import Mode
from cipherfab.registry import resolve


@pytest.fixture(scope="module")
def acc():
    # both directions, 2 blocks in flight, 32-bit AXI4-Stream (width conversion), small FIFOs
    return Accelerator(resolve("aes", "interleaved", key_bits=192, direction="both", sbox="rom",
                               stages=2), width=32, depth=16)


MODES = {Mode.ECB_ENCRYPT: ("ecb", False), Mode.ECB_DECRYPT: ("ecb", True),
         Mode.CBC_ENCRYPT: ("cbc", False), Mode.CBC_DECRYPT: ("cbc", True), Mode.CTR: ("ctr", False),
         Mode.OFB: ("ofb", False), Mode.CFB_ENCRYPT: ("cfb", False), Mode.CFB_DECRYPT: ("cfb", True)}


@pytest.mark.parametrize("mode", [m for m in Mode if not m.layer], ids=lambda m: m.name.lower())
def test_every_mode_against_the_reference(acc, mode):
    rng = random.Random(mode.value)
    key, iv = rng.randbytes(24), rng.randbytes(16)
    data = rng.randbytes(16 * 300 + (37 if mode.stream else 0))
    if mode.segment_bits:           # a segment a block on the 32-bit stream; CFB1: 557 bits
        s, data = mode.segment_bits, rng.randbytes(70)
        bits = None if s == 8 else 8 * 70 - 3
        data = data[:-1] + bytes([data[-1] & 0xF8]) if bits else data
        r = acc.run(key, mode, data, iv, link="pcie-gen3x4", bits=bits)
        assert r.out == cfb_segment_reference("aes", key, s, iv, data, not mode.feedback, bits)
        assert r.counters["blocks_in"] == r.counters["blocks_out"] == r.blocks == (bits or 70)
        return
    r = acc.run(key, mode, data, iv, link="pcie-gen3x4")
    if mode.xts:        # the engine's part of XTS: whole blocks from the IV as the encrypted tweak
        ecb = Cipher(algorithms.AES(key), modes.ECB())
        want = xts_model(lambda x: ecb.encryptor().update(x), lambda y: ecb.decryptor().update(y),
                         iv, data, mode == Mode.XTS_DECRYPT)
    else:
        name, decrypt = MODES[mode]
        want = reference("aes", 192, key, name, iv, data, decrypt)
    assert r.out == want
    assert r.counters["blocks_in"] == r.counters["blocks_out"] == -(-len(data) // 16)


def test_the_next_gcm_message_under_a_key_is_the_same_and_quicker(acc):
    """``messages=2``: the second message under one key load has the same ciphertext and
    tag as the first (H kept, not stale) and takes fewer clocks (no H, no GHASH tables)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    rng = random.Random(7)
    key, iv, aad, text = rng.randbytes(24), rng.randbytes(12), rng.randbytes(20), rng.randbytes(100)
    first = acc.run_gcm(key, False, iv, aad, text, link="axi-dma")
    second = acc.run_gcm(key, False, iv, aad, text, link="axi-dma", messages=2)
    assert first.out + first.tag == second.out + second.tag == AESGCM(key).encrypt(iv, text, aad)
    assert second.cycles < first.cycles


def test_small_transfers_pay_the_link_latency(acc):
    """Paper 003 Fig. 7.7's effect: per-transfer latency dominates small transfers."""
    key, iv = bytes(24), bytes(16)
    small = acc.run(key, Mode.CTR, os.urandom(64), iv, link="pcie-gen3x4")
    large = acc.run(key, Mode.CTR, os.urandom(64 * 1024), iv, link="pcie-gen3x4")
    assert small.system_mbps < 0.5 * large.system_mbps
    assert large.system_mbps <= large.core_mbps * 1.001


def test_a_slow_link_starves_the_core(acc):
    r = acc.run(bytes(24), Mode.ECB_ENCRYPT, os.urandom(16 * 64), link="pilchard-uncached")
    assert r.in_link_wait > r.cycles / 2 and r.counters["starved"] > 0
    assert r.system_mbps < 0.5 * r.core_mbps
    # each clock the output link cannot take a result counts once (it counted twice: more
    # waiting clocks than clocks)
    assert 0 < r.out_link_wait <= r.cycles


def test_refusals(acc):
    with pytest.raises(CipherfabError, match="the key must be 24 bytes"):
        acc.run(bytes(16), Mode.CTR, b"x", bytes(16))
    with pytest.raises(CipherfabError, match="the IV must be one block, 16 bytes, not 8"):
        acc.run(bytes(24), Mode.CTR, b"x", bytes(8))
    with pytest.raises(CipherfabError, match="input is empty"):
        acc.run(bytes(24), Mode.CTR, b"", bytes(16))
    with pytest.raises(CipherfabError, match="unknown link 'modem'"):
        get_link("modem")
    with pytest.raises(CipherfabError, match="messages must be at least 1, not 0"):
        acc.run_gcm(bytes(24), False, bytes(12), b"", b"x", messages=0)
    enc_only = Accelerator.__new__(Accelerator)
    assert set(LINKS) >= {"pilchard-uncached", "pilchard-wc", "pcie-gen3x4", "pcie-gen3x8", "axi-dma"}
    del enc_only


class _Registers:
    """A system seen through its registers: STATUS idle with the given error flags."""

    def __init__(self, status):
        self.status = status

    def read(self, addr):
        return self.status


@pytest.mark.parametrize("status, words", [(1 | 1 << 2, "the system raised axis_error"),
                                           (1 | 1 << 1 | 1 << 7, "mode_error, gcm_error"),
                                           (0, "did not become idle")])
def test_a_system_that_misbehaves_fails_the_check_not_the_input(acc, status, words):
    with pytest.raises(CipherfabError, match=words) as e:
        acc._finish(_Registers(status))
    assert e.value.exit_code == 1          # a failed check (exit 1), not bad input (exit 2)


@pytest.mark.parametrize("decrypt", [False, True], ids=["encrypt", "decrypt"])
def test_xts_data_units_and_ciphertext_stealing_against_cryptography(acc, decrypt):
    """run_xts: the tweaks under K2, each unit under K1 from its own tweak (+1 a unit),
    units of whole blocks and units that steal ciphertext (17..47 bytes, and a file whose
    last unit is shorter), each equal to cryptography's XTS of that unit."""
    rng = random.Random(1619 + decrypt)
    for total, unit in ((16, None), (17, None), (31, None), (47, None), (64, 32), (100, 40),
                        (16 * 70 + 5, 16 * 9)):
        key, tweak = rng.randbytes(48), rng.randbytes(16)
        data = rng.randbytes(total)
        r = acc.run_xts(key, decrypt, tweak, data, unit)
        parts = [data[i:i + (unit or total)] for i in range(0, total, unit or total)]
        want = b"".join(xts_reference("aes", key, t, p, decrypt)
                        for t, p in zip(xts_unit_tweaks(tweak, len(parts)), parts))
        assert r.out == want, (total, unit)


def test_xts_refusals(acc):
    key = bytes(range(48))
    for args, problem in (((bytes(24) * 2, False, bytes(16), bytes(32)), "two halves are equal"),
                          ((key[:40], False, bytes(16), bytes(32)), "two 24-byte keys, 48 bytes, not 40"),
                          ((key, False, bytes(15), bytes(32)), "tweak is 16 bytes, not 15"),
                          ((key, False, bytes(16), bytes(15)), "at least 16 bytes; the input has 15"),
                          ((key, True, bytes(16), bytes(40), 32), "last XTS data unit would be 8 bytes"),
                          ((key, True, bytes(16), bytes(40), 8), "16 bytes to 16 MiB"),
                          ((key, True, bytes(16), bytes(40), 1 + (16 << 20)), "16 bytes to 16 MiB")):
        with pytest.raises(CipherfabError, match=problem):
            acc.run_xts(*args)


def test_a_system_built_with_fewer_modes_runs_them_and_refuses_the_rest():
    """``modes``: the system's MODES register and the driver know the set; each mode built
    runs right; one left out is refused by the driver in one line, and by the hardware
    (``mode_error``) when a host asks anyway."""
    p = resolve("aes", "iterative", key_bits=128, sbox="rom")
    acc = Accelerator(p, modes=("ecb", "ctr", "cfb8"))
    assert acc.modes == {Mode.ECB_ENCRYPT, Mode.CTR, Mode.CFB8_ENCRYPT, Mode.CFB8_DECRYPT}
    assert acc.mode_names == ("ecb", "ctr", "cfb8") and acc.ghash is None
    rng = random.Random(11)
    key, iv, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(80)
    assert acc.run(key, Mode.CTR, data, iv).out == reference("aes", 128, key, "ctr", iv, data, False)
    assert acc.run(key, Mode.ECB_ENCRYPT, data, iv).out == reference("aes", 128, key, "ecb", iv, data, False)
    for mode in (Mode.CFB8_ENCRYPT, Mode.CFB8_DECRYPT):
        assert acc.run(key, mode, data[:30], iv).out == \
            cfb_segment_reference("aes", key, 8, iv, data[:30], mode == Mode.CFB8_DECRYPT)
    with pytest.raises(CipherfabError, match=r"built without cbc \(--modes ecb,ctr,cfb8\)"):
        acc.run(key, Mode.CBC_ENCRYPT, data, iv)
    with pytest.raises(CipherfabError, match="built without gcm"):
        acc.run_gcm(key, False, iv[:12], b"", data)
    with pytest.raises(CipherfabError, match="built without cfb"):
        acc.run(key, Mode.CFB_ENCRYPT, data, iv)
    from cipherfab.hw.system import system as regs
    with acc._open(1) as hw:                         # a host that asks anyway
        assert hw.read(regs.MODES) == sum(1 << m.value for m in acc.modes)
        for mode, refused in ((Mode.CBC_ENCRYPT, True), (Mode.CFB_ENCRYPT, True), (Mode.CTR, False)):
            hw.write(regs.CTRL, 1 | mode.value << 4)
            status = [hw.read(regs.STATUS) for _ in range(4)][-1]
            assert bool(status >> 1 & 1) == refused, mode
