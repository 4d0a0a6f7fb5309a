"""The AES S-box as a circuit of two-input gates: Boyar and Peralta's 113-gate circuit
(J. Boyar, R. Peralta, "A new combinational logic minimization technique with applications
to cryptology", SEA 2010, and "A small depth-16 circuit for the AES S-box", SEC 2012; the
circuit "SLP_AES_113" of the Yale Circuit Minimization Team), written out here gate by gate.

A linear top layer (XOR only) spreads the 8 input bits to 27 signals, a shared middle part
computes the inversion in GF(2^8) with 34 AND gates at AND-depth 4, and a linear bottom
layer (XOR, XNOR) makes the 8 output bits.  ``ik`` and ``ok`` are bit k of the input and
the output (``i0`` the least significant; the paper's U0 is ``i7``, its S0 ``o7``).  The masked S-box (:mod:`cipherfab.hw.masking.masked`) builds one shared
AND gadget per AND gate and takes everything else share by share; :func:`evaluate` runs
the circuit on one byte (the tests check it against the S-box table on all 256).
"""

from __future__ import annotations

from dataclasses import dataclass

_TEXT = """
t1 = i7 ^ i4; t2 = i7 ^ i2; t3 = i7 ^ i1; t4 = i4 ^ i2; t5 = i3 ^ i1; t6 = t1 ^ t5
t7 = i6 ^ i5; t8 = i0 ^ t6; t9 = i0 ^ t7; t10 = t6 ^ t7; t11 = i6 ^ i2; t12 = i5 ^ i2
t13 = t3 ^ t4; t14 = t6 ^ t11; t15 = t5 ^ t11; t16 = t5 ^ t12; t17 = t9 ^ t16
t18 = i4 ^ i0; t19 = t7 ^ t18; t20 = t1 ^ t19; t21 = i1 ^ i0; t22 = t7 ^ t21
t23 = t2 ^ t22; t24 = t2 ^ t10; t25 = t20 ^ t17; t26 = t3 ^ t16; t27 = t1 ^ t12
m1 = t13 & t6; m2 = t23 & t8; m3 = t14 ^ m1; m4 = t19 & i0; m5 = m4 ^ m1; m6 = t3 & t16
m7 = t22 & t9; m8 = t26 ^ m6; m9 = t20 & t17; m10 = m9 ^ m6; m11 = t1 & t15
m12 = t4 & t27; m13 = m12 ^ m11; m14 = t2 & t10; m15 = m14 ^ m11; m16 = m3 ^ m2
m17 = m5 ^ t24; m18 = m8 ^ m7; m19 = m10 ^ m15; m20 = m16 ^ m13; m21 = m17 ^ m15
m22 = m18 ^ m13; m23 = m19 ^ t25; m24 = m22 ^ m23; m25 = m22 & m20; m26 = m21 ^ m25
m27 = m20 ^ m21; m28 = m23 ^ m25; m29 = m28 & m27; m30 = m26 & m24; m31 = m20 & m23
m32 = m27 & m31; m33 = m27 ^ m25; m34 = m21 & m22; m35 = m24 & m34; m36 = m24 ^ m25
m37 = m21 ^ m29; m38 = m32 ^ m33; m39 = m23 ^ m30; m40 = m35 ^ m36; m41 = m38 ^ m40
m42 = m37 ^ m39; m43 = m37 ^ m38; m44 = m39 ^ m40; m45 = m42 ^ m41; m46 = m44 & t6
m47 = m40 & t8; m48 = m39 & i0; m49 = m43 & t16; m50 = m38 & t9; m51 = m37 & t17
m52 = m42 & t15; m53 = m45 & t27; m54 = m41 & t10; m55 = m44 & t13; m56 = m40 & t23
m57 = m39 & t19; m58 = m43 & t3; m59 = m38 & t22; m60 = m37 & t20; m61 = m42 & t1
m62 = m45 & t4; m63 = m41 & t2
l0 = m61 ^ m62; l1 = m50 ^ m56; l2 = m46 ^ m48; l3 = m47 ^ m55; l4 = m54 ^ m58
l5 = m49 ^ m61; l6 = m62 ^ l5; l7 = m46 ^ l3; l8 = m51 ^ m59; l9 = m52 ^ m53
l10 = m53 ^ l4; l11 = m60 ^ l2; l12 = m48 ^ m51; l13 = m50 ^ l0; l14 = m52 ^ m61
l15 = m55 ^ l1; l16 = m56 ^ l0; l17 = m57 ^ l1; l18 = m58 ^ l8; l19 = m63 ^ l4
l20 = l0 ^ l1; l21 = l1 ^ l7; l22 = l3 ^ l12; l23 = l18 ^ l2; l24 = l15 ^ l9
l25 = l6 ^ l10; l26 = l7 ^ l9; l27 = l8 ^ l10; l28 = l11 ^ l14; l29 = l11 ^ l17
o7 = l6 ^ l24; o6 = l16 # l26; o5 = l19 # l28; o4 = l6 ^ l21; o3 = l20 ^ l22
o2 = l25 ^ l29; o1 = l13 # l27; o0 = l6 # l23
"""

OPS = {"^": "xor", "#": "xnor", "&": "and"}


@dataclass(frozen=True)
class Gate:
    out: str
    op: str          # "xor", "xnor" (not xor), "and"
    a: str
    b: str


def _parse(text: str) -> tuple[Gate, ...]:
    gates = []
    for stmt in text.replace("\n", ";").split(";"):
        if not stmt.strip():
            continue
        out, expr = (s.strip() for s in stmt.split("="))
        a, op, b = expr.split()
        gates.append(Gate(out, OPS[op], a, b))
    return tuple(gates)


#: the gates in an order where every input is defined before it is used
GATES = _parse(_TEXT)
INPUTS = tuple(f"i{k}" for k in range(8))        # ik: bit k, i0 the least significant
OUTPUTS = tuple(f"o{k}" for k in range(8))


def and_depth() -> dict[str, int]:
    """Each signal's number of AND gates on its longest path from the inputs."""
    depth = dict.fromkeys(INPUTS, 0)
    for g in GATES:
        depth[g.out] = max(depth[g.a], depth[g.b]) + (g.op == "and")
    return depth


def evaluate(x: int) -> int:
    """The circuit on one byte."""
    v = {f"i{k}": (x >> k) & 1 for k in range(8)}
    for g in GATES:
        a, b = v[g.a], v[g.b]
        v[g.out] = a & b if g.op == "and" else a ^ b ^ (g.op == "xnor")
    return sum(v[f"o{k}"] << k for k in range(8))
