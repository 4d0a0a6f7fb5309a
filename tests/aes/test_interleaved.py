"""The interleaved core's one-direction 2-stage points, whose round-key read address is a
register a clock ahead (InterleavedAES._read_address): KAT files, a random run with
backpressure and key changes, exact timing; encrypting (round 1 when no block returns) and
decrypting (round Nr - 1)."""

from pathlib import Path

import pytest

import cipherfab
from cipherfab.registry import resolve
from cipherfab.sim.verify import verify_point

VECTORS = Path(cipherfab.__file__).parent / "vectors" / "kat"


@pytest.mark.parametrize("params", [
    resolve("aes", "interleaved", key_bits=128, direction="encrypt", sbox="lut", stages=2),
    resolve("aes", "interleaved", key_bits=192, direction="decrypt", sbox="rom", stages=2),
], ids=lambda p: p.top)
def test_one_direction_two_stage_cores(params):
    res = verify_point(params, VECTORS, random_blocks=600, seed=5)
    assert res["ok"], res["line"]
