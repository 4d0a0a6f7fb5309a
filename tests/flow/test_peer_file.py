"""Open peers described by JSON files (``cipherfab study --peer FILE``): paths relative to
the file, the same DesignSource as the command-line options, one-line refusals."""

import json

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow.external import peer_source

CORE = "module peer(input clk, input [7:0] a, output reg [7:0] q);\n  always @(posedge clk) q <= a;\nendmodule\n"


def write(tmp_path, d, name="peer.json"):
    (tmp_path / "rtl").mkdir(exist_ok=True)
    (tmp_path / "rtl" / "peer.v").write_text(CORE)
    f = tmp_path / name
    f.write_text(json.dumps(d) if isinstance(d, dict) else d)
    return f


def test_peer_file_gives_a_design_source(tmp_path):
    f = write(tmp_path, {"verilog": ["rtl/peer.v"], "top": "peer", "cycles_per_block": 12,
                         "key_setup_cycles": 0, "label": "a peer"})
    s = peer_source(f)
    assert s.top == "peer" and s.verilog == CORE
    assert s.design == {"external": True, "top": "peer", "files": ["peer.v"], "label": "a peer"}
    assert (s.cycles_per_block_ecb, s.key_setup_cycles, s.latency) == (12, 0, None)


@pytest.mark.parametrize("d, needle", [
    ("{not json", "is not JSON"),
    ({"top": "peer"}, 'expected an object with "verilog"'),
    ({"verilog": ["rtl/peer.v"], "top": "peer", "cycles_per_block": 1, "speed": 3}, "unknown key 'speed'"),
    ({"verilog": ["rtl/peer.v"], "top": "peer", "cycles_per_block": 0}, r"cycles_per_block must be a whole number in 1\.\.1000000000"),
    ({"verilog": ["rtl/peer.v"], "top": "peer", "cycles_per_block": 10**400}, "cycles_per_block must be a whole number in"),
    ({"verilog": ["rtl/peer.v"], "top": "peer", "cycles_per_block": 1, "block_bits": 5000}, "block_bits must be a whole number in 1..4096"),
    ({"verilog": ["rtl/peer.v"], "top": 7, "cycles_per_block": 1}, "top must be a string"),
    ({"verilog": [3], "top": "peer", "cycles_per_block": 1}, "verilog must be a file name or a list of them"),
    ({"verilog": ["rtl/peer.v"], "top": "other", "cycles_per_block": 1}, "no module other in"),
    ({"verilog": ["rtl/peer.v"], "top": "peer"}, "--verilog needs --cycles-per-block"),
    ({"verilog": ["rtl/missing.v"], "top": "peer", "cycles_per_block": 1}, "missing.v"),
])
def test_bad_peer_files_are_one_line(tmp_path, d, needle):
    with pytest.raises(CipherfabError, match=needle) as e:
        peer_source(write(tmp_path, d))
    assert "\n" not in str(e.value)


def test_missing_peer_file(tmp_path):
    with pytest.raises(CipherfabError, match="peer file .*nope.json: no such file"):
        peer_source(tmp_path / "nope.json")
