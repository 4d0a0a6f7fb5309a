"""Serpent (AES finalist): the registry entry.  The reference model is here
(:mod:`.model`, checked against the AES-submission files); the hardware
architectures come with the finalists issue.

The AES-submission files print values byte-reversed (see ``tests/vectors/SOURCES.md``):
read them with ``parse_file(..., byte_reversed=True)``.
"""

from ...registry import Cipher

CIPHER = Cipher(
    name="serpent",
    title="Serpent (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.serpent.model:Model",
    architectures=(),
    aliases=("serpent",),
)
