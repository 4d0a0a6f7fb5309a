"""MARS (IBM; AES finalist, tweaked key schedule): the registry entry.  The
reference model is in :mod:`.model` (checked against the AES-submission files),
the iterative core in :mod:`.iterative`."""

from ...hw.mul import PARAM as MUL
from ...registry import Architecture, Cipher, Param

ITERATIVE = Architecture(
    name="iterative",
    summary="one round per clock (8 forward mixing, 16 core, 8 backward mixing; S-boxes in two "
            "dual-ported ROMs, one 32x32 multiplier), round keys from a 40-word memory filled by "
            "the key schedule (fix-up included) in 300 clocks",
    core="cipherfab.ciphers.mars.iterative:IterativeMARS",
    params=(Param("key_bits", (128, 192, 256), 128, "key size in bits"),
            Param("direction", ("encrypt",), "encrypt", "encrypt"), MUL),
    test_points=({"key_bits": 128}, {"key_bits": 192}, {"key_bits": 256, "mul": "logic"}),
    paper="000 (single-round core)",
)

CIPHER = Cipher(
    name="mars",
    title="MARS (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.mars.model:Model",
    architectures=(ITERATIVE,),
    aliases=("mars",),
    # the AES-submission files (all three key sizes; records of other sizes are skipped)
    kat_files=lambda key_bits: [f"mars/aes_submission_kat/{f}"
                                for f in ("ecb_vk.txt", "ecb_vt.txt", "ecb_tbl.txt")]
                              + ["mars/cryptopp/marsval.dat"],
    software=(("cryptopp", "MARS"),),
)
