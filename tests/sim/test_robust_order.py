"""Order-t robust probing (sim.robust_order, flow.robust_sbox): which probe sets are tested,
the gadgets at order 2, and ONE masked AES S-box (HPC2 on d shares) in isolation: order
d - 1 passes, order d fails, the glitch test mode fails at order 1."""

import re

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.flow import robust_sbox
from cipherfab.flow.robust_netlist import synthesized
from cipherfab.sim import robust
from cipherfab.sim.robust import assess, fixed_vs_random
from cipherfab.sim.robust_order import probe_sets

from robust_gadgets import gadget

N = 20000
SBOX_N = 100_000


def test_probe_sets_keep_maximal_observations_and_each_union_once():
    obs = [(1, 2), (2,), (3,), (1, 2), (), (3, 4), tuple(range(10, 30))]
    one = probe_sets(obs, 1)
    assert one.unions == [(1, 2), (3, 4)] and one.wide_parts == 1 and one.maximal == 2
    assert [len(p) for p in one.probes] == [1, 1] and one.probes[0] == (0,)
    two = probe_sets(obs, 2)
    assert two.unions == [(1, 2, 3, 4)] and two.probes == [(0, 5)]
    three = probe_sets([(1,), (2,), (3,), (4,)], 3)
    assert sorted(three.unions) == [(1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)]
    wide = probe_sets([tuple(range(9)), tuple(range(9, 18)), (20,)], 2)
    assert wide.too_wide == 1 and len(wide.unions) == 2
    assert probe_sets([(1,)], 3).unions == [(1,)]                     # fewer parts than the order


@pytest.mark.parametrize("call, said", [
    (lambda: probe_sets([(1,)], 5), "order 5: the robust model tests orders 1 to 4"),
    (lambda: probe_sets([(i,) for i in range(100)], 3, limit=1000), "161,700 sets of 100 maximal observations"),
    (lambda: robust_sbox.evaluate(2, 1, 4096, clocks=[9]), "clock 9 is outside the run"),
    (lambda: robust_sbox.evaluate(2, 1, 4096, fixed=256), "the fixed S-box input is a byte"),
    (lambda: robust_sbox.evaluate(5, 1, 4096), "--shares 5 is not supported; choose from 2, 3, 4"),
    (lambda: robust_sbox.evaluate(2, 1, 4096, gadget="ti"), "--gadget 'ti' is not supported; choose from hpc2, dom")])
def test_bad_input_is_one_line(call, said):
    with pytest.raises((CipherfabError, ValueError), match=said) as e:
        call()
    assert "\n" not in str(e.value)


def test_dom_and_passes_order_1_and_fails_order_2():
    """DOM-indep AND on 2 shares: two probes (one per output share) give ``a & b``."""
    text, top, secrets, randoms = gadget("dom_and")
    net = synthesized(text, top, language="rtlil")
    sim, fixed = fixed_vs_random(net, secrets, randoms, clocks=3, n=N, seed=7)
    assert assess(net, sim, fixed, order=1)[0].mlog10p < 4
    for model in ("robust", "settled"):
        worst = assess(net, sim, fixed, model, order=2)[0]
        assert worst.mlog10p > 50 and len(worst.probes) == 2, (model, worst)
    lines = robust.report(assess(net, sim, fixed, order=2))
    assert lines and " + " in lines[0]


def _shares_of_one_bit(leak, d: int) -> bool:
    """Whether a leak's observation holds every share of one input or output bit."""
    seen: dict[str, set] = {}
    for name in leak["observes"]:
        m = re.fullmatch(r"([xy])__(\d)\[(\d)\]", name)
        if m:
            seen.setdefault(m[1] + m[3], set()).add(m[2])
    return any(len(v) == d for v in seen.values())


@pytest.mark.parametrize("shares, order, clocks, fails", [
    (2, 1, None, False), (2, 2, None, True),
    pytest.param(3, 2, None, False, marks=pytest.mark.slow), (3, 3, [6, 7], True),
    pytest.param(4, 4, [7], True, marks=pytest.mark.slow)],
    ids=["d2-order1-passes", "d2-order2-fails", "d3-order2-passes", "d3-order3-fails-last-stage",
         "d4-order4-fails-at-the-output"])
def test_one_masked_sbox_at_order_d_minus_1_and_d(shares, order, clocks, fails):
    """(d = 3, order 2 over every clock is slow, 25 s: 10^6 in docs/guide/leakage-robust.md;
    the DOM S-box's d = 3 order-2 pass below runs the same engine path in 3 s; d = 4, 8 s,
    with ``-m slow``: the default run shows the order-d failure at d = 2 and 3)"""
    r = robust_sbox.evaluate(shares, order, SBOX_N, clocks, threads=2)
    worst = max(r.max_mlog10p)
    assert r.simulations >= SBOX_N and r.tests > 0
    assert (r.first_failing() is not None) == fails, (worst, r.threshold)
    if fails:
        assert worst > 1000 and _shares_of_one_bit(r.leaks[0], shares), r.leaks[0]
    else:
        assert worst < r.threshold and not r.leaks


def test_the_glitch_test_mode_fails_at_order_1():
    """HPC2 without its product registers (``unregistered``): one LUT's glitches show a_i & b."""
    r = robust_sbox.evaluate(2, 1, SBOX_N, unregistered=True, threads=2)
    assert r.first_failing() is not None and max(r.max_mlog10p) > 100
    assert len(r.leaks[0]["probes"]) == 1 and any(re.search(r"_s\d_c\b|_s\d_a\b", n) or "bxr" in n
                                                  for n in r.leaks[0]["observes"])


@pytest.mark.parametrize("shares, order, clocks, fails", [
    (2, 1, None, False), (2, 2, None, True), (3, 2, None, False), (3, 3, [3], True),
    pytest.param(4, 4, [9], True, marks=pytest.mark.slow)],
    ids=["d2-order1-passes", "d2-order2-fails", "d3-order2-passes", "d3-order3-fails-at-clock-3",
         "d4-order4-fails-at-clock-9"])
def test_the_dom_sbox_at_order_d_minus_1_and_d(shares, order, clocks, fails):
    """The DOM S-box (18 fresh bits a pair of shares): the same verdicts as HPC2's (d = 4,
    7 s, with ``-m slow``)."""
    r = robust_sbox.evaluate(shares, order, SBOX_N, clocks, threads=2, gadget="dom")
    worst = max(r.max_mlog10p)
    assert (r.first_failing() is not None) == fails, (worst, r.threshold)
    if fails:
        assert worst > 1000 and len(r.leaks[0]["probes"]) == order, r.leaks[0]
    else:
        assert worst < r.threshold and not r.leaks and r.tests > 100


def test_the_dom_glitch_test_mode_fails_at_order_1():
    """DOM with each product's terms in one register: its input LUT's glitches show ``x_i y``."""
    r = robust_sbox.evaluate(2, 1, 20_000, unregistered=True, threads=2, gadget="dom")
    assert r.first_failing() is not None and max(r.max_mlog10p) > 100
    assert len(r.leaks[0]["probes"]) == 1 and "_c_" in r.leaks[0]["probes"][0]


@pytest.mark.slow
def test_four_shares_pass_order_3_in_the_last_stage():
    r = robust_sbox.evaluate(4, 3, SBOX_N, [6, 7], threads=2)
    assert r.first_failing() is None and r.tests > 4000
