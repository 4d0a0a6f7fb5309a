"""CreditBuffer behind a model pipeline of fixed depth: every block out in order under random
valid and ready, never more blocks out than credits, one block per clock when the output
keeps up, two clocks from write to output, and bad sizes refused; the same with the read address
copied per slice of the width (``read_copies``), whose copies survive synthesis."""

import json
import random

import pytest
from amaranth.sim import Simulator

from cipherfab.hw.credit_buffer import CreditBuffer


def _run(depth: int, credits: int, p_valid: float, p_ready: float, n: int = 200, seed: int = 1,
         bank_depth: int = 16, read_copies: int = 1):
    """Blocks 1..n through a delay line of ``depth`` clocks into the buffer; returns what
    left, the clocks, the most blocks out at once and each block's write-to-output clocks."""
    dut = CreditBuffer(16, credits, bank_depth=bank_depth, read_copies=read_copies)
    rng = random.Random(seed)
    got, stats = [], {"clocks": 0, "most": 0, "lag": []}

    async def bench(ctx):
        line = [None] * depth                     # the pipeline: a block per stage or None
        sent, out_now, written_at = 0, 0, {}
        while len(got) < n and stats["clocks"] < 50 * n:    # a lost block ends it too
            offer = sent < n and rng.random() < p_valid
            ctx.set(dut.take, offer and ctx.get(dut.room))
            took = offer and ctx.get(dut.room)
            leaving = line[-1]
            ctx.set(dut.w_en, leaving is not None)
            ctx.set(dut.w_data, (leaving or 0) * 0x0101)     # block b (< 256) in both bytes
            ctx.set(dut.r.ready, rng.random() < p_ready)
            gave = ctx.get(dut.r.valid) and ctx.get(dut.r.ready)
            block = ctx.get(dut.r.payload)
            await ctx.tick()
            stats["clocks"] += 1
            if leaving is not None:
                written_at[leaving] = stats["clocks"]
            line = [sent + 1 if took else None] + line[:-1]
            sent += took
            out_now += took - gave
            stats["most"] = max(stats["most"], out_now)
            if gave:
                assert block == (block & 0xff) * 0x0101, hex(block)   # slices of one block
                block &= 0xff
                got.append(block)
                stats["lag"].append(stats["clocks"] - written_at[block])
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return got, stats


@pytest.mark.parametrize("depth,credits,bank_depth,copies",
                         [(40, 43, 16, 1), (12, 15, 16, 1), (3, 6, 4, 1), (1, 1, 16, 1),
                          (40, 43, 16, 4), (3, 6, 4, 2)])
def test_every_block_in_order_under_random_backpressure(depth, credits, bank_depth, copies):
    for seed, (pv, pr) in enumerate([(0.5, 0.5), (0.9, 0.2), (0.3, 0.9), (1.0, 0.5), (1.0, 0.05)]):
        got, stats = _run(depth, credits, pv, pr, n=200, seed=seed, bank_depth=bank_depth,
                          read_copies=copies)
        assert got == list(range(1, 201)), (pv, pr)
        assert stats["most"] <= credits


@pytest.mark.parametrize("copies", [1, 4])
def test_one_block_per_clock_and_two_clocks_from_write_to_output(copies):
    got, stats = _run(40, 43, 1.0, 1.0, n=200, read_copies=copies)
    assert got == list(range(1, 201))
    assert stats["clocks"] == 40 + 2 + 200 - 1 + 1     # depth, write, output register
    assert set(stats["lag"]) == {2}


def test_too_few_credits_for_the_depth_slow_it_but_lose_nothing():
    got, stats = _run(40, 10, 1.0, 1.0, n=100)
    assert got == list(range(1, 101)) and stats["clocks"] > 300


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_a_buffer_without_credits_is_refused():
    with pytest.raises(ValueError, match="at least one credit"):
        CreditBuffer(16, 0)


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_read_copies_that_do_not_divide_the_width_are_refused():
    for copies in (0, 3):
        with pytest.raises(ValueError, match="do not divide 16 bits"):
            CreditBuffer(16, 4, read_copies=copies)


def test_the_read_address_copies_survive_synthesis(tmp_path):
    """The flow's synthesis (ECP5) keeps every copy of the 6-bit read address: 3 more
    registers of 6 bits than with one."""
    from amaranth.back import verilog

    from cipherfab.flow.devices import get_device
    from cipherfab.flow.options import FlowOptions
    from cipherfab.flow.synth import synthesize

    def flip_flops(copies: int) -> int:
        wd = tmp_path / str(copies)
        wd.mkdir()
        text = verilog.convert(CreditBuffer(16, 42, read_copies=copies), name="cb")
        synthesize(text, "cb", {}, get_device(), wd, None, FlowOptions())
        cells = json.loads((wd / "netlist.json").read_text())["modules"]["cb"]["cells"]
        return sum(c["type"] == "TRELLIS_FF" for c in cells.values())

    assert flip_flops(4) - flip_flops(1) == 3 * 6
