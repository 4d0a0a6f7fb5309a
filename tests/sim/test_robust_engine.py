"""The robust model's C++ engine (sim.robust_engine) against the numpy reference
(sim.robust): the same simulated values clock by clock, the same count tables, the gadgets'
verdicts; its RAM model against a memory's expected contents; the G-test it runs against
the reference's; and the whole-core run (sim.robust_core) on the unmasked core."""

import math

import numpy as np
import pytest
from amaranth import Elaboratable, Module, Signal
from amaranth.back import rtlil
from amaranth.lib.memory import Memory

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.flow.robust_netlist import synthesized
from cipherfab.sim import robust_core
from cipherfab.sim.robust import THRESHOLD, g_test
from cipherfab.sim.robust_engine import (SRC_ENTROPY, SRC_FRESH, SRC_SECRET, Engine, Stimulus,
                                         compile_netlist)

from robust_gadgets import GADGETS, arithmetic, gadget

CLOCKS = 3


def _gadget_engine(name: str, seed: int = 5):
    """A gadget with its secrets (fixed value 1) as shares, its randomness fresh every clock."""
    text, top, secrets, randoms = gadget(name)
    net = synthesized(text, top, "rtlil")
    comp = compile_netlist(net)
    st = Stimulus.empty(net, CLOCKS, [1] * len(secrets), n_entropy=len(secrets))
    for j, ports in enumerate(secrets.values()):
        if len(ports) == 1:
            st.source[:, st.column(net, ports[0])] = SRC_SECRET + j
        else:                                  # share 0 uniform, share 1 = secret ^ share 0
            st.source[:, st.column(net, ports[0])] = SRC_ENTROPY + j
            st.source[:, st.column(net, ports[1])] = SRC_SECRET + j
            st.xor[:, st.column(net, ports[1])] = j
    for r in randoms:
        st.source[:, st.column(net, r)] = SRC_FRESH
    return net, comp, Engine(comp, st, seed)


def _tests(net, comp):
    stable = [comp.net(b) for b in net.stable]
    out = []
    for t in range(CLOCKS):
        for p in net.probes:
            bits = [(stable[i], False) for i in p.extended] + ([(stable[i], True) for i in p.extended] if t else [])
            if bits:
                out.append((t, bits))
    return stable, out


@pytest.mark.parametrize("name", list(GADGETS))
def test_values_and_count_tables_match_the_numpy_reference(name):
    net, comp, eng = _gadget_engine(name)
    stable, tests = _tests(net, comp)
    vals, group = eng.trace(stable, batch=0, words=2)
    n = vals.shape[-1]
    given = [{port: vals[t, [stable.index(comp.net(b)) for b in bits]].T for port, bits in net.inputs.items()}
             for t in range(CLOCKS)]
    assert np.array_equal(net.simulate(given, n)[0], vals)          # the same values, clock by clock
    assert 0 < group.sum() < n
    out = eng.run(tests, [n], words=2, tables=True)                 # one batch: the traced one
    if name == "dom_and_unregistered":                              # both counters: <= 5 bits and more
        assert any(len(b) >= 6 for _, b in tests) and any(len(b) <= 5 for _, b in tests)
    for (t, bits), table in zip(tests, out["tables"]):
        obs = np.stack([vals[t - prev, stable.index(b)] for b, prev in bits], axis=1)
        ref = np.zeros((2, 1 << len(bits)))
        np.add.at(ref, (np.where(group, 0, 1), obs.astype(np.int64) @ (1 << np.arange(len(bits)))), 1)
        assert np.array_equal(ref, table), (t, bits)
        g, df, ml = g_test(ref)
        assert out["mlog10p"][0][tests.index((t, bits))] == pytest.approx(ml, rel=1e-9, abs=1e-12)


#: gadget -> robust first order fails?
VERDICTS = {"dom_and": False, "dom_and_unregistered": True, "linear_recombined": True, "and_unmasked": True}


@pytest.mark.parametrize("name", list(GADGETS))
def test_gadget_verdicts_on_two_threads_the_same_as_on_one(name):
    net, comp, eng = _gadget_engine(name)
    _, tests = _tests(net, comp)
    one = eng.run(tests, [4096, 4 * 4096], threads=1)
    two = eng.run(tests, [4096, 4 * 4096], threads=2)
    assert np.array_equal(one["mlog10p"], two["mlog10p"])
    worst = one["mlog10p"][-1].max()
    assert (worst > THRESHOLD) == VERDICTS[name] and (worst > 50 or worst < 4), worst


def test_carry_and_wide_muxes_simulate_as_the_reference():
    net = synthesized(*arithmetic(), language="rtlil")
    comp = compile_netlist(net)
    st = Stimulus.empty(net, 2, [], n_entropy=0)
    for port in net.inputs:
        if port != "clk":
            st.source[:, st.column(net, port)] = SRC_FRESH
    stable = [comp.net(b) for b in net.stable]
    vals, _ = Engine(comp, st, 9).trace(stable, words=3)
    given = [{p: vals[t, [stable.index(comp.net(b)) for b in bits]].T for p, bits in net.inputs.items()}
             for t in range(2)]
    assert np.array_equal(net.simulate(given, vals.shape[-1])[0], vals)


class _Ram(Elaboratable):
    """16 x 4 memory: written at ``wa`` with ``wd`` when ``we``, read at ``ra`` without a clock."""
    def __init__(self):
        self.we, self.wa, self.wd, self.ra, self.rd = (Signal(name="we"), Signal(4, name="wa"),
                                                       Signal(4, name="wd"), Signal(4, name="ra"), Signal(4, name="rd"))

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=4, depth=16, init=[])
        w, r = mem.write_port(), mem.read_port(domain="comb")
        m.d.comb += [w.en.eq(self.we), w.addr.eq(self.wa), w.data.eq(self.wd), r.addr.eq(self.ra), self.rd.eq(r.data)]
        return m


def test_distributed_ram_writes_then_reads():
    d = _Ram()
    net = synthesized(rtlil.convert(d, name="ram", ports=[d.we, d.wa, d.wd, d.ra, d.rd]), "ram", "rtlil")
    assert any(c["type"] == "TRELLIS_DPR16X4" for c in net.cells.values())
    comp = compile_netlist(net)
    writes = [(a, (5 * a + 3) % 16) for a in range(16)]
    st = Stimulus.empty(net, 34, [], n_entropy=0)
    for t, (a, v) in enumerate(writes):
        st.source[t, st.column(net, "we")] = 1
        st.source[t, st.column(net, "wa")] = [(a >> i) & 1 for i in range(4)]
        st.source[t, st.column(net, "wd")] = [(v >> i) & 1 for i in range(4)]
    for t in range(16, 32):
        st.source[t, st.column(net, "ra")] = [((t - 16) >> i) & 1 for i in range(4)]
    rd = [comp.net(b) for b in net.outputs["rd"]]
    vals, _ = Engine(comp, st, 1).trace(rd, words=1)
    read = [sum(int(vals[t, i, 0]) << i for i in range(4)) for t in range(16, 32)]
    assert read == [v for _, v in writes]
    assert all(p.part for p in net.probes if p.pin == "DO")
    ram = next(p for p in net.probes if p.pin == "DO")
    assert sum(".mem[" in net.names[i] for i in ram.extended) == 64


def test_checkpoints_are_batches_1_2_5_and_the_total():
    assert robust_core.checkpoints(1) == [4096]
    assert robust_core.checkpoints(10 ** 6) == [4096 * m for m in (1, 2, 5, 10, 20, 50, 100, 200, 245)]


def test_the_unmasked_core_fails_and_the_report_names_probes(capsys, tmp_path):
    assert main(["leakage", "aes", "--model", "robust", "--traces", "4096", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("aes_iterative_128_encrypt_lut: robust probing (glitch-extended, first order)")
    assert out[1].startswith("order 1: max -log10(p) ") and "FAIL: -log10(p) > " in out[1]
    assert out[1].endswith("from 4,096 simulations") and "PROLEAD's 5 a test + log10 of" in out[1]
    assert "(core." in out[2] and "observes {core." in out[2]
    import json
    rec = json.loads((tmp_path / "results.json").read_text())
    assert rec["first_failing"] == 4096 and rec["leaks"][0]["observes"] and rec["handshakes"]["block_in"] > 0


def test_a_design_without_the_core_ports_is_refused():
    text, top, _, _ = gadget("dom_and")
    net = synthesized(text, top, "rtlil")

    class Info:
        key_interface, clocks, latency, seed_bits, seed_setup_cycles, key_setup_cycles = "stream", (), 3, 0, 0, 1
        key_bits, block_bits, cipher, arch = 1, 1, "x", "y"
    with pytest.raises(CipherfabError, match="has no port block_in"):
        robust_core.assess(net, Info, b"\x01", b"\x01", 10)



def test_the_reports_robust_table_is_what_its_script_writes():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parents[2] / "docs" / "results" / "leakage" / "robust" / "table.py"
    spec = importlib.util.spec_from_file_location("robust_table", path)
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    assert table.rows() in table.REPORT.read_text(), "run python docs/results/leakage/robust/table.py --write"
