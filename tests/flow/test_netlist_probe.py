"""The toggle model's netlist (flow.netlist_probe): every LUT, mux, carry and flip-flop output
of a Yosys netlist on one cf_probe port, escaped names kept whole, constants left out; and
the whole path (synthesis, probe, Verilator, t-test) on the AES byte core (slow)."""

import pytest

from cipherfab.cli import main
from cipherfab.flow.netlist_probe import probe_outputs, with_probe

NETLIST = """module top(rst, a, y, clk);
  input rst;
  input [1:0] a;
  output y;
  input clk;
  wire \\core.n ;
  wire [4:0] \\core.v ;
  LUT4 #(
    .INIT(16'h0030)
  ) \\core.n_LUT4_Z  (
    .A(1'h0),
    .B(a[0]),
    .C(a[1]),
    .D(rst),
    .Z(\\core.n )
  );
  PFUMX \\core.v_PFUMX_Z  (
    .ALUT(a[0]),
    .BLUT(a[1]),
    .C0(\\core.n ),
    .Z(\\core.v [4])
  );
  TRELLIS_FF #(
    .GSR("DISABLED")
  ) y_TRELLIS_FF_Q (
    .CLK(clk),
    .DI(\\core.v [4]),
    .LSR(rst),
    .Q(y)
  );
  LUT4 #(
    .INIT(16'h0000)
  ) zero_LUT4_Z (
    .A(a[0]),
    .B(a[1]),
    .C(a[0]),
    .D(a[1]),
    .Z(1'h0)
  );
endmodule
"""


def test_every_cell_output_goes_on_the_probe_port():
    assert probe_outputs(NETLIST) == ["\\core.n ", "\\core.v [4]", "y"]
    text, bits = with_probe(NETLIST, "top")
    assert bits == 3
    assert "module top(rst, a, y, clk, cf_probe);" in text
    assert "output [2:0] cf_probe;" in text
    assert "assign cf_probe = {\n    y,\n    \\core.v [4],\n    \\core.n \n  };" in text


@pytest.mark.slow
def test_the_toggle_model_finds_the_unmasked_byte_core_leaking(capsys):
    assert main(["leakage", "aes", "--arch", "byte", "--sbox", "lut", "--traces", "600",
                 "--model", "toggle", "--order", "1"]) == 1      # FAIL: a failed check
    out = capsys.readouterr().out
    assert "toggle model of" in out and "order 1: max |t|" in out and "FAIL" in out
