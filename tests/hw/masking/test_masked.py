"""The masked S-box (hw.masking.masked over ciphers.aes.sbox_circuit): the circuit is the S-box on
all 256 bytes; the two-share pipeline gives S(x) for every byte under random masks and
random bits, a new byte every clock, after a latency that does not depend on them; with
the random bits held at zero it is still correct (the 'PRNG off' test mode leaks, it does
not miscompute)."""

import random
import re

import pytest
from amaranth.sim import Simulator

from cipherfab.ciphers.aes.reference import SBOX
from cipherfab.ciphers.aes.sbox_circuit import GATES, INPUTS, OUTPUTS, and_depth, evaluate
from cipherfab.hw.masking.masked import MaskedCircuit, Schedule


def test_the_circuit_is_the_sbox():
    assert [evaluate(x) for x in range(256)] == list(SBOX)
    assert sum(g.op == "and" for g in GATES) == 34
    assert max(and_depth()[o] for o in OUTPUTS) == 4


def test_the_schedule_places_each_and_one_clock_after_its_first_operand():
    s = Schedule(GATES, INPUTS, OUTPUTS)
    assert s.random_bits == 34
    for g, t, a, b in s.and_gates:
        assert s.stage[b] <= t and s.stage[a] <= t + 1 and s.stage[g.out] == t + 2
    assert s.latency == 7


@pytest.mark.parametrize("random_bits, unregistered", [(True, False), (False, False), (True, True)],
                         ids=["prng", "zeros", "unregistered-test-mode"])
def test_two_shares_give_the_sbox_every_clock(random_bits, unregistered):
    dut = MaskedCircuit(GATES, INPUTS, OUTPUTS, unregistered=unregistered)
    lat, n = dut.schedule.latency, 600
    rng = random.Random(7)
    xs = [x for x in range(256)] + [rng.randrange(256) for _ in range(n - 256)]
    masks = [rng.randrange(256) for _ in range(n)]
    got = []

    async def bench(ctx):
        for k in range(n + lat):
            if k < n:
                ctx.set(dut.x[0], xs[k] ^ masks[k])
                ctx.set(dut.x[1], masks[k])
            ctx.set(dut.rand, rng.getrandbits(34) if random_bits else 0)
            await ctx.tick()
            if k + 1 >= lat:
                got.append(ctx.get(dut.y[0]) ^ ctx.get(dut.y[1]))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got[:n] == [SBOX[x] for x in xs]


@pytest.mark.parametrize("shares", [3, 4])
def test_d_shares_give_the_sbox_every_clock(shares):
    """HPC2 on d shares: d (d - 1) / 2 fresh bits per AND gate, the same latency."""
    dut = MaskedCircuit(GATES, INPUTS, OUTPUTS, shares=shares)
    lat, n, bits = dut.schedule.latency, 300, dut.schedule.random_bits
    assert lat == 7 and bits == 34 * shares * (shares - 1) // 2
    rng = random.Random(shares)
    xs = [rng.randrange(256) for _ in range(n)]
    got = []

    async def bench(ctx):
        for k in range(n + lat):
            if k < n:
                masks = [rng.randrange(256) for _ in range(shares - 1)]
                first = xs[k]
                for i, mk in enumerate(masks):
                    ctx.set(dut.x[i + 1], mk)
                    first ^= mk
                ctx.set(dut.x[0], first)
            ctx.set(dut.rand, rng.getrandbits(bits))
            await ctx.tick()
            if k + 1 >= lat:
                v = 0
                for i in range(shares):
                    v ^= ctx.get(dut.y[i])
                got.append(v)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got[:n] == [SBOX[x] for x in xs]


def test_shares_out_of_range_are_refused():
    for bad in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 shares"):
            MaskedCircuit(GATES, INPUTS, OUTPUTS, shares=bad)


def _rtlil_tags(text):
    """{wire name: its cipherfab_share value or None} from Amaranth's RTLIL."""
    tags, pending = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("attribute \\cipherfab_share"):
            pending = line.split('"')[1]
        elif line.startswith("wire "):
            tags[line.split()[-1].lstrip("\\")] = pending
            pending = None
        elif not line.startswith("attribute"):
            pending = None
    return tags


def test_every_share_signal_carries_its_share_tag():
    """Gate outputs, delay registers and HPC2's registers of share i are tagged i (Reg[b_j ^ r]
    too: it serves share i); the registered random bit is not tagged."""
    from amaranth.back import rtlil
    tags = _rtlil_tags(rtlil.convert(MaskedCircuit(GATES, INPUTS, OUTPUTS)))
    named = {n: t for n, t in tags.items() if re.search(r"_s[01](_|$)", n)}
    assert len(named) > 400
    for n, t in named.items():
        if n.endswith("_r"):
            assert t is None, n
        else:
            assert t == re.search(r"_s([01])(_|$)", n).group(1), (n, t)
    assert {n for n in named if n.endswith("_bxr")} and tags["y__0"] == "0" and tags["x__1"] == "1"
