"""The mode layer (hw.modes) in Amaranth's simulator: ECB, CBC, CTR, OFB, CFB and XTS around a pipelined
test double (many blocks in flight, every key interface) and around a real AES core,
against a Python model and `cryptography`, under random valid/ready gaps."""

import random

import pytest
from amaranth.sim import Simulator
from cryptography.hazmat.decrepit.ciphers.modes import CFB, CFB8, OFB
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.hw.modes import Mode, ModeEngine, modes_of
from doubles import FIXED, MASK, N, PipeCore, begin_message, model, toy_decrypt, toy_encrypt

def run(dut, messages, rng, valid_p=0.7, ready_p=0.6, limit=20000):
    """messages: [(key or None, mode, iv, blocks)], run one after another (a key and a
    start between them); returns (outputs per message, cycles, max blocks in flight)."""
    results, stats = [], {"cycles": 0}

    async def bench(ctx):
        for key, mode, iv, blocks in messages:
            await begin_message(ctx, dut, key, mode, iv)
            i, got = 0, []
            for _ in range(limit):
                offer = i < len(blocks) and rng.random() < valid_p
                ctx.set(dut.data_in.valid, offer)
                if offer:
                    ctx.set(dut.data_in.payload, blocks[i])
                ctx.set(dut.data_out.ready, rng.random() < ready_p)
                await ctx.delay(1e-9)
                i += bool(ctx.get(dut.data_in.valid) and ctx.get(dut.data_in.ready))
                if ctx.get(dut.data_out.valid) and ctx.get(dut.data_out.ready):
                    got.append(ctx.get(dut.data_out.payload))
                await ctx.tick()
                stats["cycles"] += 1
                if len(got) == len(blocks):
                    break
            ctx.set(dut.data_in.valid, 0)
            ctx.set(dut.data_out.ready, 0)
            results.append(got)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return results, stats["cycles"]


@pytest.mark.parametrize("key_interface", ["stream", "per_block", "none"])
def test_every_mode_around_a_pipeline(key_interface):
    rng = random.Random(key_interface)
    dut = ModeEngine(PipeCore(key_interface))
    messages = []
    for mode in (m for m in modes_of(dut.info) if not m.layer):     # XTS: not without a key port
        key = FIXED if key_interface == "none" else rng.getrandbits(N)
        blocks = [rng.getrandbits(N) for _ in range(12)]
        iv = MASK - 3 if mode == Mode.CTR else rng.getrandbits(N)      # the counter wraps
        messages.append((None if key_interface == "none" else key, mode, iv, blocks))
    got, _ = run(dut, messages, rng)
    for (key, mode, iv, blocks), out in zip(messages, got):
        k = FIXED if key is None else key
        want = model(mode, lambda x: toy_encrypt(k, x), lambda y: toy_decrypt(k, y), iv, blocks)
        assert out == want, mode


def test_the_counter_carries_into_its_high_part_and_inc32_does_not():
    """CTR counts modulo 2^128: a carry out of the low 32 bits (also on a message's first
    block) reaches the high part (kept + 1 in a register of its own); GCM's inc32 wraps the
    low 32 bits alone."""
    rng = random.Random(32)
    dut = ModeEngine(PipeCore("stream"), gcm=True)
    key, low = rng.getrandbits(N), (1 << 32) - 1
    hi = rng.getrandbits(N - 32) << 32
    blocks = [rng.getrandbits(N) for _ in range(5)]
    messages = [(key, Mode.CTR, hi | low, blocks), (key, Mode.CTR, hi | (low - 2), blocks),
                (key, Mode.GCM_ENCRYPT, hi | (low - 2), blocks)]
    got, _ = run(dut, messages, rng)
    for (_, mode, iv, _), out in zip(messages, got):
        step = ((lambda i: (iv + i) & MASK) if mode == Mode.CTR
                else (lambda i: hi | ((iv + i) & low)))
        assert out == [toy_encrypt(key, step(i)) ^ b for i, b in enumerate(blocks)], mode


def test_blocks_stay_in_flight_except_in_the_feedback_modes():
    """Without gaps, ECB, CTR, CBC and CFB decrypt take a block every clock; CBC encrypt,
    OFB and CFB encrypt one per round trip (each block needs the last one's result)."""
    rng = random.Random(1)
    dut = ModeEngine(PipeCore("stream", stages=6))
    blocks = [rng.getrandbits(N) for _ in range(40)]
    cycles = {}
    for mode in (m for m in Mode if not m.layer):
        got, c = run(dut, [(5, mode, 9, blocks)], rng, valid_p=1.0, ready_p=1.0)
        assert got[0] == model(mode, lambda x: toy_encrypt(5, x), lambda y: toy_decrypt(5, y), 9, blocks)
        cycles[mode] = c
    for mode, c in cycles.items():
        assert (c >= 40 * 6) if mode.feedback else (c < 40 + 12), (mode, c)
    assert {m for m in Mode if m.feedback} == {Mode.CBC_ENCRYPT, Mode.OFB, Mode.CFB_ENCRYPT,
                                               Mode.CFB8_ENCRYPT, Mode.CFB1_ENCRYPT}


def test_a_block_per_clock_core_meets_the_engine_at_flip_flops():
    """Around a core that takes a block every clock, ``data_in.ready`` is decided from
    flip-flops (and ``start``): changing the valid and ready signals of this clock never
    changes it in the same clock (without the skid register before the core, the core's
    ``ready`` follows ``data_out.ready`` through its pipeline into the engine's).  The
    blocks still come out right."""
    rng = random.Random(41)
    dut = ModeEngine(PipeCore("stream", stages=4))
    assert dut.skid and dut.depth == 4 + 2 + 2
    blocks = [rng.getrandbits(N) for _ in range(60)]
    got, changed = [], []

    async def bench(ctx):
        await begin_message(ctx, dut, 7, Mode.CTR, 99)
        i = 0
        for _ in range(600):
            ctx.set(dut.data_in.valid, i < len(blocks))
            ctx.set(dut.data_in.payload, blocks[i] if i < len(blocks) else 0)
            ctx.set(dut.data_out.ready, rng.random() < 0.5)
            await ctx.delay(1e-9)
            before = ctx.get(dut.data_in.ready)
            ctx.set(dut.data_out.ready, not ctx.get(dut.data_out.ready))    # the other way
            await ctx.delay(1e-9)
            changed.append(ctx.get(dut.data_in.ready) != before)
            ctx.set(dut.data_out.ready, not ctx.get(dut.data_out.ready))    # and back
            await ctx.delay(1e-9)
            i += bool(ctx.get(dut.data_in.valid) and ctx.get(dut.data_in.ready))
            if ctx.get(dut.data_out.valid) and ctx.get(dut.data_out.ready):
                got.append(ctx.get(dut.data_out.payload))
            await ctx.tick()
            if len(got) == len(blocks):
                break

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == model(Mode.CTR, lambda x: toy_encrypt(7, x), None, 99, blocks)
    assert not any(changed)


def refusal(dut, mode, key=None) -> dict:
    """Start a message in ``mode`` and offer a block for 30 clocks: the engine's
    ``mode_error``, the blocks it took and whether anything came out."""
    seen = {}

    async def bench(ctx):
        await begin_message(ctx, dut, key, mode, 9)
        ctx.set(dut.data_in.valid, 1)
        ctx.set(dut.data_in.payload, 3)
        ctx.set(dut.data_out.ready, 1)
        taken = 0
        for _ in range(30):
            await ctx.delay(1e-9)
            taken += ctx.get(dut.data_in.ready)
            await ctx.tick()
        seen.update(error=ctx.get(dut.mode_error), taken=taken, out=ctx.get(dut.data_out.valid))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


def test_a_mode_the_core_cannot_run_takes_no_block():
    dut = ModeEngine(PipeCore("stream", directions=("encrypt",)))
    assert modes_of(dut.info) == (Mode.ECB_ENCRYPT, Mode.CBC_ENCRYPT, Mode.CTR, Mode.OFB,
                                  Mode.CFB_ENCRYPT, Mode.CFB_DECRYPT, Mode.XTS_ENCRYPT,
                                  Mode.CFB8_ENCRYPT, Mode.CFB8_DECRYPT, Mode.CFB1_ENCRYPT,
                                  Mode.CFB1_DECRYPT)
    assert refusal(dut, Mode.CBC_DECRYPT) == {"error": 1, "taken": 0, "out": 0}


def test_every_mode_around_aes():
    """A real core: AES-128 interleaved (2 blocks in flight, block-RAM S-boxes), both
    directions, against cryptography's ECB, CBC, CTR, OFB and CFB (CFB128)."""
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    core = make_core(resolve("aes", "interleaved", key_bits=128, direction="both", sbox="rom", stages=2))
    dut = ModeEngine(core)
    rng = random.Random(3)
    key, iv = rng.randbytes(16), rng.randbytes(16)
    data = rng.randbytes(16 * 6)
    blocks = [int.from_bytes(data[i:i + 16], "big") for i in range(0, len(data), 16)]
    k, v = int.from_bytes(key, "big"), int.from_bytes(iv, "big")
    # XTS: the engine takes the encrypted tweak T = E_K2(tweak) as its IV, K1 as its key
    key2 = rng.randbytes(16)
    t = int.from_bytes(Cipher(algorithms.AES(key2), modes.ECB()).encryptor().update(iv), "big")
    messages = [(k, mode, t if mode.xts else v, blocks) for mode in Mode if not mode.layer]
    got, _ = run(dut, messages, rng, limit=4000)
    as_bytes = [b"".join(x.to_bytes(16, "big") for x in out) for out in got]

    def lib(mode, decrypt=False, k=key):
        c = Cipher(algorithms.AES(k), mode)
        return (c.decryptor() if decrypt else c.encryptor()).update(data)
    # CFB8 and CFB1 take a segment a block: CFB8 the first byte of each, CFB1 its top bit
    tops = [b[0] for b in (data[i:i + 16] for i in range(0, len(data), 16))]
    cfb8 = lambda decrypt: Cipher(algorithms.AES(key), CFB8(iv)).__getattribute__(
        "decryptor" if decrypt else "encryptor")().update(bytes(tops))
    seg = lambda bs, keep: b"".join(bytes([x & keep]) + bytes(15) for x in bs)
    cfb1 = [cfb1_reference(key, iv, [t >> 7 for t in tops], d) for d in (False, True)]
    assert as_bytes == [lib(modes.ECB()), lib(modes.ECB(), True), lib(modes.CBC(iv)),
                        lib(modes.CBC(iv), True), lib(modes.CTR(iv)), lib(OFB(iv)),
                        lib(CFB(iv)), lib(CFB(iv), True), lib(modes.XTS(iv), k=key + key2),
                        lib(modes.XTS(iv), True, k=key + key2), seg(cfb8(False), 0xFF),
                        seg(cfb8(True), 0xFF), seg([b << 7 for b in cfb1[0]], 0x80),
                        seg([b << 7 for b in cfb1[1]], 0x80)]


def cfb1_reference(key: bytes, iv: bytes, bits: list[int], decrypt: bool) -> list[int]:
    """CFB1 (SP 800-38A 6.3, s = 1) bit by bit over cryptography's AES block."""
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    chain, out = int.from_bytes(iv, "big"), []
    for b in bits:
        o = enc.update(chain.to_bytes(16, "big"))[0] >> 7
        out.append(b ^ o)
        chain = (chain << 1 | (b if decrypt else out[-1])) & ((1 << 128) - 1)
    return out


def test_sideband_travels_with_its_block():
    """Sideband bits (e.g. a last flag and a byte count) come out with their block, in
    every mode, while many blocks are in flight."""
    rng = random.Random(4)
    dut = ModeEngine(PipeCore("stream", stages=7), sideband=5)
    blocks = [rng.getrandbits(N) for _ in range(20)]
    sides = [rng.getrandbits(5) for _ in blocks]
    got = {}

    async def bench(ctx):
        await begin_message(ctx, dut, 11, Mode.CTR, 77)
        i, out = 0, []
        for _ in range(2000):
            offer = i < len(blocks) and rng.random() < 0.8
            ctx.set(dut.data_in.valid, offer)
            if offer:
                ctx.set(dut.data_in.payload.data, blocks[i])
                ctx.set(dut.data_in.payload.side, sides[i])
            ctx.set(dut.data_out.ready, rng.random() < 0.5)
            await ctx.delay(1e-9)
            i += bool(ctx.get(dut.data_in.valid) and ctx.get(dut.data_in.ready))
            if ctx.get(dut.data_out.valid) and ctx.get(dut.data_out.ready):
                out.append((ctx.get(dut.data_out.payload.data), ctx.get(dut.data_out.payload.side)))
            await ctx.tick()
            if len(out) == len(blocks):
                break
        got["out"] = out

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    want = model(Mode.CTR, lambda x: toy_encrypt(11, x), None, 77, blocks)
    assert got["out"] == list(zip(want, sides))


def test_refuses_a_core_with_a_second_clock():
    with pytest.raises(ValueError, match="single-clock cores"):
        ModeEngine(PipeCore("stream", clocks=("key",)))


def test_the_tweak_times_alpha_is_ieee_1619s():
    """hw.modes.xts_alpha against the host's (little-endian bytes, 0x87 folded in when bit
    127 of the little-endian number falls out), on the carry cases and random tweaks."""
    from amaranth.hdl import Const
    from amaranth.sim import Simulator as Sim
    from amaranth.hdl import Module, Signal
    from cipherfab.host.mode_reference import xts_alpha as host_alpha
    from cipherfab.hw.modes import xts_alpha
    rng = random.Random(1619)
    values = [0, 1 << 7, 1 << 127, 0x80 << 120 | 0x80, MASK] + [rng.getrandbits(N) for _ in range(50)]
    m, t, y = Module(), Signal(N), Signal(N)
    m.d.comb += y.eq(xts_alpha(t))
    got = []

    async def bench(ctx):
        for v in values:
            ctx.set(t, v)
            got.append(ctx.get(y))
    sim = Sim(m)
    sim.add_testbench(bench)
    sim.run()
    assert got == [int.from_bytes(host_alpha(v.to_bytes(16, "big")), "big") for v in values]
    # the host's: alpha^1 of a tweak whose last byte's top bit is set carries 0x87 into byte 0
    assert host_alpha(bytes(15) + b"\x80") == b"\x87" + bytes(15)
    assert host_alpha(b"\x80" + bytes(15)) == b"\x00\x01" + bytes(14)


@pytest.mark.parametrize("mode", [Mode.XTS_ENCRYPT, Mode.XTS_DECRYPT], ids=["encrypt", "decrypt"])
def test_xts_units_with_their_tweaks_on_the_stream(mode):
    """``unit_blocks`` = 3: the stream is tweak, three blocks, tweak, three blocks, ...; each
    tweak loads T and takes no core slot (no output for it), each unit is the model's XTS
    from its tweak, under random gaps; then a message without units (the IV is T) again."""
    rng = random.Random(mode.value)
    dut = ModeEngine(PipeCore("stream"))
    key = rng.getrandbits(N)
    units = [(rng.getrandbits(N), [rng.getrandbits(N) for _ in range(3)]) for _ in range(4)]
    stream = [b for t, blocks in units for b in (t, *blocks)]
    plain = [rng.getrandbits(N) for _ in range(5)]
    results = []

    async def bench(ctx):
        ctx.set(dut.unit_blocks, 3)
        results.extend(await _message(ctx, dut, key, mode, 0, stream, rng, len(stream) - 4))
        ctx.set(dut.unit_blocks, 0)
        results.extend(await _message(ctx, dut, None, mode, 77, plain, rng, len(plain)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    enc, dec = (lambda x: toy_encrypt(key, x)), (lambda y: toy_decrypt(key, y))
    want = [y for t, blocks in units for y in model(mode, enc, dec, t, blocks)]
    assert results == want + model(mode, enc, dec, 77, plain)


async def _message(ctx, dut, key, mode, iv, blocks, rng, outputs, limit=5000):
    """One message through ``dut``: ``blocks`` offered under random gaps until ``outputs``
    blocks came out; the outputs."""
    await begin_message(ctx, dut, key, mode, iv)
    i, got = 0, []
    for _ in range(limit):
        offer = i < len(blocks) and rng.random() < 0.7
        ctx.set(dut.data_in.valid, offer)
        if offer:
            ctx.set(dut.data_in.payload, blocks[i])
        ctx.set(dut.data_out.ready, rng.random() < 0.6)
        await ctx.delay(1e-9)
        i += bool(ctx.get(dut.data_in.valid) and ctx.get(dut.data_in.ready))
        if ctx.get(dut.data_out.valid) and ctx.get(dut.data_out.ready):
            got.append(ctx.get(dut.data_out.payload))
        await ctx.tick()
        if len(got) == outputs and i == len(blocks):
            break
    ctx.set(dut.data_in.valid, 0)
    ctx.set(dut.data_out.ready, 0)
    return got


def test_an_engine_built_with_fewer_modes_runs_them_and_refuses_the_rest():
    """``modes``: the engine runs those (and ECB encrypt) and nothing else: CFB8 without
    CFB (the mode register keeps CFB8 as CFB, whose full-block form is still refused), CTR;
    CBC encrypt and full-block CFB raise ``mode_error`` and take no block."""
    rng = random.Random(8)
    dut = ModeEngine(PipeCore("stream", stages=3), modes={Mode.CFB8_ENCRYPT, Mode.CFB8_DECRYPT, Mode.CTR})
    assert dut.modes == (Mode.ECB_ENCRYPT, Mode.CTR, Mode.CFB8_ENCRYPT, Mode.CFB8_DECRYPT)
    blocks = [rng.getrandbits(N) for _ in range(20)]
    messages = [(5, md, 77, blocks) for md in dut.modes]
    got, _ = run(dut, messages, rng)
    for (_, md, iv, bs), out in zip(messages, got):
        assert out == model(md, lambda x: toy_encrypt(5, x), None, iv, bs), md
    for refused in (Mode.CBC_ENCRYPT, Mode.CFB_ENCRYPT, Mode.OFB):
        assert refusal(dut, refused, 5) == {"error": 1, "taken": 0, "out": 0}, refused
