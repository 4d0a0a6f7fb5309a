"""Host links: how fast bytes reach the accelerator and come back (paper 003's point: the
link and the buffering decide what the user gets).

A link moves bursts of ``burst_bytes``; each burst first costs ``latency_ns`` (request,
DMA setup, bus turnaround), then moves at ``bytes_per_s``; bursts do not overlap.  Each
direction is modelled alone (full duplex).  So a transfer of n bytes takes
ceil(n / burst) x latency + n / rate, and small transfers are dominated by latency.

Presets (their sources in the comments; rates are payload rates):
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CipherfabError


@dataclass(frozen=True)
class Link:
    name: str
    bytes_per_s: float | None        # None: the port's own rate (one transfer per clock)
    latency_ns: float
    burst_bytes: int
    note: str

    def per_clock(self, fmax_mhz: float, port_bytes: int) -> tuple[float, int, int]:
        """(bytes per clock, latency in clocks, burst bytes) at the fabric clock."""
        rate = port_bytes if self.bytes_per_s is None else self.bytes_per_s / (fmax_mhz * 1e6)
        return rate, round(self.latency_ns * fmax_mhz / 1000), max(self.burst_bytes, port_bytes)


LINKS = {link.name: link for link in (
    # paper 003 section 7: the Pilchard card on the SDRAM bus, uncached writes measured 35 MB/s
    Link("pilchard-uncached", 35e6, 0.0, 8, "Pilchard (paper 003), uncached: 35 MB/s"),
    # paper 003: write-combining raised the link to 483 Mbit/s
    Link("pilchard-wc", 483e6 / 8, 0.0, 64, "Pilchard (paper 003), write-combining: 483 Mbit/s"),
    # PCIe Gen3: 8 GT/s per lane, 128b/130b; ~80% of that as DMA payload; ~1 us per 4 KiB DMA
    Link("pcie-gen3x4", 4 * 8e9 * 128 / 130 / 8 * 0.8, 1000.0, 4096,
         "PCIe Gen3 x4: 3.15 GB/s payload, 1 us per 4 KiB DMA"),
    Link("pcie-gen3x8", 8 * 8e9 * 128 / 130 / 8 * 0.8, 1000.0, 4096,
         "PCIe Gen3 x8: 6.30 GB/s payload, 1 us per 4 KiB DMA"),
    # an AXI DMA in the fabric: one transfer per clock, no setup cost between bursts
    Link("axi-dma", None, 0.0, 4096, "AXI DMA at the fabric clock: one transfer per clock"),
)}
DEFAULT_LINK = "axi-dma"

__doc__ += "".join(f"\n- ``{n}``: {link.note}" for n, link in LINKS.items()) + "\n"


#: the fabric clocks (MHz) the link model is meant for: a slower clock makes a link move
#: millions of bytes per clock, a faster one is no FPGA's
FMAX_MHZ = (0.001, 10000.0)


def fmax_problem(mhz) -> str | None:
    """Why ``mhz`` is not a clock to time a run with, or None (nan and inf would reach
    ``round()`` in :meth:`Link.per_clock` as a traceback)."""
    low, high = FMAX_MHZ
    if not (isinstance(mhz, (int, float)) and low <= mhz <= high):    # False for nan, inf
        return f"a clock of {mhz} MHz: give a number from {low:g} to {high:g}"
    return None


def get_link(name: str) -> Link:
    if name not in LINKS:
        raise CipherfabError(f"unknown link {name!r}; one of {', '.join(LINKS)}")
    return LINKS[name]
