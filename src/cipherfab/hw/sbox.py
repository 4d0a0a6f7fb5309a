"""SubBytes: the one place where the S-box implementation style is chosen.

Theory of operation
-------------------
Every table substitution in cipherfab goes through :class:`SubBytes`: ``lanes``
S-boxes side by side on ``x``/``y`` (lane 0 = the low bits), each computing
``y = table[x]`` for a :class:`SboxTables` of ``in_bits`` -> ``out_bits`` entries
(8 -> 8 for AES, 4 -> 4 for Serpent).  With a second table, the ``inverse`` input
picks it per cycle (encrypt/decrypt in one datapath).

A *style* builds the substitution itself; the unit then adds register stages
until ``y`` lags ``x`` by exactly ``latency`` clocks:

``lut``
    the table as a case statement (logic, ``registers = 0``), so any latency
    from 0 (purely combinational) up;
``rom``
    a synchronous ROM (:class:`amaranth.lib.memory.Memory`, ``rom_style=block``)
    whose clocked read port is the first register (``registers = 1``, so
    latency >= 1).  Two lanes share one dual-ported memory (paper 002), so Yosys
    maps each pair onto one block RAM (ECP5 DP16KD); two tables live in the same
    memory, address bit ``in_bits`` selecting the inverse;
``composite``
    the AES S-box as logic in the composite field GF(((2^2)^2)^2) (logic,
    ``registers = 0``), after D. Canright, "A Very Compact S-box for AES"
    (CHES 2005): normal bases at all three levels, the GF(2^8) inversion
    reduced to one GF(2^4) inversion and three GF(2^4) multiplications with
    shared operand factors, the basis change merged into the affine maps.  Per
    lane: ``t = M_in x + c_in``; ``u = t^-1`` in the tower; ``y = M_out u + c_out``.
    For SubBytes ``M_in = X`` (AES field -> tower) and ``M_out = A X^-1``,
    ``c_out = 0x63``; for InvSubBytes ``M_in = X A^-1``, ``c_in = X A^-1 0x63``,
    ``M_out = X^-1``.  With two tables the inversion is shared: both input maps
    and both output maps are built and the ``inverse`` address bit picks one of
    each (two 8-bit multiplexers); with one table only its own maps exist.  The
    field arithmetic, the tower (the cheapest of the 128 normal-basis choices
    for the tables built) and the circuit, written once over bit lists, live in
    :mod:`cipherfab.hw.gf`; the S-box tables are computed there from FIPS-197,
    not imported from cipherfab.ciphers.  The style builds only the AES S-box
    and its inverse (any one or two of them, in either order): other tables are
    refused in one line when the unit is made.  Intermediate values are named
    with signals, so Amaranth's lowering does not copy shared sub-expressions.
    Area on ECP5 depends on Yosys' wide-LUT mapping: 16 lanes, latency 1, one
    table take 1071 LUT4 with ``synth_ecp5 -nowidelut`` (``lut``: 4923) but
    2266 with the default wide-LUT (PFUMX/L6MUX21) mapping (``lut``: 2242); two
    tables 2568 (``lut``: 4794 with ``-nobram``; without it Yosys turns the
    registered 512-entry ``lut`` case into 16 block RAMs).  The logic is deeper
    than a table, so Fmax is lower (16 registered lanes: 132 vs 294 MHz).

``split=True`` puts one of the ``latency`` registers *inside* the substitution
(paper 001: the S-box cut so that each part stays within a slice): ``lut``
splits each table on its two top address bits into four sub-tables of the low
bits, registered with those two bits, then a 4-to-1 multiplexer; ``composite``
registers theta (the GF(2^4) value to invert) with the two input halves, 12
flip-flops per lane; ``rom``, whose read port is already a register, gets an
address register in front.

Every register, the ROM read port included, advances only while ``en`` is high
(default 1), so a whole pipeline holds its contents and ``y`` while ``en`` is low.
With latency 1 the output register *is* the state register of an iterative core,
which is why one datapath serves every style.

New styles (e.g. ``tbox``) are new entries in :data:`STYLES`: a :class:`Style`
says how many registers it contains, which tables it can build
(:meth:`Style.check`, called by :class:`SubBytes` before anything is built) and
builds the lanes; callers only ever name the style.  Checks: tests/hw/test_sbox.py
simulates every input of every style and latency; :mod:`cipherfab.hw.sbox_equiv`
proves each style's synthesized netlist equal to its table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..errors import CipherfabError
from ..registry import Param
from . import gf


@dataclass(frozen=True)
class SboxTables:
    """One S-box (``forward``) and optionally a second table chosen by ``inverse``.

    ``forward`` is the table used while ``inverse`` is low (the only table when
    ``inverse`` is None); each has ``2**in_bits`` entries of ``out_bits`` bits.
    """

    forward: Sequence[int]
    inverse: Sequence[int] | None = None
    in_bits: int = 8
    out_bits: int = 8

    def __post_init__(self):
        if self.in_bits < 1 or self.out_bits < 1:
            raise CipherfabError(f"S-box widths must be >= 1 bit (in_bits={self.in_bits}, out_bits={self.out_bits})")
        for name in ("forward", "inverse"):
            table = getattr(self, name)
            if table is None:
                continue
            table = tuple(int(v) for v in table)
            object.__setattr__(self, name, table)
            if len(table) != 1 << self.in_bits:
                raise CipherfabError(f"S-box {name} table has {len(table)} entries; "
                                     f"in_bits={self.in_bits} needs {1 << self.in_bits}")
            bad = [v for v in table if not 0 <= v < 1 << self.out_bits]
            if bad:
                raise CipherfabError(f"S-box {name} table entry {bad[0]} does not fit out_bits={self.out_bits}")

    @property
    def both(self) -> bool:
        return self.inverse is not None

    @property
    def entries(self) -> tuple[int, ...]:
        """The table as one memory image: forward, then inverse (address bit ``in_bits`` = inverse)."""
        return self.forward + (self.inverse or ())


class Style:
    """How one S-box style is built.  ``registers``: clocked stages the style itself contains."""

    registers = 0

    def check(self, name: str, tables: SboxTables) -> None:
        """Raise a one-line :class:`CipherfabError` if this style cannot build ``tables``."""

    def build(self, m: Module, tables: SboxTables, addresses: list[Value], en: Value) -> list[Value]:
        """The lanes' outputs for ``addresses`` (``Cat(x_lane, inverse)`` with two tables)."""
        raise NotImplementedError

    def build_split(self, m: Module, tables: SboxTables, addresses: list[Value], en: Value) -> list[Value]:
        """As :meth:`build` with one more register inside the substitution (paper 001: the
        S-box split so that each part stays within a slice).  A style with no better cut
        registers the addresses."""
        regs = [Signal(len(a), name=f"a{lane}_split") for lane, a in enumerate(addresses)]
        with m.If(en):
            m.d.sync += [r.eq(a) for r, a in zip(regs, addresses)]
        return self.build(m, tables, regs, en)


class LutStyle(Style):
    """The table as a case statement: combinational logic."""

    def build(self, m, tables, addresses, en):
        outs = []
        for lane, address in enumerate(addresses):
            value = Signal(tables.out_bits, name=f"s{lane}")
            with m.Switch(address):
                for a, v in enumerate(tables.entries):
                    with m.Case(a):
                        m.d.comb += value.eq(Const(v, tables.out_bits))
            outs.append(value)
        return outs

    def build_split(self, m, tables, addresses, en):
        """Shannon's split on the two top address bits: four sub-tables of the low bits
        (6-input functions for one AES table: one slice of LUT4s and wide-function muxes
        each), registered with those two bits, then a 4-to-1 multiplexer."""
        bits = len(addresses[0])
        low = bits - 2
        outs = []
        for lane, address in enumerate(addresses):
            parts = []
            for top in range(4):
                part = Signal(tables.out_bits, name=f"s{lane}_q{top}")
                with m.Switch(address[:low]):
                    for a in range(1 << low):
                        with m.Case(a):
                            m.d.comb += part.eq(Const(tables.entries[(top << low) | a], tables.out_bits))
                held = Signal(tables.out_bits, name=f"s{lane}_q{top}_r")
                parts.append(held)
                with m.If(en):
                    m.d.sync += held.eq(part)
            top_r = Signal(2, name=f"s{lane}_top_r")
            with m.If(en):
                m.d.sync += top_r.eq(address[low:])
            value = Signal(tables.out_bits, name=f"s{lane}")
            m.d.comb += value.eq(Mux(top_r[1], Mux(top_r[0], parts[3], parts[2]),
                                     Mux(top_r[0], parts[1], parts[0])))
            outs.append(value)
        return outs


class RomStyle(Style):
    """A synchronous ROM per pair of lanes; the read port is the first register."""

    registers = 1

    def build(self, m, tables, addresses, en):
        outs = []
        for pair in range(0, len(addresses), 2):
            mem = Memory(shape=tables.out_bits, depth=len(tables.entries), init=tables.entries,
                         attrs={"rom_style": "block"})
            m.submodules[f"rom{pair // 2}"] = mem
            for address in addresses[pair:pair + 2]:
                port = mem.read_port(domain="sync")
                m.d.comb += [port.addr.eq(address), port.en.eq(en)]
                outs.append(port.data)
        return outs


class CompositeStyle(Style):
    """The AES S-box and/or its inverse as GF((2^4)^2) logic (Canright's normal-basis circuit)."""

    @staticmethod
    def _kinds(tables: SboxTables) -> list[str] | None:
        """"forward"/"inverse" (AES S-box or its inverse) per table, or None if one is neither."""
        known = {gf.aes_sbox(): "forward", gf.aes_inv_sbox(): "inverse"}
        if (tables.in_bits, tables.out_bits) != (8, 8):
            return None
        kinds = [known.get(t) for t in (tables.forward, tables.inverse) if t is not None]
        return None if None in kinds else kinds

    def check(self, name, tables):
        if self._kinds(tables) is None:
            raise CipherfabError(f"S-box style {name!r} builds only the AES S-box and its inverse "
                                 f"(8-bit tables equal to FIPS-197 SubBytes/InvSubBytes)")

    def build(self, m, tables, addresses, en, split: bool = False):
        kinds = self._kinds(tables)
        tower = gf.best_tower(tuple(sorted(set(kinds))))
        maps = [tower.maps(k) for k in kinds]
        outs = []
        for lane, address in enumerate(addresses):
            def keep(bits, name, lane=lane):
                s = Signal(len(bits), name=f"c{lane}_{name}")
                m.d.comb += s.eq(Cat(*bits))
                return [s[i] for i in range(len(bits))]

            x = [address[i] for i in range(8)]
            ins = [Cat(*gf.linear(rows, x, const)) for rows, const, _, _ in maps]
            t = keep(list(Mux(address[8], ins[1], ins[0])) if len(ins) == 2 else list(ins[0]), "in")
            inverse = address[8] if len(maps) == 2 else None

            def cut(bits, lane=lane):
                """The split register, after theta (the GF(2^4) value to invert)."""
                nonlocal inverse
                held = Signal(len(bits) + 1, name=f"c{lane}_split")
                with m.If(en):
                    m.d.sync += held.eq(Cat(*bits, inverse if inverse is not None else 0))
                inverse = held[-1] if inverse is not None else None
                return [held[i] for i in range(len(bits))]

            u = gf.inverse_circuit(tower, t, keep, "inv", cut if split else None)
            ys = [Cat(*gf.linear(rows, u, const)) for _, _, rows, const in maps]
            value = Signal(8, name=f"s{lane}")
            m.d.comb += value.eq(Mux(inverse, ys[1], ys[0]) if len(ys) == 2 else ys[0])
            outs.append(value)
        return outs

    def build_split(self, m, tables, addresses, en):
        """The register after theta (Canright's GF(2^4) value to invert), with the two
        halves of the input: 12 flip-flops per lane, about half the logic on each side."""
        return self.build(m, tables, addresses, en, split=True)


#: The S-box styles by name: the only list of them in cipherfab.
STYLES: dict[str, Style] = {"lut": LutStyle(), "rom": RomStyle(), "composite": CompositeStyle()}


#: a round style some architectures build besides :data:`STYLES` (SubBytes with MixColumns'
#: products in T-table ROMs; ``ciphers/aes/round.py``), offered as a value of the same ``sbox``
TBOX = "tbox"


def sbox_param(default: str, help: str, *, only: Sequence[str] | None = None,
               tbox: bool = False) -> Param:
    """An architecture's ``sbox`` parameter: its choices are :data:`STYLES` (``only``: the
    styles it can build, in :data:`STYLES` order), and :data:`TBOX` where it builds T-tables."""
    styles = tuple(s for s in STYLES if only is None or s in only)
    if only is not None and set(only) - set(styles):
        raise ValueError(f"not S-box styles: {sorted(set(only) - set(styles))}")
    return Param("sbox", styles + ((TBOX,) if tbox else ()), default, help)


def check_style(style: str) -> str:
    if style not in STYLES:
        raise CipherfabError(f"unknown S-box style {style!r}; choose from {', '.join(STYLES)}")
    return style


class SubBytes(wiring.Component):
    """``lanes`` S-boxes of one ``style`` with ``y`` = table[``x``] ``latency`` clocks later.

    Ports: ``x`` (lanes * in_bits, lane 0 = low bits), ``y`` (lanes * out_bits),
    ``en`` (all registers advance only while high; default 1) and, with two
    tables, ``inverse`` (1 = the second table; sampled with ``x``).
    """

    def __init__(self, lanes: int, tables: SboxTables, style: str, latency: int = 1,
                 split: bool = False):
        try:
            self._check(lanes, tables, style, latency, split)
        except CipherfabError:
            self._MustUse__silence = True    # refused, not forgotten: no UnusedElaboratable warning
            raise
        self.lanes, self.tables, self.style, self.latency = lanes, tables, style, latency
        self.split = split
        members = {"x": In(lanes * tables.in_bits), "en": In(1, init=1), "y": Out(lanes * tables.out_bits)}
        if tables.both:
            members["inverse"] = In(1)
        super().__init__(members)

    @staticmethod
    def _check(lanes, tables, style, latency, split=False):
        if not isinstance(tables, SboxTables):
            raise CipherfabError(f"S-box tables must be an SboxTables, not {type(tables).__name__}")
        if lanes < 1:
            raise CipherfabError(f"an S-box unit needs at least one lane (got {lanes})")
        STYLES[check_style(style)].check(style, tables)
        need = STYLES[style].registers + int(split)
        if latency < need:
            raise CipherfabError(f"S-box style {style!r}{' split' if split else ''} needs latency "
                                 f">= {need} (its own registers), got {latency}")
        if split and tables.in_bits + int(tables.both) < 3:
            raise CipherfabError("a split S-box needs at least 3 address bits")

    def elaborate(self, platform):
        m = Module()
        t, style = self.tables, STYLES[self.style]
        lanes_x = [self.x[t.in_bits * i:t.in_bits * (i + 1)] for i in range(self.lanes)]
        addresses = [Cat(x, self.inverse) if t.both else x for x in lanes_x]
        if self.split:
            outs = style.build_split(m, t, addresses, self.en)
        else:
            outs = style.build(m, t, addresses, self.en)
        for stage in range(style.registers + int(self.split), self.latency):
            regs = [Signal(t.out_bits, name=f"y{lane}_r{stage}") for lane in range(self.lanes)]
            with m.If(self.en):
                m.d.sync += [r.eq(o) for r, o in zip(regs, outs)]
            outs = regs
        m.d.comb += self.y.eq(Cat(*outs))
        return m
