"""DES and Triple DES (FIPS 46-3, SP 800-67): the registry entry.

Keys are counted as bits on the port: 64 (single DES, or EDE with K1 = K2 = K3),
128 (2-key EDE: K1 K2 K1) and 192 (3-key EDE); the parity bit of every byte is
ignored, so 56/112/168 bits are effective.  The reference model is in :mod:`.model`,
the shared DES pieces in :mod:`.des`, the cores in :mod:`.iterative` and :mod:`.pipeline`,
their key-specific forms (paper 004) in :mod:`.key_specific`.
"""

from ...registry import Architecture, Cipher, Param, Rule, hex_key_problem

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

VARIANT = Param("variant", ("fixed_round_key", "xor_collapse"), "xor_collapse",
                "how the key is built in (paper 004): fixed_round_key (constant subkeys "
                "selected by the round) or xor_collapse (the subkey XOR as wires and inverters)")
KEY = Param("key", None, "0101010101010101",
            "the built-in key in hex, K1 first: 16, 32 or 48 digits for --key-bits 64, 128, 192; "
            "parity bits ignored (default: KEYs of the SP 800-20 variable-text tables, a 64-bit "
            "key; give --key for 128 and 192)",
            check=lambda v: hex_key_problem(v, (64, 128, 192)))
KEY_MATCHES = Rule("--key must have --key-bits / 4 hex digits: 16 for 64, 32 for 128, 48 for 192 "
                   "(the default key is a 64-bit one)",
                   lambda v: len(str(v["key"])) != v["key_bits"] // 4)

#: the key-specific forms take the generic parameters, a variant and the built-in key
KEY_SPECIFIC_PARAMS = (Param("key_bits", (64, 128, 192), 64, KEY_BITS.help), DIRECTION, VARIANT,
                       KEY)

KEY_SPECIFIC = Architecture(
    name="key_specific",
    summary="the iterative core for one built-in key (--key HEX), paper 004's variants: "
            "fixed_round_key, xor_collapse",
    core="cipherfab.ciphers.tdes.key_specific:KeySpecificTDES",
    params=KEY_SPECIFIC_PARAMS,
    rules=(KEY_MATCHES,),
    test_points=({"key_bits": 64, "direction": "both", "variant": "xor_collapse"},),
    paper="004 (key-specific variants of an iterative core)",
)

KEY_SPECIFIC_PIPELINE = Architecture(
    name="key_specific_pipeline",
    summary="the pipelined core (16 or 48 stages) for one built-in key (--key HEX), paper 004's "
            "pl_fixed_round_key, pl_xor_collapse",
    core="cipherfab.ciphers.tdes.key_specific:KeySpecificPipelinedTDES",
    params=KEY_SPECIFIC_PARAMS,
    rules=(KEY_MATCHES,),
    test_points=({"key_bits": 192, "direction": "encrypt", "variant": "fixed_round_key",
                  "key": "3b6a2f0e51d4c7980a1f2e3d4c5b6a79f0e1d2c3b4a59687"},),
    paper="004 (pl_ variants)",
)

_ECB_KAT = ("varkey", "vartext", "invperm", "permop", "subtab")

CIPHER = Cipher(
    name="tdes",
    title="DES / Triple DES (EDE)",
    block_bits=64,
    key_bits=(64, 128, 192),
    reference="cipherfab.ciphers.tdes.model:Model",
    architectures=(ITERATIVE, PIPELINE, KEY_SPECIFIC, KEY_SPECIFIC_PIPELINE),
    aliases=("tdes", "tripledes", "des", "tdea", "3des", "tecb", "tmovs"),
    # the SP 800-20 tables are single DES (KEYs = one key, K1 = K2 = K3): 64-bit keys only;
    # NIST's TDES ECB examples: one 3-key (192) and one K3 = K1 (128) example, both directions
    kat_files=lambda key_bits: ([f"tdes/KAT_TDES/TECB{k}.rsp" for k in _ECB_KAT]
                                if key_bits == 64 else ["tdes/nist_examples/TDES_ECB.txt"]),
    effective_key_bits=lambda key_bits: key_bits // 8 * 7,
)
