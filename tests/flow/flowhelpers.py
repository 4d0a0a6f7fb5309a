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


def check_worst_paths(rec, parts, n=3):
    """The worst paths of an ECP5 record against nextpnr's own critical path (1000/Fmax and
    its logic/routing split, printed to 2 decimals) and against themselves."""
    import pytest
    t = rec["timing"]
    paths = t["worst_paths"]
    assert len(paths) == n
    worst = paths[0]
    assert worst["delay_ns"] == pytest.approx(1000 / t["fmax_mhz"], abs=0.002)
    assert worst["logic_ns"] == pytest.approx(t["critical_path_logic_ns"], abs=0.006)
    assert worst["routing_ns"] == pytest.approx(t["critical_path_routing_ns"], abs=0.006)
    assert [p["delay_ns"] for p in paths] == sorted((p["delay_ns"] for p in paths), reverse=True)
    assert len({p["end"]["cell"] for p in paths}) == n
    for p in paths:
        hops = p["hops"]
        assert sum(h["logic_ns"] + h.get("routing_ns", 0) for h in hops) == pytest.approx(p["delay_ns"], abs=0.01)
        assert sum(h.get("routing_ns", 0) for h in hops) == pytest.approx(p["routing_ns"], abs=0.01)
        assert hops[0]["from"].startswith("CLK") and hops[-1]["from"] == p["end"]["pin"]
        assert "net" not in hops[-1] and all(h["net"] and h["fanout"] >= 1 for h in hops[:-1])
        assert 0 <= p["lut_levels"] <= len(hops) - 2
        assert set(p["parts"]) <= set(parts) and p["parts"][0] == p["start"]["part"]
        assert all(w.split(".")[0] in parts for w in p["crosses"])


def placed_comb(bel, a=(), f=None, mode="LOGIC", **pins):
    """A TRELLIS_COMB of a hand-written placed netlist (nextpnr ``--write`` JSON): LUT inputs
    ``a`` (A, B, C, D), output ``f``, other pins by name."""
    conns = {p: [b] for p, b in zip("ABCD", a)} | {k: [v] for k, v in pins.items()}
    if f is not None:
        conns["F"] = [f]
    dirs = {p: "output" if p in ("F", "OFX", "FCO") else "input" for p in conns}
    return {"type": "TRELLIS_COMB", "parameters": {"MODE": mode}, "attributes": {"NEXTPNR_BEL": bel},
            "connections": conns, "port_directions": dirs}
