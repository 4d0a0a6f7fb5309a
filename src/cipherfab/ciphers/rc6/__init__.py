"""RC6 (w = 32, r = 20; AES finalist): the registry entry.  The reference model is
here (:mod:`.model`, checked against the NESSIE file); the hardware architectures
come with the finalists issue."""

from ...registry import Cipher

CIPHER = Cipher(
    name="rc6",
    title="RC6-32/20 (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.rc6.model:Model",
    architectures=(),
    aliases=("rc6",),
)
