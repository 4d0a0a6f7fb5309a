"""GF(2^128) multipliers for GHASH (NIST SP 800-38D), in one of :data:`STYLES`.

Theory of operation
-------------------
*Bit order*: ports carry blocks as :mod:`cipherfab.hw.gcm.gf128` reads them, the integer
``int.from_bytes(block, "big")``, so port bit ``n - 1 - i`` is the coefficient of
``a^i`` (the block's leftmost bit is ``a^0``).  Inside, each operand is reflected
(:func:`reflect`: a renaming of wires, no logic) so that bit ``i`` is the coefficient
of ``a^i``; the product is reflected back.

*Product* (:func:`gf_mul_comb`), schoolbook: the carry-less product
``p = XOR_i (x << i) & h_i`` (``n^2`` AND gates, ``(n-1)^2`` XORs), then the
reduction, which is linear: for every ``k >= n`` the constant ``a^k mod P`` is
computed here in Python, and output bit ``j`` is ``p_j`` XOR every ``p_k`` whose
constant has bit ``j``.  For GCM's sparse ``P = a^128 + a^7 + a^2 + a + 1`` each
``p_k`` feeds 4 outputs (7 for the top six), so the reduction costs about 520 XORs
next to the ~16k of the product.  Both sums are written as balanced trees of
word-wide XORs (:func:`xor_tree`, log2(n) levels), not as chains; in the reduction
most terms are constant zero in a given bit, and synthesis folds those away.  Schoolbook rather than Karatsuba: the circuit is the textbook formula
a reviewer can check line by line, the product is one named signal, and the AND/XOR
terms map straight onto LUTs; one Karatsuba level saves a quarter of the ANDs
(3 x 64^2 instead of 128^2) but adds pre- and post-addition XORs and depth, and
whether it wins on LUT4s is a measurement not made yet.

*Field*: the generator is written for any :class:`~cipherfab.hw.gcm.gf128.Field` (width
``n`` and reduction polynomial, same reflected bit order); GCM is the default and the
n = 128 case.  Tests build GF(2^8) modulo 0x11B with the same code and check it on
every operand pair.

Styles (:class:`GF128Mul`):

``parallel``
    one product per clock: ``y`` (and ``valid_out``) are registered, one clock after
    ``x``, ``h`` (and ``valid_in``).  ``valid`` only travels beside the data.
``digit``
    ``digit`` bits of ``x`` per clock, Horner form from the highest powers of ``a``
    down: with ``x = sum_k D_k a^(n - d(k+1))`` (``D_k`` of degree < d: port bits
    ``dk .. dk+d-1``, i.e. the block's rightmost digit first),
    ``Z_(k+1) = Z_k a^d + D_k H`` and ``Z_(n/d) = x . h``.  One step is a d x n
    carry-less product plus ``Z << d``, reduced once (n + d bits -> n).  ``start``
    (taken while ``busy`` is low) samples ``x`` and ``h`` and already performs step 0
    on them; steps 1 .. n/d - 1 follow, one per clock, so ``done`` is high for one
    clock exactly ``n / digit`` clocks after the clock that took ``start``, whatever
    the data.  ``y`` is the step register itself (reflected): it holds the product
    from ``done`` until the clock that takes the next ``start``, which may be the
    clock ``done`` is high in (back to back: one product every ``n / digit`` clocks).
    ``digit`` is one of :data:`DIGITS` for GCM (any divisor of ``n`` below ``n`` for
    another field).

Checks: tests/hw/gcm/test_ghash.py simulates every style and digit size on random
operands and on one-hot (basis) operands against :func:`cipherfab.hw.gcm.gf128.mul`,
with exact cycle counts, and checks the GF(2^8) instance on all 65536 pairs (parallel
and digit 2; digits 1 and 4 with ``-m slow``).  :mod:`cipherfab.hw.gcm.ghash_equiv` proves
:func:`gf_mul_comb` (the parallel style's logic) equal to SP 800-38D Algorithm 1 and to
:func:`cipherfab.hw.gcm.gf128.mul` for all 2^256 operand pairs, by the exact algebraic normal
form of its Yosys netlist (a SAT proof did not finish), and :func:`horner_step` (one
digit-serial clock) equal to ``Z a^d + D H mod P``; the registers, multiplexers,
counter and handshakes of both styles are simulated, not proven.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...errors import CipherfabError
from .gf128 import GCM, Field

STYLES = ("parallel", "digit")
DIGITS = (8, 16, 32, 64)


def reflect(v) -> Value:
    """``v`` with its bits in the opposite order (wiring only)."""
    v = Value.cast(v)
    return Cat(*(v[i] for i in reversed(range(len(v)))))


def xor_tree(terms: list) -> Value:
    """XOR of ``terms`` as a balanced binary tree (pairs, then pairs of pairs ...)."""
    terms = list(terms)
    while len(terms) > 1:
        terms = [terms[i] ^ terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return Value.cast(terms[0])


def clmul(a, b) -> Value:
    """Carry-less product of two polynomials (bit i = coefficient of a^i), ``len(a) + len(b) - 1`` bits."""
    a, b = Value.cast(a), Value.cast(b)
    width = len(a) + len(b) - 1
    return xor_tree([Mux(b[i], a << i, 0)[:width] for i in range(len(b))])


def reduce_mod(p, field: Field) -> Value:
    """``p mod field.poly`` (bit i = coefficient of a^i), ``field.n`` bits: each ``p_k``,
    ``k >= n``, XORed into the output bits where ``a^k mod poly`` has a one."""
    p, n = Value.cast(p), field.n
    terms = [p[:n]] + [Mux(p[k], field.reduce(1 << k), 0) for k in range(n, len(p))]
    return xor_tree(terms)


def gf_mul_comb(m: Module, x, h, field: Field = GCM, name: str = "gfmul") -> Value:
    """``x . h`` in ``field``, ports in the GCM bit order, as combinational logic; the
    reflected operands, their carry-less product and its reduction are the signals
    ``<name>_x``, ``<name>_h``, ``<name>_clmul`` and ``<name>_reduced`` of ``m``
    (named so that a reflection reads one signal, not a copy of the expression)."""
    xr, hr = Signal(field.n, name=f"{name}_x"), Signal(field.n, name=f"{name}_h")
    prod = Signal(2 * field.n - 1, name=f"{name}_clmul")
    red = Signal(field.n, name=f"{name}_reduced")
    m.d.comb += [xr.eq(reflect(x)), hr.eq(reflect(h)), prod.eq(clmul(xr, hr)),
                 red.eq(reduce_mod(prod, field))]
    return reflect(red)


def horner_step(m: Module, z, dr, hr, field: Field = GCM, name: str = "step") -> Value:
    """One digit-serial clock, ``Z a^d + D H mod P``, every operand reflected (bit i =
    coefficient of a^i), ``d = len(dr)``; the unreduced sum is the signal ``<name>``."""
    z, dr = Value.cast(z), Value.cast(dr)
    step = Signal(field.n + len(dr), name=name)
    m.d.comb += step.eq((z << len(dr)) ^ clmul(dr, hr))
    return reduce_mod(step, field)


def check(style: str, digit: int | None, field: Field) -> None:
    """Refuse a style or digit size that is not built, in one line."""
    if style not in STYLES:
        raise CipherfabError(f"GHASH multiplier style {style!r} is not supported; choose from "
                             f"{', '.join(STYLES)}")
    if style == "parallel" and digit is not None:
        raise CipherfabError("the parallel GHASH multiplier takes no digit size")
    if style == "digit":
        allowed = DIGITS if field == GCM else [d for d in range(1, field.n) if field.n % d == 0]
        if digit not in allowed:
            raise CipherfabError(f"GHASH digit size {digit!r} is not supported; choose from "
                                 f"{', '.join(map(str, allowed))}")


class GF128Mul(wiring.Component):
    """``y = x . h`` in GF(2^128) (or ``field``), in ``style``; see the module docstring."""

    def __init__(self, style: str = "parallel", digit: int | None = None, field: Field = GCM):
        check(style, digit, field)
        self.style, self.digit, self.field = style, digit, field
        n = field.n
        members = {"x": In(n), "h": In(n), "y": Out(n)}
        if style == "parallel":
            members.update(valid_in=In(1), valid_out=Out(1))
        else:
            members.update(start=In(1), busy=Out(1), done=Out(1))
        super().__init__(members)

    @property
    def cycles(self) -> int:
        """Clocks from taking the operands to the product on ``y``."""
        return 1 if self.style == "parallel" else self.field.n // self.digit

    def elaborate(self, platform):
        m = Module()
        if self.style == "parallel":
            m.d.sync += [self.y.eq(gf_mul_comb(m, self.x, self.h, self.field)),
                         self.valid_out.eq(self.valid_in)]
        else:
            self._digit_serial(m)
        return m

    def _digit_serial(self, m: Module) -> None:
        n, d = self.field.n, self.digit
        x_rest = Signal(n - d, name="x_rest")        # digits not yet taken, next one low
        h_reg = Signal(n, name="h_reg")
        z = Signal(n, name="z")                      # Z_k, reflected (bit i = a^i)
        left = Signal(range(n // d), name="left")    # steps still to do after this one
        take = Signal(name="take")
        m.d.comb += take.eq(self.start & ~self.busy)
        dr = Signal(d, name="digit")                 # D_k, reflected
        hr = Signal(n, name="h_step")                # H, reflected
        m.d.comb += [dr.eq(reflect(Mux(take, self.x[:d], x_rest[:d]))),
                     hr.eq(reflect(Mux(take, self.h, h_reg)))]
        m.d.comb += self.y.eq(reflect(z))
        m.d.sync += self.done.eq(0)
        with m.If(take | self.busy):
            m.d.sync += [z.eq(horner_step(m, Mux(take, 0, z), dr, hr, self.field)),
                         x_rest.eq(Mux(take, self.x[d:], x_rest[d:]))]
        with m.If(take):
            m.d.sync += [h_reg.eq(self.h), left.eq(n // d - 1), self.busy.eq(1)]
        with m.Elif(self.busy):
            m.d.sync += left.eq(left - 1)
            with m.If(left == 1):
                m.d.sync += [self.busy.eq(0), self.done.eq(1)]
