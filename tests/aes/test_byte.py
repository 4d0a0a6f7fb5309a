"""The byte-serial AES-128 core: declared facts, lint, MMT/MCT files, protocol cases.

KAT files, the random run and exact timing of its test points run in tests/test_cores.py.
Area and Fmax goals are measured with ``cipherfab build``, never asserted here.
"""

import pytest

from cipherfab import registry
from cipherfab.ciphers.aes.byte import ByteAES
from cipherfab.errors import CipherfabError

from small_cores import (check_lint_clean, check_mmt_and_monte_carlo, check_reset_mid_block,
                         check_result_waits_and_keys_change_between_blocks, declared)


def test_declared_facts_and_refusals():
    assert registry.resolve("aes", "byte").top == "aes_byte_128_encrypt_rom"
    info = declared("byte")
    assert (info.latency, info.cycles_per_block, info.cycles_per_block_feedback,
            info.blocks_in_flight, info.key_setup_cycles) == (203, 204, 204, 1, 20)
    assert info.key_interface == "stream" and info.directions == ("encrypt",)
    assert info.parts == {"key_schedule": "key_schedule", "datapath": "datapath"}
    with pytest.raises(CipherfabError, match="--key-bits 256 is not supported"):
        registry.resolve("aes", "byte", key_bits=256)
    with pytest.raises(CipherfabError, match="--direction 'decrypt' is not supported"):
        registry.resolve("aes", "byte", direction="decrypt")
    with pytest.raises(CipherfabError, match="AES-128 encryption only"):
        ByteAES(direction="decrypt")


@pytest.mark.parametrize("sbox", ["rom", "lut"])
def test_generated_verilog_is_lint_clean(tmp_path, sbox):
    check_lint_clean("byte", sbox, tmp_path, latency=203)


def test_mmt_and_monte_carlo():
    check_mmt_and_monte_carlo("byte")


def test_result_waits_for_ready_and_keys_change_between_blocks():
    check_result_waits_and_keys_change_between_blocks("byte")


def test_reset_mid_block_leaves_core_idle_and_clears_keys():
    check_reset_mid_block("byte", reset_at=100, timeout=800)
