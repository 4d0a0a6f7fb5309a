"""Trivium (C. De Cannière, B. Preneel; eSTREAM portfolio, ISO/IEC 29192-3) as the masked
cores' seedable pseudo-random generator: a model and the hardware, up to 64 bits a clock.

The state is 288 bits ``s1..s288``.  Seeding loads an 80-bit key into ``s1..s80`` and an
80-bit IV into ``s94..s173``, sets ``s286..s288`` and runs 4 x 288 steps with no output; each
later step gives one bit ``z = t1 ^ t2 ^ t3``.  Byte order as in eSTREAM's reference and
test vectors: ``s(i+1)`` is bit ``79 - i`` of the key read as a little-endian integer (the
same for the IV), and the keystream's bit ``i`` is bit ``i mod 8`` of byte ``i // 8``.
A step's new bits depend on state bits at least 66 positions down the registers, so up
to 64 steps fit in one clock, unrolled.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

STATE = 288
WARMUP = 4 * 288
MAX_WIDTH = 64


def seeded(key: bytes, iv: bytes) -> list[int]:
    """The state (``s[0]`` is s1) after loading, before the warm-up."""
    if len(key) != 10 or len(iv) != 10:
        raise ValueError("Trivium takes an 80-bit key and an 80-bit IV")
    k, v = int.from_bytes(key, "little"), int.from_bytes(iv, "little")
    s = [0] * STATE
    for i in range(80):
        s[i], s[93 + i] = (k >> (79 - i)) & 1, (v >> (79 - i)) & 1
    s[285] = s[286] = s[287] = 1
    return s


def step(s):
    """One step: ``(z, next state)``; ``s`` is a list of bits or of Amaranth values."""
    t1, t2, t3 = s[65] ^ s[92], s[161] ^ s[176], s[242] ^ s[287]
    z = t1 ^ t2 ^ t3
    t1 = t1 ^ (s[90] & s[91]) ^ s[170]
    t2 = t2 ^ (s[174] & s[175]) ^ s[263]
    t3 = t3 ^ (s[285] & s[286]) ^ s[68]
    return z, [t3] + s[0:92] + [t1] + s[93:176] + [t2] + s[177:287]


def keystream(key: bytes, iv: bytes, n_bits: int) -> list[int]:
    s = seeded(key, iv)
    for _ in range(WARMUP):
        _, s = step(s)
    out = []
    for _ in range(n_bits):
        z, s = step(s)
        out.append(z)
    return out


def keystream_bytes(key: bytes, iv: bytes, n: int) -> bytes:
    """eSTREAM's byte form: keystream bit i is bit i mod 8 of byte i // 8."""
    z = keystream(key, iv, 8 * n)
    return bytes(sum(z[8 * i + j] << j for j in range(8)) for i in range(n))


class Trivium(wiring.Component):
    """``width`` keystream bits a clock (bit j of ``bits`` is the j-th of those steps).
    ``seed`` for one clock loads ``key``/``iv``; ``ready`` rises after the warm-up,
    ``ceil(1152 / width)`` clocks of ``width`` steps (a width that does not divide 1152
    runs a few steps more than eSTREAM's 1152 before its first bit), and ``bits`` then
    changes every clock.  Until the first seed (after reset) ``ready`` is low: the state is
    zero, whose keystream is all zeros."""

    def __init__(self, width: int = 64):
        if not 1 <= width <= MAX_WIDTH:
            raise ValueError(f"Trivium gives 1 to {MAX_WIDTH} bits a clock, not {width}")
        self.width = width
        self.warmup_clocks = -(-WARMUP // width)
        super().__init__({"key": In(80), "iv": In(80), "seed": In(1),
                          "bits": Out(width), "ready": Out(1)})

    def elaborate(self, platform):
        m = Module()
        state = Signal(STATE)
        s = [state[i] for i in range(STATE)]
        zs = []
        for _ in range(self.width):
            z, s = step(s)
            zs.append(z)
        left = Signal(range(self.warmup_clocks + 1))
        seeded_once = Signal()
        loaded = Signal(STATE)
        m.d.comb += loaded.eq(Cat(*[self.key[79 - i] for i in range(80)], *([0] * 13),
                                  *[self.iv[79 - i] for i in range(80)], *([0] * 112), 1, 1, 1))
        with m.If(self.seed):
            m.d.sync += [state.eq(loaded), left.eq(self.warmup_clocks), seeded_once.eq(1)]
        with m.Else():
            m.d.sync += state.eq(Cat(*s))
            with m.If(left != 0):
                m.d.sync += left.eq(left - 1)
        m.d.comb += [self.bits.eq(Cat(*zs)), self.ready.eq(seeded_once & (left == 0))]
        return m


def bank_shape(width: int) -> tuple[int, int]:
    """``(instances, bits a clock each)`` of a bank giving ``width`` bits a clock: as few
    instances as the 64-bit limit allows, each unrolled just enough (SMAesH's sizing), so
    the bank computes ``width`` keystream bits a clock, or fewer than ``instances`` more."""
    if width < 1:
        raise ValueError(f"a bank gives at least one bit a clock, not {width}")
    count = -(-width // MAX_WIDTH)
    return count, -(-width // count)


def bank_warmup(width: int) -> int:
    """Clocks from a seed to the bank's first bits."""
    return -(-WARMUP // bank_shape(width)[1])


class TriviumBank(wiring.Component):
    """``width`` fresh bits a clock from :func:`bank_shape` Trivium instances, all seeded
    together from ``key`` and ``iv`` (instance i takes the IV XOR i; bit j of instance i's
    bits is bit ``i * unroll + j`` of ``bits``).  The masked cores drive ``key``/``iv`` from
    their seed port alone (never from the cipher key)."""

    def __init__(self, width: int):
        self.width = width
        self.count, self.unroll = bank_shape(width)
        self.warmup_clocks = bank_warmup(width)
        super().__init__({"key": In(80), "iv": In(80), "seed": In(1),
                          "bits": Out(width), "ready": Out(1)})

    def elaborate(self, platform):
        m = Module()
        out, ready = [], []
        for i in range(self.count):
            m.submodules[f"trivium{i}"] = t = Trivium(self.unroll)
            m.d.comb += [t.key.eq(self.key), t.iv.eq(self.iv ^ i), t.seed.eq(self.seed)]
            out.append(t.bits)
            ready.append(t.ready)
        # every instance's ready (they warm up together): an instance whose ready went
        # unused lost its warm-up counter, and Yosys then mapped its state update to 948
        # LUT4 and 560 wide multiplexers instead of 563 LUT4
        m.d.comb += [self.bits.eq(Cat(*out)[:self.width]), self.ready.eq(Cat(*ready).all())]
        return m


def seed_port(m: Module, bank, seed, seeded, wait, setup: int):
    """The masked cores' seed handshake: a seed taken (re)seeds ``bank`` (instance i: key
    ``seed[:80]``, IV ``seed[80:] ^ i``; ``bank`` None: a core without generators, a test
    mode, keeps the port and the wait), sets ``seeded`` and makes ``wait`` count
    ``setup - 1`` clocks down; returns the handshake."""
    took = seed.valid & seed.ready
    if bank is not None:
        m.d.comb += [bank.key.eq(seed.payload[:80]), bank.iv.eq(seed.payload[80:]), bank.seed.eq(took)]
    with m.If(took):
        m.d.sync += [seeded.eq(1), wait.eq(setup - 1)]
    with m.Elif(wait != 0):
        m.d.sync += wait.eq(wait - 1)
    return took
