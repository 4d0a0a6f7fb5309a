"""The stream handshake of a core that works on one block at a time (the finalists'
iterative cores): a key is taken while no block is in flight, a block while a key is set
up and the core is idle, and the result waits in ``block_out`` until it is taken (the
rounds hold meanwhile), so no block is dropped, duplicated or reordered."""

from __future__ import annotations


def handshake(core, last):
    """(start, advance): a block is taken this cycle; the rounds may step (false only while
    the ``last`` step waits for the previous result to be taken)."""
    advance = ~(last & core.block_out.valid & ~core.block_out.ready)
    start = core.block_in.valid & core.block_in.ready
    return start, advance


def drive_ports(m, core, in_flight, have_key, setup=None) -> None:
    """``key.ready``, ``block_in.ready``, ``busy``, and ``block_out.valid`` falling when the
    result is taken; ``setup``: high while a key is being set up (None: a core whose key
    setup runs beside the rounds)."""
    idle = ~in_flight if setup is None else ~in_flight & ~setup
    free = have_key & ~in_flight if setup is None else have_key & ~setup & ~in_flight
    busy = in_flight if setup is None else in_flight | setup
    m.d.comb += [
        core.key.ready.eq(idle),
        core.block_in.ready.eq(free & ~core.key.valid),
        core.busy.eq(busy | core.block_out.valid),
    ]
    with m.If(core.block_out.valid & core.block_out.ready):
        m.d.sync += core.block_out.valid.eq(0)
