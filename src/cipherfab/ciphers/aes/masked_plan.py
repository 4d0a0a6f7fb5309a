"""The static schedule of the masked AES cores with 4 or 1 S-boxes (pure Python, no hardware).

A round is ``n = 20 / S`` issues to the ``S`` masked S-boxes: first ``4 / S`` key issues
(``RotWord(w3)`` of the previous round key, ``S`` bytes each), then ``16 / S`` state issues
(``ShiftRows(state)`` in column-major order, ``S`` bytes each).  An issue's output arrives
``L`` clocks later (the S-box latency).  A key word is complete with its last key issue's
output, the round key is written then; a state column is complete with the output of its
row 3, and ``MixColumns(column) ^ round key word`` is written then.

A **lane** is one block's state and round key.  Lanes take turns on the S-boxes: lane
``l`` issues at slots ``l n .. l n + n - 1`` of a period of ``P`` clocks, one round a
period.  :func:`plan` finds the smallest ``P`` at which every value is written before it
is read (and, with one state buffer, not overwritten before it is read), and as many
lanes as fit in ``P``; a second state buffer (read one, write the other, swap each round)
is used only where one buffer would need a longer period.
"""

from __future__ import annotations

from dataclasses import dataclass

NR = 10


@dataclass(frozen=True)
class Plan:
    sboxes: int
    latency_sbox: int
    period: int
    lanes: int
    double_buffer: bool

    @property
    def key_issues(self) -> int:
        return 4 // self.sboxes

    @property
    def issues(self) -> int:
        return 20 // self.sboxes

    @property
    def per_column(self) -> int:
        """Issues (and outputs) that make one column."""
        return 4 // self.sboxes

    def issue(self, slot: int) -> tuple[int, int] | None:
        """``(lane, k)`` issued at ``slot`` of the period, or None (an idle slot)."""
        lane, k = divmod(slot, self.issues)
        return (lane, k) if lane < self.lanes else None

    def state_bytes(self, k: int) -> list[int]:
        """For state issue ``k``: the state byte (index 0 = most significant, column-major)
        of each S-box's input: ShiftRows' byte ``q`` (row ``q % 4``, column ``q // 4``) is
        the state's row ``q % 4``, column ``(q // 4 + q % 4) % 4``."""
        j = k - self.key_issues
        qs = range(j * self.sboxes, (j + 1) * self.sboxes)
        return [4 * ((q // 4 + q % 4) % 4) + q % 4 for q in qs]

    @property
    def last_output(self) -> int:
        """The slot (from the round's first) of a round's last output."""
        return self.issues - 1 + self.latency_sbox

    @property
    def key_at_start(self) -> bool:
        """Whether a lane's round key can be loaded as its next block starts: its last
        block's last outputs (which read the round key) arrive by then.  Otherwise round 1
        reads the stored key itself."""
        return self.last_output <= self.period

    @property
    def block_latency(self) -> int:
        """Block handshake (its lane's round 1 issue 0) to the output: round 10's last
        output, the ciphertext's share registers, the output buffer."""
        return (NR - 1) * self.period + self.issues - 1 + self.latency_sbox + 2

    @property
    def cycles_per_block(self) -> int:
        return NR * self.period // self.lanes


def _ok(s: int, lat: int, period: int, double: bool) -> bool:
    """Whether one lane at ``period`` reads every value after it is written (and, with one
    state buffer, every state byte before it is overwritten)."""
    K, n, g = 4 // s, 20 // s, 4 // s
    out = lambda k: k + lat                                   # noqa: E731  output slot of issue k
    key_written = out(K - 1)                                  # end of this slot
    col_written = {c: out(K + (c + 1) * g - 1) for c in range(4)}
    for k in range(K, n):                                     # next round's state reads
        cols = {b // 4 for b in Plan(s, lat, period, 1, double).state_bytes(k)}
        if any(period + k <= col_written[c] for c in cols):
            return False
    if period <= key_written:                                 # next round's key issue
        return False
    if period + key_written < max(col_written.values()):      # round key kept for its columns
        return False
    if not double:                                            # a column overwritten before read
        for c in range(4):
            reads = [k for k in range(K, n)
                     if c in {b // 4 for b in Plan(s, lat, period, 1, double).state_bytes(k)}]
            if col_written[c] < max(reads):
                return False
    return True


def plan(sboxes: int, latency_sbox: int) -> Plan:
    """The smallest period (one state buffer if it does as well as two), and the lanes it fits."""
    if sboxes not in (4, 1):
        raise ValueError(f"the column schedule takes 4 or 1 S-boxes, not {sboxes}")
    n = 20 // sboxes
    for period in range(n, n + 4 * latency_sbox + 8):
        for double in (False, True):
            if _ok(sboxes, latency_sbox, period, double):
                return Plan(sboxes, latency_sbox, period, period // n, double)
    raise AssertionError("no period found")                   # pragma: no cover
