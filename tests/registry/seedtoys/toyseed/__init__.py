"""A toy cipher whose core has an entropy input (a ``seed`` port), for the seed-port tests.

Block = data XOR key, like toyxor, but its core keeps the key in two shares refreshed every
clock by a generator that only a seed starts: after reset it takes no key and no block until
one seed has been taken and ``warmup`` clocks have passed.  ``declared``: ``wrong`` declares
one seed-setup clock more than it takes (verify must fail it).  ``shows``: ``seed`` XORs the
seed's first eight bytes into every result (a broken cipher through which a test sees which
seed arrived).  It is put on ``cipherfab.ciphers.__path__`` by the ``seed_registry`` fixture
(tests/conftest.py), away from toyxor's folder so toyxor's tests do not see it.
"""

from pathlib import Path

from cipherfab.registry import Architecture, Cipher, Param

MASKED = Architecture(
    name="masked",
    summary="key in two shares refreshed by a seeded generator; nothing runs before a seed",
    core="toyseed.hw:Masked",
    params=(Param("warmup", (1, 3), 3, "clocks from the seed's handshake to the first key"),
            Param("declared", ("right", "wrong"), "right", "the seed setup it declares"),
            Param("shows", ("nothing", "seed"), "nothing", "seed: results XOR the seed's first 8 bytes")),
    test_points=({"warmup": 3, "declared": "right", "shows": "nothing"},),
)

CIPHER = Cipher(
    name="toyseed",
    title="toy XOR cipher with a seed port (tests only)",
    block_bits=64,
    key_bits=(64,),
    reference="toyseed.model:Model",
    architectures=(MASKED,),
    kat_files=lambda key_bits: [str(Path(__file__).with_name("ECBToySeed.rsp"))],
)
