"""Offline round keys expanded in their own clock domain, ``key`` (paper 000 section 4.6).

Theory of operation
-------------------
Paper 000 runs the key schedule of its single-round cores on a clock of its own,
so that the key setup goes at the key schedule's Fmax while the round runs at
the datapath's.  Here the whole :class:`~.round_keys.RoundKeyMemory` (window,
SubWord S-boxes, write port) runs in ``key``; only its read ports stay in
``sync``, so the round-key memory is a dual-clock RAM (block RAM on ECP5 has
independent port clocks).

The two sides talk through a toggle handshake, each level crossing through a
two-stage synchronizer (reset with its domain, so a reset in the middle of an
expansion leaves both sides agreeing)::

    sync: load  -> key_hold := key, req := ~req          busy = req != ack (synchronized)
    key:  req (synchronized) != req_seen -> expander.load, req_seen := req
    key:  expander.busy falls            -> ack := ~ack

A reset reaches the key side at once (asynchronously) but its registers clear only at
the key clock's next edges: until the key side's reset, synchronized, has been seen to
end, the sync side does not trust ``ack`` (it may be a stale level from before the
reset) and stays busy once it holds a key.

``key_hold`` and the expander's first-round-key registers are quasi-static: they
change only while the other side is waiting for the handshake, so they cross
without synchronizers.  The sync side refuses a new key while ``busy``.

Key setup, counted in clocks: :func:`key_clock_cycles` = 2 synchronizer stages +
the expansion (2·Nr + 1, or 3·Nr + 1 with block-RAM S-boxes: :func:`~.round_keys.expansion_cycles`)
+ 1 to see it end, in the key clock; the rest in ``sync``
(the load, 2 synchronizer stages back; the first block is taken as the return
arrives).  Exact when both clocks run at the same rate (the key clock's edges half
a period after sync's); otherwise the phase adds up to one key clock, or takes
away up to one sync clock.  The key domain leaves reset two key clocks after
``rst`` falls (a reset synchronizer): the first key after a reset may wait for that.
"""

from __future__ import annotations

from amaranth.hdl import DomainRenamer, Module, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.cdc import FFSynchronizer

from .reference import NR
from .round_keys import RoundKeyMemory, expansion_cycles, ports


def key_clock_cycles(nr: int, phases: int = 2) -> int:
    """The key setup's cycles in the key clock: synchronizer, expansion, its end seen."""
    return 2 + expansion_cycles(nr, phases) + 1


class KeyClockRoundKeyMemory(wiring.Component):
    """:class:`~.round_keys.RoundKeyMemory`'s interface in ``sync``, its expansion in ``key``."""

    def __init__(self, key_bits: int, sbox: str, read_ports: int = 1, phases: int = 2):
        self.key_bits, self.sbox, self.read_ports, self.nr = key_bits, sbox, read_ports, NR[key_bits]
        self.phases = phases
        super().__init__(ports(key_bits, read_ports))

    def elaborate(self, platform):
        m = Module()
        expander = RoundKeyMemory(self.key_bits, self.sbox, self.read_ports, read_domain="read",
                                  phases=self.phases)
        m.submodules.expander = DomainRenamer({"sync": "key", "read": "sync"})(expander)

        key_hold, req, ack_s = Signal(self.key_bits), Signal(), Signal()     # sync side
        req_k, req_seen, ack, was_busy = Signal(), Signal(), Signal(), Signal()  # key side
        m.submodules.req_sync = FFSynchronizer(req, req_k, o_domain="key", reset_less=False)
        m.submodules.ack_sync = FFSynchronizer(ack, ack_s, o_domain="sync", reset_less=False)
        key_reset = Signal(init=1)       # the key domain's reset, as sync sees it
        m.submodules.reset_sync = FFSynchronizer(ResetSignal("key"), key_reset, o_domain="sync",
                                                 init=1, reset_less=False)

        have_key = Signal()
        with m.If(self.load):
            m.d.sync += [key_hold.eq(self.key), req.eq(~req), have_key.eq(1)]
        # an ack from before a reset is not trusted until the key side has been reset too
        m.d.comb += [self.busy.eq((req != ack_s) | (have_key & key_reset)),
                     self.ready.eq(have_key & ~self.busy),
                     self.first_enc.eq(expander.first_enc), self.first_dec.eq(expander.first_dec)]

        m.d.comb += [expander.key.eq(key_hold), expander.load.eq(req_k != req_seen)]
        m.d.key += [req_seen.eq(req_k), was_busy.eq(expander.busy)]
        with m.If(was_busy & ~expander.busy):
            m.d.key += ack.eq(~ack)

        for i in range(self.read_ports):
            m.d.comb += [expander.read_addr[i].eq(self.read_addr[i]),
                         expander.read_en[i].eq(self.read_en[i]),
                         self.read_data[i].eq(expander.read_data[i])]
        return m
