"""Serpent (AES finalist): the registry entry.  The reference model is in
:mod:`.model` (checked against the AES-submission files), the iterative core in
:mod:`.iterative`.

The AES-submission files print values byte-reversed (see ``tests/vectors/SOURCES.md``):
read them with ``parse_file(..., byte_reversed=True)``.
"""

from ...registry import Architecture, Cipher, Param

KEY_BITS = Param("key_bits", (128, 192, 256), 128, "key size in bits")

ITERATIVE = Architecture(
    name="iterative",
    summary="one round per clock (32 bitslice S-boxes and LT), the key schedule stepping "
            "beside the rounds",
    core="cipherfab.ciphers.serpent.iterative:IterativeSerpent",
    params=(KEY_BITS, Param("direction", ("encrypt",), "encrypt", "encrypt"),
            Param("sbox", ("lut",), "lut", "S-box style: lut (the eight 4-bit S-boxes as one "
                                          "7-input table in logic)"),
            Param("rounds_per_clock", (1, 8), 1,
                  "rounds computed per clock: 1, or 8 (paper 000 Table 9, Elbirt et al.: each "
                  "S-box once per clock, the key lane stepping 8 round keys per clock; 5 cycles "
                  "per block)", quiet_default=True)),
    test_points=({"key_bits": 128}, {"key_bits": 192}, {"key_bits": 256, "rounds_per_clock": 8}),
    paper="000 (single-round core, key setup concurrent)",
)

_KAT = ("ecb_vk", "ecb_vt", "ecb_tbl")

CIPHER = Cipher(
    name="serpent",
    title="Serpent (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.serpent.model:Model",
    architectures=(ITERATIVE,),
    aliases=("serpent",),
    kat_files=lambda key_bits: [f"serpent/aes_submission_kat/{k}.txt" for k in _KAT],
    submission_byte_reversed=True,
    software=(("cryptopp", "Serpent"),),
)
