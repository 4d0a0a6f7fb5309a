"""Small designs with share tags (``cipherfab_share``) for tests/flow/test_shares.py.

Each is a top ``top`` around a submodule ``gadget`` (kept as a part, as the flow keeps a
core's parts): the secret's shares ``x0``/``x1`` (tagged 0/1) registered from ports, a
masked XOR with the fresh bits ``r`` into ``y0``/``y1`` (tagged), and the ciphertext share
registers ``ct0``/``ct1`` (untagged: their XOR is public; ``o`` also takes their AND, so two
equal ciphertext registers are not optimized away).

- ``separate``: ``y0 = x0 ^ r``, ``y1 = x1 ^ r``: no cell sees both shares (0 merged LUTs).
- ``recombined``: ``y0 = x0 ^ x1 ^ r`` in one LUT per bit (the refresh-recombined mistake):
  ``WIDTH`` LUTs where the shares first meet.
- ``same_register``: ``y0`` and ``y1`` both take ``x0 ^ r``; synthesis merges the two
  registers into one, which then holds both tags (a flip-flop of both shares): ``y0`` and
  ``y1`` are the gadget's ports, so both names stay (see :mod:`cipherfab.flow.shares` on a
  merged register whose other name is dropped).
"""

from __future__ import annotations

from amaranth import Cat, Elaboratable, Module, Signal
from amaranth.back import verilog

WIDTH = 4
TAGGED_BITS = 4 * WIDTH          # x0, x1, y0, y1
PARTS = {"top.gadget": "datapath"}


def _tagged(name: str, share: int) -> Signal:
    return Signal(WIDTH, name=name, attrs={"cipherfab_share": str(share)})


class _Gadget(Elaboratable):
    def __init__(self, kind: str):
        self.kind = kind
        self.a, self.b, self.r = (Signal(WIDTH, name=n) for n in ("a", "b", "r"))
        self.y0, self.y1 = _tagged("y0", 0), _tagged("y1", 1)       # ports: their names stay

    def elaborate(self, platform):
        m = Module()
        x0, x1, y0, y1 = _tagged("x0", 0), _tagged("x1", 1), self.y0, self.y1
        m.d.sync += [x0.eq(self.a ^ self.b), x1.eq(self.b)]       # (a ^ b) ^ b = a: a's shares
        if self.kind == "separate":
            m.d.sync += [y0.eq(x0 ^ self.r), y1.eq(x1 ^ self.r)]
        elif self.kind == "recombined":
            m.d.sync += [y0.eq(x0 ^ x1 ^ self.r), y1.eq(self.r)]
        else:
            m.d.sync += [y0.eq(x0 ^ self.r), y1.eq(x0 ^ self.r)]
        return m


class _Top(Elaboratable):
    def __init__(self, kind: str):
        self.gadget = _Gadget(kind)
        self.o = Signal(2 * WIDTH, name="o")

    def elaborate(self, platform):
        m = Module()
        m.submodules.gadget = g = self.gadget
        ct0, ct1 = Signal(WIDTH, name="ct0"), Signal(WIDTH, name="ct1")
        m.d.sync += [ct0.eq(g.y0), ct1.eq(g.y1), self.o.eq(Cat(ct0 ^ ct1, ct0 & ct1))]
        return m


def design(kind: str) -> str:
    """The Verilog of one design (``separate``, ``recombined``, ``same_register``), top ``top``."""
    t = _Top(kind)
    g = t.gadget
    return verilog.convert(t, name="top", ports=[g.a, g.b, g.r, t.o])


def source(kind: str, flatten_parts: bool = False):
    """The design as a :class:`~cipherfab.flow.DesignSource` (parts kept unless asked)."""
    from cipherfab.flow import DesignSource
    return DesignSource(verilog=design(kind), top="top", design={"external": True},
                        cycles_per_block_ecb=1, parts={} if flatten_parts else dict(PARTS))


def hpc2(unregistered: bool = False) -> str:
    """Two HPC2 AND gadgets and an XOR on two shares (:class:`cipherfab.hw.masking.masked.MaskedCircuit`,
    tagged as the masked AES core's S-boxes are), ciphertext registers untagged: top ``top``;
    ``unregistered``: the circuit's test mode without the gadgets' product registers."""
    from cipherfab.ciphers.aes.sbox_circuit import Gate
    from cipherfab.hw.masking.masked import MaskedCircuit
    gates = [Gate("t", "and", "a", "b"), Gate("u", "xor", "t", "c"), Gate("v", "and", "u", "a")]

    class Top(Elaboratable):
        def __init__(self):
            self.x0, self.x1 = Signal(3, name="x0"), Signal(3, name="x1")
            self.r, self.o = Signal(2, name="r"), Signal(2, name="o")

        def elaborate(self, platform):
            m = Module()
            m.submodules.c = c = MaskedCircuit(gates, ("a", "b", "c"), ("u", "v"), unregistered=unregistered)
            m.d.comb += [c.x[0].eq(self.x0), c.x[1].eq(self.x1), c.rand.eq(self.r)]
            ct0, ct1 = Signal(2, name="ct0"), Signal(2, name="ct1")
            m.d.sync += [ct0.eq(c.y[0]), ct1.eq(c.y[1]), self.o.eq(ct0 ^ ct1)]
            return m
    t = Top()
    return verilog.convert(t, name="top", ports=[t.x0, t.x1, t.r, t.o])
