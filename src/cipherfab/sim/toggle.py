"""The ``toggle`` leakage model: each clock's sample is the number of cell outputs of the
core's synthesized ECP5 netlist that switch, simulated by the robust model's C++ engine
(:mod:`.robust_engine`, bit-sliced, 4,096 simulations a batch).

The outputs are those of :class:`~.robust.Netlist` probes: every LUT4, PFUMX, L6MUX21
``Z``, CCU2C ``S0``/``S1``/``COUT``, distributed-RAM ``DO`` and TRELLIS_FF ``Q``, each
settled once a clock (zero-delay: no glitches).  Each trace is one simulation driven as a
device drives the core (:func:`.robust_core.plan`): reset, a seed of its own on the seed port
(a core with one), the trace key, then one block, the fixed block or (the other group) a
uniform or second fixed one.  Sample ``i`` is the switching from window clock ``i`` to
``i + 1`` (clock 0 is the block's handshake clock, whose edge takes the block): the same as
the ``hd`` model's sample ``i`` for the flip-flops, plus the combinational outputs that
settle after that edge.  So the default window is one shorter than ``hd``'s: the result is
on the output register's input from the clock before it is written, and it is public.

The class has :class:`~.leakage.LeakageModel`'s ``moments``, so :func:`.leakage.assess` runs
it in pieces, resumably, on a process pool.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..errors import CipherfabError
from .robust import Netlist
from .robust_core import plan
from .robust_engine import BATCH, SOURCE, WORDS, Engine, compile_netlist


def default_window(info) -> int:
    """Samples up to the clock whose settled values hold the result (latency - 2)."""
    return max(1, info.latency - 2)


class ToggleModel:
    """A core's synthesized netlist, compiled for the engine, with the outputs it counts."""

    def __init__(self, net: Netlist, top: str, info):
        from .leakage import check_core
        check_core(top, info)
        self.top, self.info = top, info
        self.compiled = compile_netlist(net)
        self.nets = sorted({self.compiled.net(p.bit) for p in net.probes} - {0, 1})
        if not self.nets:
            raise CipherfabError(f"{top}: the netlist has no LUT or flip-flop outputs")
        self.probe_bits = len(self.nets)
        self.ports = SimpleNamespace(top=net.top, inputs=net.inputs, outputs=net.outputs)
        c = self.compiled
        digest = hashlib.sha256()
        for a in (c.op_in, c.op_out, c.op_table, c.ff_q, c.ff_d, c.ff_ce, c.ff_lsr, c.ff_flags,
                  np.array(self.nets, dtype=np.int64)):
            digest.update(np.ascontiguousarray(a).tobytes())
        digest.update(repr(sorted((k, list(v)) for k, v in net.inputs.items())).encode())
        digest.update(SOURCE.read_bytes() + Path(__file__).read_bytes())
        #: what a run's saved pieces are named after (:func:`.leakage.run_key`)
        self.identity = f"toggle-{digest.hexdigest()[:24]}"

    def samples(self, key: bytes, fixed: bytes, traces: int, window: int, seed: int,
                second: bytes | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(``[trace, sample]`` switching counts, the fixed group as booleans) of ``traces``
        simulations in batches of :data:`~.robust_engine.BATCH` seeded by ``(seed, batch)``."""
        p = plan(self.ports, self.compiled, self.info, key, fixed, window + 1, seed, secret="block",
                 second=second)
        engine = Engine(self.compiled, p.stimulus, seed)
        counts, fixed_group = [], []
        for b in range(-(-traces // BATCH)):
            n = min(BATCH, traces - b * BATCH)
            c, g = engine.toggle(self.nets, p.start + 1, window, b, words=min(WORDS, -(-n // 64)))
            counts.append(c[:, :n].T)
            fixed_group.append(g[:n])
        return np.concatenate(counts).astype(np.float64), np.concatenate(fixed_group)

    def moments(self, key: bytes, fixed: bytes, traces: int, window: int, checkpoints, seed: int,
                noise: float, second: bytes | None = None) -> tuple[np.ndarray, dict]:
        """``(n_checkpoints, 2, window, 5)`` moments (n, mean, M2, M3, M4) of the first
        ``checkpoint`` traces, group 0 the fixed block (as :meth:`.leakage.LeakageModel.moments`)."""
        x, is_fixed = self.samples(key, fixed, traces, window, seed, second)
        if noise > 0:
            x += np.random.default_rng(seed).normal(0.0, noise, x.shape)
        out = np.zeros((len(checkpoints), 2, window, 5))
        for i, cp in enumerate(checkpoints):
            for g, rows in enumerate((is_fixed[:cp], ~is_fixed[:cp])):
                out[i, g] = _moments(x[:cp][rows])
        return out, {"registers": self.probe_bits, "register_bits": self.probe_bits,
                     "cycles": traces * (window + 1)}


def _moments(x: np.ndarray) -> np.ndarray:
    """``(samples, 5)``: n, mean, M2, M3, M4 of each column of ``x``."""
    n = x.shape[0]
    if n == 0:
        return np.zeros((x.shape[1], 5))
    mean = x.mean(axis=0)
    d = x - mean
    return np.stack([np.full(x.shape[1], float(n)), mean, (d ** 2).sum(0), (d ** 3).sum(0), (d ** 4).sum(0)], axis=-1)
