"""SubBytes in the Amaranth simulator: every input, every style and latency, en holds, refusals."""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.ciphers.aes.reference import INV_SBOX, SBOX
from cipherfab.errors import CipherfabError
from cipherfab.hw.sbox import STYLES, SboxTables, SubBytes, check_style

SERPENT_S0 = [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12]
SERPENT_S0_INV = [SERPENT_S0.index(v) for v in range(16)]

CONFIGS = [("lut", 0), ("lut", 1), ("lut", 2), ("rom", 1), ("rom", 2), ("composite", 0), ("composite", 1)]
#: Styles that take any table (composite builds only the AES S-box and its inverse).
ANY_TABLE = [(style, latency) for style, latency in CONFIGS if style != "composite"]


def run_against_model(dut: SubBytes, stimulus):
    """Drive ``stimulus`` (one ``(lane inputs, inverse, en)`` per cycle) and check ``y`` every cycle.

    Model: ``latency`` stages that shift only while ``en`` is high; the last stage is ``y``
    (``y = table[x]`` at once for latency 0).  Stages not yet filled are not checked.
    """
    t, lanes, bits = dut.tables, dut.lanes, dut.tables.in_bits
    obits = t.out_bits

    def lookup(xs, inverse):
        table = t.inverse if inverse else t.forward
        return sum(table[x] << (obits * i) for i, x in enumerate(xs))

    async def tb(ctx):
        pipe = [None] * dut.latency
        checked = 0
        for xs, inverse, en in stimulus:
            ctx.set(dut.x, sum(x << (bits * i) for i, x in enumerate(xs)))
            ctx.set(dut.en, en)
            if t.both:
                ctx.set(dut.inverse, inverse)
            want = pipe[-1] if pipe else lookup(xs, inverse)
            if want is not None:
                assert ctx.get(dut.y) == want, (xs, inverse, en)
                checked += 1
            await (ctx.tick() if dut.latency else ctx.delay(1e-6))
            if en and pipe:
                pipe = [lookup(xs, inverse)] + pipe[:-1]
        assert checked >= len(stimulus) - dut.latency - 8

    sim = Simulator(dut)
    if dut.latency:
        sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


def exhaustive(lanes: int, size: int, both: bool, seed: int):
    """Every input on every lane, forward and (with two tables) inverse, one per cycle; then
    a stretch with ``en`` randomly low and random inputs to show the pipeline holds."""
    rng = random.Random(seed)
    stimulus = []
    for inverse in ((0, 1) if both else (0,)):
        values = list(range(size))
        rng.shuffle(values)
        for k in range(size):                # lane j runs through the shuffled list from offset j*size/lanes
            stimulus.append(([values[(k + j * size // lanes) % size] for j in range(lanes)], inverse, 1))
    for _ in range(60):
        stimulus.append(([rng.randrange(size) for _ in range(lanes)], rng.randrange(2) if both else 0,
                         int(rng.random() < 0.5)))
    return stimulus


@pytest.mark.parametrize("style,latency", CONFIGS)
def test_aes_every_input_forward_and_inverse(style, latency):
    dut = SubBytes(2, SboxTables(SBOX, INV_SBOX), style, latency)
    run_against_model(dut, exhaustive(2, 256, True, seed=latency))


@pytest.mark.parametrize("style,latency", CONFIGS)
def test_one_table_has_no_inverse_port(style, latency):
    dut = SubBytes(2, SboxTables(SBOX), style, latency)
    assert "inverse" not in dut.signature.members
    run_against_model(dut, exhaustive(2, 256, False, seed=7)[:140])


@pytest.mark.parametrize("style,latency", CONFIGS)
def test_inverse_alone_and_tables_swapped(style, latency):
    # One table that is InvSubBytes (a decrypt-only core), and the two AES tables the other way round.
    dut = SubBytes(1, SboxTables(INV_SBOX), style, latency)
    run_against_model(dut, exhaustive(1, 256, False, seed=5))
    dut = SubBytes(1, SboxTables(INV_SBOX, SBOX), style, latency)
    run_against_model(dut, exhaustive(1, 256, True, seed=6))


SPLIT = [("lut", 1), ("lut", 2), ("composite", 1), ("rom", 2)]


@pytest.mark.parametrize("style,latency", SPLIT)
def test_split_every_input(style, latency):
    # One of the registers inside the substitution: same answers, same latency, en holds.
    dut = SubBytes(2, SboxTables(SBOX, INV_SBOX), style, latency, split=True)
    run_against_model(dut, exhaustive(2, 256, True, seed=11))
    dut = SubBytes(1, SboxTables(INV_SBOX), style, latency, split=True)
    run_against_model(dut, exhaustive(1, 256, False, seed=12))


def test_split_needs_a_register_for_the_cut():
    with pytest.raises(CipherfabError, match="'rom' split needs latency >= 2"):
        SubBytes(1, SboxTables(SBOX), "rom", latency=1, split=True)
    with pytest.raises(CipherfabError, match="'lut' split needs latency >= 1"):
        SubBytes(1, SboxTables(SBOX), "lut", latency=0, split=True)


@pytest.mark.parametrize("style,latency", ANY_TABLE)
def test_serpent_4bit_table(style, latency):
    tables = SboxTables(SERPENT_S0, SERPENT_S0_INV, in_bits=4, out_bits=4)
    dut = SubBytes(3, tables, style, latency)     # odd lane count: rom packs 2 + 1
    assert len(dut.x) == 12 and len(dut.y) == 12
    run_against_model(dut, exhaustive(3, 16, True, seed=3))


def test_en_low_holds_every_stage():
    dut = SubBytes(1, SboxTables(SBOX), "rom", latency=2)

    async def tb(ctx):
        for x in (0x11, 0x22):
            ctx.set(dut.x, x)
            await ctx.tick()
        ctx.set(dut.en, 0)
        for x in (0x33, 0x44, 0x55):
            ctx.set(dut.x, x)
            await ctx.tick()
            assert ctx.get(dut.y) == SBOX[0x11]
        ctx.set(dut.en, 1)
        await ctx.tick()
        assert ctx.get(dut.y) == SBOX[0x22]
        await ctx.tick()
        assert ctx.get(dut.y) == SBOX[0x55]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("make,rule", [
    (lambda: SubBytes(2, SboxTables(SBOX), "rom", latency=0), "needs latency >= 1"),
    (lambda: SubBytes(2, SboxTables(SBOX), "lut", latency=-1), "needs latency >= 0"),
    (lambda: SubBytes(2, SboxTables(SBOX), "tbox"), "unknown S-box style"),
    (lambda: SubBytes(0, SboxTables(SBOX), "lut"), "at least one lane"),
    (lambda: SubBytes(2, [SBOX], "lut"), "must be an SboxTables"),
    (lambda: SboxTables(SBOX[:255]), "has 255 entries; in_bits=8 needs 256"),
    (lambda: SboxTables(SBOX, INV_SBOX[:16]), "inverse table has 16 entries"),
    (lambda: SboxTables(SERPENT_S0), "in_bits=8 needs 256"),
    (lambda: SboxTables(SBOX, in_bits=8, out_bits=4), "does not fit out_bits=4"),
])
def test_impossible_combinations_are_refused(make, rule):
    with pytest.raises(CipherfabError, match=rule) as e:
        make()
    assert "\n" not in str(e.value)


NOT_AES = "S-box style 'composite' builds only the AES S-box and its inverse"


@pytest.mark.parametrize("tables", [
    SboxTables(SERPENT_S0, SERPENT_S0_INV, in_bits=4, out_bits=4),
    SboxTables([v ^ 1 for v in SBOX]),                       # affine constant changed
    SboxTables(SBOX, [v ^ (a == 0x63) for a, v in enumerate(INV_SBOX)]),   # one inverse entry wrong
    SboxTables(SBOX, list(range(256))),
    SboxTables(list(SBOX) + [0] * 256, in_bits=9),
    SboxTables(SBOX, SBOX[::-1]),
], ids=["serpent", "forward-wrong", "inverse-one-entry", "inverse-identity", "9-bit", "reversed"])
def test_composite_refuses_non_aes_tables_in_one_line(tables):
    for latency in (0, 1):
        with pytest.raises(CipherfabError) as e:
            SubBytes(4, tables, "composite", latency)
        assert str(e.value).startswith(NOT_AES) and "\n" not in str(e.value)


def test_styles_share_one_interface():
    assert set(STYLES) == {"lut", "rom", "composite"}
    assert check_style("rom") == "rom"
    assert [STYLES[s].registers for s in ("lut", "rom", "composite")] == [0, 1, 0]
