"""Block RAM as the hardware sees it: a family's block (its name, primitive, size and the
shapes one block takes) and a device's budget of them.  The families declare theirs
(:mod:`cipherfab.flow.families`); the accelerator's FIFO check (:mod:`.system.fifo_budget`)
sizes its FIFOs against one, with no tool and no flow import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BlockRam:
    """A family's block RAM: what a user calls it, its primitive, its size and the (words,
    bits) shapes one block takes."""
    name: str                       # "EBR"
    primitive: str                  # "DP16KD"
    kbits: int                      # 18
    shapes: tuple                   # ((16384, 1), ..., (512, 36))

    def blocks(self, words: int, bits: int) -> int:
        """The fewest blocks a memory of ``words`` x ``bits`` occupies."""
        return min(-(-words // w) * -(-bits // b) for w, b in self.shapes)


@dataclass(frozen=True)
class RamBudget:
    """The block RAM of one device: ``count`` blocks of ``ram``."""
    device: str                     # "ecp5-85k"
    part: str                       # "LFE5U-85F"
    ram: BlockRam
    count: int


#: the 18-kbit shapes ECP5's DP16KD, Nexus's DP16K and Gowin's BSRAM share
SHAPES_18K = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
