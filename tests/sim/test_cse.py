"""Duplicate wires computed once before Verilator builds (cipherfab.sim.cse)."""

import numpy as np
import pytest

from cipherfab.sim.cse import merge_duplicates
from cipherfab.sim.verilated import VerilatedCore

HEAD = r"""(* top =  1  *)
module top (a, b, y, z);
  input [7:0] a;
  wire [7:0] a;
  input [7:0] b;
  output [7:0] y;
  output [7:0] z;
"""


def module(body: str) -> str:
    return HEAD + body + "endmodule\n"


def test_copies_and_the_copies_built_on_them_merge():
    text = module(r"""  wire [7:0] \$1 ;
  wire [7:0] \$2 ;
  wire [7:0] \$3 ;
  wire [7:0] \$4 ;
  assign \$1  = a ^ b;
  assign \$2  = a ^ b;
  assign { \$3 [7:4], \$3 [3:0] } = { \$1 [3:0], \$1 [7:4] };
  assign { \$4 [7:4], \$4 [3:0] } = { \$2 [3:0], \$2 [7:4] };
  assign y = \$3 ;
  assign z = \$4  + 8'h01;
""")
    merged, n = merge_duplicates(text)
    assert n == 2
    lines = merged.split("\n")
    assert len(lines) == len(text.split("\n"))                  # line numbers kept
    assert r"  assign \$2 = \$1 ;" in lines
    assert r"  assign \$4 = \$3 ;" in lines                     # equal once \$2 is \$1
    assert r"  assign \$1  = a ^ b;" in lines and "  assign z = \\$4  + 8'h01;" in lines
    assert not any(r"\$4 [3:0]" in ln for ln in lines)
    swapped = text.replace(r"{ \$4 [7:4], \$4 [3:0] } = { \$2 [3:0], \$2 [7:4] }",
                           r"{ \$4 [3:0], \$4 [7:4] } = { \$2 [7:4], \$2 [3:0] }")
    assert merge_duplicates(swapped)[1] == 1       # the same function written otherwise: kept
    assert merge_duplicates(text, min_saving=0.5) == (text, 0)     # saves less than half


@pytest.mark.parametrize("first, second", [
    (r"  wire [7:0] \$1 ;", r"  wire [6:0] \$2 ;"),                       # other widths
    (r"  wire [7:0] \$1 ;", r"  wire signed [7:0] \$2 ;"),                # other signedness
    (r"  assign \$1  = a & &b;", r"  assign \$2  = a && b;"),               # other operators
    (r"  assign \$1  = a ^ 8'h0b;", r"  assign \$2  = a ^ 8'h0c;"),         # other literals
    (r"  assign \$1  = a ^ b;", r"  assign { \$2 , y } = { a ^ b, a };"),  # a wire among others
    (r"  assign \$1  = a ^ b;", r"  assign \$2 [6:0] = a ^ b;"),           # bits left undriven
])
def test_what_differs_or_is_not_only_assigned_does_not_merge(first, second):
    decl = {r"  wire [7:0] \$1 ;": first, r"  wire [7:0] \$2 ;": second}
    body = [r"  wire [7:0] \$1 ;", r"  wire [7:0] \$2 ;", r"  assign \$1  = a ^ b;",
            r"  assign \$2  = a ^ b;"]
    if first.startswith("  assign"):
        body[2:] = [first, second]
    else:
        body[:2] = [first, second]
    text = module("\n".join(body) + "\n  assign y = \\$1 ;\n  assign z = \\$2 ;\n")
    assert merge_duplicates(text) == (text, 0), decl


def test_ports_registers_and_other_modules_are_left_alone():
    text = module(r"""  reg [7:0] r1;
  reg [7:0] r2;
  always @* r1 = a;
  always @* r2 = a;
  assign y = a ^ b;
  assign z = a ^ b;
""") + r"""module \other (a, y);
  input [7:0] a;
  output [7:0] y;
  wire [7:0] \$1 ;
  assign \$1  = a ^ b;
  assign y = \$1 ;
endmodule
"""
    assert merge_duplicates(text) == (text, 0)
    assert merge_duplicates("not verilog") == ("not verilog", 0)


DUPCORE = r"""(* top =  1  *)
module dupcore (clk, rst, key, key_valid, key_ready, block_in, block_in_valid, block_in_ready, block_out, block_out_valid, block_out_ready, busy);
  input clk;
  wire clk;
  input rst;
  wire rst;
  input [127:0] key;
  wire [127:0] key;
  input key_valid;
  wire key_valid;
  output key_ready;
  wire key_ready;
  input [127:0] block_in;
  wire [127:0] block_in;
  input block_in_valid;
  wire block_in_valid;
  output block_in_ready;
  wire block_in_ready;
  output [127:0] block_out;
  wire [127:0] block_out;
  output block_out_valid;
  wire block_out_valid;
  input block_out_ready;
  wire block_out_ready;
  output busy;
  wire busy;
  reg [127:0] k = 128'h0;
  reg [127:0] out = 128'h0;
  reg valid = 1'h0;
  wire [127:0] \$1 ;
  wire [127:0] \$2 ;
  wire [127:0] \$3 ;
  wire [127:0] \$4 ;
  assign \$1  = block_in ^ k;
  assign \$2  = block_in ^ k;
  assign { \$3 [127:64], \$3 [63:0] } = { \$1 [63:0], \$1 [127:64] };
  assign { \$4 [127:64], \$4 [63:0] } = { \$2 [63:0], \$2 [127:64] };
  assign key_ready = ~valid;
  assign block_in_ready = ~valid & ~key_valid;
  assign busy = valid;
  assign block_out_valid = valid;
  assign block_out = out;
  always @(posedge clk) begin
    if (key_valid & key_ready) k <= key;
    if (block_in_valid & block_in_ready) begin
      out <= \$4 ;
      valid <= 1'h1;
    end else if (block_out_ready) valid <= 1'h0;
    if (rst) valid <= 1'h0;
  end
endmodule
"""


def test_a_merged_model_computes_what_the_written_text_does(model_cache, monkeypatch):
    """VerilatedCore builds its model from the merged text: a core whose written logic holds
    two copies of ``block_in ^ k`` and of its halves swapped gives the written outputs."""
    from cipherfab.sim import verilated
    built = []

    def merge(text, min_saving):
        built.append(merge_duplicates(text, min_saving))
        return built[-1]

    monkeypatch.setattr(verilated, "MIN_SAVING", 0.0)        # a small text saves little
    monkeypatch.setattr(verilated, "merge_duplicates", merge)
    core = VerilatedCore(DUPCORE, "dupcore", 128, cache_dir=model_cache)
    assert [n for _, n in built] == [2]
    rng = np.random.default_rng(1)
    key, blocks = rng.bytes(16), rng.bytes(16 * 8)
    out = core.run_blocks(key, blocks)
    want = b""
    for i in range(0, len(blocks), 16):
        x = bytes(p ^ q for p, q in zip(blocks[i:i + 16], key))
        want += x[8:] + x[:8]                    # \$4: the halves of block_in ^ k swapped
    assert out == want
