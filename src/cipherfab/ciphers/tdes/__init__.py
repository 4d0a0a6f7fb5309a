"""DES and Triple DES (FIPS 46-3, SP 800-67): the registry entry.

Keys are counted as bits on the port: 64 (single DES, or EDE with K1 = K2 = K3),
128 (2-key EDE: K1 K2 K1) and 192 (3-key EDE); the parity bit of every byte is
ignored, so 56/112/168 bits are effective.  The reference model is in :mod:`.model`,
the shared DES pieces in :mod:`.des`, the cores in :mod:`.iterative` and :mod:`.pipeline`.
"""

from ...registry import Architecture, Cipher, Param

KEY_BITS = Param("key_bits", (64, 128, 192), 192,
                 "key bits on the port, parity included: 64 (single DES), 128 (2-key EDE, "
                 "K1 K2 K1) or 192 (3-key EDE)")
DIRECTION = Param("direction", ("encrypt", "decrypt", "both"), "encrypt",
                  "encrypt, decrypt, or both (a decrypt flag with every block)")

ITERATIVE = Architecture(
    name="iterative",
    summary="one DES round per clock (16 per pass, 3 passes for EDE), subkeys on the fly from "
            "rotating C/D registers in either direction",
    core="cipherfab.ciphers.tdes.iterative:IterativeTDES",
    params=(KEY_BITS, DIRECTION),
    test_points=({"key_bits": 192, "direction": "both"},
                 {"key_bits": 64, "direction": "encrypt"}),
    paper="004 (DES baseline)",
)

PIPELINE = Architecture(
    name="pipeline",
    summary="every round unrolled with a register after it (16 or 48 stages), one block per "
            "clock; subkeys are wiring from the key register (a key stream, taken between blocks)",
    core="cipherfab.ciphers.tdes.pipeline:PipelinedTDES",
    params=(KEY_BITS, DIRECTION),
    test_points=({"key_bits": 128, "direction": "encrypt"},),
    paper="004 (DES baseline)",
)

_ECB_KAT = ("varkey", "vartext", "invperm", "permop", "subtab")

CIPHER = Cipher(
    name="tdes",
    title="DES / Triple DES (EDE)",
    block_bits=64,
    key_bits=(64, 128, 192),
    reference="cipherfab.ciphers.tdes.model:Model",
    architectures=(ITERATIVE, PIPELINE),
    aliases=("tdes", "tripledes", "des", "tdea", "3des", "tecb", "tmovs"),
    # the SP 800-20 tables are single DES (KEYs = one key, K1 = K2 = K3): 64-bit keys only;
    # NIST's TDES ECB examples: one 3-key (192) and one K3 = K1 (128) example, both directions
    kat_files=lambda key_bits: ([f"tdes/KAT_TDES/TECB{k}.rsp" for k in _ECB_KAT]
                                if key_bits == 64 else ["tdes/nist_examples/TDES_ECB.txt"]),
    effective_key_bits=lambda key_bits: key_bits // 8 * 7,
)
