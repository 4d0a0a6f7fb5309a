"""Fully pipelined DES / Triple DES (EDE): every round unrolled with a register after it,
one block per clock.

Theory of operation
-------------------
The input register holds ``IP(block)``; then N rounds (16 for a 64-bit key, single
DES; 48 for 128/192-bit keys, three DES passes E_K1 D_K2 E_K3, decrypting D_K3 E_K2
D_K1), each a :class:`~.des.FeistelFunction` with a 64-bit ``L R`` register after
it.  The last round of each pass does not swap, so a pass hands the next its
preoutput as it is (``IP(FP(x)) = x``) and ``FP`` of the last register is written
into the output buffer.  Depth: 1 + N registers (17 or 49 blocks in flight).

Subkeys are pure wiring: a DES subkey ``K_n`` is a fixed selection of key bits
(PC-2 of PC-1 rotated by a constant), so round g of the pipeline reads its subkey
straight from the key register (:func:`~.des.subkey`).  A block's direction is
fixed per stage (an encrypting block's pass 2 uses K2's subkeys in reverse
order, and so on), so with one direction no subkey logic exists at all; with
both, the decrypt flag travels beside each stage and picks one of two 48-bit
subkeys per round.  The key arrives on the ``key`` stream and is registered once:
a new key is taken only while no block is in the pipeline (blocks already in
the output buffer keep their results), before a block offered in the same cycle,
and the first block after it may enter the next cycle (key setup 1).

No enable reaches the pipeline registers.  As in the AES pipeline, the core gives
credits: the output buffer has room for every block from its handshake until it
is taken, and ``block_in.ready`` is high while (blocks in the pipeline + blocks
in the buffer) is below its depth.  So no block is dropped, duplicated or
reordered under backpressure, and with ``block_out.ready`` high the latency is a
constant, 1 + N + 2 (pipeline, then the buffer's write and output register).

Parity: the key port carries 64 bits per DES key; PC-1 drops every byte's parity
bit, which is ignored, not checked.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered

from ...hw.info import CoreInfo, CoreSignature, payload_parts
from .des import FP, IP, FeistelFunction, KeyStream, feistel_round, permute, subkey, tdes_keys
from .iterative import NOTES, directions_of


def round_plan(g: int, passes: int, decrypt: bool) -> tuple[int, int, bool]:
    """(key index 0..2 of K1 K2 K3, subkey number 1..16, last of its pass) for round g (1-based)."""
    p, i = divmod(g - 1, 16)
    i += 1
    if passes == 1:
        return 0, 17 - i if decrypt else i, i == 16
    which = (0, 1, 2)[p] if not decrypt else (2, 1, 0)[p]
    pass_decrypt = decrypt != (p == 1)
    return which, 17 - i if pass_decrypt else i, i == 16


class PipelinedTDES(KeyStream, wiring.Component):
    """DES (64-bit key) or EDE Triple DES (128/192-bit key), all rounds unrolled and pipelined."""

    def __init__(self, key_bits: int = 192, direction: str = "encrypt"):
        self.key_bits, self.direction = key_bits, direction
        self.passes = 1 if key_bits == 64 else 3
        self.rounds = n = 16 * self.passes
        self.depth = depth = 1 + n                  # input register, one per round
        self.buffer_depth = depth + 3               # every block from its handshake until taken
        super().__init__(CoreSignature(self.declare(CoreInfo(
            block_bits=64, key_bits=key_bits, key_bits_effective=key_bits // 8 * 7,
            key_interface="stream", directions=directions_of(direction),
            latency=depth + 2,                      # pipeline, then the buffer (write, output register)
            cycles_per_block=1,
            cycles_per_block_feedback=depth + 2,    # the next input offered as this output is taken
            blocks_in_flight=depth,
            key_setup_cycles=1,                     # subkeys are wiring from the key register
            parts={"f": "datapath", "buffer": "buffer"},   # prefixes: f1 .. fN, the rounds
            notes=NOTES,
        ))))

    def elaborate(self, platform):
        m = Module()
        block, flag, _ = payload_parts(self)
        keys, have_key = self.key_register()
        ks = tdes_keys(keys, self.key_bits) if keys is not None else None

        m.submodules.buffer = buffer = SyncFIFOBuffered(width=64, depth=self.buffer_depth)
        held = Signal(range(self.buffer_depth + 1))      # blocks in the pipeline or the buffer
        in_pipe = Signal(range(self.depth + 1))          # blocks between input and buffer
        take = self.block_in.valid & self.block_in.ready
        give = self.block_out.valid & self.block_out.ready
        m.d.sync += held.eq(held + take - give)

        x, valid = Signal(64, name="x0"), Signal(name="valid0")
        decrypt = Signal(name="decrypt0") if flag is not None else None
        m.d.sync += [x.eq(permute(block, IP, 64)), valid.eq(take)]
        if flag is not None:
            m.d.sync += decrypt.eq(flag)
        for g in range(1, self.rounds + 1):
            plans = {d: round_plan(g, self.passes, d) for d in (False, True)}
            m.submodules[f"f{g}"] = f = self.feistel_function(plans, decrypt)
            k = {d: self.subkey(ks, which, n) for d, (which, n, _) in plans.items()}
            k_g = Signal(48, name=f"k{g}")
            m.d.comb += k_g.eq(k[self.direction == "decrypt"] if flag is None
                               else Mux(decrypt, k[True], k[False]))
            new_left, new_right = feistel_round(m, f, x[32:64], x[0:32], k_g,
                                                swap=not plans[False][2])
            x, valid = _register(m, Cat(new_right, new_left), f"x{g}"), _register(m, valid, f"valid{g}")
            if flag is not None:
                decrypt = _register(m, decrypt, f"decrypt{g}")
        m.d.sync += in_pipe.eq(in_pipe + take - valid)

        self.take_key(m, keys, have_key)
        m.d.comb += [
            *self.key_ready(in_pipe == 0),
            self.block_in.ready.eq(self.key_gate((held < self.buffer_depth) & have_key)),
            buffer.w_data.eq(permute(x, FP, 64)), buffer.w_en.eq(valid),
            self.block_out.payload.eq(buffer.r_data), self.block_out.valid.eq(buffer.r_rdy),
            buffer.r_en.eq(self.block_out.ready),
            self.busy.eq(held != 0),
        ]
        return m

    # hooks (a key-specific core replaces the subkeys or the key addition)

    def declare(self, info: CoreInfo) -> CoreInfo:
        """The core's declaration (a key-specific subclass changes its key interface)."""
        return info

    def key_register(self):
        """(key register, a key was given)."""
        keys = Signal(self.key_bits)
        have_key = Signal()
        return keys, have_key

    def feistel_function(self, plans: dict, decrypt) -> FeistelFunction:
        """Round g's f; ``plans`` maps a block's direction to :func:`round_plan`, ``decrypt``
        is the stage's decrypt flag (None with one direction)."""
        return FeistelFunction()

    def subkey(self, ks, which: int, n: int):
        """Subkey K_n of key ``which`` (0..2 of K1 K2 K3): wiring from the key register."""
        return subkey(ks[which], n)


def _register(m: Module, value, name: str) -> Signal:
    reg = Signal(len(value), name=name)
    m.d.sync += reg.eq(value)
    return reg
