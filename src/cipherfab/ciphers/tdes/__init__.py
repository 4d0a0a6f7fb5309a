"""DES and Triple DES (FIPS 46-3, SP 800-67): the registry entry.

Keys are counted as bits on the port: 64 (single DES, or EDE with K1 = K2 = K3),
128 (2-key EDE: K1 K2 K1) and 192 (3-key EDE); the parity bit of every byte is
ignored, so 56/112/168 bits are effective.  The reference model is here; the
hardware architectures come with the DES issue.
"""

from ...registry import Cipher

CIPHER = Cipher(
    name="tdes",
    title="DES / Triple DES (EDE)",
    block_bits=64,
    key_bits=(64, 128, 192),
    reference="cipherfab.ciphers.tdes.model:Model",
    architectures=(),
    aliases=("tdes", "tripledes", "des", "tdea", "3des", "tecb", "tmovs"),
    kat_files=lambda key_bits: ["tdes/KAT_TDES/TECBvarkey.rsp"] if key_bits == 64 else [],
    effective_key_bits=lambda key_bits: key_bits // 8 * 7,
)
