"""Robust (glitch-extended) probing (sim.robust, flow.robust_netlist): extended sets on a
hand-written netlist, the simulator against an adder and a multiplexer, the chi-square tail
against table values, PROLEAD's pooled G-test, the gadget verdicts, and bad input."""

import math
from pathlib import Path

import numpy as np
import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow.robust_netlist import synthesized
from cipherfab.sim import robust
from cipherfab.sim.robust import Netlist, assess, chi2_mlog10_sf, fixed_vs_random, g_test

from robust_gadgets import GADGETS, arithmetic, gadget, wrapped

N = 20000


def _lut(init, **pins):
    return {"type": "LUT4", "parameters": {"INIT": format(init, "016b")},
            "connections": {p: [b] for p, b in pins.items()}}


def _ff(di, q):
    return {"type": "TRELLIS_FF", "parameters": {"CEMUX": "1", "CLKMUX": "CLK", "REGSET": "RESET"},
            "connections": {"CLK": [2], "DI": [di], "Q": [q]}}


#: inputs a=3 b=4 c=5 (clk=2); u = a^b (LUT), v = u & c (LUT), q <= v (FF), w = q ^ a (LUT),
#: m = c ? w : u (PFUMX), the LUT t has a constant input and reads only the flip-flop
TINY = {"modules": {"tiny": {
    "ports": {"clk": {"direction": "input", "bits": [2]}, "a": {"direction": "input", "bits": [3]},
              "b": {"direction": "input", "bits": [4]}, "c": {"direction": "input", "bits": [5]},
              "m": {"direction": "output", "bits": [10]}},
    "cells": {"u": _lut(0x6666, A=3, B=4), "v": _lut(0x8888, A=6, B=5), "q": _ff(7, 8),
              "w": _lut(0x6666, A=8, B=3), "m": {"type": "PFUMX", "parameters": {},
                                                 "connections": {"ALUT": [9], "BLUT": [6], "C0": [5], "Z": [10]}},
              "t": _lut(0xAAAA, A=8, B="1")},
    "netnames": {n: {"hide_name": 0, "bits": [b]} for n, b in
                 {"clk": 2, "a": 3, "b": 4, "c": 5, "u": 6, "v": 7, "q": 8, "w": 9, "m": 10, "t": 11}.items()}}}}
TINY["modules"]["tiny"]["cells"]["t"]["connections"]["Z"] = [11]
for _name, _z in {"u": 6, "v": 7, "w": 9}.items():
    TINY["modules"]["tiny"]["cells"][_name]["connections"]["Z"] = [_z]


def test_extended_sets_stop_at_flip_flops_and_inputs():
    net = Netlist(TINY, "tiny")
    ext = {p.cell: {net.names[i] for i in p.extended} for p in net.probes}
    assert ext == {"u": {"a", "b"}, "v": {"a", "b", "c"}, "w": {"q", "a"}, "m": {"a", "b", "c", "q"},
                   "t": {"q"}, "q": {"q"}}


def test_tiny_netlist_simulates_clock_by_clock():
    net = Netlist(TINY, "tiny")
    a, b, c = (np.array([0, 1, 1, 1], bool), np.array([1, 1, 0, 0], bool), np.array([1, 1, 1, 0], bool))
    stable, settled = net.simulate([{"a": a, "b": b, "c": c}] * 2, 4)
    q = net.names.index("q")
    assert list(stable[0, q]) == [0, 0, 0, 0] and list(stable[1, q]) == list((a ^ b) & c)
    m = [p.cell for p in net.probes].index("m")
    assert list(settled[1, m]) == list(np.where(c, stable[1, q] ^ a, a ^ b))


def test_simulator_matches_an_adder_and_a_wide_multiplexer():
    net = synthesized(*arithmetic(), language="rtlil")
    kinds = {c["type"] for c in net.cells.values()}
    assert {"CCU2C", "PFUMX", "L6MUX21", "LUT4", "TRELLIS_FF"} <= kinds
    rng = np.random.default_rng(3)
    n = 2000
    x, y, s, d = rng.integers(0, 16, n), rng.integers(0, 16, n), rng.integers(0, 16, n), rng.integers(0, 1 << 16, n)
    bits = lambda v, w: ((v[:, None] >> np.arange(w)) & 1).astype(bool)      # noqa: E731
    stable, _ = net.simulate([{"x": bits(x, 4), "y": bits(y, 4), "s": bits(s, 4), "d": bits(d, 16)}] * 2, n)
    word = lambda name, w: sum(stable[1, net.names.index(f"{name}[{i}]" if w > 1 else name)].astype(int) << i
                               for i in range(w))                              # noqa: E731
    assert np.array_equal(word("sum", 5), x + y)
    assert np.array_equal(word("m", 1), (d >> s) & 1)


@pytest.mark.parametrize("x, df, p", [(3.841459, 1, 0.05), (6.634897, 1, 0.01), (10.827566, 1, 0.001),
                                      (18.307038, 10, 0.05), (20.515006, 5, 0.001), (2.705543, 1, 0.10),
                                      (124.342113, 100, 0.05), (1.386294, 2, 0.5)])
def test_chi_square_tail_matches_table_values(x, df, p):
    assert chi2_mlog10_sf(x, df) == pytest.approx(-math.log10(p), abs=2e-5)


@pytest.mark.parametrize("x", [0.1, 1.0, 5.0, 30.0, 200.0, 2000.0])
def test_chi_square_tail_matches_closed_forms_far_into_the_tail(x):
    assert chi2_mlog10_sf(x, 2) == pytest.approx(x / 2 / math.log(10), rel=1e-9)       # exp(-x/2)
    if x < 1000:
        assert chi2_mlog10_sf(x, 1) == pytest.approx(-math.log10(math.erfc(math.sqrt(x / 2))), rel=1e-7)


def test_g_test_value_pooling_and_degrees_of_freedom():
    g, df, ml = g_test([[60, 40], [40, 60]])
    want = 2 * (2 * 60 * math.log(60 / 50) + 2 * 40 * math.log(40 / 50))
    assert (g, df) == (pytest.approx(want), 1) and ml == pytest.approx(chi2_mlog10_sf(want, 1))
    # a value seen once, in one group only, is pooled into one column with the other rare ones
    g, df, _ = g_test([[500, 500, 1, 0], [500, 500, 0, 2]])
    assert df == 2
    assert g_test([[10, 0], [10, 0]]) == (0.0, 0, 0.0)       # one value: nothing to tell apart
    assert g_test([[500, 500], [500, 500]])[0] == pytest.approx(0.0)


#: gadget -> (robust first order fails?, settled first order fails?)
VERDICTS = {"dom_and": (False, False), "dom_and_unregistered": (True, False),
            "linear_recombined": (True, False), "and_unmasked": (True, True)}


DOC = Path(__file__).parents[2] / "docs" / "guide" / "leakage-robust.md"


def _doc_rows() -> dict[str, list[str]]:
    text = DOC.read_text().split("<!-- robust-gadgets:", 1)[1]
    rows = [line.strip("| ").split(" | ") for line in text.split("\n\n", 1)[0].splitlines()[3:]]
    return {r[0]: r[1:] for r in rows}


@pytest.mark.parametrize("name", list(GADGETS))
def test_gadget_verdicts_and_the_guide_table(name):
    text, top, secrets, randoms = gadget(name)
    net = synthesized(text, top, language="rtlil")
    sim, fixed = fixed_vs_random(net, secrets, randoms, clocks=3, n=N, seed=7)
    want_robust, want_settled = VERDICTS[name]
    row = [str(len(net.probes))]
    for model, want in (("robust", want_robust), ("settled", want_settled)):
        for transitions in (False, True):
            worst = assess(net, sim, fixed, model, transitions)[0].mlog10p
            assert (worst > robust.THRESHOLD) == want, (model, transitions, worst)
            assert worst > 50 if want else worst < 4          # clear-cut, not near the threshold
            row.append(f"{worst:.1f} {'FAIL' if want else 'pass'}")
    assert _doc_rows()[name] == row


def test_report_names_the_cell_its_part_and_the_extended_set():
    text, top, secrets, randoms = gadget("dom_and_unregistered")
    net = synthesized(text, top, language="rtlil")
    lines = robust.report(assess(net, *fixed_vs_random(net, secrets, randoms, clocks=2, n=N, seed=7)))
    assert lines and all("LUT4" in line and "(top)" in line and "b0" in line and "b1" in line for line in lines)
    assert robust.report(assess(net, *fixed_vs_random(net, secrets, randoms, clocks=2, n=N, seed=7)),
                         threshold=1e9) == []


def test_report_names_the_part_of_a_gadget_inside_a_module():
    text, top, secrets, randoms = wrapped("dom_and_unregistered")
    net = synthesized(text, top, language="rtlil")
    assert {p.part for p in net.probes} == {"and0"}
    lines = robust.report(assess(net, *fixed_vs_random(net, secrets, randoms, clocks=2, n=N, seed=7)))
    assert lines and all("(and0, net" in line and "b0, b1" in line for line in lines), lines


def _tiny(**change):
    data = {"modules": {"tiny": {**TINY["modules"]["tiny"], **change}}}
    return data


def _tagged(tags: dict) -> dict:
    nets = {n: {**v, "attributes": {"cipherfab_share": tags[n]}} if n in tags else v
            for n, v in TINY["modules"]["tiny"]["netnames"].items()}
    return _tiny(netnames=nets)


def test_share_tags_0_to_3_are_read():
    net = Netlist(_tagged({"a": "0 ", "b": "2 ", "c": "3 ", "q": "0" * 31 + "1"}), "tiny")
    assert {net.names[net.index[b]]: s for b, s in net.share.items() if b in net.index} == \
        {"a": "0", "b": "2", "c": "3", "q": "1"}


BAD = [
    (lambda: Netlist(TINY, "other"), "no module other"),
    (lambda: Netlist(_tiny(cells={"x": {"type": "DP16KD", "parameters": {}, "connections": {}}}), "tiny"),
     "DP16KD is not supported"),
    (lambda: Netlist(_tiny(cells={"x": _lut(0x6666, A=6, B=3) | {"connections": {"A": [6], "Z": [7]}},
                                  "y": _lut(0x6666, A=7) | {"connections": {"A": [7], "Z": [6]}}}), "tiny"),
     "combinational loop"),
    (lambda: Netlist(_tiny(cells={"q": {**_ff(3, 8), "parameters": {"CLKMUX": "INV"}}}), "tiny"),
     "rising-edge"),
    (lambda: Netlist(TINY, "tiny").simulate([{"nope": np.zeros(2, bool)}], 2), "no input nope"),
    (lambda: Netlist(TINY, "tiny").simulate([{"a": np.zeros((2, 3), bool)}], 2), "3 bits given"),
    (lambda: fixed_vs_random(Netlist(TINY, "tiny"), {"s": ["a", "zz"]}, [], 1, 4), "no input zz"),
    (lambda: fixed_vs_random(Netlist(TINY, "tiny"), {"s": ["a"]}, ["zz"], 1, 4), "no randomness input zz"),
    (lambda: assess(Netlist(TINY, "tiny"), (np.zeros((1, 4, 2), bool), np.zeros((1, 6, 2), bool)),
                    np.zeros(2, bool), "glitchy"), "unknown model"),
    (lambda: Netlist(_tiny(cells={"u": {"type": "LUT4"}}), "tiny"), "not a Yosys JSON netlist"),
    (lambda: Netlist(_tagged({"b": "7 "}), "tiny"), "net b: cipherfab_share is '7': a share index is 0 to 3"),
    (lambda: Netlist(_tagged({"c": "x"}), "tiny"), "net c: cipherfab_share is 'x': a share index is 0 to 3"),
    (lambda: Netlist(_tiny(ports={"p": {"direction": "inout", "bits": [3]}}), "tiny"), "port p: only input"),
    (lambda: Netlist([], "tiny"), "no module tiny"),
    (lambda: fixed_vs_random(Netlist(TINY, "tiny"), {"s": ["a", "b"]}, ["a"], 1, 4), "input a is named twice"),
    (lambda: fixed_vs_random(Netlist(TINY, "tiny"), {"s": ["a"]}, [], 0, 4), "at least 2 simulations"),
    (lambda: fixed_vs_random(Netlist(TINY, "tiny"), {"s": ["a"]}, [], 1, 1), "at least 2 simulations"),
    (lambda: synthesized("module m(); endmodule", "m", language="vhdl"), "unknown source language"),
    (lambda: synthesized("module m(input a); syntax error", "m"), "synthesis for the robust and toggle models failed"),
]


@pytest.mark.parametrize("call, message", BAD, ids=[m for _, m in BAD])
def test_bad_input_is_one_clear_error(call, message):
    with pytest.raises(CipherfabError, match=message):
        call()
