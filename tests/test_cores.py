"""Every registered core's test points: its KAT files, a random differential run with
backpressure and key changes, and every declared cycle count measured exactly.

This is ``cipherfab verify`` on each architecture's ``test_points``; ``cipherfab verify
--all`` runs the same on every valid parameter combination.
"""

from pathlib import Path

import pytest

import cipherfab
from cipherfab.registry import all_points
from cipherfab.sim.verify import verify_point

VECTORS = Path(cipherfab.__file__).parent / "vectors" / "kat"   # the KAT files verify runs


#: points whose Verilator build takes about a minute: checked with ``-m slow`` (and by
#: ``verify --all``); the default run checks the masked core in Amaranth's simulator
#: (tests/aes/test_masked_core.py)
SLOW = {"masked"}

#: test points that only add an option value or a key size to an architecture the default
#: run checks in other points, at 8 to 30 s each of a clean run (generation and Verilator
#: build; the CI budget is 10 minutes): checked with ``-m slow`` and by ``verify --all``.
#: What stays in the default run: every architecture of every cipher, its KAT files and a
#: random run on at least one point (``test_every_architecture_keeps_a_default_point``).
SLOW_POINTS = {
    "aes_unrolled_128_encrypt_lut_10",       # unrolled: lut_2 (192), composite_1 (256) stay
    "aes_pipeline_128_encrypt_lut_2",        # pipeline: tbox_4 fixed (128), rom_3 (256) stay
    "aes_pipeline_192_encrypt_rom_1_fixed",  #   (AES-192's schedule: iterative, unrolled, interleaved)
    "aes_pipeline_192_encrypt_rom_2_fixed_registered",   # lut_3 registered (key lane too) stays
    "aes_iterative_192_both_composite",      # iterative: 128 both lut, 192 rom decrypt folded stay
    "aes_iterative_256_encrypt_tbox_folded", #   (tbox: interleaved, pipeline; AES-256: pipeline, unrolled)
    "aes_interleaved_128_both_composite_4",  # interleaved: 192 decrypt rom_1, 128 both rom_2
    "aes_interleaved_256_both_lut_2",        #   separate and 128 tbox_3 stay (AES-256's key
                                             #   schedule: iterative, pipeline, unrolled stay)
    "serpent_iterative_192_encrypt_lut",     # serpent: 128 lut (one round a clock) stays
    "serpent_iterative_256_encrypt_lut_8",   #   (eight rounds a clock: 16 s)
    "mars_iterative_192_encrypt",            # mars: 256 logic stays (the same key schedule
    "mars_iterative_128_encrypt",            #   for every length)
    "twofish_iterative_128_encrypt",         # twofish: 192 rom, 256 stay
}


def _slow(p) -> bool:
    return p.arch in SLOW or p.top in SLOW_POINTS


@pytest.mark.parametrize("params", [pytest.param(p, marks=[pytest.mark.slow] if _slow(p) else [])
                                    for p in all_points(test_only=True)], ids=lambda p: p.top)
def test_core_passes_kat_random_and_timing(params):
    res = verify_point(params, VECTORS, random_blocks=2000, seed=1)
    assert res["ok"], res["line"]
    assert res["entry"]["verdict"] == "pass" and len(res["entry"]["verilog_sha256"]) == 64


def test_every_architecture_keeps_a_default_point():
    """The points under ``-m slow`` leave every (cipher, architecture) a point in the default
    run (the masked core's: tests/aes/test_masked_core.py), and name points that exist."""
    points = all_points(test_only=True)
    assert SLOW_POINTS <= {p.top for p in points}
    kept = {(p.cipher, p.arch) for p in points if not _slow(p)}
    assert {(p.cipher, p.arch) for p in points if p.arch not in SLOW} == kept
