"""How deep the accelerator's two FIFOs may be on a device: the block RAMs one FIFO of a given
depth occupies, and the refusal of a depth the device cannot hold, checked before anything is
elaborated (a FIFO's memory is one Python object per word: an impossible depth would first
take gigabytes and minutes).  The device is a :class:`~cipherfab.hw.block_ram.RamBudget`, any
family's (``Family.ram_budget``); by default the flow's default device's."""

from __future__ import annotations

from ..block_ram import SHAPES_18K, BlockRam, RamBudget

#: the device the system is generated for unless told: the flow's default, ecp5-85k, with its
#: 208 EBR (the ECP5 family's declaration, :mod:`cipherfab.flow.families.ecp5`; a test keeps
#: the two the same, as hw/ imports no flow)
DEFAULT_BUDGET = RamBudget("ecp5-85k", "LFE5U-85F", BlockRam("EBR", "DP16KD", 18, SHAPES_18K), 208)
#: a FIFO of 2 (Amaranth's SyncFIFOBuffered: a one-entry RAM with zero-width pointers,
#: ``wire [-1:0]``) fails ``verilator --lint-only -Wall``; 3 is the least that lints
MIN_DEPTH = 3


def fifo_entry_bits(block_bits: int) -> int:
    """Bits of one FIFO entry: the block and its sideband (last flag, byte count)."""
    from ..stream.axis import side_layout
    return block_bits + side_layout(block_bits).size


def fifo_blocks(block_bits: int, depth: int, ram: BlockRam = DEFAULT_BUDGET.ram) -> int:
    """The fewest block RAMs one FIFO of ``depth`` blocks can occupy (its RAM holds depth - 1
    entries, the last sits in the output register of ``SyncFIFOBuffered``)."""
    return ram.blocks(depth - 1, fifo_entry_bits(block_bits))


def largest_depth(block_bits: int, budget: RamBudget = DEFAULT_BUDGET) -> int:
    """The deepest FIFO pair that fits in ``budget``'s block RAMs."""
    fits = lambda d: 2 * fifo_blocks(block_bits, d, budget.ram) <= budget.count   # noqa: E731
    low, high = MIN_DEPTH, MIN_DEPTH
    while fits(high):
        low, high = high, 2 * high
    while high - low > 1:                         # fits at low, not at high
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def depth_problem(block_bits: int, depth: int, budget: RamBudget = DEFAULT_BUDGET) -> str | None:
    """Why two FIFOs of ``depth`` blocks do not fit ``budget``'s block RAM, or None.  Checked
    before anything is elaborated: a FIFO's memory is built as one Python object per word,
    so an impossible depth would first take gigabytes and minutes."""
    if depth < MIN_DEPTH:
        return f"a FIFO holds at least {MIN_DEPTH} blocks, not {depth}"
    need = 2 * fifo_blocks(block_bits, depth, budget.ram)
    if need <= budget.count:
        return None
    ram = budget.ram
    return (f"two FIFOs of {depth} {fifo_entry_bits(block_bits)}-bit entries need at least "
            f"{need} block RAMs ({ram.name}, {ram.kbits} kbit); the device "
            f"{budget.device} ({budget.part}) has {budget.count}: at most "
            f"{largest_depth(block_bits, budget)} blocks")
