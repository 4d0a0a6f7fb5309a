"""Twofish (AES finalist): the registry entry.  The reference model is here
(:mod:`.model`, checked against the AES-submission ECB_TBL file); the hardware
architectures come with the finalists issue."""

from ...registry import Cipher

CIPHER = Cipher(
    name="twofish",
    title="Twofish (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.twofish.model:Model",
    architectures=(),
    aliases=("twofish",),
)
