"""The compact (column) AES-128 core: declared facts, lint, MMT/MCT files, protocol cases.

KAT files, the random run and exact timing of its test points run in tests/test_cores.py.
Area and Fmax goals are measured with ``cipherfab build``, never asserted here.
"""

import pytest

from cipherfab import registry
from cipherfab.ciphers.aes.compact import ColumnAES
from cipherfab.errors import CipherfabError

from small_cores import (check_lint_clean, check_mmt_and_monte_carlo, check_reset_mid_block,
                         check_result_waits_and_keys_change_between_blocks, declared)


def test_declared_facts_and_refusals():
    assert registry.resolve("aes", "column").top == "aes_column_128_encrypt_rom"
    info = declared("column")
    assert (info.latency, info.cycles_per_block, info.cycles_per_block_feedback,
            info.blocks_in_flight, info.key_setup_cycles) == (52, 55, 55, 1, 5)
    assert info.key_interface == "stream" and info.directions == ("encrypt",)
    assert info.parts == {"key_schedule": "key_schedule", "datapath": "datapath"}
    with pytest.raises(CipherfabError, match="--key-bits 256 is not supported"):
        registry.resolve("aes", "column", key_bits=256)
    with pytest.raises(CipherfabError, match="--direction 'decrypt' is not supported"):
        registry.resolve("aes", "column", direction="decrypt")
    with pytest.raises(CipherfabError, match="AES-128 encryption only"):
        ColumnAES(key_bits=256)


@pytest.mark.parametrize("sbox", ["rom", "lut"])
def test_generated_verilog_is_lint_clean(tmp_path, sbox):
    check_lint_clean("column", sbox, tmp_path, latency=52)


def test_mmt_and_monte_carlo():
    check_mmt_and_monte_carlo("column")


def test_result_waits_for_ready_and_keys_change_between_blocks():
    check_result_waits_and_keys_change_between_blocks("column")


def test_reset_mid_block_leaves_core_idle_and_clears_keys():
    check_reset_mid_block("column", reset_at=30, timeout=200)
