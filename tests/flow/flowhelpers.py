"""Shared fixtures for the evaluation-flow tests.

``mini_core.v`` (data/) is a small iterative 32-bit core written for these
tests: four AES S-box ROMs inferred as ECP5 block RAM (DP16KD), a key
schedule with a 32-bit adder (CCU2C carry chain) and a 16x16 multiply
(MULT18X18D), and a round/phase FSM.  It builds on ECP5 in a few seconds.
"""

from pathlib import Path

from cipherfab.flow import DesignSource

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
DATA = HERE / "data"

MINI_PARTS = {"ks_": "key_schedule", "dp_": "datapath", "mini_core": "control"}


def mini_source(**kw) -> DesignSource:
    args = dict(verilog=(DATA / "mini_core.v").read_text(), top="mini_core",
                design={"cipher": "mini", "arch": "iterative-test"}, cycles_per_block_ecb=21,
                cycles_per_block_cbc=21, latency=21, key_setup_cycles=1, block_bits=32,
                parts=MINI_PARTS, elaborate_seconds=0.25)
    args.update(kw)
    return DesignSource(**args)


TINY_V = """module tiny(input clk, input [3:0] a, output reg [7:0] q);
  reg [7:0] acc;
  always @(posedge clk) begin acc <= acc + {4'd0, a}; q <= acc ^ {a, a}; end
endmodule
"""
