"""A core with a seed port in the accelerator system: the SEED registers, SEED_LOAD and the
STATUS/INFO bits, and the host driver that seeds it after every reset (os.urandom, or a fixed
seed) before the key.  On toyseed (tests/registry/seedtoys) whose results show the first 8 bytes
of the seed it took; cores without a seed port get none of it."""

import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.host.driver import Accelerator
from cipherfab.hw.system import system as regs
from cipherfab.hw.modes import Mode
from cipherfab.registry import resolve

pytestmark = pytest.mark.usefixtures("seed_registry")
KEY = bytes.fromhex("0123456789abcdef")
S1, S2 = bytes(range(1, 21)), bytes(range(50, 70))


def _xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def _shown(data, seed):
    return b"".join(_xor(_xor(data[i:i + 8], KEY), seed[:8]) for i in range(0, len(data), 8))


@pytest.fixture
def acc():
    return Accelerator(resolve("toyseed", shows="seed", warmup=3), depth=16, entropy=S1)


def test_the_driver_seeds_the_core_before_the_key(acc):
    data = bytes(range(64))
    assert acc.run(KEY, Mode.ECB_ENCRYPT, data).out == _shown(data, S1)
    acc.entropy = S2
    assert acc.run(KEY, Mode.ECB_ENCRYPT, data).out == _shown(data, S2)
    acc.entropy = None                                   # fresh seeds from os.urandom
    a, b = (acc.run(KEY, Mode.ECB_ENCRYPT, data).out for _ in range(2))
    assert a != b and a[:8] != _shown(data, S2)[:8]
    assert len({_xor(_xor(a[i:i + 8], data[i:i + 8]), KEY) for i in range(0, 64, 8)}) == 1


def test_the_registers_take_a_seed_and_clear_asks_for_another(acc):
    with acc.model.open(1) as hw:
        info = hw.read(regs.INFO)
        assert info >> 26 & 1 and info >> 27 & 0xF == 5                   # needs a seed of 5 words
        assert hw.read(regs.STATUS) >> 8 & 3 == 0                          # nothing pending, not seeded
        with pytest.raises(CipherfabError, match="the core never took the reset's zero key"):
            acc._load_key(hw, KEY)                                         # no seed: no key either
        acc.seed(hw, S1)
        assert hw.read(regs.STATUS) >> 8 & 3 == 0b10                       # seeded
        acc._load_key(hw, KEY)
        assert hw.read(regs.SEED) == 0                                     # write-only
        hw.write(regs.CTRL, 2)                                             # clear: a fresh seed is needed
        assert hw.read(regs.STATUS) >> 8 & 3 == 0
        acc.seed(hw, S2)
        assert hw.read(regs.STATUS) >> 8 & 3 == 0b10


def test_a_system_without_a_seed_port_has_none_of_it():
    from cipherfab.generate import declaration
    from hw.doubles import PipeCore
    assert regs.info_word(declaration(resolve("aes"))) >> 26 == 0
    system = regs.AcceleratorSystem(PipeCore(), depth=4)
    for unused in (system, system.accelerator, system.accelerator.core):
        unused._MustUse__used = True                     # only its ports were wanted
    assert system.seed_words == [] and "seed" not in system.accelerator.signature.members


@pytest.mark.parametrize("entropy, message", [
    (bytes(19), "the seed must be 20 bytes, not 19"),
    (bytes(21), "the seed must be 20 bytes, not 21"),
])
def test_the_driver_refuses_a_wrong_seed_before_compiling(entropy, message):
    with pytest.raises(CipherfabError, match=message):
        Accelerator(resolve("toyseed"), depth=16, entropy=entropy)


def test_a_core_without_a_seed_port_takes_no_seed():
    with pytest.raises(CipherfabError, match="aes_iterative_128_encrypt_lut has no seed port: it takes no seed"):
        Accelerator(resolve("aes"), entropy=bytes(20))


def test_encrypt_with_a_fixed_seed(tmp_path, capsys):
    src, out = tmp_path / "in.bin", tmp_path / "out.bin"
    src.write_bytes(bytes(40))
    argv = ["encrypt", "toyseed", "--key", KEY.hex(), "--mode", "ecb", "--in", str(src), "--out", str(out),
            "--depth", "16", "--seed-hex", S1.hex()]
    assert main(argv) == 0 and out.read_bytes()[:16] == KEY * 2
