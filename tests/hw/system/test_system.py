"""The accelerator system (hw.system.system) in Amaranth's simulator, driven as a host would: the
AXI4-Lite registers (key, IV, mode, start, status, counters, info), a message through
AXI4-Stream, write-only key registers, and clear zeroizing them; and its generated Verilog
lint-clean at every stream width."""

import random

import pytest
from amaranth.sim import Simulator
from cryptography.hazmat.decrepit.ciphers.modes import CFB
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.hw.system import system as regs
from cipherfab.hw.modes import Mode
from cipherfab.hw.system.system import AcceleratorSystem
from hw.doubles import PipeCore, messages_of, toy_encrypt, transfers


async def write(ctx, bus, addr, value, strb=0b1111):
    ctx.set(bus.awaddr, addr)
    ctx.set(bus.wdata, value)
    ctx.set(bus.wstrb, strb)
    ctx.set(bus.awvalid, 1)
    ctx.set(bus.wvalid, 1)
    await ctx.tick().until(bus.awready)
    ctx.set(bus.awvalid, 0)
    ctx.set(bus.wvalid, 0)
    ctx.set(bus.bready, 1)
    (resp,) = await ctx.tick().sample(bus.bresp).until(bus.bvalid)
    ctx.set(bus.bready, 0)
    return resp


async def read(ctx, bus, addr):
    ctx.set(bus.araddr, addr)
    ctx.set(bus.arvalid, 1)
    await ctx.tick().until(bus.arready)
    ctx.set(bus.arvalid, 0)
    ctx.set(bus.rready, 1)
    (data,) = await ctx.tick().sample(bus.rdata).until(bus.rvalid)
    ctx.set(bus.rready, 0)
    return data


async def program(ctx, dut, key: bytes, iv: bytes, mode: Mode):
    bus = dut.ctrl
    while (await read(ctx, bus, regs.STATUS)) >> 4 & 1:      # a pending key is taken first
        pass
    for i in range(0, len(key), 4):
        await write(ctx, bus, regs.KEY + i, int.from_bytes(key[i:i + 4], "big"))
    await write(ctx, bus, regs.KEY_LOAD, 1)
    for i in range(0, len(iv), 4):
        await write(ctx, bus, regs.IV + i, int.from_bytes(iv[i:i + 4], "big"))
    await write(ctx, bus, regs.CTRL, 1 | mode.value << 4)


async def stream(ctx, dut, msg: bytes, rng, lanes: int):
    sent, got, i = transfers(msg, lanes, 16), [], 0
    for _ in range(20000):
        offer = i < len(sent) and rng.random() < 0.8
        ctx.set(dut.s_axis.tvalid, offer)
        if offer:
            d, k, last = sent[i]
            ctx.set(dut.s_axis.tdata, d)
            ctx.set(dut.s_axis.tkeep, k)
            ctx.set(dut.s_axis.tlast, last)
        ctx.set(dut.m_axis.tready, rng.random() < 0.7)
        await ctx.delay(1e-9)
        if not ctx.get(dut.m_axis.tvalid):          # nothing shows on the port while not valid
            assert (ctx.get(dut.m_axis.tdata), ctx.get(dut.m_axis.tkeep), ctx.get(dut.m_axis.tlast)) == (0, 0, 0)
        i += bool(ctx.get(dut.s_axis.tvalid) and ctx.get(dut.s_axis.tready))
        if ctx.get(dut.m_axis.tvalid) and ctx.get(dut.m_axis.tready):
            got.append((ctx.get(dut.m_axis.tdata), ctx.get(dut.m_axis.tkeep),
                        ctx.get(dut.m_axis.tlast)))
        await ctx.tick()
        if got and got[-1][2]:
            break
    ctx.set(dut.s_axis.tvalid, 0)
    ctx.set(dut.m_axis.tready, 0)
    return b"".join(messages_of(got, lanes))


def test_aes_gcm_through_the_registers():
    """GCM encrypt then decrypt (right tag, then one flipped bit) through the registers: the
    lengths, the TAG registers, the verdict in STATUS; clear zeroizes the tag."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    dut = AcceleratorSystem(make_core(resolve("aes", "iterative", key_bits=128, sbox="rom")),
                            width=32, depth=8)
    rng = random.Random(2)
    key, iv, aad, text = rng.randbytes(16), rng.randbytes(12), rng.randbytes(20), rng.randbytes(37)
    sealed = AESGCM(key).encrypt(iv, text, aad)
    ct, tag = sealed[:-16], sealed[-16:]
    pad = lambda b: b + bytes(-len(b) % 16)
    seen = {}

    async def gcm(ctx, mode, data, n_text, tag_bytes=16):
        bus = dut.ctrl
        for where, v in ((regs.AAD_BYTES, len(aad)), (regs.TEXT_BYTES, n_text),
                         (regs.TAG_BYTES, tag_bytes)):
            await write(ctx, bus, where, v)
        await write(ctx, bus, regs.CTRL, 1 | mode.value << 4)
        out = await stream(ctx, dut, data, rng, 4)
        while not (await read(ctx, bus, regs.STATUS)) & 1:
            pass
        return out, await read(ctx, bus, regs.STATUS), [await read(ctx, bus, regs.TAG + 4 * i)
                                                          for i in range(4)]

    async def bench(ctx):
        seen["lengths"] = [await read(ctx, dut.ctrl, a) for a in (regs.IV_BYTES, regs.TAG_BYTES)]
        await program(ctx, dut, key, iv + bytes(4), Mode.ECB_ENCRYPT)
        seen["enc"] = await gcm(ctx, Mode.GCM_ENCRYPT, pad(aad) + text, len(text))
        seen["dec"] = await gcm(ctx, Mode.GCM_DECRYPT, pad(aad) + pad(ct) + tag, len(ct))
        bad = bytes([tag[0] ^ 0x80]) + tag[1:12]
        seen["bad"] = await gcm(ctx, Mode.GCM_DECRYPT, pad(aad) + pad(ct) + bad, len(ct), 12)
        await write(ctx, dut.ctrl, regs.TAG_BYTES, 11)
        await write(ctx, dut.ctrl, regs.CTRL, 1 | Mode.GCM_ENCRYPT.value << 4)
        seen["impossible"] = await read(ctx, dut.ctrl, regs.STATUS)

    simulate(dut, bench)
    assert seen["lengths"] == [12, 16]                                  # the reset values
    out, status, tag_words = seen["enc"]
    assert out == pad(ct) + tag and status == 1
    assert b"".join(w.to_bytes(4, "big") for w in tag_words) == tag
    out, status, tag_words = seen["dec"]
    assert out == text and status == 1 | 1 << 5 and tag_words == [0] * 4   # match; tag not shown
    out, status, _ = seen["bad"]
    assert out == text and status == 1 | 1 << 6                         # mismatch
    assert seen["impossible"] == 1 | 1 << 7                             # gcm_error, nothing started


def simulate(dut, bench):
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_aes_ctr_and_cfb_through_the_registers():
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    dut = AcceleratorSystem(make_core(resolve("aes", "interleaved", key_bits=256, direction="both",
                                              sbox="rom", stages=2)), width=64, depth=8)
    rng = random.Random(1)
    key, iv, msg = rng.randbytes(32), rng.randbytes(16), rng.randbytes(16 * 4 + 9)
    seen = {}

    async def bench(ctx):
        info = await read(ctx, dut.ctrl, regs.INFO)
        await program(ctx, dut, key, iv, Mode.CTR)
        seen["out"] = await stream(ctx, dut, msg, rng, 8)
        while not (await read(ctx, dut.ctrl, regs.STATUS)) & 1:
            pass
        seen["status"] = await read(ctx, dut.ctrl, regs.STATUS)
        seen["counts"] = [await read(ctx, dut.ctrl, a) for a in (regs.BLOCKS_IN, regs.BLOCKS_OUT)]
        seen["info"] = info
        seen["modes"] = await read(ctx, dut.ctrl, regs.MODES)
        # CFB decrypt is mode 9: CTRL's bit 7 carries the mode's top bit
        await program(ctx, dut, key, iv, Mode.CFB_DECRYPT)
        seen["cfb"] = await stream(ctx, dut, msg, rng, 8)
        while not (await read(ctx, dut.ctrl, regs.STATUS)) & 1:
            pass
        seen["key_reads"] = [await read(ctx, dut.ctrl, regs.KEY + 4 * i) for i in range(8)]
        seen["iv_reads"] = [await read(ctx, dut.ctrl, regs.IV + 4 * i) for i in range(4)]
        # clear: the core's round-key memory (a RAM, untouched by reset) must hold the zero
        # key's round keys afterwards, so ECB with no key loaded encrypts under key 0
        await write(ctx, dut.ctrl, regs.CTRL, 0b10)
        while (await read(ctx, dut.ctrl, regs.STATUS)) != 1:
            pass
        await write(ctx, dut.ctrl, regs.CTRL, 1 | Mode.ECB_ENCRYPT.value << 4)
        seen["after_clear"] = await stream(ctx, dut, msg[:32], rng, 8)

    simulate(dut, bench)
    c = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
    assert seen["out"] == c.update(msg)
    assert seen["status"] == 1                              # idle, no error, no key pending
    assert seen["counts"] == [5, 5]
    assert seen["info"] == 16 | 32 << 8 | 0b1111111 << 16 | 1 << 24     # GCM too
    assert seen["modes"] == (1 << len(Mode)) - 1                        # and OFB, CFB
    assert seen["cfb"] == Cipher(algorithms.AES(key), CFB(iv)).decryptor().update(msg)
    assert seen["key_reads"] == [0] * 8 and seen["iv_reads"] == [0] * 4   # write-only
    zero = Cipher(algorithms.AES(bytes(32)), modes.ECB()).encryptor()
    assert seen["after_clear"] == zero.update(msg[:32])


def test_clear_zeroizes_key_material_and_drops_blocks_in_flight():
    dut = AcceleratorSystem(PipeCore("stream", stages=6), width=128, depth=8)
    rng = random.Random(2)
    key = rng.randbytes(16)
    seen = {}

    async def bench(ctx):
        await program(ctx, dut, key, bytes(16), Mode.ECB_ENCRYPT)
        # three blocks in, none taken out: they sit in the FIFOs and the core
        for n, block in enumerate(rng.randbytes(16) for _ in range(3)):
            ctx.set(dut.s_axis.tdata, int.from_bytes(block[::-1], "big"))
            ctx.set(dut.s_axis.tkeep, 0xFFFF)
            ctx.set(dut.s_axis.tlast, n == 2)
            ctx.set(dut.s_axis.tvalid, 1)
            await ctx.tick().until(dut.s_axis.tready)
        ctx.set(dut.s_axis.tvalid, 0)
        for _ in range(12):
            await ctx.tick()
        seen["busy_before"] = not (await read(ctx, dut.ctrl, regs.STATUS)) & 1
        seen["key_before"] = [ctx.get(w) for w in dut.key_words[:4]]
        assert await write(ctx, dut.ctrl, regs.CTRL, 0b10) == 0           # clear
        for _ in range(3):
            await ctx.tick()
        seen["key_after"] = [ctx.get(w) for w in dut.key_words + dut.iv_words]
        while (status := await read(ctx, dut.ctrl, regs.STATUS)) != 1:   # zero key expanded, idle
            pass
        seen["status_after"] = status
        seen["out_valid"] = ctx.get(dut.m_axis.tvalid)
        seen["bad_strobe"] = await write(ctx, dut.ctrl, regs.KEY, 5, strb=0b0011)
        seen["key0_after_bad"] = ctx.get(dut.key_words[0])
        # the same key again: works after the clear
        await program(ctx, dut, key, bytes(16), Mode.ECB_ENCRYPT)
        msg = rng.randbytes(32)
        seen["again"] = (msg, await stream(ctx, dut, msg, rng, 16))

    simulate(dut, bench)
    assert seen["busy_before"] and any(seen["key_before"])
    assert seen["key_after"] == [0] * 12
    assert seen["status_after"] == 1 and not seen["out_valid"]          # idle and empty
    assert seen["bad_strobe"] == 0b10 and seen["key0_after_bad"] == 0   # SLVERR, not written
    msg, out = seen["again"]
    k = int.from_bytes(key, "big")
    want = b"".join(toy_encrypt(k, int.from_bytes(msg[i:i + 16], "big")).to_bytes(16, "big")
                    for i in (0, 16))
    assert out == want


@pytest.mark.parametrize("cipher,width,depth", [("aes", 32, 16), ("aes", 128, 16),
                                               ("tdes", 32, 16), ("tdes", 64, 3)])
def test_generated_system_is_lint_clean_at_every_width(tmp_path, capsys, cipher, width, depth):
    """``generate --system`` at every stream width a block allows passes ``verilator
    --lint-only -Wall`` (a block of one transfer once left a zero-width counter,
    ``wire [-1:0]``: ASCRANGE), and at the least FIFO depth; its name carries width and depth,
    its time is measured."""
    import subprocess

    from cipherfab.cli import main
    from cipherfab.sim.verilated import verilator_root
    out = tmp_path / "system.v"
    assert main(["generate", cipher, "--system", "--axis-width", str(width), "--fifo-depth", str(depth),
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    top = f"cf_system_{cipher}_iterative_{128 if cipher == 'aes' else 192}_encrypt" + \
          ("_lut" if cipher == "aes" else "") + f"_axis{width}_fifo{depth}"
    assert printed.startswith(f"{out}: {top}: the system around") and "(0.00 s" not in printed
    root = verilator_root()
    p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", "--top-module", top,
                        str(out)], capture_output=True, text=True,
                       env={"VERILATOR_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[:2000]


def test_generate_system_with_fewer_modes(tmp_path, capsys):
    """``--modes``: the top's name ends in the modes built (ECB added), the facts and the
    MODES register say them, the Verilog lints clean and is smaller than the default
    system's; naming every mode the core runs gives the default system."""
    import json
    import subprocess

    from cipherfab.cli import main
    from cipherfab.hw.modes import Mode
    from cipherfab.sim.verilated import verilator_root
    out, full = tmp_path / "few.v", tmp_path / "all.v"
    assert main(["generate", "aes", "--system", "--fifo-depth", "16", "--modes", "gcm,CTR", "-o", str(out)]) == 0
    facts = json.loads(out.with_suffix(".json").read_text())
    top = "cf_system_aes_iterative_128_encrypt_lut_axis128_fifo16_ecb_ctr_gcm"
    assert facts["top"] == top and facts["modes"] == ["ecb", "ctr", "gcm"] and facts["ghash"]
    assert facts["modes_register"] == sum(1 << m.value for m in (
        Mode.ECB_ENCRYPT, Mode.CTR, Mode.GCM_ENCRYPT, Mode.GCM_DECRYPT, Mode.CMAC_GENERATE, Mode.CMAC_VERIFY))
    assert main(["generate", "aes", "--system", "--fifo-depth", "16", "-o", str(full), "--modes",
                 "ecb,cbc,ctr,ofb,cfb,cfb8,cfb1,xts,gcm"]) == 0
    assert json.loads(full.with_suffix(".json").read_text())["top"] == \
        "cf_system_aes_iterative_128_encrypt_lut_axis128_fifo16"
    assert len(out.read_text()) < len(full.read_text()) - 20_000     # the left-out modes' logic
    root = verilator_root()
    p = subprocess.run([str(root / "bin" / "verilator"), "--lint-only", "-Wall", "--top-module", top,
                        str(out)], capture_output=True, text=True,
                       env={"VERILATOR_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr[:2000]


def test_a_system_without_gcm_has_no_ghash():
    """`ghash=None` leaves GCM out (docs/results/gcm-system measures what it costs)."""
    from amaranth.back import verilog
    with_gcm = AcceleratorSystem(PipeCore("stream", stages=2), width=128, depth=8, ghash=("digit", 64))
    without = AcceleratorSystem(PipeCore("stream", stages=2), width=128, depth=8, ghash=None)
    assert with_gcm.accelerator.ghash == ("digit", 64) and without.accelerator.ghash is None
    assert "ghash" in verilog.convert(with_gcm, name="with_gcm")
    assert "ghash" not in verilog.convert(without, name="without")
