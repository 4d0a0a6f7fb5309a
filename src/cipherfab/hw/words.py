"""32-bit words in the byte-array convention of the AES finalists' specifications.

On every cipherfab port, byte 0 of a block or key sits in the top bits (the hex
string reads left to right).  Serpent, Twofish, RC6 and MARS read bytes 0..3 as
their first 32-bit word, little-endian (byte 0 lowest).  These two helpers convert.
"""

from __future__ import annotations

from amaranth.hdl import Cat


def le_words(value) -> list:
    """The little-endian 32-bit words of a port value (byte 0 in the top bits)."""
    n = len(value) // 8
    bs = [value[8 * (n - 1 - m):8 * (n - m)] for m in range(n)]   # byte m
    return [Cat(*bs[4 * k:4 * k + 4]) for k in range(n // 4)]


def from_le_words(ws) -> Cat:
    """Inverse of :func:`le_words`."""
    return Cat(*reversed([w[8 * b:8 * b + 8] for w in ws for b in range(4)]))
