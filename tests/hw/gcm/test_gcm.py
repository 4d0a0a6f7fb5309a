"""GCM in the accelerator (hw.gcm.gcm) in Amaranth's simulator: every IV, AAD, text and tag
length class (none, partial, whole blocks, several), encrypt and decrypt with right and
wrong tags, random tvalid/tready pauses, impossible lengths, a misframed stream; around a
pipelined test double (one block per clock: the aggregated GHASH; also the parallel one) and
AES-128 (the digit GHASH
that keeps up with it), checked against hw.gcm.gcm_model and cryptography's AESGCM."""

import random

import pytest
from amaranth.sim import Simulator
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from cipherfab.hw.gcm import gcm_model
from cipherfab.hw.system.accelerator import Accelerator
from cipherfab.hw.gcm.gcm import ghash_for
from cipherfab.hw.modes import Mode
from hw.doubles import (PipeCore, layer_flags, load_key, messages_of, run_clocked, stream_through,
                        toy_encrypt, transfers)


def _pad(b: bytes) -> bytes:
    return b + bytes(-len(b) % 16)


def stream_of(iv: bytes, aad: bytes, text: bytes, tag: bytes | None) -> bytes:
    """The input stream of a GCM message: each section padded to whole blocks, the last one
    (the tag when decrypting) cut to its length."""
    parts = ([_pad(iv)] if len(iv) != 12 else []) + [_pad(aad)]
    if tag is None:
        return b"".join(parts) + text
    return b"".join(parts) + _pad(text) + tag


def run(dut, jobs, rng, valid_p=0.8, ready_p=0.7, limit=20000):
    """jobs: (key, mode, iv, aad, text, tag, tag_bytes). Returns [(output bytes, flags)];
    flags["clocks"]: from the start to the end of the message (the system idle again)."""
    lanes, results = dut.width // 8, []

    async def bench(ctx, clock):
        for key, mode, iv, aad, text, tag, tag_bytes in jobs:
            await load_key(ctx, dut, key)
            ctx.set(dut.mode, mode)
            ctx.set(dut.iv, int.from_bytes(iv[:12].ljust(16, b"\0"), "big") if len(iv) == 12 else 0)
            for name, v in (("aad_bytes", len(aad)), ("text_bytes", len(text)),
                            ("iv_bytes", len(iv)), ("tag_bytes", tag_bytes)):
                ctx.set(getattr(dut, name), v)
            ctx.set(dut.start, 1)
            await ctx.tick()
            began = clock[0]
            ctx.set(dut.start, 0)
            msg = stream_of(iv, aad, text, tag if mode == Mode.GCM_DECRYPT else None)
            sent = transfers(msg, lanes, 16) if msg else []
            want_out = len(_pad(text)) + tag_bytes if mode == Mode.GCM_ENCRYPT else len(text)
            got = await stream_through(ctx, dut, sent, rng, valid_p, ready_p, limit,
                                       lambda i, got: i == len(sent) and ctx.get(dut.idle))
            if got is None:
                raise AssertionError("the message did not end")
            out = b"".join(messages_of(got, lanes)) if got else b""
            assert len(out) == want_out, (len(out), want_out)
            results.append((out, layer_flags(ctx, dut, clock[0] - began)))

    run_clocked(dut, bench)
    return results


def _jobs(rng, key, enc, ivs=(12, 1, 16, 40), aads=(0, 5, 16, 37), texts=(0, 1, 16, 50),
          tags=(16, 12, 4)):
    """Encrypt and decrypt jobs over the length classes, with their expected outputs; every
    other decrypt has a tag with one bit flipped."""
    jobs, want = [], []
    for n, (ivl, al, tl) in enumerate((ivl, al, tl) for ivl in ivs for al in aads for tl in texts):
        if n % 3 and (ivl, al, tl) != (12, 0, 0):
            continue                                  # a third of the grid, every class seen
        tb = tags[n % len(tags)]
        iv, aad, text = rng.randbytes(ivl), rng.randbytes(al), rng.randbytes(tl)
        ct, tag = gcm_model.encrypt(enc, iv, aad, text, tb)
        jobs.append((key, Mode.GCM_ENCRYPT, iv, aad, text, None, tb))
        want.append((_pad(ct) + tag, dict(tag_match=0, tag_mismatch=0)))
        bad = n % 2 == 1
        sent = bytes([tag[0] ^ 1]) + tag[1:] if bad else tag
        jobs.append((None, Mode.GCM_DECRYPT, iv, aad, ct, sent, tb))
        want.append((text, dict(tag_match=int(not bad), tag_mismatch=int(bad))))
    return jobs, want


def _check(results, jobs, want):
    for (out, flags), job, (w_out, w_flags) in zip(results, jobs, want):
        what = (job[1].name, len(job[2]), len(job[3]), len(job[4]), job[6])
        assert out == w_out, what
        assert {k: flags[k] for k in w_flags} == w_flags, (what, flags)
        assert not (flags["mode_error"] or flags["axis_error"] or flags["length_error"]
                    or flags["gcm_error"]), (what, flags)
        if job[1] == Mode.GCM_ENCRYPT:
            assert flags["tag"] >> 8 * (16 - job[6]) == int.from_bytes(w_out[-job[6]:], "big")
        else:
            assert flags["tag"] == 0                   # the computed tag is never shown


@pytest.mark.parametrize("ghash", ["auto", ("parallel", None)])
def test_gcm_every_length_class_around_a_one_block_per_clock_core(ghash):
    rng = random.Random(19)
    dut = Accelerator(PipeCore("stream", stages=5), width=32, depth=8, ghash=ghash)
    assert dut.ghash == (ghash_for(1) if ghash == "auto" else ghash)
    key = rng.getrandbits(128)
    jobs, want = _jobs(rng, key, lambda x: toy_encrypt(key, x))
    _check(run(dut, jobs, rng), jobs, want)


@pytest.mark.parametrize("ghash, queue", [(("digit", 64), None), (("digit", 8), None), (("digit", 8), 2),
                                          (("digit", 8), 1), (("table", 8), None),
                                          (("table", 32), 2)])
def test_gcm_with_a_slower_ghash_than_the_core(ghash, queue, monkeypatch):
    """A digit GHASH slower than the core: its queue takes the blocks, and when it is full
    (queue of 1 or 2 blocks) the stream is held back; nothing is lost.  (The aggregated
    unit, one block per clock and no queue, is the ``auto`` pick of the test above.)"""
    from cipherfab.hw.gcm import gcm
    if queue:
        monkeypatch.setattr(gcm, "QUEUE_BLOCKS", queue)
    assert gcm.queue_for(ghash[0]) == (queue or 512 if ghash[0] in ("digit", "table") else 0)
    rng = random.Random(20)
    dut = Accelerator(PipeCore("stream", stages=3), width=128, depth=4, ghash=ghash)
    key = rng.getrandbits(128)
    jobs, want = _jobs(rng, key, lambda x: toy_encrypt(key, x), ivs=(12, 20), aads=(0, 33),
                       texts=(0, 47), tags=(16, 13))
    _check(run(dut, jobs, rng, valid_p=1.0, ready_p=1.0), jobs, want)


@pytest.mark.parametrize("ghash", ["auto", ("table", 8), ("digit", 32)])
def test_h_is_kept_while_the_key_stays_and_made_again_after_a_key_load(ghash):
    """The next message under the same key skips H = E_K(0) and GHASH's powers or tables
    of it (fewer clocks, the same output); a key load makes them again, so the message
    under another key has that key's ciphertext and tag (a layer that kept H across the
    load fails here).  Every message of a kind takes the same clocks."""
    rng = random.Random(25)
    dut = Accelerator(PipeCore("stream", stages=6), width=128, depth=8, ghash=ghash)
    ka, kb = rng.getrandbits(128), rng.getrandbits(128)
    iv, aad, text = rng.randbytes(12), rng.randbytes(20), rng.randbytes(40)
    jobs, want = [], []
    for key, load in ((ka, ka), (ka, None), (kb, kb), (kb, None), (kb, None)):
        ct, tag = gcm_model.encrypt(lambda x, k=key: toy_encrypt(k, x), iv, aad, text, 16)
        jobs.append((load, Mode.GCM_ENCRYPT, iv, aad, text, None, 16))
        want.append((_pad(ct) + tag, {}))
    results = run(dut, jobs, rng, valid_p=1.0, ready_p=1.0)
    _check(results, jobs, want)
    first, kept, new_key, kept2, kept3 = (f["clocks"] for _, f in results)
    assert kept == kept2 == kept3 < new_key == first, (first, kept, new_key)
    assert first - kept >= 6                     # at least the core's latency saved


def test_aes_gcm_against_cryptography():
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve
    core = make_core(resolve("aes", "iterative", key_bits=128, sbox="rom"))
    dut = Accelerator(core, width=128, depth=8)
    assert dut.ghash == ghash_for(10) == ("table", 16)
    rng = random.Random(21)
    key = rng.randbytes(16)
    jobs, want = [], []
    for ivl, al, tl in ((12, 0, 0), (12, 20, 33), (60, 16, 64), (8, 0, 5)):
        iv, aad, text = rng.randbytes(ivl), rng.randbytes(al), rng.randbytes(tl)
        sealed = AESGCM(key).encrypt(iv, text, aad)
        jobs.append((int.from_bytes(key, "big"), Mode.GCM_ENCRYPT, iv, aad, text, None, 16))
        want.append((_pad(sealed[:-16]) + sealed[-16:], {}))
        jobs.append((None, Mode.GCM_DECRYPT, iv, aad, sealed[:-16], sealed[-16:], 16))
        want.append((text, dict(tag_match=1, tag_mismatch=0)))
    _check(run(dut, jobs, rng, limit=6000), jobs, want)


def test_impossible_lengths_start_nothing():
    """Each impossible length (a tag of 0, 11 or 17 bytes, an empty IV), one after another on
    one system (one elaboration): gcm_error, idle, no output, for 21 clocks after each start
    (each start clears the flag and sets it again when the lengths cannot be)."""
    dut = Accelerator(PipeCore("stream", stages=2), width=128, depth=4)
    cases = [dict(tag_bytes=0), dict(tag_bytes=11), dict(tag_bytes=17), dict(iv_bytes=0)]
    results = {i: [] for i in range(len(cases))}

    async def bench(ctx):
        ctx.set(dut.mode, Mode.GCM_ENCRYPT)
        for i, lengths in enumerate(cases):
            for name, v in {"iv_bytes": 12, "tag_bytes": 16, **lengths}.items():
                ctx.set(getattr(dut, name), v)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            await ctx.tick()
            results[i].append((ctx.get(dut.gcm_error), ctx.get(dut.idle), ctx.get(dut.m_axis.valid)))
            for _ in range(20):
                await ctx.tick()
                results[i].append((ctx.get(dut.gcm_error), ctx.get(dut.idle), ctx.get(dut.m_axis.valid)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert {i: set(r) for i, r in results.items()} == {i: {(1, 1, 0)} for i in results}


def test_a_misframed_gcm_stream_is_flagged():
    """tlast one block early (the AAD's last block marked as the message's last)."""
    rng = random.Random(23)
    dut = Accelerator(PipeCore("stream", stages=2), width=128, depth=8)
    key = rng.getrandbits(128)
    iv, aad, text = rng.randbytes(12), rng.randbytes(16), rng.randbytes(16)
    jobs = [(key, Mode.GCM_ENCRYPT, iv, aad, text, None, 16)]
    from hw import doubles

    real = doubles.transfers
    try:   # the first block (the AAD) says last
        globals()["transfers"] = lambda msg, lanes, bb: [(d, k, True) for d, k, _ in real(msg, lanes, bb)]
        (out, flags), = run(dut, jobs, rng)
    finally:
        globals()["transfers"] = real
    assert flags["length_error"] == 1


@pytest.mark.parametrize("mode", [Mode.GCM_ENCRYPT, Mode.CMAC_GENERATE], ids=lambda m: m.name.lower())
def test_without_ghash_the_gcm_layer_modes_are_refused(mode):
    """GCM and CMAC (the layer's modes) in a system without the layer: mode_error."""
    dut = Accelerator(PipeCore("stream", stages=2), width=128, depth=4, ghash=None)
    flags = []

    async def bench(ctx):
        ctx.set(dut.mode, mode)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick()
        flags.append(ctx.get(dut.mode_error))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert flags == [1]


@pytest.mark.parametrize("ghash, words", [(("digit", 12), "GHASH digit size 12 is not supported"),
                                          (("aggregated", 5), "lanes must be one of 8"),
                                          ("fast", r"ghash is 'auto', None or \(style, digit\), not 'fast'")])
def test_a_ghash_style_that_is_not_built_is_refused(ghash, words):
    core = PipeCore("stream", stages=2)
    core._MustUse__silence = True                  # refused: never elaborated, on purpose
    with pytest.raises(Exception, match=words):
        Accelerator(core, width=128, depth=4, ghash=ghash)
