"""Every key-specific variant (every cipher, iterative and pipelined), built for three
random keys (one for the variants in HEAVY, three of them with ``-m slow``), encrypts random
plaintexts as the reference does for that key.

Amaranth's simulator runs the elaborated core (no Verilog, no compiler): three blocks
per key, pushed back to back with the output always ready.  The variants come from the
registry (any architecture whose name starts with ``key_specific``), so a new one is
covered without touching this file.  The KAT files, long random runs and exact timing of
the declared test points are tests/test_cores.py's job.
"""

import random

import pytest
from amaranth.sim import Simulator

from cipherfab.generate import make_core
from cipherfab.hw.info import info_of, payload_parts
from cipherfab.registry import ciphers, resolve

BLOCKS = 3


#: variants whose simulator takes about 25 s to build per key: one key in the default run
#: (tests/test_cores.py runs another through Verilator), all three with ``-m slow``
HEAVY = {("tdes", "key_specific_pipeline", "xor_collapse")}


def variants(keys: int):
    for cipher in ciphers().values():
        for arch in cipher.architectures:
            if arch.name.startswith("key_specific"):
                for v in arch.param("variant").values:
                    heavy = (cipher.name, arch.name, v) in HEAVY
                    marks = [pytest.mark.slow] if heavy and keys == 3 else []
                    if keys == 3 or heavy:
                        yield pytest.param(cipher, arch, v, keys, marks=marks,
                                           id=f"{cipher.name}-{arch.name}-{v}-{keys}")


def run(core, blocks: list[int]) -> list[int]:
    info = info_of(core)
    block, decrypt, _ = payload_parts(core)
    out = []

    async def bench(ctx):
        ctx.set(core.block_out.ready, 1)
        i = 0
        for _ in range((info.latency + info.cycles_per_block) * (len(blocks) + 2) + 8):
            if i < len(blocks):
                ctx.set(core.block_in.valid, 1)
                ctx.set(block, blocks[i])
            else:
                ctx.set(core.block_in.valid, 0)
            await ctx.delay(1e-9)
            took = ctx.get(core.block_in.valid) and ctx.get(core.block_in.ready)
            if ctx.get(core.block_out.valid):
                out.append(ctx.get(core.block_out.payload))
            await ctx.tick()
            i += took
            if len(out) == len(blocks):
                return

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return out


@pytest.mark.parametrize("cipher, arch, variant, keys", [*variants(3), *variants(1)])
def test_three_keys_random_plaintexts(cipher, arch, variant, keys):
    rng = random.Random(f"{arch.name}-{variant}-{keys}")
    key_bits = arch.param("key_bits").default
    model = cipher.reference_model(key_bits)
    nbytes = cipher.block_bits // 8
    for _ in range(keys):
        key = rng.randbytes(key_bits // 8)
        core = make_core(resolve(cipher.name, arch.name, variant=variant, key=key.hex()))
        data = rng.randbytes(BLOCKS * nbytes)
        blocks = [int.from_bytes(data[i:i + nbytes], "big") for i in range(0, len(data), nbytes)]
        got = b"".join(x.to_bytes(nbytes, "big") for x in run(core, blocks))
        assert got == model.encrypt(key, data), f"key {key.hex()}"
