"""Amaranth-simulator unit tests for the small pieces: round layers, key schedule (S-boxes: tests/hw)."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from cipherfab.ciphers.aes import reference as ref
from cipherfab.ciphers.aes import round as rnd
from cipherfab.ciphers.aes.key_schedule import KeySchedule


def _state_list(b: bytes) -> list[int]:
    return list(b)


@pytest.mark.parametrize("name", ["shift_rows", "inv_shift_rows", "mix_columns", "inv_mix_columns"])
def test_round_layers_match_reference(name):
    m = Module()
    a, y = Signal(128), Signal(128)
    f = getattr(rnd, name)
    m.d.comb += y.eq(f(m, a) if "mix" in name else f(a))
    model = {
        "shift_rows": ref._shift_rows, "inv_shift_rows": ref._inv_shift_rows,
        "mix_columns": ref._mix_columns,
        "inv_mix_columns": lambda s: ref._mix_columns(s, ref._INV_MIX),
    }[name]
    rng = random.Random(name)

    async def tb(ctx):
        for _ in range(50):
            s = rng.randbytes(16)
            ctx.set(a, int.from_bytes(s, "big"))
            assert ctx.get(y).to_bytes(16, "big") == bytes(model(_state_list(s)))

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


async def _run_block(ctx, dut, first):
    """Start a block; the round keys it sees: ``first`` in the start cycle, then round_key
    each cycle until ``last``."""
    ctx.set(dut.start, 1)
    seen = [ctx.get(first)]
    await ctx.tick()
    ctx.set(dut.start, 0)
    while True:
        seen.append(ctx.get(dut.round_key))
        if ctx.get(dut.last):
            return seen
        await ctx.tick()


@pytest.mark.parametrize("key_bits", [128, 192, 256])
@pytest.mark.parametrize("directions", [(True, False), (False, True), (True, True)])
def test_key_schedule_round_keys(key_bits, directions):
    enc, dec = directions
    dut = KeySchedule(key_bits, enc, dec, "lut")
    rng = random.Random(key_bits)
    nr = ref.NR[key_bits]

    async def tb(ctx):
        for key in (rng.randbytes(key_bits // 8), rng.randbytes(key_bits // 8)):
            rks = [int.from_bytes(k, "big") for k in ref.round_keys(key)]
            ctx.set(dut.key, int.from_bytes(key, "big"))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            setup = 1
            while not ctx.get(dut.ready):
                await ctx.tick()
                setup += 1
            assert setup == (nr + 1 if dec else 2)     # encrypt: the first step registered
            for decrypt in [d for d, on in ((False, enc), (True, dec)) if on]:
                ctx.set(dut.start_decrypt, decrypt)
                seen = await _run_block(ctx, dut, dut.first_key)
                assert seen == (rks[::-1] if decrypt else rks)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("key_bits", [128, 256])
@pytest.mark.parametrize("directions", [(True, False), (False, True), (True, True)])
def test_no_subword_lane_address_depends_on_start(key_bits, directions):
    """The start of a block (decided by the core's control, fanned out wide) reaches only the
    schedule's registers: the SubWord lanes' addresses are the same whether it starts or not,
    in every cycle between key load and the block's last round (the iterative core's old
    critical path ran start -> lane address -> S-box)."""
    enc, dec = directions
    dut = KeySchedule(key_bits, enc, dec, "lut")
    m = dut.elaborate(None)          # its Module is simulated, so its lanes can be read
    dut._MustUse__silence = True     # (Amaranth would warn that dut itself was never used)
    lanes = [m.submodules.subword] + ([m.submodules.subword_inv] if enc and dec else [])
    nr = ref.NR[key_bits]
    rng = random.Random(7)

    async def tb(ctx):
        ctx.set(dut.key, int.from_bytes(rng.randbytes(key_bits // 8), "big"))
        ctx.set(dut.load, 1)
        await ctx.tick()
        ctx.set(dut.load, 0)
        checked = 0
        for decrypt in [d for d, on in ((False, enc), (True, dec)) if on]:
            ctx.set(dut.start_decrypt, decrypt)
            for _ in range(nr + 3):
                idle = [ctx.get(lane.x) for lane in lanes]
                ctx.set(dut.start, 1)
                assert [ctx.get(lane.x) for lane in lanes] == idle
                ctx.set(dut.start, 0)
                checked += 1
                if ctx.get(dut.ready):
                    break
                await ctx.tick()
            ctx.set(dut.start, 1)            # a block, then the same check in each of its rounds
            await ctx.tick()
            ctx.set(dut.start, 0)
            while not ctx.get(dut.last):
                await ctx.tick()
                going = [ctx.get(lane.x) for lane in lanes]
                ctx.set(dut.start, 1)
                assert [ctx.get(lane.x) for lane in lanes] == going
                ctx.set(dut.start, 0)
                checked += 1
        assert checked >= nr

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("key_bits", [128, 192, 256])
@pytest.mark.parametrize("decrypt", [False, True])
def test_folded_key_schedule_returns_to_the_key(key_bits, decrypt):
    """Folded (paper 001's sequential core): round_key is the block's first round key while
    idle, then every later one; blocks back to back, each started the cycle after the last."""
    dut = KeySchedule(key_bits, not decrypt, decrypt, "lut", folded=True)
    rng = random.Random(key_bits + decrypt)
    nr = ref.NR[key_bits]

    async def tb(ctx):
        for key in (rng.randbytes(key_bits // 8), rng.randbytes(key_bits // 8)):
            rks = [int.from_bytes(k, "big") for k in ref.round_keys(key)]
            want = rks[::-1] if decrypt else rks
            ctx.set(dut.key, int.from_bytes(key, "big"))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            while not ctx.get(dut.ready):
                await ctx.tick()
            for _ in range(3):
                assert await _run_block(ctx, dut, dut.round_key) == want
                await ctx.tick()             # the window goes back to the key
                assert ctx.get(dut.round_key) == want[0]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()

def test_t_table_is_sbox_times_mixcolumns_column():
    for x, t in enumerate(rnd.t_table()):
        s = ref.SBOX[x]
        assert t.to_bytes(4, "big") == bytes(ref._mix_column([s, 0, 0, 0], ref._MIX))


def test_t_lookups_give_the_round_and_the_last_round():
    """middle_round / final_round on 16 T0 look-ups equal MixColumns(ShiftRows(SubBytes)) ^ rk
    and ShiftRows(SubBytes) ^ rk on the 16 S-box values."""
    table = rnd.t_table()
    m = Module()
    t, rk, mid, fin = Signal(512), Signal(128), Signal(128), Signal(128)
    m.d.comb += [mid.eq(rnd.middle_round(m, t, rk, None, True, False)),
                 fin.eq(rnd.final_round(t, rk, None, True, False))]
    rng = random.Random(3)

    async def tb(ctx):
        for _ in range(50):
            x, k = rng.randbytes(16), rng.randbytes(16)
            ctx.set(t, int.from_bytes(b"".join(table[b].to_bytes(4, "big") for b in x), "big"))
            ctx.set(rk, int.from_bytes(k, "big"))
            sr = ref._shift_rows(ref._sub_bytes(list(x)))
            assert ctx.get(mid).to_bytes(16, "big") == bytes(ref._add_round_key(ref._mix_columns(sr), k))
            assert ctx.get(fin).to_bytes(16, "big") == bytes(ref._add_round_key(sr, k))

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


def test_t_table_rom_netlist_equals_the_table():
    """The tbox style's ROM, synthesized, proven equal to T0 (Yosys sat, any input)."""
    from cipherfab.hw.sbox import SboxTables
    from cipherfab.hw.sbox_equiv import prove_equivalent
    ok, message = prove_equivalent("rom", SboxTables(rnd.t_table(), out_bits=32), latency=1)
    assert ok, message


def _schedule_run(key_bits: int, key: bytes, script) -> list[int]:
    """An encrypt-only schedule after a key load, driven by ``script``: per clock a dict of
    its ``start`` and ``hold`` inputs; returns round_key after each clock."""
    dut = KeySchedule(key_bits, True, False, "lut")
    seen = []

    async def tb(ctx):
        ctx.set(dut.key, int.from_bytes(key, "big"))
        ctx.set(dut.load, 1)
        await ctx.tick()
        ctx.set(dut.load, 0)
        for step in script:
            ctx.set(dut.start, step.get("start", 0))
            ctx.set(dut.hold, step.get("hold", 0))
            await ctx.tick()
            seen.append(ctx.get(dut.round_key))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return seen


@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_encrypt_window_does_not_wait_for_start(key_bits):
    """Between blocks an encrypt-only window takes its first step's value on every clock
    (``hold`` low), so the start, decided late by the core's handshake, does not decide what
    the window's registers take: the round keys are the same whether a block starts in a
    clock or not (the default core's worst path ran start -> the window's enables)."""
    key = random.Random(key_bits).randbytes(key_bits // 8)
    rk = [int.from_bytes(k, "big") for k in ref.round_keys(key)]
    nr = ref.NR[key_bits]
    for idle in range(1, 4):     # (the clock after a load computes the first step: no start)
        started = _schedule_run(key_bits, key, [{}] * idle + [{"start": 1}] + [{}] * nr)
        waiting = _schedule_run(key_bits, key, [{}] * (idle + 1 + nr))
        assert waiting[0] == rk[0] and waiting[1:idle + 1] == [rk[1]] * idle
        # the clock a block starts the window takes round key 1, started or not
        assert started[idle] == waiting[idle] == rk[1]
        assert started[idle:idle + nr] == rk[1:nr + 1]


@pytest.mark.parametrize("key_bits", [128, 256])
def test_encrypt_window_holds_the_last_round_key_while_told(key_bits):
    """``hold`` (the core's result waits for its output register) keeps round key Nr after a
    block's last round; released, the window goes back to round key 1 for the next block."""
    key = random.Random(key_bits + 1).randbytes(key_bits // 8)
    rk = [int.from_bytes(k, "big") for k in ref.round_keys(key)]
    nr = ref.NR[key_bits]
    seen = _schedule_run(key_bits, key, [{}, {"start": 1}] + [{}] * (nr - 2)
                         + [{"hold": 1}] * 3 + [{}])
    assert seen[1:nr] == rk[1:nr]
    assert seen[nr:nr + 3] == [rk[nr]] * 3      # held for three clocks
    assert seen[nr + 3] == rk[1]                # released: the next block's round key 1
