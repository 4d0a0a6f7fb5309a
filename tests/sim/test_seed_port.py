"""Cores with an entropy input (a ``seed`` port) in the simulators: the verify harness seeds
them after every reset (reproducibly, from the run's seed) and checks the declared
``seed_setup_cycles``; the leakage harness reseeds each piece as a device would.  On
toyseed (tests/registry/seedtoys), whose core takes nothing before a seed."""

from pathlib import Path

import numpy as np
import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.generate import generate_verilog
from cipherfab.registry import resolve
from cipherfab.sim.engine import HardwareEngine
from cipherfab.sim.leakage import LeakageModel, assess
from cipherfab.sim.verilated import VerilatedCore

pytestmark = pytest.mark.usefixtures("seed_registry")
KEY, BLOCK = bytes.fromhex("0123456789abcdef"), bytes.fromhex("00112233445566ff")


def test_verify_seeds_the_core_and_checks_its_seed_setup(capsys):
    assert main(["verify", "toyseed", "--random", "300"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("ok   toyseed_masked_3_right_nothing: KAT 3 passed")
    assert "key setup 1, seed setup 3)" in line


def test_a_wrong_seed_setup_fails_verify_in_one_line(capsys):
    assert main(["verify", "toyseed", "--declared", "wrong", "--random", "300"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL toyseed_masked_3_wrong_nothing:")
    assert "timing encrypt: seed setup [3], declared 4; encrypt, feedback: seed setup [3], declared 4" in out[0]
    assert len(out) == 2 and out[1].startswith("0 passed, 1 failed (1 cores")   # one line for the core


@pytest.fixture
def shows_seed():
    """toyseed whose results show the first 8 bytes of the seed it took."""
    return HardwareEngine(resolve("toyseed", shows="seed", warmup=1)).core


def _xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def test_the_seeds_given_or_drawn_from_the_run_seed_reach_the_core(shows_seed):
    core = shows_seed
    ops = [("key", KEY), ("block", BLOCK), ("reset", 5), ("key", KEY), ("block", BLOCK)]
    s1, s2 = bytes(range(20)), bytes(range(100, 120))
    r = core.run(ops, seeds=s1 + s2)
    assert r.ok and r.outputs == [_xor(_xor(BLOCK, KEY), s[:8]) for s in (s1, s2)]
    assert list(r.seed_setup_cycles) == [1, 1]
    drawn = [core.run(ops, seed=s).outputs for s in (5, 5, 6)]
    assert drawn[0] == drawn[1] != drawn[2]                    # reproducible from the run's seed
    assert drawn[0][0] != drawn[0][1]                           # a new seed after each reset
    with pytest.raises(CipherfabError, match="one 20-byte seed per reset, the first included \\(2\\)"):
        core.run(ops, seeds=s1)


SEEDLESS = """
module seedless_impl #(parameter EAGER = 1) (
    input clk, rst, input [63:0] key, input key_valid, output key_ready,
    input [63:0] block_in, input block_in_valid, output block_in_ready,
    output reg [63:0] block_out, output reg block_out_valid, input block_out_ready, output busy,
    input [31:0] seed, input seed_valid, output seed_ready);
    assign seed_ready = 0;              // never takes a seed
    assign key_ready = EAGER;           // EAGER: takes keys and blocks anyway
    assign block_in_ready = EAGER && !block_out_valid;
    assign busy = block_out_valid;
    always @(posedge clk)
        if (rst) block_out_valid <= 0;
        else begin
            if (block_out_valid && block_out_ready) block_out_valid <= 0;
            if (block_in_valid && block_in_ready) begin block_out <= block_in ^ key; block_out_valid <= 1; end
        end
endmodule
"""
PORTS = ("clk, rst, key, key_valid, key_ready, block_in, block_in_valid, block_in_ready, block_out, "
         "block_out_valid, block_out_ready, busy, seed, seed_valid, seed_ready")


@pytest.mark.parametrize("eager, error", [
    (1, "protocol violation: a key taken after a reset before the seed"),
    (0, "hang: no progress for 200 cycles waiting for the seed to be taken after a reset"),
])
def test_cores_that_ignore_their_seed_fail(model_cache, eager, error):
    top, ports = f"seedless_{eager}", PORTS.split(", ")
    wrapper = (f"module {top}({PORTS});\n  input clk, rst, key_valid, block_in_valid, block_out_ready, "
               "seed_valid;\n  input [63:0] key, block_in;\n  input [31:0] seed;\n  output key_ready, "
               "block_in_ready, block_out_valid, busy, seed_ready;\n  output [63:0] block_out;\n"
               f"  seedless_impl #(.EAGER({eager})) c({', '.join(f'.{p}({p})' for p in ports)});\nendmodule\n")
    core = VerilatedCore(SEEDLESS + wrapper, top, 64, 64, seed_bits=32, cache_dir=model_cache)
    r = core.run([("key", KEY), ("block", BLOCK)], timeout=200)
    assert r.error == error


def test_a_core_without_a_seed_port_takes_no_seeds():
    core = VerilatedCore(Path(__file__).with_name("xorcore.v"), "xorcore", 128)
    r = core.run([("key", bytes(16)), ("block", bytes(16))])
    assert r.ok and len(r.seed_setup_cycles) == 0
    with pytest.raises(CipherfabError, match="xorcore: no seed port: no seeds"):
        core.run([("key", bytes(16))], seeds=bytes(20))


def test_the_leakage_harness_reseeds_each_piece():
    p = resolve("toyseed")
    text, info, _ = generate_verilog(p)
    model = LeakageModel(text, p.top, info)
    runs = [model.moments(KEY, BLOCK, 300, 2, [300], seed, 0.0)[0] for seed in (1, 1, 2)]
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2])
    a = assess(model, KEY, BLOCK, 400, 2, jobs=1)
    assert a.facts["cycles"] > 400 and len(a.t[1]) == 2
