"""A minimal AXI4-Lite slave: 32-bit data, word addresses, one transaction at a time.

The five channels are flattened to plain signals (``awaddr``, ``awvalid``, ``awready``,
``wdata``, ``wstrb``, ``wvalid``, ``wready``, ``bresp``, ``bvalid``, ``bready``,
``araddr``, ``arvalid``, ``arready``, ``rdata``, ``rresp``, ``rvalid``, ``rready``), the
names an AXI interconnect and ``cocotbext-axi`` expect after a prefix.  Behind it a
register port: ``addr`` (word index), ``w_en``/``w_data`` for one clock per write (a
write takes its address and data in the same clock, whichever came first waits), and
``r_addr``/``r_en`` for one clock per read, in which ``r_data`` is sampled into the
read response.  ``wstrb`` other
than all four bytes is refused with SLVERR and not written (the registers are whole
words).  Every response is OKAY otherwise.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

OKAY, SLVERR = 0b00, 0b10


def axil_members(addr_bits: int) -> dict:
    return {
        "awaddr": In(addr_bits), "awvalid": In(1), "awready": Out(1),
        "wdata": In(32), "wstrb": In(4), "wvalid": In(1), "wready": Out(1),
        "bresp": Out(2), "bvalid": Out(1), "bready": In(1),
        "araddr": In(addr_bits), "arvalid": In(1), "arready": Out(1),
        "rdata": Out(32), "rresp": Out(2), "rvalid": Out(1), "rready": In(1),
    }


class AxiLiteSlave(wiring.Component):
    """The AXI4-Lite channels (``bus``) to a simple register port."""

    def __init__(self, addr_bits: int = 8):
        self.addr_bits = addr_bits
        super().__init__({
            "bus": Out(wiring.Signature(axil_members(addr_bits))),   # flows as the slave sees them
            "w_addr": Out(addr_bits - 2), "w_en": Out(1), "w_data": Out(32),
            "r_addr": Out(addr_bits - 2), "r_en": Out(1), "r_data": In(32),
        })

    def elaborate(self, platform):
        m = Module()
        bus = self.bus
        # write: both address and data present, no response pending
        write = bus.awvalid & bus.wvalid & ~bus.bvalid
        m.d.comb += [bus.awready.eq(write), bus.wready.eq(write),
                     self.w_addr.eq(bus.awaddr[2:]), self.w_data.eq(bus.wdata),
                     self.w_en.eq(write & (bus.wstrb == 0b1111))]
        with m.If(write):
            m.d.sync += bus.bvalid.eq(1)
            with m.If(bus.wstrb != 0b1111):
                m.d.sync += bus.bresp.eq(SLVERR)
            with m.Else():
                m.d.sync += bus.bresp.eq(OKAY)
        with m.Elif(bus.bvalid & bus.bready):
            m.d.sync += bus.bvalid.eq(0)
        # read: the address taken when no response is pending, data in the next clock
        read = bus.arvalid & ~bus.rvalid
        m.d.comb += [bus.arready.eq(read), self.r_addr.eq(bus.araddr[2:]), self.r_en.eq(read),
                     bus.rresp.eq(OKAY)]
        with m.If(read):
            m.d.sync += [bus.rvalid.eq(1), bus.rdata.eq(self.r_data)]
        with m.Elif(bus.rvalid & bus.rready):
            m.d.sync += bus.rvalid.eq(0)
        return m
