"""MARS (IBM; AES finalist, tweaked key schedule): the registry entry.  The
reference model is here (:mod:`.model`, checked against the AES-submission
files); the hardware architectures come with the finalists issue."""

from ...registry import Cipher

CIPHER = Cipher(
    name="mars",
    title="MARS (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.mars.model:Model",
    architectures=(),
    aliases=("mars",),
)
