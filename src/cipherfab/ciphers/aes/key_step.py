"""One step of the AES key expansion's window, forward or backward (FIPS-197 Section 5.2).

A *window* holds Nk expanded-key words ``w[4n .. 4n+Nk-1]``; round key ``n`` is always
``window[0:4]``.  A step moves it by one round key, producing four new words with the
KeyExpansion recurrence ``w[i] = w[i-Nk] ^ t(w[i-1])`` run forward or solved backward.
Which of the four words needs ``t`` (RotWord+SubWord+Rcon, or SubWord alone for AES-256)
depends only on ``n``: a step needs at most one SubWord, and the word it is taken of
never depends on that SubWord.  Every schedule shares this step: the on-the-fly one
(:mod:`.key_schedule`), the round-key memories and registers (:mod:`.round_keys`), the
pipeline's and the unrolled core's per-round steps.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Mux, Signal, Value

from .reference import RCON
from .round import from_words, rot_word, words_of


def _special_rounds(nk: int, nr: int, forward: bool) -> list[dict]:
    """For each word k of a step: the window positions n where it needs t, and Rcon."""
    ns = range(0, nr) if forward else range(1, nr + 1)
    table = []
    for k in range(4):
        full, sub, rcon = [], [], [0] * (nr + 1)
        for n in ns:
            i = 4 * n + nk + k if forward else 4 * n - 4 + k + nk  # index of the word t feeds
            if i % nk == 0:
                full.append(n)
                rcon[n] = RCON[i // nk - 1]
            elif nk == 8 and i % nk == 4:
                sub.append(n)
        table.append({"full": full, "sub": sub, "rcon": rcon})
    return table


class WindowStep:
    """The combinational step of the window for one key size and direction."""

    def __init__(self, nk: int, nr: int, forward: bool):
        self.nk, self.forward = nk, forward
        self.special = _special_rounds(nk, nr, forward)

    @staticmethod
    def _in(n, values) -> Value:
        """``n`` in ``values`` (decoded from a register when ``n`` is a registered position;
        making it constant where ``values`` holds every step, as for AES-128, measured
        worse: 4501 LUT4 against 4336, same Fmax, docs/results/key-schedule-start)."""
        return n.in_(values) if isinstance(n, RegisteredPosition) else n.matches(*values)

    def _t(self, k, n, prev, sub):
        spec = self.special[k]
        t = prev
        if spec["full"]:
            rcon = _lookup(n, spec["rcon"])
            t = Mux(self._in(n, spec["full"]), rot_word(sub) ^ Cat(Const(0, 24), rcon), t)
        if spec["sub"]:
            t = Mux(self._in(n, spec["sub"]), sub, t)
        return t

    def __call__(self, window, n, sub):
        """Returns (next window value, the word whose SubWord this step needs); ``n``, the
        window's position, is a value or a :class:`RegisteredPosition`."""
        w, nk = words_of(window), self.nk
        new = [None] * 4
        sub_input = Const(0, 32)
        order = range(4) if self.forward else range(3, -1, -1)
        for k in order:
            if self.forward:
                prev = w[nk - 1] if k == 0 else new[k - 1]
                base = w[k]
            else:
                prev = w[nk - 5 + k] if nk - 5 + k >= 0 else new[3]
                base = w[nk - 4 + k]
            spec = self.special[k]
            if spec["full"] or spec["sub"]:
                sub_input = Mux(self._in(n, [*spec["full"], *spec["sub"]]), prev, sub_input)
            new[k] = base ^ self._t(k, n, prev, sub)
        words = w[4:] + new if self.forward else new + w[:nk - 4]
        return from_words(words), sub_input

    def fixed_sub_word(self, window) -> Value | None:
        """The word whose SubWord every forward step needs, when it is the same word at every
        position: the window's last for AES-128 and AES-256 (each step's first word takes
        ``t``), so a schedule that never uses an out-of-range step may address its S-boxes
        with no position test.  ``None`` for AES-192 (the word moves with ``n``) and the
        inverse step."""
        specials = [k for k in range(4) if self.special[k]["full"] or self.special[k]["sub"]]
        return words_of(window)[self.nk - 1] if self.forward and specials == [0] else None


def _lookup(n, table) -> Value:
    if isinstance(n, RegisteredPosition):
        return n.lookup(table)
    return Array(Const(v, 8) for v in table)[n]


class RegisteredPosition:
    """A window position whose decodes are registers: each set membership or table entry a
    step reads is computed from the position's *next* value and registered, so it reaches
    the step's logic from a flip-flop (the on-the-fly schedule's position counter
    otherwise sits at the head of its longest paths: counter, decode, Rcon, the step's
    XORs, the next SubWord's address).  ``init`` is the position after reset."""

    def __init__(self, m, next_value: Value, init: int, name: str):
        self.m, self.next, self.name = m, next_value, name
        self.init = init % (1 << len(next_value))
        self._regs: dict = {}

    def in_(self, values) -> Value:
        key = ("in", tuple(sorted(set(values))))
        if key not in self._regs:
            flag = Signal(init=int(self.init in key[1]),
                          name=f"{self.name}_in_" + "_".join(map(str, key[1])))
            self.m.d.sync += flag.eq(self.next.matches(*key[1]) if key[1] else 0)
            self._regs[key] = flag
        return self._regs[key]

    def lookup(self, table) -> Value:
        key = ("lookup", tuple(table))
        if key not in self._regs:
            entry = Signal(8, init=table[self.init] if self.init < len(table) else table[-1],
                           name=f"{self.name}_rcon{len(self._regs)}")
            self.m.d.sync += entry.eq(Array(Const(v, 8) for v in table)[self.next])
            self._regs[key] = entry
        return self._regs[key]


def first_round_key(key_window):
    """The round key a window (or key register) starts with: its first four words."""
    return from_words(words_of(key_window)[:4])
