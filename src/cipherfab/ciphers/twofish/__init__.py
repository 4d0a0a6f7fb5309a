"""Twofish (AES finalist): the registry entry.  The reference model is in :mod:`.model`
(checked against the AES-submission ECB_TBL file), the iterative core in :mod:`.iterative`."""

from ...registry import Architecture, Cipher, Param

ITERATIVE = Architecture(
    name="iterative",
    summary="one round per clock (two g functions: q look-ups in logic with key bytes between, "
            "MDS as XOR networks), the expanded key words made beside the rounds by two more h units",
    core="cipherfab.ciphers.twofish.iterative:IterativeTwofish",
    params=(Param("key_bits", (128, 192, 256), 128, "key size in bits"),
            Param("direction", ("encrypt",), "encrypt", "encrypt"),
            Param("mds", ("logic", "rom"), "logic",
                  "constant GF(2^8) multiplications of the MDS and RS matrices: logic (XOR "
                  "networks) or rom (paper 000: per input byte a 256-entry table of its 32-bit "
                  "column product, XORed; combinational look-ups in LUTs, same cycle counts)",
                  quiet_default=True)),
    test_points=({"key_bits": 128}, {"key_bits": 192, "mds": "rom"}, {"key_bits": 256}),
    paper="000 (single-round core, key setup concurrent)",
)

CIPHER = Cipher(
    name="twofish",
    title="Twofish (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.twofish.model:Model",
    architectures=(ITERATIVE,),
    aliases=("twofish",),
    kat_files=lambda key_bits: ["twofish/aes_submission_kat/ECB_TBL.TXT",
                                "twofish/cryptopp/twofishv.dat"],
    software=(("cryptopp", "Twofish"),),
)
