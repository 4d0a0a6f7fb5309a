"""The toggle model (sim.toggle) on the robust model's engine: its counts are the numpy
popcount of the engine's traced values clock to clock (the values themselves are checked
against the numpy reference in test_robust_engine); a second fixed secret; the moments of
its pieces; and whole runs: the unmasked byte core fails, fixed-vs-fixed of one block finds
nothing."""

import numpy as np
import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.flow.robust_netlist import synthesized
from cipherfab.generate import declaration, generate_verilog
from cipherfab.registry import resolve
from cipherfab.sim.robust_core import plan
from cipherfab.sim.robust_engine import Engine, Stimulus, compile_netlist
from cipherfab.sim.toggle import ToggleModel, _moments, default_window

from robust_gadgets import gadget

KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
PT = bytes.fromhex("00112233445566778899aabbccddeeff")


@pytest.fixture(scope="module")
def byte_core():
    p = resolve("aes", "byte", key_bits=128, direction="encrypt", sbox="lut")
    text, info, _ = generate_verilog(p)
    return ToggleModel(synthesized(text, p.top), p.top, info), info


def test_counts_are_the_popcount_of_the_traced_values_clock_to_clock(byte_core):
    model, info = byte_core
    p = plan(model.ports, model.compiled, info, KEY, PT, 12, 3, secret="block")
    engine = Engine(model.compiled, p.stimulus, 3)
    vals, group = engine.trace(model.nets, batch=2, words=2)
    counts, fixed = engine.toggle(model.nets, p.start + 1, 11, batch=2, words=2)
    ref = (vals[p.start + 1:p.start + 12] != vals[p.start:p.start + 11]).sum(axis=1)
    assert np.array_equal(counts, ref) and ref.max() > 0
    assert np.array_equal(fixed, group) and 0 < fixed.sum() < fixed.size
    with pytest.raises(CipherfabError, match="toggle samples"):
        engine.toggle(model.nets, 0, 3)


def test_the_block_is_the_secret_and_a_second_fixed_one_replaces_the_uniform_group(byte_core):
    model, info = byte_core
    other = bytes(b ^ 0xFF for b in PT)
    p = plan(model.ports, model.compiled, info, KEY, PT, 4, 1, secret="block", second=other)
    block = [model.compiled.net(b) for b in model.ports.inputs["block_in"]]
    vals, group = Engine(model.compiled, p.stimulus, 1).trace(block, words=1)
    taken = vals[p.start]                                   # [bit, simulation] at the handshake
    want = lambda v: np.array([(int.from_bytes(v, "big") >> i) & 1 for i in range(128)], dtype=bool)  # noqa: E731
    assert (taken[:, group] == want(PT)[:, None]).all() and (taken[:, ~group] == want(other)[:, None]).all()
    with pytest.raises(CipherfabError, match="the key or the block"):
        plan(model.ports, model.compiled, info, KEY, PT, 4, secret="plaintext")


def test_a_second_secret_of_another_width_is_refused():
    text, top, secrets, _ = gadget("dom_and")
    net = synthesized(text, top, "rtlil")
    st = Stimulus.empty(net, 2, [1, 0], 0)
    st.secret_second = np.array([1], dtype=np.uint8)
    with pytest.raises(CipherfabError, match="differ in width"):
        Engine(compile_netlist(net), st)


def test_piece_moments_are_the_moments_of_each_group_at_each_checkpoint(byte_core):
    model, _ = byte_core
    x, fixed = model.samples(KEY, PT, 300, 5, 7)
    m, facts = model.moments(KEY, PT, 300, 5, [100, 300], 7, 0.0)
    assert x.shape == (300, 5) and facts["registers"] == model.probe_bits
    assert np.allclose(m[0, 0], _moments(x[:100][fixed[:100]])) and np.allclose(m[1, 1], _moments(x[~fixed]))
    again, _ = model.moments(KEY, PT, 300, 5, [300], 7, 0.0)
    assert np.array_equal(again[0], m[1])                           # deterministic from its seed
    noisy, _ = model.moments(KEY, PT, 300, 5, [300], 7, 2.0)
    assert not np.array_equal(noisy[0], m[1])


def test_the_default_window_ends_before_the_result_settles():
    info = declaration(resolve("aes", "masked", key_bits=128, direction="encrypt"))
    assert default_window(info) == info.latency - 2


def test_the_unmasked_core_fails_and_fixed_vs_fixed_of_one_block_passes(capsys):
    args = ["leakage", "aes", "--arch", "byte", "--sbox", "lut", "--model", "toggle", "--order", "1"]
    assert main([*args, "--traces", "600"]) == 1                   # FAIL: a failed check
    out = capsys.readouterr().out
    assert "toggle model of" in out and "order 1: max |t|" in out and "FAIL" in out
    assert main([*args, "--traces", "600", "--test", "fixed-vs-fixed", "--second", PT.hex()]) == 0
    assert "max |t| 0.00" in capsys.readouterr().out
