"""A circuit of two-input gates on ``d`` shares (2 to 4), pipelined, secure at order ``d - 1``
with glitches: the AND gates are HPC2 gadgets, the XORs act share by share.

HPC2 (G. Cassiers, B. Grégoire, I. Levi, F.-X. Standaert, "Hardware Private Circuits: From
Trivial Composition to Full Verification", IEEE Trans. Computers 70(10), 2021) is a
multiplication gadget that is probe-isolating non-interferent (PINI) in the glitch-robust
probing model: any circuit made of PINI gadgets and share-wise linear gates is PINI, so it
is glitch-robust probing secure at order ``d - 1`` as a whole, whatever the wiring.  With
shares ``a = a_0 ^ ... ^ a_(d-1)``, ``b`` likewise, and one fresh random bit ``r_ij = r_ji``
for each pair of shares (``d (d - 1) / 2`` bits), the paper's Algorithm 3::

    c_i = Reg[a_i & Reg[b_i]] ^ XOR over j != i of ( Reg[~a_i & Reg[r_ij]] ^ Reg[a_i & Reg[b_j ^ r_ij]] )

so ``c_0 ^ ... ^ c_(d-1) = a & b`` (every ``r_ij`` appears twice, ``a_i & b_j`` once); for two
shares ``c0 = Reg[a0 & Reg[b0]] ^ Reg[~a0 & Reg[r]] ^ Reg[a0 & Reg[b1 ^ r]]``.  ``b`` is taken one clock before ``a``; ``c`` follows two clocks
after ``b``.  ``unregistered=True`` is a **test mode** that drops the product registers (``c_i`` is one
register of the XOR of its products, the same latency): secure at zero delay, not with
glitches.

:class:`MaskedCircuit` places the gates of a gate list (:mod:`cipherfab.ciphers.aes.
sbox_circuit`) in pipeline stages: the inputs at stage 0; an XOR at the later of its
operands' stages (the earlier one delayed share by share in registers); an AND at the
first stage ``t`` where one operand (``b``) is ready by ``t`` and the other (``a``) by
``t + 1``, its output at ``t + 2``.  The outputs are registered once more, so the latency
is the last stage + 1, the same for every input and mask.  Every clock each AND gadget
takes its bit of ``rand``: one fresh random bit per AND gate per evaluation, a new
evaluation every clock (``d (d - 1) / 2`` bits per AND gate).  The pipeline runs on every clock (no enable): a value in it
advances one stage a clock.

Share tags: every signal that holds one share of a secret-dependent value carries the
attribute ``cipherfab_share`` = the share's index ``"0"`` to ``"3"`` (:func:`share_attrs`), kept by Yosys on
its nets, so a check of the synthesized or placed design can find logic that takes both
shares.  HPC2's ``Reg[b_j ^ r]`` is tagged with the share ``i`` it serves (its value is
``b_j`` masked by ``r``); the registered random bit is not tagged.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

SHARES = 2                    # the default: first order
MAX_SHARES = 4
SHARE_ATTR = "cipherfab_share"


def pairs(shares: int) -> list[tuple[int, int]]:
    """The pairs ``i < j`` of shares, in the order their random bits take in a gadget."""
    return [(i, j) for i in range(shares) for j in range(i + 1, shares)]


def xor_all(values):
    """The XOR of a list of values (the shares of a sharing: its value)."""
    out = values[0]
    for v in values[1:]:
        out = out ^ v
    return out


def share_attrs(i: int) -> dict:
    """The attributes of a signal holding share ``i`` of a secret-dependent value."""
    return {SHARE_ATTR: str(i)}


def check_shares(shares: int) -> None:
    """Refuse a share count the masked circuits do not take (before any hardware)."""
    if not 2 <= shares <= MAX_SHARES:
        raise ValueError(f"a masked circuit has 2 to {MAX_SHARES} shares, not {shares}")


class Schedule:
    """Stages of every signal of a gate list, and the latency (pure Python, no hardware)."""

    def __init__(self, gates, inputs, outputs, shares: int = SHARES):
        check_shares(shares)
        self.shares = shares
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
        """Fresh bits an evaluation takes: ``d (d - 1) / 2`` per AND gate."""
        return len(self.and_gates) * len(pairs(self.shares))

    @property
    def rand_clocks(self) -> list[tuple[int, int, int]]:
        """``(first bit, bits, clock)`` of each AND gadget's part of ``rand``: taken at the
        clock its ``b`` operand is registered."""
        per = len(pairs(self.shares))
        return [(n * per, per, t) for n, (_, t, _, _) in enumerate(self.and_gates)]


class MaskedCircuit(wiring.Component):
    """``x`` (shares ``x[0]`` .. ``x[d-1]``; bit k is input k of the list) to ``y`` after
    ``latency`` clocks; ``rand``: ``d (d - 1) / 2`` fresh bits per AND gate, every clock
    (gate n's bits from ``n * pairs``)."""

    def __init__(self, gates, inputs, outputs, unregistered: bool = False, shares: int = SHARES):
        self.schedule = s = Schedule(gates, inputs, outputs, shares)
        self.shares, self.unregistered = shares, unregistered
        super().__init__({"x": In(len(s.inputs)).array(shares),
                          "y": Out(len(s.outputs)).array(shares),
                          "rand": In(max(1, s.random_bits))})
        for i in range(shares):
            self.x[i].attrs.update(share_attrs(i))
            self.y[i].attrs.update(share_attrs(i))

    def elaborate(self, platform):
        m = Module()
        s, d = self.schedule, self.shares
        per_gate = len(pairs(d))
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
            for i in range(d):
                now[name, i] = self.x[i][k]
        ands = {g.out: (n, t, a, b) for n, (g, t, a, b) in enumerate(s.and_gates)}
        for g in s.gates:
            for i in range(d):
                v = Signal(name=f"{g.out}_s{i}", attrs=share_attrs(i))
                if g.op == "and":
                    n, t, a, b = ands[g.out]
                    bits = self.rand[n * per_gate:(n + 1) * per_gate]
                    others = [(j, at(b, j, t), bits[pairs(d).index((min(i, j), max(i, j)))])
                              for j in range(d) if j != i]
                    m.d.comb += v.eq(_hpc2_share(m, i, g.out, at(a, i, t + 1), at(b, i, t),
                                                 others, self.unregistered))
                else:
                    st = s.stage[g.out]
                    flip = int(g.op == "xnor" and i == 0)      # a constant goes to share 0 only
                    m.d.comb += v.eq(at(g.a, i, st) ^ at(g.b, i, st) ^ flip)
                now[g.out, i] = v
        for k, name in enumerate(s.outputs):
            for i in range(d):
                m.d.sync += self.y[i][k].eq(at(name, i, s.last))
        return m


def _hpc2_share(m: Module, i: int, name: str, a_i, b_i, others, unregistered: bool = False):
    """Share ``i`` of HPC2's ``a & b`` (``b`` at stage t, ``a`` at t + 1; this returns the
    XOR of the product registers at stage t + 2); ``others``: ``(j, b_j, r_ij)`` for every
    other share ``j``.  ``unregistered`` (a TEST MODE): one register of the XOR of the
    products instead, ``a_i`` kept as a wire (``keep``) so that synthesis makes the
    register's input one LUT of ``a_i``, ``Reg b_i`` and the ``Reg r_ij``, ``Reg(b_j ^ r_ij)``
    (with two shares one LUT4): every settled value is still masked, but its glitches show
    ``a_i & b``."""
    def reg(value, what, tag=True):
        q = Signal(name=f"{name}_s{i}_{what}", attrs=share_attrs(i) if tag else {})
        m.d.sync += q.eq(value)
        return q
    bb = reg(b_i, "b")
    regs = []                              # (Reg r_ij, Reg(b_j ^ r_ij)) for each other share j
    for j, b_j, r in others:
        suffix = "" if len(others) == 1 else str(j)
        regs.append((reg(r, f"r{suffix}", tag=False),     # the random bit, registered per share
                     reg(b_j ^ r, f"bxr{suffix}")))        # the other share of b, masked by r
    if unregistered:
        a = Signal(name=f"{name}_s{i}_a", attrs={**share_attrs(i), "keep": 1})
        m.d.comb += a.eq(a_i)
        total = a & bb
        for rr, br in regs:
            total = total ^ (~a & rr) ^ (a & br)
        return reg(total, "c")
    out = reg(a_i & bb, "ab")
    for n, (rr, br) in enumerate(regs):
        suffix = "" if len(regs) == 1 else str(others[n][0])
        out = out ^ reg(~a_i & rr, f"u{suffix}") ^ reg(a_i & br, f"v{suffix}")
    return out
