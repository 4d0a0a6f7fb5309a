"""CMAC (SP 800-38B) in the accelerator's GCM layer, in Amaranth's simulator: messages of
every length class (empty, partial, one block, whole blocks, several), generate and verify
with right and wrong tags, tags of 4 to 16 bytes, random tvalid/tready pauses, CMAC and GCM
messages in turn under one key and after a key load (L is H), impossible tag lengths;
around a pipelined test double (checked against a CMAC model over its toy cipher) and
AES-128 (checked against cryptography's CMAC)."""

import random

import pytest
from amaranth.sim import Simulator
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.cmac import CMAC

from cipherfab.hw.gcm import gcm_model
from cipherfab.hw.modes import Mode
from cipherfab.hw.system.accelerator import Accelerator
from hw.doubles import (PipeCore, layer_flags, load_key, messages_of, run_clocked, stream_through,
                        toy_encrypt, transfers)

MASK = (1 << 128) - 1


def dbl(x: int) -> int:
    return (x << 1 & MASK) ^ (0x87 if x >> 127 else 0)


def cmac_model(enc, msg: bytes) -> bytes:
    """SP 800-38B 6.2 over the block function ``enc`` (int -> int)."""
    k1 = dbl(enc(0))
    k2 = dbl(k1)
    blocks = [msg[i:i + 16] for i in range(0, len(msg), 16)] or [b""]
    chain = 0
    for i, b in enumerate(blocks):
        x = int.from_bytes(b.ljust(16, b"\0") if len(b) == 16 else (b + b"\x80").ljust(16, b"\0"), "big")
        if i == len(blocks) - 1:
            x ^= k1 if len(b) == 16 else k2
        chain = enc(chain ^ x)
    return chain.to_bytes(16, "big")


def padded(msg: bytes) -> bytes:
    """The stream the system takes: the message, its last block padded with 10* when it is
    partial or empty."""
    if msg and len(msg) % 16 == 0:
        return msg
    return (msg + b"\x80").ljust(len(msg) + 16 - len(msg) % 16, b"\0")


def run(dut, jobs, rng, valid_p=0.8, ready_p=0.7, limit=20000):
    """jobs: (key, mode, msg, tag or None, tag_bytes, gcm) with gcm (iv, aad) for a GCM
    encrypt message in between.  Returns [(output bytes, flags)]."""
    lanes, results = dut.width // 8, []

    async def bench(ctx, clock):
        for key, mode, msg, tag, tag_bytes, gcm in jobs:
            await load_key(ctx, dut, key)
            ctx.set(dut.mode, mode)
            iv, aad = gcm or (b"", b"")
            ctx.set(dut.iv, int.from_bytes(iv.ljust(16, b"\0"), "big"))
            for name, v in (("aad_bytes", len(aad)), ("text_bytes", len(msg)),
                            ("iv_bytes", 12), ("tag_bytes", tag_bytes)):
                ctx.set(getattr(dut, name), v)
            ctx.set(dut.start, 1)
            await ctx.tick()
            began = clock[0]
            ctx.set(dut.start, 0)
            if gcm:
                stream = aad + bytes(-len(aad) % 16) + msg
            else:
                stream = padded(msg) + (tag if mode == Mode.CMAC_VERIFY else b"")
            sent = transfers(stream, lanes, 16)
            got = await stream_through(ctx, dut, sent, rng, valid_p, ready_p, limit,
                                       lambda i, got: i == len(sent) and ctx.get(dut.idle))
            assert got is not None, "the message did not end"
            out = b"".join(messages_of(got, lanes)) if got else b""
            results.append((out, layer_flags(ctx, dut, clock[0] - began)))

    run_clocked(dut, bench)
    return results


def _jobs(rng, key, enc, lengths=(0, 1, 15, 16, 17, 32, 50), tags=(16, 4, 9, 12)):
    """Generate and verify jobs over the length classes with their expected results; every
    other verify gets a tag with one bit flipped."""
    jobs, want = [], []
    for n, length in enumerate(lengths):
        msg, tb = rng.randbytes(length), tags[n % len(tags)]
        tag = cmac_model(enc, msg)[:tb]
        jobs.append((key if n == 0 else None, Mode.CMAC_GENERATE, msg, None, tb, None))
        want.append((tag, dict(tag_match=0, tag_mismatch=0)))
        bad = n % 2 == 1
        jobs.append((None, Mode.CMAC_VERIFY, msg, bytes([tag[0] ^ 0x10]) + tag[1:] if bad else tag,
                     tb, None))
        want.append((b"", dict(tag_match=int(not bad), tag_mismatch=int(bad))))
    return jobs, want


def _check(results, jobs, want):
    for (out, flags), job, (w_out, w_flags) in zip(results, jobs, want):
        what = (job[1].name, len(job[2]), job[4])
        assert out == w_out, what
        assert {k: flags[k] for k in w_flags} == w_flags, (what, flags)
        assert not (flags["mode_error"] or flags["axis_error"] or flags["length_error"]
                    or flags["gcm_error"]), (what, flags)
        if job[1] == Mode.CMAC_GENERATE:
            assert flags["tag"] >> 8 * (16 - job[4]) == int.from_bytes(w_out, "big")
        elif job[1] == Mode.CMAC_VERIFY:
            assert flags["tag"] == 0                   # the computed tag is never shown


@pytest.mark.parametrize("ghash, stages, width", [("auto", 5, 32), (("table", 8), 3, 128)])
def test_cmac_every_length_class_generate_and_verify(ghash, stages, width):
    """Around a one-block-per-clock core (its GHASH: aggregated) and a table GHASH: the tag
    equals the model's on 0 to 50 bytes; verify says match or mismatch and shows nothing."""
    rng = random.Random(40)
    dut = Accelerator(PipeCore("stream", stages=stages), width=width, depth=8, ghash=ghash)
    key = rng.getrandbits(128)
    jobs, want = _jobs(rng, key, lambda x: toy_encrypt(key, x))
    _check(run(dut, jobs, rng), jobs, want)


def test_cmac_and_gcm_in_turn_share_h_and_a_key_load_makes_it_again():
    """L = E_K(0) is GCM's H: a CMAC message after a GCM one (and the reverse) under the same
    key skips it; after a key load both give the new key's results (a layer keeping L or H
    across the load fails)."""
    rng = random.Random(41)
    dut = Accelerator(PipeCore("stream", stages=4), width=128, depth=8, ghash=("table", 8))
    ka, kb = rng.getrandbits(128), rng.getrandbits(128)
    msg, iv, aad = rng.randbytes(40), rng.randbytes(12), rng.randbytes(20)
    jobs, want = [], []
    for key, load, kind in ((ka, ka, "cmac"), (ka, None, "cmac"), (ka, None, "gcm"), (ka, None, "cmac"),
                            (kb, kb, "gcm"), (kb, None, "cmac")):
        enc = lambda x, k=key: toy_encrypt(k, x)         # noqa: E731
        if kind == "cmac":
            jobs.append((load, Mode.CMAC_GENERATE, msg, None, 16, None))
            want.append((cmac_model(enc, msg), {}))
        else:
            ct, tag = gcm_model.encrypt(enc, iv, aad, msg, 16)
            jobs.append((load, Mode.GCM_ENCRYPT, msg, None, 16, (iv, aad)))
            want.append((ct + bytes(-len(ct) % 16) + tag, {}))
    results = run(dut, jobs, rng, valid_p=1.0, ready_p=1.0)
    for (out, flags), (w, _), job in zip(results, want, jobs):
        assert out == w, job[1:3]
        assert not flags["length_error"] and not flags["gcm_error"]
    first, kept = results[0][1]["clocks"], results[1][1]["clocks"]
    assert kept == results[3][1]["clocks"] < first        # L kept: no zero block, no table fill


def test_aes_cmac_against_cryptography():
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    core = make_core(resolve("aes", "iterative", key_bits=128, sbox="rom"))
    dut = Accelerator(core, width=128, depth=8)
    rng = random.Random(42)
    key = rng.randbytes(16)
    jobs, want = [], []
    for n, length in enumerate((0, 16, 20, 64)):
        msg = rng.randbytes(length)
        c = CMAC(algorithms.AES(key))
        c.update(msg)
        tag = c.finalize()
        jobs.append((int.from_bytes(key, "big") if n == 0 else None, Mode.CMAC_GENERATE, msg, None, 16, None))
        want.append((tag, {}))
    jobs.append((None, Mode.CMAC_VERIFY, msg, tag[:8], 8, None))
    want.append((b"", dict(tag_match=1, tag_mismatch=0)))
    _check(run(dut, jobs, rng, limit=6000), jobs, want)


def test_impossible_cmac_tag_lengths_start_nothing():
    """A CMAC tag of 0, 3 or 17 bytes: gcm_error, idle, no output; 4 and 16 start."""
    dut = Accelerator(PipeCore("stream", stages=2), width=128, depth=4)
    seen = []

    async def bench(ctx):
        ctx.set(dut.mode, Mode.CMAC_GENERATE)
        for tag_bytes in (0, 3, 17, 4):
            ctx.set(dut.tag_bytes, tag_bytes)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            await ctx.tick()
            seen.append((tag_bytes, ctx.get(dut.gcm_error), ctx.get(dut.idle), ctx.get(dut.m_axis.valid)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen[:3] == [(0, 1, 1, 0), (3, 1, 1, 0), (17, 1, 1, 0)]
    assert seen[3][:3] == (4, 0, 0)                    # started: busy on L


def test_the_engine_leaves_cmac_to_the_layer():
    """The system runs CMAC (the MODES register says so), the engine never does: the layer
    starts it in ECB and CBC encrypt."""
    from cipherfab.hw.info import info_of
    from cipherfab.hw.modes import ModeEngine, modes_of
    core = PipeCore("stream", stages=2)
    engine = ModeEngine(core, gcm=True)
    core._MustUse__silence = engine._MustUse__silence = True     # never elaborated, on purpose
    assert Mode.GCM_ENCRYPT in engine.modes and not any(m.cmac for m in engine.modes)
    assert {Mode.CMAC_GENERATE, Mode.CMAC_VERIFY} <= set(modes_of(info_of(core), gcm=True))
    assert not any(m.layer for m in modes_of(info_of(core), gcm=False))
