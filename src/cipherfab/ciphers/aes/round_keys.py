"""Offline round keys: the whole key schedule run once per key into a memory (paper 002).

Theory of operation
-------------------
On ``load`` the window (:mod:`.key_step`: Nk expanded-key words, round key
``n`` = its first four words) takes the cipher key.  Then, two clocks per
round key: clock A writes round key ``n`` into the memory and addresses the
SubWord S-boxes (one registered :class:`~cipherfab.hw.sbox.SubBytes` of four
lanes, any style); clock B steps the window to ``n + 1`` with the S-box output.
After round key ``Nr`` is written ``ready`` rises: the memory holds all Nr+1
round keys (2·Nr+1 clocks after the load, 21 for AES-128: paper 002 fills its
11×128 RAM in 20).  With ``phases = 3`` (:func:`expansion_phases`: block-RAM
S-boxes in the interleaved core) the S-box output is registered once more in the
fabric and the step comes a clock later: 3·Nr+1 clocks.  A block RAM's read
(about 4.5 ns from its clock on ECP5) then no longer runs through the step's
XORs into the window and the write port in the same clock: that was the
interleaved rom core's worst path (docs/decisions.md).

Readers address the memory one clock ahead (a synchronous read port with an
enable, so Yosys can map it onto block or distributed RAM, and a stalled reader
keeps its data).  ``first_enc``/``first_dec`` hold
round keys 0 and Nr in registers, for the AddRoundKey merged into a block's load.
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.sbox import SboxTables, SubBytes
from .key_step import WindowStep, first_round_key
from .reference import NK, NR, SBOX


def expansion_phases(sbox: str) -> int:
    """Clocks per round key while the memory fills: 3 for block-RAM SubWord S-boxes
    (their read registered again before the step), else 2."""
    return 3 if sbox == "rom" else 2


def expansion_cycles(nr: int, phases: int = 2) -> int:
    """Clocks from the load until the memory holds every round key."""
    return phases * nr + 1


def ports(key_bits: int, read_ports: int) -> dict:
    """The members of a round-key memory (:class:`RoundKeyMemory` and its key-clock form)."""
    nr = NR[key_bits]
    return {"key": In(key_bits), "load": In(1), "ready": Out(1), "busy": Out(1),
            "first_enc": Out(128), "first_dec": Out(128),
            "read_addr": In(range(nr + 1)).array(read_ports),
            "read_en": In(1, init=1).array(read_ports),
            "read_data": Out(128).array(read_ports)}


class RoundKeyMemory(wiring.Component):
    """All round keys of one cipher key, expanded once and read by round index
    (read ports in ``read_domain``, everything else in ``sync``)."""

    def __init__(self, key_bits: int, sbox: str, read_ports: int = 1, read_domain: str = "sync",
                 phases: int = 2):
        self.nk, self.nr, self.sbox = NK[key_bits], NR[key_bits], sbox
        self.read_ports, self.read_domain = read_ports, read_domain
        assert phases in (2, 3), phases
        self.phases = phases
        super().__init__(ports(key_bits, read_ports))

    def elaborate(self, platform):
        m = Module()
        nr = self.nr
        step = WindowStep(self.nk, nr, forward=True)
        window, n, phase_b = Signal(32 * self.nk), Signal(range(nr + 1)), Signal()
        busy, have_key = Signal(), Signal()
        m.submodules.sub_word = sub_word = SubBytes(4, SboxTables(SBOX), self.sbox,
                                                    latency=self.phases - 1)
        if self.phases == 2:        # phase_b: the step's clock (B); A otherwise
            first, stepping, advance = ~phase_b, phase_b, phase_b.eq(~phase_b)
        else:                       # A, wait for the registered SubWord, then step
            phase = Signal(range(self.phases))
            first, stepping = phase == 0, phase == self.phases - 1
            advance = phase.eq(Mux(stepping, 0, phase + 1))
            phase_b = phase
        write = self._storage(m)

        rk = first_round_key(window)
        # the step at n = Nr is never taken, so AES-128/256 address the S-boxes with the
        # window's last word, no decode of n in front of them (the interleaved lut core's
        # worst path ran from n through that decode into the SubWord S-boxes)
        fixed = step.fixed_sub_word(window)
        m.d.comb += [
            sub_word.x.eq(step(window, n, Const(0, 32))[1] if fixed is None else fixed),
            *write(n, rk, busy & first),
            self.ready.eq(have_key & ~busy), self.busy.eq(busy),
        ]
        with m.If(busy):
            m.d.sync += advance
            with m.If(first & (n == nr)):
                m.d.sync += [busy.eq(0), self.first_dec.eq(rk)]
            with m.If(stepping):
                m.d.sync += [window.eq(step(window, n, sub_word.y)[0]), n.eq(n + 1)]
        with m.If(self.load):
            m.d.sync += [window.eq(self.key), n.eq(0), phase_b.eq(0), busy.eq(1), have_key.eq(1),
                         self.first_enc.eq(first_round_key(self.key))]
        return m

    def _storage(self, m: Module):
        """Build the store; return ``write(addr, data, en)`` -> its statements."""
        # (the port names are part of the netlist's names: kept as they were before the split)
        m.submodules.memory = memory = Memory(shape=128, depth=self.nr + 1, init=[])
        write = memory.write_port()
        for i in range(self.read_ports):
            port = memory.read_port(domain=self.read_domain, transparent_for=())
            m.d.comb += [port.addr.eq(self.read_addr[i]), port.en.eq(self.read_en[i]),
                         self.read_data[i].eq(port.data)]
        return lambda addr, data, en: [write.addr.eq(addr), write.data.eq(data), write.en.eq(en)]


class RoundKeyRegisters(RoundKeyMemory):
    """The same expansion into Nr+1 registers, all read at once (``round_keys[n]``): a
    fixed-key pipeline needs every round key in the same clock."""

    def __init__(self, key_bits: int, sbox: str):
        super().__init__(key_bits, sbox, read_ports=0)
        self.round_keys = [Signal(128, name=f"rk{n}") for n in range(self.nr + 1)]

    def _storage(self, m: Module):
        def write(addr, data, en):
            with m.If(en):
                for n, reg in enumerate(self.round_keys):
                    with m.If(addr == n):
                        m.d.sync += reg.eq(data)
            return []
        return write
