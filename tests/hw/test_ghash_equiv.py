"""hw.ghash_equiv: the GHASH product circuit proven by its algebraic normal form, and
wrong circuits (wrong reduction, a missing or extra term, non-bilinear) refused."""

import pytest

from cipherfab.hw.gf128 import GCM, Field
from cipherfab.hw.ghash_equiv import gold_verilog, prove

AES = Field(8, 0x11B)


def test_gcm_product_proven():
    ok, summary = prove(GCM)
    assert ok, summary


def test_small_fields_proven():
    for field in (AES, Field(16, 0x1002B)):
        ok, summary = prove(field)
        assert ok, summary


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
])
def test_wrong_circuits_refused(gate, why):
    ok, summary = prove(AES, gate=gate)
    assert not ok and why in summary, summary
