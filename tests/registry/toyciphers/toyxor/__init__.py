"""A toy cipher package, as a new contributor would add one: block = data XOR key.

It lives under tests/ and is put on ``cipherfab.ciphers.__path__`` by the tests,
which then drive it through generate, sim, verify and build sources without
any tool module knowing it exists.  Its architectures cover the key interfaces
AES does not use yet: a key with every block (a stalling pipeline, many blocks
in flight) and no key at all (a key-specific core).
"""

from pathlib import Path

from cipherfab.registry import Architecture, Cipher, Param, Rule


def _hex_key(value) -> str | None:
    try:
        ok = len(bytes.fromhex(value)) == 8
    except (TypeError, ValueError):
        ok = False
    return None if ok else f"--key {value!r} must be 16 hex digits (64 bits)"


PIPE = Architecture(
    name="pipe",
    summary="XOR then N register stages, a new key with every block",
    core="toyxor.hw:Pipe",
    params=(Param("stages", (1, 2, 3, 4, 5), 3, "pipeline stages"),
            Param("direction", ("encrypt", "both"), "encrypt", "encrypt, or both")),
    rules=(Rule("5 stages cannot decrypt (a toy rule, to test rules)",
                lambda v: v["stages"] == 5 and v["direction"] == "both"),),
    test_points=({"stages": 1, "direction": "encrypt"}, {"stages": 4, "direction": "both"}),
)

FIXED = Architecture(
    name="fixed",
    summary="key-specific: the key is a constant of the circuit",
    core="toyxor.hw:Fixed",
    params=(Param("key", None, "0123456789abcdef", "the key, 16 hex digits", check=_hex_key),),
    test_points=({"key": "0123456789abcdef"},),
)

CIPHER = Cipher(
    name="toyxor",
    title="toy XOR cipher (tests only)",
    block_bits=64,
    key_bits=(64,),
    reference="toyxor.model:Model",
    architectures=(PIPE, FIXED),
    aliases=("toyxor", "xor"),
    kat_files=lambda key_bits: [str(Path(__file__).with_name("ECBToyXor.rsp"))],
)
