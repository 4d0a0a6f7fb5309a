"""Key-specific DES / Triple DES cores: one circuit per key (paper 004).

Theory of operation
-------------------
The generic cores (:class:`~.iterative.IterativeTDES`, :class:`~.pipeline.PipelinedTDES`)
with the key built into the circuit instead of taken on a port: no key port, no key
register, no key setup (``key_interface`` ``none``, the key in ``fixed_key``).  Timing,
rounds and the datapath are the generic cores'.  Paper 004's variants differ in how the
HDL states the key:

``fixed_round_key``
    the subkey generator replaced by constants: iterative, a multiplexer of the
    precomputed subkeys selected by the round counter (round of the pass, pass, and
    with both directions the block's decrypt flag); pipelined, each stage's constant
    subkey (with both directions, one of two by the stage's decrypt flag).
``xor_collapse``
    the subkey XOR before the S-boxes (``E(R) ^ K_i``) written per bit as a wire or an
    inverter chosen by that round's constant key bit: iterative, per bit a constant mask
    over the rounds indexed by the same counter; pipelined, a plain wire or inverter per
    bit in each stage (with both directions, chosen by the stage's decrypt flag).

The key is 16, 32 or 48 hex digits (64, 128, 192 bits, K1 first, as on the generic
cores' key port); parity bits are ignored.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Signal

from ...errors import CipherfabError
from ...hw.collapse import collapse, key_bits, round_masks
from ...hw.info import CoreInfo
from ...registry import hex_key_problem
from .des import FeistelFunction, _permute_int, subkey_table
from .iterative import IterativeTDES
from .pipeline import PipelinedTDES, round_plan

VARIANTS = ("fixed_round_key", "xor_collapse")
DEFAULT_KEY = "0101010101010101"   # KEYs of the SP 800-20 variable-text and inverse-permutation tables


class CollapsedFeistel(FeistelFunction):
    """f with the key added as wires and inverters (its ``k`` input is unused)."""

    def __init__(self, masks: list[int], sel=None):
        self.masks, self.sel = masks, sel
        super().__init__()

    def add_key(self, e):
        return collapse(e, self.masks, self.sel)


class KeySpecific:
    """What both key-specific cores share: the built-in key, no key port."""

    def setup(self, arch: str, variant: str, key: str, key_bits: int):
        problem = hex_key_problem(key, key_bits)
        if problem or variant not in VARIANTS:
            self._MustUse__silence = True    # refused, not forgotten
        if problem:
            raise CipherfabError(f"tdes {arch}: {problem} (--key-bits 64: 16, 128: 32, 192: 48)")
        if variant not in VARIANTS:
            raise CipherfabError(f"tdes {arch}: --variant {variant!r} is not supported; choose "
                                 f"from {', '.join(VARIANTS)}")
        self.variant, self.key_hex = variant, key.lower()
        raw = bytes.fromhex(key)
        k = [int.from_bytes(raw[8 * i:8 * i + 8], "big") for i in range(key_bits // 64)]
        self.des_keys = (k[0], k[1], k[0]) if key_bits == 128 else tuple(k) if key_bits == 192 \
            else (k[0],) * 3

    def subkey_value(self, which: int, n: int) -> int:
        """K_n (1..16) of K1, K2 or K3 (``which`` 0..2) as an integer (48 bits)."""
        return _permute_int(self.des_keys[which], subkey_table(n), 64)

    def declare(self, info: CoreInfo) -> CoreInfo:
        return info.with_built_in_key(self.key_hex, self.variant, info.notes[:1])

    # the key port's hooks: none
    def key_register(self):
        return None, Const(1)

    def key_ready(self, idle) -> list:
        return []

    def key_gate(self, ready):
        return ready

    def take_key(self, m: Module, key, have_key):
        pass


class KeySpecificTDES(KeySpecific, IterativeTDES):
    """The iterative core for one built-in key (paper 004's variants of it)."""

    def __init__(self, key_bits: int = 64, direction: str = "encrypt",
                 variant: str = "xor_collapse", key: str = DEFAULT_KEY):
        self.setup("key_specific", variant, key, key_bits)
        super().__init__(key_bits, direction)

    def round_index(self) -> Signal:
        """The round counter as an index: round of the pass - 1, pass, decrypt flag (both)."""
        if not hasattr(self, "_n"):
            bits = 4 + (self.passes - 1).bit_length() + (self.direction == "both")
            self._n = Signal(bits, name="n")
        return self._n

    def table(self) -> list[int]:
        """The subkey of each value of :meth:`round_index` (an unused pass value: the last
        pass's, so that a key bit equal in every round stays a plain wire or inverter)."""
        pass_bits = (self.passes - 1).bit_length()
        out = []
        for v in range(2 ** len(self.round_index())):
            i, p = v & 15, min(v >> 4 & (2 ** pass_bits - 1), self.passes - 1)
            d = bool(v >> (4 + pass_bits)) if self.direction == "both" else self.direction == "decrypt"
            which, n, _ = round_plan(16 * p + i + 1, self.passes, d)
            out.append(self.subkey_value(which, n))
        return out

    def feistel_function(self) -> FeistelFunction:
        if self.variant == "fixed_round_key":
            return FeistelFunction()
        t = self.table()
        return CollapsedFeistel(round_masks(t, 48), self.round_index())

    def round_key(self, m: Module, key, r, p, decrypt):
        n, pass_bits = self.round_index(), (self.passes - 1).bit_length()
        m.d.comb += n.eq(Cat((r - 1)[:4], p[:pass_bits], decrypt) if self.direction == "both"
                         else Cat((r - 1)[:4], p[:pass_bits]))
        if self.variant == "fixed_round_key":
            return Array(Const(k, 48) for k in self.table())[n], []
        return Const(0, 48), []


class KeySpecificPipelinedTDES(KeySpecific, PipelinedTDES):
    """The pipelined core (16 or 48 stages) for one built-in key."""

    def __init__(self, key_bits: int = 64, direction: str = "encrypt",
                 variant: str = "xor_collapse", key: str = DEFAULT_KEY):
        self.setup("key_specific_pipeline", variant, key, key_bits)
        super().__init__(key_bits, direction)

    def feistel_function(self, plans: dict, decrypt) -> FeistelFunction:
        if self.variant == "fixed_round_key":
            return FeistelFunction()
        k = {d: self.subkey_value(which, n) for d, (which, n, _) in plans.items()}
        if decrypt is None:      # one direction: a plain wire or inverter per bit
            key = k[self.direction == "decrypt"]
            return CollapsedFeistel(key_bits(key, 48))
        return CollapsedFeistel(round_masks([k[False], k[True]], 48), decrypt)

    def subkey(self, ks, which: int, n: int):
        return Const(self.subkey_value(which, n) if self.variant == "fixed_round_key" else 0, 48)
