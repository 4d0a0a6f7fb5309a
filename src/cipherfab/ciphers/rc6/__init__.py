"""RC6 (w = 32, r = 20; AES finalist): the registry entry.  The reference model is in
:mod:`.model` (checked against the NESSIE file), the iterative core in :mod:`.iterative`."""

from ...hw.mul import PARAM as MUL
from ...registry import Architecture, Cipher, Param

ITERATIVE = Architecture(
    name="iterative",
    summary="one round per clock (two 32x32 multipliers, data-dependent rotations), round keys "
            "from a 44-word memory filled by the key schedule in 132 clocks",
    core="cipherfab.ciphers.rc6.iterative:IterativeRC6",
    params=(Param("key_bits", (128, 192, 256), 128, "key size in bits"),
            Param("direction", ("encrypt",), "encrypt", "encrypt"), MUL),
    test_points=({"key_bits": 128}, {"key_bits": 192}, {"key_bits": 256, "mul": "logic"}),
    paper="000 (single-round core)",
)

CIPHER = Cipher(
    name="rc6",
    title="RC6-32/20 (AES finalist)",
    block_bits=128,
    key_bits=(128, 192, 256),
    reference="cipherfab.ciphers.rc6.model:Model",
    architectures=(ITERATIVE,),
    aliases=("rc6",),
    # the NESSIE file (128-bit keys) and the RC6 paper's vectors (Crypto++ rc6val.dat, all sizes)
    kat_files=lambda key_bits: (["rc6/nessie/Rc6-128-128.verified.test-vectors"] if key_bits == 128
                                else []) + ["rc6/cryptopp/rc6val.dat"],
    software=(("cryptopp", "RC6"),),
)
