"""How deep the accelerator's two FIFOs may be on a device: the block RAM (EBR) one FIFO of a
given depth occupies, and the refusal of a depth the device cannot hold, checked before
anything is elaborated (a FIFO's memory is one Python object per word: an impossible depth
would first take gigabytes and minutes)."""

from __future__ import annotations

#: block RAMs (EBR, 18 kbit each) of the ECP5 parts in flow.devices (Lattice DS1044, table 1.1)
EBR_COUNT = {"LFE5U-25F": 56, "LFE5U-45F": 108, "LFE5U-85F": 208}
#: the device the system is generated for unless told: the flow's default (ecp5-85k)
DEFAULT_DEVICE = ("ecp5-85k", "LFE5U-85F")
#: the DP16KD's shapes, (words, bits), that one EBR takes
EBR_SHAPES = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
#: a FIFO of 2 (Amaranth's SyncFIFOBuffered: a one-entry RAM with zero-width pointers,
#: ``wire [-1:0]``) fails ``verilator --lint-only -Wall``; 3 is the least that lints
MIN_DEPTH = 3


def fifo_entry_bits(block_bits: int) -> int:
    """Bits of one FIFO entry: the block and its sideband (last flag, byte count)."""
    from ..stream.axis import side_layout
    return block_bits + side_layout(block_bits).size


def fifo_ebr(block_bits: int, depth: int) -> int:
    """The fewest EBR one FIFO of ``depth`` blocks can occupy (its RAM holds depth - 1
    entries, the last sits in the output register of ``SyncFIFOBuffered``)."""
    words, bits = depth - 1, fifo_entry_bits(block_bits)
    return min(-(-words // w) * -(-bits // b) for w, b in EBR_SHAPES)


def largest_depth(block_bits: int, ebr: int) -> int:
    """The deepest FIFO pair that fits in ``ebr`` block RAMs."""
    low, high = MIN_DEPTH, MIN_DEPTH
    while 2 * fifo_ebr(block_bits, high) <= ebr:
        low, high = high, 2 * high
    while high - low > 1:                         # fits at low, not at high
        mid = (low + high) // 2
        low, high = (mid, high) if 2 * fifo_ebr(block_bits, mid) <= ebr else (low, mid)
    return low


def depth_problem(block_bits: int, depth: int, device: tuple[str, str] = DEFAULT_DEVICE) -> str | None:
    """Why two FIFOs of ``depth`` blocks do not fit the block RAM of ``device`` (name, part),
    or None.  Checked before anything is elaborated: a FIFO's memory is built as one Python
    object per word, so an impossible depth would first take gigabytes and minutes."""
    name, part = device
    if depth < MIN_DEPTH:
        return f"a FIFO holds at least {MIN_DEPTH} blocks, not {depth}"
    ebr = EBR_COUNT.get(part)
    if ebr is None or 2 * fifo_ebr(block_bits, depth) <= ebr:
        return None
    return (f"two FIFOs of {depth} {fifo_entry_bits(block_bits)}-bit entries need at least "
            f"{2 * fifo_ebr(block_bits, depth)} block RAMs (EBR, 18 kbit); the device "
            f"{name} ({part}) has {ebr}: at most {largest_depth(block_bits, ebr)} blocks")
