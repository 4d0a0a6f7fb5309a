"""Test doubles and helpers shared by the hw tests: a pipelined toy-cipher core that
follows the core contract, and AXI4-Stream transfers of byte messages."""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring

from cipherfab.hw.info import CoreInfo, CoreSignature, payload_parts
from cipherfab.host.mode_reference import xts_alpha
from cipherfab.hw.modes import Mode

N, MASK, FIXED = 128, (1 << 128) - 1, 0x2B7E151628AED2A6ABF7158809CF4F3C


def rotl(x, r):
    return ((x << r) | (x >> (N - r))) & MASK


def toy_encrypt(k, x):
    return rotl(x ^ k, 8)


def toy_decrypt(k, y):
    return rotl(y, N - 8) ^ k


class PipeCore(wiring.Component):
    """A ``stages``-deep pipeline, one block per clock, both directions, of the toy cipher
    above (a test double: order, backpressure and key interfaces, not cryptography)."""

    def __init__(self, key_interface="stream", stages=5, directions=("encrypt", "decrypt"),
                 clocks=()):
        self.stages = stages
        super().__init__(CoreSignature(CoreInfo(
            cipher="toy", arch="pipe", params={}, block_bits=N,
            key_bits=0 if key_interface == "none" else N,
            key_bits_effective=0 if key_interface == "none" else N,
            key_interface=key_interface, directions=directions, latency=stages,
            cycles_per_block=1, cycles_per_block_feedback=stages, blocks_in_flight=stages,
            key_setup_cycles=0, fixed_key=f"{FIXED:032x}" if key_interface == "none" else None,
            clocks=clocks)))

    def elaborate(self, platform):
        m = Module()
        block, decrypt, block_key = payload_parts(self)
        key = Signal(N, init=FIXED)
        valid = [Signal(name=f"v{i}") for i in range(self.stages)]
        data = [Signal(N, name=f"d{i}") for i in range(self.stages)]
        advance = ~(valid[-1] & ~self.block_out.ready)
        empty = ~Cat(*valid).any()
        use_key = block_key if block_key is not None else key
        if "key" in self.signature.members:
            m.d.comb += self.key.ready.eq(empty)
            with m.If(self.key.valid & self.key.ready):
                m.d.sync += key.eq(self.key.payload)
            m.d.comb += self.block_in.ready.eq(advance & ~self.key.valid)
        else:
            m.d.comb += self.block_in.ready.eq(advance)
        x = block ^ use_key
        enc = (x << 8 | x >> (N - 8))[:N]
        dec = (block << (N - 8) | block >> 8)[:N] ^ use_key
        with m.If(advance):
            m.d.sync += [valid[0].eq(self.block_in.valid & self.block_in.ready),
                         data[0].eq(enc if decrypt is None else Mux(decrypt, dec, enc))]
            for i in range(1, self.stages):
                m.d.sync += [valid[i].eq(valid[i - 1]), data[i].eq(data[i - 1])]
        m.d.comb += [self.block_out.valid.eq(valid[-1]), self.block_out.payload.eq(data[-1]),
                     self.busy.eq(~empty)]
        return m


def transfers(msg: bytes, lanes: int, block_bytes: int):
    """(data, keep, last) transfers of one message; every message starts a block."""
    out = []
    for at in range(0, max(len(msg), 1), lanes):
        chunk = msg[at:at + lanes]
        data = int.from_bytes(chunk[::-1], "big") if chunk else 0     # lane 0 = first byte
        out.append((data, (1 << len(chunk)) - 1, at + lanes >= len(msg)))
    return out


def messages_of(got, lanes):
    """The byte messages a list of (data, keep, last) transfers spells."""
    out, cur = [], b""
    for data, keep, last in got:
        n = bin(keep).count("1")
        assert keep == (1 << n) - 1, "tkeep must be low lanes"
        cur += data.to_bytes(lanes, "little")[:n]
        if last:
            out.append(cur)
            cur = b""
    assert cur == b""
    return out


async def load_key(ctx, dut, key):
    """Wait until ``dut`` (a ModeEngine or Accelerator) is idle, then load ``key`` (None:
    keep the key / key-specific core)."""
    while not ctx.get(dut.idle):
        await ctx.tick()
    if key is not None:
        ctx.set(dut.key.payload, key)
        ctx.set(dut.key.valid, 1)
        await ctx.tick().until(dut.key.ready)
        ctx.set(dut.key.valid, 0)


async def stream_through(ctx, dut, sent, rng, valid_p, ready_p, limit, done):
    """Offer the (data, keep, last) transfers ``sent`` on ``dut.s_axis`` and take
    ``m_axis``, each with its probability per clock, until ``done(i, got)`` (i: transfers
    sent) or ``limit`` clocks; returns the transfers taken, or None at the limit."""
    got, i = [], 0
    for _ in range(limit):
        offer = i < len(sent) and rng.random() < valid_p
        ctx.set(dut.s_axis.valid, offer)
        if offer:
            d, k, last = sent[i]
            ctx.set(dut.s_axis.payload.data, d)
            ctx.set(dut.s_axis.payload.keep, k)
            ctx.set(dut.s_axis.payload.last, last)
        ctx.set(dut.m_axis.ready, rng.random() < ready_p)
        await ctx.delay(1e-9)
        i += bool(ctx.get(dut.s_axis.valid) and ctx.get(dut.s_axis.ready))
        if ctx.get(dut.m_axis.valid) and ctx.get(dut.m_axis.ready):
            got.append((ctx.get(dut.m_axis.payload.data), ctx.get(dut.m_axis.payload.keep),
                        ctx.get(dut.m_axis.payload.last)))
        await ctx.tick()
        if done(i, got):
            break
    else:
        return None
    ctx.set(dut.s_axis.valid, 0)
    ctx.set(dut.m_axis.ready, 0)
    return got


async def begin_message(ctx, dut, key, mode, iv):
    """Wait until ``dut`` (a ModeEngine or Accelerator) is idle, load ``key`` (None: keep
    the key / key-specific core), then start a message in ``mode`` with ``iv``."""
    await load_key(ctx, dut, key)
    ctx.set(dut.mode, mode)
    ctx.set(dut.iv, iv)
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)


def model(mode, enc, dec, iv, blocks, bits=N):
    """``mode`` over int ``blocks`` with the block functions ``enc``/``dec`` (a Python model)."""
    out, chain, ctr = [], iv, iv
    for b in blocks:
        if mode.xts:                       # chain: the tweak T, times alpha after each block
            f = dec if mode == Mode.XTS_DECRYPT else enc
            out.append(f(b ^ chain) ^ chain)
            chain = int.from_bytes(xts_alpha(chain.to_bytes(16, "big")), "big")
        elif mode == Mode.ECB_ENCRYPT:
            out.append(enc(b))
        elif mode == Mode.ECB_DECRYPT:
            out.append(dec(b))
        elif mode == Mode.CBC_ENCRYPT:
            chain = enc(b ^ chain)
            out.append(chain)
        elif mode == Mode.CBC_DECRYPT:
            out.append(dec(b) ^ chain)
            chain = b
        elif mode == Mode.OFB:
            chain = enc(chain)
            out.append(b ^ chain)
        elif mode == Mode.CFB_ENCRYPT:
            chain = b ^ enc(chain)
            out.append(chain)
        elif mode == Mode.CFB_DECRYPT:
            out.append(b ^ enc(chain))
            chain = b
        elif mode.segment_bits:            # a segment a block, in its top s bits
            s = mode.segment_bits
            top = ((1 << s) - 1) << (bits - s)
            out.append((b ^ enc(chain)) & top)
            ct = out[-1] if mode.feedback else b
            chain = (chain << s | (ct & top) >> (bits - s)) & ((1 << bits) - 1)
        else:
            out.append(b ^ enc(ctr))
            ctr = (ctr + 1) % (1 << bits)
    return out


def layer_flags(ctx, dut, clocks: int) -> dict:
    """An accelerator's error flags, tag verdict, TAG and block count after a GCM or CMAC
    message, with the message's ``clocks``."""
    flags = {f: ctx.get(getattr(dut, f)) for f in (
        "mode_error", "axis_error", "length_error", "gcm_error", "tag_match", "tag_mismatch")}
    return {**flags, "tag": ctx.get(dut.tag), "blocks_in": ctx.get(dut.blocks_in), "clocks": clocks}


def run_clocked(dut, bench) -> list:
    """Run the testbench ``bench(ctx, clock)`` on ``dut`` with a process counting clocks
    (``clock[0]``)."""
    from amaranth.sim import Simulator
    clock = [0]

    async def count(ctx):
        async for _ in ctx.tick():
            clock[0] += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_process(count)
    async def testbench(ctx):
        await bench(ctx, clock)

    sim.add_testbench(testbench)
    sim.run()
