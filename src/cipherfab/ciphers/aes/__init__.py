"""AES (FIPS-197): the registry entry declaring its architectures and parameters."""

from ...registry import Architecture, Cipher, Param, Rule
from .byte import BYTE
from .compact import COLUMN
from .reference import NR

KEY_BITS = Param("key_bits", (128, 192, 256), 128, "key size in bits")
DIRECTION = Param("direction", ("encrypt", "decrypt", "both"), "encrypt",
                  "encrypt, decrypt, or both (a decrypt flag with every block)")
SBOX = Param("sbox", ("lut", "rom", "composite", "tbox"), "lut",
             "S-box style: lut (logic tables), rom (synchronous ROM in block RAM, 2 S-boxes per "
             "RAM), composite (GF(((2^2)^2)^2) logic after Canright, smallest in LUT4s) or tbox "
             "(SubBytes and MixColumns' products in T-table ROMs, 256x32, 2 per RAM; encrypt only)")
TBOX_ENCRYPTS = Rule("--sbox tbox encrypts only (decryption would need inverse T-tables and "
                     "InvMixColumns'd round keys)",
                     lambda v: v["sbox"] == "tbox" and v["direction"] != "encrypt")

ITERATIVE = Architecture(
    name="iterative",
    summary="one round per clock, key schedule on the fly, initial AddRoundKey merged into the load",
    core="cipherfab.ciphers.aes.iterative:IterativeAES",
    params=(KEY_BITS, DIRECTION, SBOX),
    rules=(TBOX_ENCRYPTS,),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "rom"},
        {"key_bits": 192, "direction": "decrypt", "sbox": "rom"},
        {"key_bits": 256, "direction": "both", "sbox": "rom"},
        {"key_bits": 128, "direction": "both", "sbox": "lut"},
        {"key_bits": 192, "direction": "both", "sbox": "composite"},
        {"key_bits": 256, "direction": "encrypt", "sbox": "tbox"},
    ),
    paper="003 (Fig. 4.1), 000",
)

PIPELINE = Architecture(
    name="pipeline",
    summary="all rounds unrolled and pipelined, one block per clock, a new key with every block "
            "(key schedule pipelined beside the data)",
    core="cipherfab.ciphers.aes.pipeline:PipelinedAES",
    params=(KEY_BITS, Param("direction", ("encrypt",), "encrypt",
                            "encrypt (a key-agile decryptor would need the last round key first)"),
            SBOX, Param("stages", (1, 2, 3), 1,
                        "registers per round: 1 (S-box output), 2 (also after MixColumns+AddRoundKey) "
                        "or 3 (also a fabric register after the S-box output)")),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut", "stages": 2},
        {"key_bits": 192, "direction": "encrypt", "sbox": "rom", "stages": 1},
        {"key_bits": 256, "direction": "encrypt", "sbox": "rom", "stages": 2},
        {"key_bits": 128, "direction": "encrypt", "sbox": "tbox", "stages": 1},
        {"key_bits": 128, "direction": "encrypt", "sbox": "rom", "stages": 3},
    ),
    paper="001 (Fig. 7), 003 (fully unrolled)",
)

UNROLLED = Architecture(
    name="unrolled",
    summary="k rounds per clock in logic, key schedule on the fly beside them (paper 003 Unrolled-k)",
    core="cipherfab.ciphers.aes.unrolled:UnrolledAES",
    params=(KEY_BITS, Param("direction", ("encrypt",), "encrypt", "encrypt"),
            Param("sbox", ("lut", "composite"), "lut",
                  "S-box style: lut or composite, logic only (no register may sit inside a round)"),
            Param("rounds_per_clock", (1, 2, 3, 4, 5, 6, 7, 10, 12, 14), 2,
                  "rounds computed per clock (must divide Nr: 10, 12 or 14)")),
    rules=(Rule("--rounds-per-clock must divide the number of rounds (AES-128: 1, 2, 5, 10; "
                "AES-192: 1, 2, 3, 4, 6, 12; AES-256: 1, 2, 7, 14)",
                lambda v: NR[v["key_bits"]] % v["rounds_per_clock"] != 0),),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut", "rounds_per_clock": 5},
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut", "rounds_per_clock": 10},
        {"key_bits": 192, "direction": "encrypt", "sbox": "lut", "rounds_per_clock": 2},
        {"key_bits": 256, "direction": "encrypt", "sbox": "composite", "rounds_per_clock": 1},
    ),
    paper="003 (Unrolled-k, Table 7.1)",
)

INTERLEAVED = Architecture(
    name="interleaved",
    summary="the round cut into 1, 2 or 3 register stages with as many blocks in flight, round keys "
            "expanded once into a memory (paper 002)",
    core="cipherfab.ciphers.aes.interleaved:InterleavedAES",
    params=(KEY_BITS, DIRECTION, SBOX,
            Param("stages", (1, 2, 3), 2, "register stages per round = blocks in flight: 1 (S-box "
                                          "output), 2 (also after MixColumns+AddRoundKey) or 3 "
                                          "(also a fabric register after the S-box output)")),
    rules=(TBOX_ENCRYPTS,),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "rom", "stages": 2},
        {"key_bits": 192, "direction": "decrypt", "sbox": "rom", "stages": 1},
        {"key_bits": 256, "direction": "both", "sbox": "lut", "stages": 2},
        {"key_bits": 192, "direction": "encrypt", "sbox": "tbox", "stages": 2},
        {"key_bits": 128, "direction": "both", "sbox": "rom", "stages": 3},
    ),
    paper="002 (Fig. 2, 2-stage interleaved round, offline round keys)",
)

_KAT = ("GFSbox", "KeySbox", "VarKey", "VarTxt")

CIPHER = Cipher(
    name="aes",
    title="AES (Rijndael, FIPS-197)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.aes.model:Model",
    architectures=(ITERATIVE, INTERLEAVED, PIPELINE, UNROLLED, COLUMN, BYTE),
    aliases=("aes", "rijndael", "aesvs"),
    kat_files=lambda key_bits: [f"aes/KAT_AES/ECB{k}{key_bits}.rsp" for k in _KAT],
)
