"""cocotb tests of the accelerator system (run by test_system_cocotb.py): cocotbext-axi's
AXI4-Stream source and sink with random pauses and its AXI4-Lite master against the
Verilated AcceleratorSystem around AES-128 (interleaved, both directions), checked
against cryptography."""

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import (AxiLiteBus, AxiLiteMaster, AxiStreamBus, AxiStreamFrame, AxiStreamSink,
                           AxiStreamSource)
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

CTRL, STATUS, BLOCKS_IN, BLOCKS_OUT, KEY, KEY_LOAD, IV = 0x00, 0x04, 0x10, 0x14, 0x20, 0x40, 0x50
ECB_E, ECB_D, CBC_E, CBC_D, CTR = range(5)


def pauses(seed, p):
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


class Bench:
    def __init__(self, dut, seed):
        self.dut = dut
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        self.regs = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "ctrl"), dut.clk, dut.rst)
        self.src.set_pause_generator(pauses(seed, 0.3))
        self.sink.set_pause_generator(pauses(seed + 1, 0.4))

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)

    async def write(self, addr, value):
        await self.regs.write_dword(addr, value)

    async def read(self, addr):
        return await self.regs.read_dword(addr)

    async def program(self, key, iv, mode):
        while (await self.read(STATUS)) >> 4 & 1:        # the reset's zero key is taken first
            pass
        for i in range(0, len(key), 4):
            await self.write(KEY + i, int.from_bytes(key[i:i + 4], "big"))
        await self.write(KEY_LOAD, 1)
        for i in range(0, 16, 4):
            await self.write(IV + i, int.from_bytes(iv[i:i + 4], "big"))
        await self.write(CTRL, 1 | mode << 4)

    async def message(self, data):
        await self.src.send(AxiStreamFrame(data))
        frame = await self.sink.recv()
        return bytes(frame.tdata)

    async def idle(self):
        while not (await self.read(STATUS)) & 1:
            pass


def reference(key, iv, mode, data):
    m = {ECB_E: modes.ECB(), ECB_D: modes.ECB(), CBC_E: modes.CBC(iv), CBC_D: modes.CBC(iv), CTR: modes.CTR(iv)}[mode]
    c = Cipher(algorithms.AES(key), m)
    return (c.decryptor() if mode in (ECB_D, CBC_D) else c.encryptor()).update(data)


@cocotb.test()
async def every_mode_against_cryptography(dut):
    """Every mode, messages longer than the FIFOs (so they fill and drain), random pauses."""
    b = Bench(dut, 1)
    await b.reset()
    rng = random.Random(2)
    for mode in (ECB_E, ECB_D, CBC_E, CBC_D, CTR):
        key, iv = rng.randbytes(16), rng.randbytes(16)
        data = rng.randbytes(16 * 40 + (11 if mode == CTR else 0))
        await b.program(key, iv, mode)
        out = await b.message(data)
        assert out == reference(key, iv, mode, data), f"mode {mode}"
        await b.idle()
        n = -(-len(data) // 16)
        assert await b.read(BLOCKS_IN) == n and await b.read(BLOCKS_OUT) == n


@cocotb.test()
async def key_and_mode_change_between_streams(dut):
    b = Bench(dut, 3)
    await b.reset()
    rng = random.Random(4)
    data = rng.randbytes(16 * 9)
    for key, mode in ((rng.randbytes(16), CTR), (rng.randbytes(16), CBC_E), (rng.randbytes(16), ECB_E)):
        iv = rng.randbytes(16)
        await b.program(key, iv, mode)
        assert await b.message(data) == reference(key, iv, mode, data)
        await b.idle()


@cocotb.test()
async def reset_in_the_middle_of_a_stream(dut):
    """A reset with blocks in the FIFOs and the core: afterwards nothing stale comes out
    and the next stream is right."""
    b = Bench(dut, 5)
    await b.reset()
    rng = random.Random(6)
    key, iv = rng.randbytes(16), rng.randbytes(16)
    await b.program(key, iv, CTR)
    b.sink.pause = True                       # hold the output so blocks pile up
    await b.src.send(AxiStreamFrame(rng.randbytes(16 * 30)))
    await ClockCycles(dut.clk, 200)
    b.src.clear()
    await b.reset()
    b.sink.clear()
    b.sink.pause = False
    await ClockCycles(dut.clk, 20)
    assert b.sink.empty() and not int(dut.m_axis_tvalid.value)
    for _ in range(20):                        # idle once the reset's zero key is set up
        if (await b.read(STATUS)) & 1:         # (32 cycles with block-RAM S-boxes; a read
            break                              # takes 3)
    assert (await b.read(STATUS)) & 1
    assert b.sink.empty() and not int(dut.m_axis_tvalid.value)
    data = rng.randbytes(16 * 5 + 3)
    await b.program(key, iv, CTR)
    assert await b.message(data) == reference(key, iv, CTR, data)
