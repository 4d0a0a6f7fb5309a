"""A constant key added to a value, written as wires and inverters (paper 004's
``xor_collapse``): the key-specific cores of every cipher state their AddRoundKey /
subkey XOR with :func:`collapse`."""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Mux


def collapse(e, masks: list[int], sel=None):
    """``e ^ k`` for a constant key, per bit a wire or an inverter: ``masks[i]`` is bit i's
    key bit, or with ``sel`` a mask over ``sel``'s values (bit v = the key bit when sel = v);
    a bit whose key bit is the same for every value is a plain wire or inverter."""
    full = 2 ** (2 ** len(sel)) - 1 if sel is not None else 1
    out = []
    for i in range(len(e)):
        mask = masks[i]
        if mask in (0, full):
            out.append(~e[i] if mask else e[i])
            continue
        bit = ((sel if mask == 2 else ~sel) if len(sel) == 1
               else Const(mask, 2 ** len(sel)).bit_select(sel, 1))
        out.append(Mux(bit, ~e[i], e[i]))
    return Cat(*out)


def key_bits(key: int, width: int) -> list[int]:
    """The bits of a constant key, bit 0 first: :func:`collapse`'s masks without ``sel``."""
    return [(key >> i) & 1 for i in range(width)]


def round_masks(keys: list[int], width: int) -> list[int]:
    """Per bit, its key bit in each of ``keys`` (bit v = keys[v]): :func:`collapse`'s masks
    with a selector indexing ``keys``."""
    return [sum(((k >> i) & 1) << v for v, k in enumerate(keys)) for i in range(width)]
