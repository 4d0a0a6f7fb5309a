"""Registered S-box banks: the one place where the S-box implementation style is chosen.

Every byte-substitution in cipherfab goes through :class:`SboxBank`: ``n`` S-boxes,
each ``y = table[x]`` registered (available the clock after ``x``, held while
``en`` is low).  Making the register part of the S-box lets the two styles share
one datapath:

``lut``
    the table as a case statement (logic), followed by a flip-flop;
``rom``
    a synchronous ROM (:class:`amaranth.lib.memory.Memory` with a clocked read
    port), two S-boxes per dual-ported memory as in paper 002, so that Yosys
    maps each pair onto one block RAM (ECP5 DP16KD).

With two tables (``select`` chooses), both live in the same ROM (address bit 8)
or the same case statement: a both-directions AES core keeps SubBytes and
InvSubBytes in one block RAM.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..errors import CipherfabError

STYLES = ("lut", "rom")


def check_style(style: str) -> str:
    if style not in STYLES:
        raise CipherfabError(f"unknown S-box style {style!r}; choose from {', '.join(STYLES)}")
    return style


class SboxBank(wiring.Component):
    """``n`` registered 8-bit S-boxes on the byte lanes of ``x``/``y`` (lane 0 = bits 7:0).

    ``tables`` holds one or two 256-entry tables; with two, ``select`` picks the second.
    """

    def __init__(self, n: int, style: str, tables):
        self.n, self.style = n, check_style(style)
        self.tables = [tuple(t) for t in tables]
        if len(self.tables) not in (1, 2) or any(len(t) != 256 for t in self.tables):
            raise ValueError("SboxBank takes one or two 256-entry tables")
        members = {"x": In(8 * n), "en": In(1, init=1), "y": Out(8 * n)}
        if len(self.tables) == 2:
            members["select"] = In(1)
        super().__init__(members)

    def _address(self, lane: int):
        x = self.x[8 * lane:8 * lane + 8]
        return Cat(x, self.select) if len(self.tables) == 2 else x

    def elaborate(self, platform):
        m = Module()
        if self.style == "rom":
            self._elaborate_rom(m)
        else:
            self._elaborate_lut(m)
        return m

    def _elaborate_rom(self, m: Module):
        init = [v for t in self.tables for v in t]
        for pair in range(0, self.n, 2):
            mem = Memory(shape=8, depth=len(init), init=init, attrs={"rom_style": "block"})
            m.submodules[f"rom{pair // 2}"] = mem
            for lane in range(pair, min(pair + 2, self.n)):
                port = mem.read_port(domain="sync")
                m.d.comb += [
                    port.addr.eq(self._address(lane)),
                    port.en.eq(self.en),
                    self.y[8 * lane:8 * lane + 8].eq(port.data),
                ]

    def _elaborate_lut(self, m: Module):
        table = [v for t in self.tables for v in t]
        for lane in range(self.n):
            value = Signal(8, name=f"s{lane}")
            with m.Switch(self._address(lane)):
                for a, v in enumerate(table):
                    with m.Case(a):
                        m.d.comb += value.eq(Const(v, 8))
            with m.If(self.en):
                m.d.sync += self.y[8 * lane:8 * lane + 8].eq(value)
