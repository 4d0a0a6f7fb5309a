"""hw.gcm.ghash_equiv: the GHASH product circuit proven by its algebraic normal form, and
wrong circuits (wrong reduction, a missing or extra term, non-bilinear) refused."""

import pytest

from amaranth.hdl import Value

from cipherfab.hw.gcm import ghash_equiv
from cipherfab.hw.gcm.gf128 import GCM, Field
from cipherfab.hw.gcm.ghash import horner_step
from cipherfab.hw.gcm.ghash_equiv import gold_verilog, prove, prove_step

AES = Field(8, 0x11B)


def test_gcm_product_proven():
    ok, summary = prove(GCM)
    assert ok, summary


def test_small_field_proven():
    ok, summary = prove(AES)
    assert ok, summary


@pytest.mark.parametrize("field,digit", [(GCM, 8), (AES, 2)] + [
    pytest.param(GCM, d, marks=pytest.mark.slow) for d in (16, 32, 64)],
    ids=["gcm-8", "gf256-2", "gcm-16", "gcm-32", "gcm-64"])
def test_digit_step_proven(field, digit):
    ok, summary = prove_step(field, digit)
    assert ok, summary


@pytest.mark.parametrize("wrong,why", [
    (lambda z, dr, hr: Value.cast(hr)[3], "differs"),              # an H term alone
    (lambda z, dr, hr: Value.cast(z)[1] & Value.cast(dr)[0], "inconclusive"),   # Z D: not bilinear
    (lambda z, dr, hr: Value.cast(z)[7] ^ Value.cast(z)[7], "proven"),  # control: XOR of 0 changes nothing
], ids=["h-term", "z-times-d", "control"])
def test_wrong_steps_refused(monkeypatch, wrong, why):
    def step(m, z, dr, hr, field):
        return horner_step(m, z, dr, hr, field) ^ wrong(z, dr, hr)

    monkeypatch.setattr(ghash_equiv, "horner_step", step)
    ok, summary = prove_step(AES, 2)
    assert ok == (why == "proven") and (ok or why in summary), summary


def as_gate(verilog: str) -> str:
    return verilog.replace("module gold(", "module gate(")


@pytest.mark.parametrize("gate,why", [
    # Algorithm 1 for the wrong polynomial x^8 + x^4 + x^3 + 1 (the term x missing)
    (as_gate(gold_verilog(Field(8, 0x119))), "differs"),
    # the right circuit with one AND term flipped in output bit 3
    (as_gate(gold_verilog(AES)).replace("assign y = z[64 +: 8];",
                                        "assign y = z[64 +: 8] ^ ((x[2] & h[5]) << 3);"), "differs"),
    # the right circuit plus a constant
    (as_gate(gold_verilog(AES)).replace("assign y = z[64 +: 8];", "assign y = z[64 +: 8] ^ 8'h40;"),
     "differs"),
    # bilinear but not the product
    ("module gate(input [7:0] x, input [7:0] h, output [7:0] y); assign y = x & h; endmodule",
     "differs"),
    # degree 3: not evaluated, so not proven
    ("module gate(input [7:0] x, input [7:0] h, output [7:0] y);"
     " assign y = x & h & {8{x[1]}}; endmodule", "inconclusive"),
], ids=["wrong-polynomial", "flipped-term", "constant", "bitwise-and", "degree-3"])
def test_wrong_circuits_refused(gate, why):
    ok, summary = prove(AES, gate=gate)
    assert not ok and why in summary, summary
