"""A generated core, Verilator-compiled, as a vector-runner engine and a random-run driver."""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from ..errors import CipherfabError
from ..generate import CoreParams, generate_verilog
from .verilated import OP_DEC, OP_ENC, OP_KEY, VerilatedCore


class HardwareEngine:
    """Runs jobs ``(key, decrypt, blocks)`` through the simulated core (one harness call per batch)."""

    block_bytes = 16

    def __init__(self, params: CoreParams, *, seed: int = 0, in_valid_prob: float = 1.0,
                 out_ready_prob: float = 1.0):
        self.params = params.validate()
        self.key_bits = params.key_bits
        self.directions = frozenset({"encrypt", "decrypt"} if params.direction == "both"
                                    else {params.direction})
        text, self.facts, _ = generate_verilog(params)
        self.core = VerilatedCore(text, params.top, params.key_bits,
                                  has_decrypt_flag=params.direction == "both")
        self.options = {"seed": seed, "in_valid_prob": in_valid_prob, "out_ready_prob": out_ready_prob}
        self.cycles = 0

    def _kind(self, decrypt: bool) -> int:
        if self.params.direction != "both":
            if decrypt != (self.params.direction == "decrypt"):
                raise CipherfabError(f"{self.params.top} cannot {'decrypt' if decrypt else 'encrypt'}")
            return OP_ENC
        return OP_DEC if decrypt else OP_ENC

    def run(self, jobs):
        kinds, keys, blocks = [], [], []
        for key, decrypt, job_blocks in jobs:
            kinds.append(OP_KEY)
            keys.append(key)
            kinds += [self._kind(decrypt)] * len(job_blocks)
            blocks += job_blocks
        result = self.core.run_packed(np.array(kinds, np.uint8), np.zeros(len(kinds), np.int64),
                                      b"".join(keys), b"".join(blocks), **self.options)
        if not result.ok:
            raise CipherfabError(f"{self.params.top}: simulation stopped: {result.error or 'hang'}")
        self.cycles += result.cycles
        out, outputs, at = result.out, [], 0
        for _, _, job_blocks in jobs:
            outputs.append([out[16 * i:16 * i + 16] for i in range(at, at + len(job_blocks))])
            at += len(job_blocks)
        return outputs


def aes_ecb(key: bytes, data: bytes, decrypt: bool) -> bytes:
    c = Cipher(algorithms.AES(key), modes.ECB())
    ctx = c.decryptor() if decrypt else c.encryptor()
    return ctx.update(data) + ctx.finalize()


@dataclass
class RandomRun:
    blocks: int
    keys: int
    mismatches: int
    first_mismatch: str | None
    cycles: int
    seconds: float
    latencies: set
    key_to_block: set

    @property
    def blocks_per_second(self) -> float:
        return self.blocks / self.seconds if self.seconds else float("inf")


def random_run(engine: HardwareEngine, n_blocks: int, *, seed: int = 1, mean_blocks_per_key: int = 1000,
               in_valid_prob: float = 1.0, out_ready_prob: float = 1.0) -> RandomRun:
    """``n_blocks`` random blocks under random keys (changed between blocks at random points),
    random directions where the core has both, checked against ``cryptography``."""
    rng = random.Random(seed)
    core, key_bytes = engine.core, engine.key_bits // 8
    both = engine.params.direction == "both"
    decrypt_only = engine.params.direction == "decrypt"
    data = rng.randbytes(16 * n_blocks)
    dec = np.frombuffer(rng.randbytes(n_blocks), np.uint8) & 1 if both else \
        np.full(n_blocks, int(decrypt_only), np.uint8)
    # segments: each starts with a key op
    cuts, at = [], 0
    while at < n_blocks:
        cuts.append(at)
        at += max(1, int(rng.expovariate(1 / mean_blocks_per_key)))
    keys = [rng.randbytes(key_bytes) for _ in cuts]
    kind = np.empty(n_blocks + len(cuts), np.uint8)
    key_pos = np.array(cuts) + np.arange(len(cuts))
    kind[:] = OP_ENC
    if both:
        block_pos = np.setdiff1d(np.arange(len(kind)), key_pos)
        kind[block_pos] = np.where(dec == 1, OP_DEC, OP_ENC)
    kind[key_pos] = OP_KEY
    t0 = time.perf_counter()
    result = core.run_packed(kind, np.zeros(len(kind), np.int64), b"".join(keys), data, seed=seed,
                             in_valid_prob=in_valid_prob, out_ready_prob=out_ready_prob)
    seconds = time.perf_counter() - t0
    if not result.ok:
        raise CipherfabError(f"{engine.params.top}: simulation stopped: {result.error or 'hang'}")
    expected = bytearray()
    bounds = cuts + [n_blocks]
    for s, (a, b) in enumerate(zip(bounds, bounds[1:])):
        # runs of equal direction inside the segment, encrypted in bulk
        i = a
        while i < b:
            j = i
            while j < b and dec[j] == dec[i]:
                j += 1
            expected += aes_ecb(keys[s], data[16 * i:16 * j], bool(dec[i]))
            i = j
    got = result.out
    mismatches, first = 0, None
    if got != bytes(expected):
        g = np.frombuffer(got.ljust(len(expected), b"\0"), np.uint8).reshape(-1, 16)
        e = np.frombuffer(bytes(expected), np.uint8).reshape(-1, 16)
        bad = np.nonzero(np.any(g != e, axis=1))[0]
        mismatches = len(bad)
        i = int(bad[0])
        seg = int(np.searchsorted(cuts, i, side="right") - 1)
        first = (f"block {i}: key {keys[seg].hex()} {'decrypt' if dec[i] else 'encrypt'} "
                 f"{data[16 * i:16 * i + 16].hex()} expected {e[i].tobytes().hex()} got {g[i].tobytes().hex()}")
    lat = result.latency
    return RandomRun(n_blocks, len(keys), mismatches, first, result.cycles, seconds,
                     set(int(x) for x in np.unique(lat[lat >= 0])),
                     set(int(x) for x in np.unique(result.key_to_block_cycles)))


def default_seed() -> int:
    return int.from_bytes(os.urandom(4), "big")
