"""A circuit of two-input gates on two shares, pipelined, first-order secure with glitches:
the AND gates are HPC2 gadgets, the XORs act share by share.

HPC2 (G. Cassiers, B. Grégoire, I. Levi, F.-X. Standaert, "Hardware Private Circuits: From
Trivial Composition to Full Verification", IEEE Trans. Computers 70(10), 2021) is a
multiplication gadget that is probe-isolating non-interferent (PINI) in the glitch-robust
probing model: any circuit made of PINI gadgets and share-wise linear gates is PINI, so it
is first-order glitch-robust probing secure as a whole, whatever the wiring.  With shares
``a = a0 ^ a1``, ``b = b0 ^ b1`` and one fresh random bit ``r`` (for two shares)::

    c0 = Reg[a0 & Reg[b0]] ^ Reg[~a0 & Reg[r]] ^ Reg[a0 & Reg[b1 ^ r]]
    c1 = Reg[a1 & Reg[b1]] ^ Reg[~a1 & Reg[r]] ^ Reg[a1 & Reg[b0 ^ r]]

so ``c0 ^ c1 = a & b``.  ``b`` is taken one clock before ``a``; ``c`` follows two clocks
after ``b``.  ``unregistered=True`` is a **test mode** that drops the three product
registers (``c_i = Reg[a_i & Reg[b_i] ^ ~a_i & Reg[r] ^ a_i & Reg[b_j ^ r]]``, the same
latency): first-order secure at zero delay, not with glitches.

:class:`MaskedCircuit` places the gates of a gate list (:mod:`cipherfab.ciphers.aes.
sbox_circuit`) in pipeline stages: the inputs at stage 0; an XOR at the later of its
operands' stages (the earlier one delayed share by share in registers); an AND at the
first stage ``t`` where one operand (``b``) is ready by ``t`` and the other (``a``) by
``t + 1``, its output at ``t + 2``.  The outputs are registered once more, so the latency
is the last stage + 1, the same for every input and mask.  Every clock each AND gadget
takes its bit of ``rand``: one fresh random bit per AND gate per evaluation, a new
evaluation every clock.  The pipeline runs on every clock (no enable): a value in it
advances one stage a clock.

Share tags: every signal that holds one share of a secret-dependent value carries the
attribute ``cipherfab_share`` = ``"0"`` or ``"1"`` (:func:`share_attrs`), kept by Yosys on
its nets, so a check of the synthesized or placed design can find logic that takes both
shares.  HPC2's ``Reg[b_j ^ r]`` is tagged with the share ``i`` it serves (its value is
``b_j`` masked by ``r``); the registered random bit is not tagged.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

SHARES = 2
SHARE_ATTR = "cipherfab_share"


def share_attrs(i: int) -> dict:
    """The attributes of a signal holding share ``i`` of a secret-dependent value."""
    return {SHARE_ATTR: str(i)}


class Schedule:
    """Stages of every signal of a gate list, and the latency (pure Python, no hardware)."""

    def __init__(self, gates, inputs, outputs):
        self.gates, self.inputs, self.outputs = tuple(gates), tuple(inputs), tuple(outputs)
        stage = dict.fromkeys(self.inputs, 0)
        self.and_gates = []                       # (gate, t, a name, b name)
        for g in self.gates:
            if g.op == "and":
                t, a, b = min((max(stage[b], stage[a] - 1), a, b) for a, b in ((g.a, g.b), (g.b, g.a)))
                self.and_gates.append((g, t, a, b))
                stage[g.out] = t + 2
            else:
                stage[g.out] = max(stage[g.a], stage[g.b])
        self.stage = stage
        self.last = max(stage[o] for o in self.outputs)
        self.latency = self.last + 1              # the output register

    @property
    def random_bits(self) -> int:
        return len(self.and_gates)


class MaskedCircuit(wiring.Component):
    """``x`` (shares ``x[0]``, ``x[1]``; bit k is input k of the list) to ``y`` after
    ``latency`` clocks; ``rand``: one fresh bit per AND gate, every clock."""

    def __init__(self, gates, inputs, outputs, unregistered: bool = False):
        self.schedule = s = Schedule(gates, inputs, outputs)
        self.unregistered = unregistered
        super().__init__({"x": In(len(s.inputs)).array(SHARES),
                          "y": Out(len(s.outputs)).array(SHARES),
                          "rand": In(max(1, s.random_bits))})
        for i in range(SHARES):
            self.x[i].attrs.update(share_attrs(i))
            self.y[i].attrs.update(share_attrs(i))

    def elaborate(self, platform):
        m = Module()
        s = self.schedule
        now: dict[tuple[str, int], Signal] = {}          # (name, share) -> value at its stage
        delayed: dict[tuple[str, int, int], Signal] = {}  # (name, share, stage) -> register chain

        def at(name: str, share: int, stage: int):
            """``name``'s share, delayed from its own stage to ``stage``."""
            own = s.stage[name]
            assert stage >= own, (name, stage, own)
            if stage == own:
                return now[name, share]
            key = (name, share, stage)
            if key not in delayed:
                reg = Signal(name=f"{name}_s{share}_d{stage}", attrs=share_attrs(share))
                m.d.sync += reg.eq(at(name, share, stage - 1))
                delayed[key] = reg
            return delayed[key]

        for k, name in enumerate(s.inputs):
            for i in range(SHARES):
                now[name, i] = self.x[i][k]
        ands = {g.out: (n, t, a, b) for n, (g, t, a, b) in enumerate(s.and_gates)}
        for g in s.gates:
            for i in range(SHARES):
                v = Signal(name=f"{g.out}_s{i}", attrs=share_attrs(i))
                if g.op == "and":
                    n, t, a, b = ands[g.out]
                    m.d.comb += v.eq(_hpc2_share(m, i, g.out, at(a, i, t + 1), at(b, i, t),
                                                 at(b, 1 - i, t), self.rand[n], self.unregistered))
                else:
                    st = s.stage[g.out]
                    flip = int(g.op == "xnor" and i == 0)      # a constant goes to share 0 only
                    m.d.comb += v.eq(at(g.a, i, st) ^ at(g.b, i, st) ^ flip)
                now[g.out, i] = v
        for k, name in enumerate(s.outputs):
            for i in range(SHARES):
                m.d.sync += self.y[i][k].eq(at(name, i, s.last))
        return m


def _hpc2_share(m: Module, i: int, name: str, a_i, b_i, b_j, r, unregistered: bool = False):
    """Share ``i`` of HPC2's ``a & b`` (``b`` at stage t, ``a`` at t + 1; this returns the
    XOR of three registers at stage t + 2).  ``unregistered`` (a TEST MODE): one register
    of the XOR of the three products instead, ``a_i`` kept as a wire (``keep``) so that
    synthesis makes the register's input one LUT4 of ``a_i``, ``Reg b_i``, ``Reg r`` and
    ``Reg(b_j ^ r)``: every settled value is still masked, but that LUT's glitches show
    ``a_i & b``."""
    def reg(value, what, tag=True):
        q = Signal(name=f"{name}_s{i}_{what}", attrs=share_attrs(i) if tag else {})
        m.d.sync += q.eq(value)
        return q
    rr = reg(r, "r", tag=False)           # the random bit, registered (one per share)
    bb = reg(b_i, "b")
    br = reg(b_j ^ r, "bxr")              # the other share of b, masked by r
    if unregistered:
        a = Signal(name=f"{name}_s{i}_a", attrs={**share_attrs(i), "keep": 1})
        m.d.comb += a.eq(a_i)
        return reg((a & bb) ^ (~a & rr) ^ (a & br), "c")
    return reg(a_i & bb, "ab") ^ reg(~a_i & rr, "u") ^ reg(a_i & br, "v")
