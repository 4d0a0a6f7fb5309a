"""AES (FIPS-197): the registry entry declaring its architectures and parameters."""

from ...hw.sbox import sbox_param
from ...registry import Architecture, Cipher, Param, Rule, hex_key_problem
from .byte import BYTE
from .compact import COLUMN
from .masked_point import MASKED
from .reference import NR
from .round import STAGES, STAGES_HELP

KEY_BITS = Param("key_bits", (128, 192, 256), 128, "key size in bits")
DIRECTION = Param("direction", ("encrypt", "decrypt", "both"), "encrypt",
                  "encrypt, decrypt, or both (a decrypt flag with every block)")
SBOX = sbox_param("lut",
             "S-box style: lut (logic tables), rom (synchronous ROM in block RAM, 2 S-boxes per "
             "RAM), composite (GF(((2^2)^2)^2) logic after Canright, smallest in LUT4s) or tbox "
             "(SubBytes and MixColumns' products in T-table ROMs, 256x32, 2 per RAM; encrypt only)",
             tbox=True)
TBOX_ENCRYPTS = Rule("--sbox tbox encrypts only (decryption would need inverse T-tables and "
                     "InvMixColumns'd round keys)",
                     lambda v: v["sbox"] == "tbox" and v["direction"] != "encrypt")

ITERATIVE = Architecture(
    name="iterative",
    summary="one round per clock, key schedule on the fly, initial AddRoundKey merged into the load",
    core="cipherfab.ciphers.aes.iterative:IterativeAES",
    params=(KEY_BITS, DIRECTION, SBOX,
            Param("key_add", ("load", "folded"), "load",
                  "load (initial AddRoundKey merged into the load, the final one after the last "
                  "round; Nr cycles per block) or folded (both in the round's own AddRoundKey, "
                  "paper 001's modified sequential core; one direction; Nr + 1 cycles per block)",
                  quiet_default=True)),
    rules=(TBOX_ENCRYPTS,
           Rule("--key-add folded builds one direction (encrypt or decrypt): the key schedule "
                "waits for the next block at that direction's first round key",
                lambda v: v["key_add"] == "folded" and v["direction"] == "both")),
    test_points=(   # every value of every option at least once; the rest is verify --all
        {"key_bits": 128, "direction": "both", "sbox": "lut"},
        {"key_bits": 192, "direction": "both", "sbox": "composite"},
        {"key_bits": 192, "direction": "decrypt", "sbox": "rom", "key_add": "folded"},
        {"key_bits": 256, "direction": "encrypt", "sbox": "tbox", "key_add": "folded"},
    ),
    paper="003 (Fig. 4.1), 000, 001 (Fig. 8, folded)",
)

PIPELINE = Architecture(
    name="pipeline",
    summary="all rounds unrolled and pipelined, one block per clock, a new key with every block "
            "(key schedule pipelined beside the data)",
    core="cipherfab.ciphers.aes.pipeline:PipelinedAES",
    params=(KEY_BITS, Param("direction", ("encrypt",), "encrypt",
                            "encrypt (a key-agile decryptor would need the last round key first)"),
            SBOX, Param("stages", STAGES, 1, STAGES_HELP),
            Param("keys", ("agile", "fixed"), "agile",
                  "agile (a key with every block, the key schedule pipelined beside the data) or "
                  "fixed (a key stream; the round keys expanded once per key into registers)",
                  quiet_default=True),
            Param("sbox_input", ("direct", "registered"), "direct",
                  "direct (each round's S-boxes read the previous round's Mixadd register) or "
                  "registered (a register more between them, and between each round key and the "
                  "next key step's SubWord: the wire from round to round gets its own clock; one "
                  "clock more per round)", quiet_default=True)),
    rules=(Rule("--sbox-input registered needs --stages 2 or more (with 1 there is no Mixadd "
                "register: the extra register would be --stages 2's)",
                lambda v: v["sbox_input"] == "registered" and v["stages"] < 2),),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut", "stages": 2},
        {"key_bits": 256, "direction": "encrypt", "sbox": "rom", "stages": 3},
        {"key_bits": 192, "direction": "encrypt", "sbox": "rom", "stages": 1, "keys": "fixed"},
        {"key_bits": 128, "direction": "encrypt", "sbox": "tbox", "stages": 4, "keys": "fixed"},
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut", "stages": 3,
         "sbox_input": "registered"},
        {"key_bits": 192, "direction": "encrypt", "sbox": "rom", "stages": 2, "keys": "fixed",
         "sbox_input": "registered"},
    ),
    paper="001 (Fig. 7), 003 (fully unrolled)",
)

UNROLLED = Architecture(
    name="unrolled",
    summary="k rounds per clock in logic, key schedule on the fly beside them (paper 003 Unrolled-k)",
    core="cipherfab.ciphers.aes.unrolled:UnrolledAES",
    params=(KEY_BITS, Param("direction", ("encrypt",), "encrypt", "encrypt"),
            sbox_param("lut", "S-box style: lut or composite, logic only (no register may sit inside a round)",
                       only=("lut", "composite")),
            Param("rounds_per_clock", (1, 2, 3, 4, 5, 6, 7, 10, 12, 14), 2,
                  "rounds computed per clock (must divide Nr: 10, 12 or 14)")),
    rules=(Rule("--rounds-per-clock must divide the number of rounds (AES-128: 1, 2, 5, 10; "
                "AES-192: 1, 2, 3, 4, 6, 12; AES-256: 1, 2, 7, 14)",
                lambda v: NR[v["key_bits"]] % v["rounds_per_clock"] != 0),),
    test_points=(
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
            Param("stages", STAGES, 2, "blocks in flight = " + STAGES_HELP),
            Param("key_clock", ("shared", "separate"), "shared",
                  "shared (the key schedule on the round's clock) or separate (on a clock of its "
                  "own, port key_clk: the key setup at the key schedule's Fmax, paper 000 "
                  "section 4.6)", quiet_default=True)),
    rules=(TBOX_ENCRYPTS,),
    test_points=(
        {"key_bits": 192, "direction": "decrypt", "sbox": "rom", "stages": 1},
        {"key_bits": 128, "direction": "both", "sbox": "rom", "stages": 2, "key_clock": "separate"},
        {"key_bits": 256, "direction": "both", "sbox": "lut", "stages": 2},
        {"key_bits": 128, "direction": "encrypt", "sbox": "tbox", "stages": 3},
        {"key_bits": 128, "direction": "both", "sbox": "composite", "stages": 4},
    ),
    paper="002 (Fig. 2, 2-stage interleaved round, offline round keys)",
)

KEY_SPECIFIC = Architecture(
    name="key_specific",
    summary="AES-128 encryption for one built-in key (--key HEX), the iterative core with the key "
            "stated as paper 004's variants: fixed_key, fixed_round_key, xor_collapse, "
            "xor_by_rom_all, xor_by_rom_partial; and fixed_round_key_rom (round keys in a "
            "block-RAM ROM, re-keyable)",
    core="cipherfab.ciphers.aes.key_specific:KeySpecificAES",
    params=(Param("key_bits", (128,), 128, "key size in bits (key-specific cores: AES-128)"),
            Param("direction", ("encrypt",), "encrypt", "encrypt"),
            sbox_param("rom", "S-box style (paper 004: block RAM)"),
            Param("variant", ("fixed_key", "fixed_round_key", "xor_collapse", "xor_by_rom_all",
                              "xor_by_rom_partial", "fixed_round_key_rom"), "xor_collapse",
                  "how the key is built in (paper 004)"),
            Param("key", None, "00000000000000000000000000000000",
                  "the built-in AES-128 key, 32 hex digits (default: the all-zero key of the "
                  "GFSbox and VarTxt KAT files)",
                  check=lambda v: hex_key_problem(v, 128))),
    rules=(Rule("--variant xor_by_rom_* keeps AddRoundKey in the S-box block RAMs: use --sbox rom",
                lambda v: v["variant"].startswith("xor_by_rom") and v["sbox"] != "rom"),),
    test_points=(
        {"variant": "xor_by_rom_all", "sbox": "rom"},
        {"variant": "xor_collapse", "sbox": "lut", "key": "2b7e151628aed2a6abf7158809cf4f3c"},
    ),
    paper="004 (Fig. 1 and section 3: key-specific variants of an iterative core)",
)

KEY_SPECIFIC_PIPELINE = Architecture(
    name="key_specific_pipeline",
    summary="the full pipeline (fixed round keys) for one built-in key (--key HEX): paper 004's "
            "pl_fixed_key, pl_fixed_round_key, pl_xor_collapse",
    core="cipherfab.ciphers.aes.key_specific:KeySpecificPipelinedAES",
    params=(Param("key_bits", (128,), 128, "key size in bits (key-specific cores: AES-128)"),
            Param("direction", ("encrypt",), "encrypt", "encrypt"),
            sbox_param("rom", "S-box style", tbox=True),
            Param("stages", STAGES, 1, STAGES_HELP),
            Param("variant", ("fixed_key", "fixed_round_key", "xor_collapse"), "xor_collapse",
                  "how the key is built in (paper 004's pl_ variants)"),
            KEY_SPECIFIC.param("key")),
    test_points=({"variant": "xor_collapse", "sbox": "rom", "stages": 1,
                  "key": "2b7e151628aed2a6abf7158809cf4f3c"},),
    paper="004 (pl_ variants, Table 1)",
)

_KAT = ("GFSbox", "KeySbox", "VarKey", "VarTxt")

CIPHER = Cipher(
    name="aes",
    title="AES (Rijndael, FIPS-197)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.aes.model:Model",
    architectures=(ITERATIVE, INTERLEAVED, PIPELINE, UNROLLED, COLUMN, BYTE, KEY_SPECIFIC,
                   KEY_SPECIFIC_PIPELINE, MASKED),
    aliases=("aes", "rijndael", "aesvs"),
    kat_files=lambda key_bits: [f"aes/KAT_AES/ECB{k}{key_bits}.rsp" for k in _KAT],
    software=(("openssl", "AES"), ("cryptopp", "AES")),
)
