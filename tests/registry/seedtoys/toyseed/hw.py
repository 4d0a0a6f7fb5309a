"""The toyseed core: see the package docstring.  One block per clock, latency 1, encrypt only."""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring

from cipherfab.hw.info import CoreInfo, CoreSignature

SEED_BITS = 160


def _step(x):
    """One step of a 64-bit xorshift generator (the masks' source)."""
    x = x ^ (x << 13)[:64]
    x = x ^ (x >> 7)
    return x ^ (x << 17)[:64]


class Masked(wiring.Component):
    def __init__(self, warmup=3, declared="right", shows="nothing"):
        self.warmup, self.shows = warmup, shows
        self.info = CoreInfo(
            cipher="toyseed", arch="masked", params={"warmup": warmup, "declared": declared, "shows": shows},
            block_bits=64, key_bits=64, key_bits_effective=64, key_interface="stream",
            directions=("encrypt",), latency=1, cycles_per_block=1, cycles_per_block_feedback=1,
            blocks_in_flight=1, key_setup_cycles=1, parts={}, seed_bits=SEED_BITS,
            seed_setup_cycles=warmup + (declared == "wrong"))
        super().__init__(CoreSignature(self.info))

    def elaborate(self, platform):
        m = Module()
        seeded, have_key = Signal(), Signal()
        warm = Signal(range(self.warmup + 1))
        rnd = Signal(64)                       # the generator; zero (stuck) until seeded
        share0, share1 = Signal(64), Signal(64)
        out, out_valid = Signal(64), Signal()
        shown = Signal(64)                     # shows == "seed": the last seed's first 8 bytes
        ready = seeded & (warm == 0)
        advance = ~out_valid | self.block_out.ready
        seed = self.seed.payload
        m.d.comb += [
            self.seed.ready.eq((warm == 0) & ~out_valid),
            self.key.ready.eq(ready & ~out_valid),
            self.block_in.ready.eq(ready & have_key & advance & ~self.key.valid),
            self.block_out.valid.eq(out_valid), self.block_out.payload.eq(out),
            self.busy.eq(out_valid | (warm != 0)),
        ]
        m.d.sync += [rnd.eq(_step(rnd)), share0.eq(share0 ^ rnd), share1.eq(share1 ^ rnd)]
        with m.If(warm != 0):
            m.d.sync += warm.eq(warm - 1)
        with m.If(self.seed.valid & self.seed.ready):     # (re)seed: the shares stay a sharing
            m.d.sync += [rnd.eq(seed[:64] ^ seed[64:128] ^ seed[128:] | 1), seeded.eq(1),
                         warm.eq(self.warmup - 1)]
            if self.shows == "seed":
                m.d.sync += shown.eq(seed[SEED_BITS - 64:])
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += [share0.eq(self.key.payload ^ rnd), share1.eq(rnd), have_key.eq(1)]
        with m.If(advance):
            m.d.sync += [out_valid.eq(self.block_in.valid & self.block_in.ready),
                         out.eq(self.block_in.payload ^ share0 ^ share1 ^ shown)]
        return m
