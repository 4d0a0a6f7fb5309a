"""The masked AES architecture's parameters: S-boxes (20: the ring of :mod:`.masked`; 4 or
1: the lanes of :mod:`.masked_column`), shares, and the test modes."""

from __future__ import annotations

from ...hw.masking.masked import MAX_SHARES
from ...registry import Architecture, Param, Rule
from .masked import GLITCH_NEEDS_PRNG, GLITCH_TESTS, MaskedAES, check_glitch_test, glitch_test_gadget
from .masked_column import MaskedColumnAES, random_bits
from .masked_sbox import GADGETS

SBOXES = (20, 4, 1)
SHARES = tuple(range(2, MAX_SHARES + 1))
TEST_MODES_ON_TWO = "the test modes (--prng off, --glitch-test) are built on 2 shares"
OTHER_GADGETS_TEST = "a gadget's glitch test mode (--glitch-test hpc2-unregistered, dom-unregistered) needs that --gadget"


def masked_core(key_bits: int = 128, direction: str = "encrypt", prng: str = "on",
                glitch_test: str = "none", sboxes: int = 20, shares: int = 2, gadget: str = "hpc2"):
    """The masked core of a point: the 20-S-box ring, or 4 / 1 S-boxes in lanes."""
    if sboxes == 20:
        return MaskedAES(key_bits, direction, prng, glitch_test, shares, gadget)
    if key_bits != 128 or direction != "encrypt":
        raise ValueError("the masked core is AES-128 encryption")
    if glitch_test != "none" and prng == "off":
        raise ValueError(GLITCH_NEEDS_PRNG)
    check_glitch_test(glitch_test, gadget)
    bits = random_bits(sboxes, shares, gadget)
    notes = (f"masked at order {shares - 1} ({shares} shares, {sboxes} {gadget.upper()} S-box"
             f"{'es' if sboxes > 1 else ''}); random bits a clock: {bits['per_clock']} "
             f"({bits['gadget_per_clock']} to the gadgets, the rest re-share the key)"
             + ("; TEST MODE prng=off: no randomness, unmasked" if prng == "off" else "")
             + (f"; TEST MODE glitch-test={glitch_test}: {GLITCH_TESTS[glitch_test]}"
                if glitch_test != "none" else ""),)
    return MaskedColumnAES(sboxes, shares, prng, glitch_test, notes, gadget)


class _TestModeParam(Param):
    """A parameter whose values have dashes: top-module names take them as underscores."""

    def tag(self, value) -> str:
        return str(value).replace("-", "_")


class _CountParam(Param):
    """A count named in top-module names with its parameter: ``sboxes4``, ``shares3``."""

    def tag(self, value) -> str:
        return f"{self.name}{value}"


MASKED = Architecture(
    name="masked",
    summary="masked at order d-1 (d shares): 20 HPC2 S-boxes closed on themselves, or 4 (a "
            "column) or 1 (a byte) shared by lanes of blocks; on-core Trivium randomness sized "
            "to the gadgets; shares recombined only in the output register",
    core="cipherfab.ciphers.aes.masked_point:masked_core",
    params=(
        Param("key_bits", (128,), 128, "key size in bits (the masked core: AES-128)"),
        Param("direction", ("encrypt",), "encrypt", "encrypt only"),
        Param("prng", ("on", "off"), "on",
              "on: fresh randomness from the on-core Trivium bank; off: a TEST MODE with no "
              "randomness (the shares are (x, 0, ..): unmasked, it leaks)"),
        _TestModeParam("glitch_test", tuple(GLITCH_TESTS), "none",
                       "none, or a TEST MODE still masked at zero delay but not with glitches: "
                       + "; ".join(f"{k}: {v}" for k, v in GLITCH_TESTS.items() if v),
                       quiet_default=True),
        _CountParam("sboxes", SBOXES, 20,
                    "masked S-boxes: 20 (16 + 4, 10 cycles a block), 4 (a 32-bit column, "
                    "SMAesH's datapath) or 1 (byte-serial)", quiet_default=True),
        _CountParam("shares", SHARES, 2,
                    "shares d: secure at order d - 1 (HPC2 takes d (d - 1) / 2 fresh bits per "
                    "AND gate)", quiet_default=True),
        Param("gadget", tuple(GADGETS), "hpc2",
              "the masked S-box: " + "; ".join(f"{k}: {v}" for k, v in GADGETS.items()),
              quiet_default=True),
    ),
    rules=(Rule(GLITCH_NEEDS_PRNG, lambda v: v["prng"] == "off" and v["glitch_test"] != "none"),
           Rule(TEST_MODES_ON_TWO, lambda v: v.get("shares", 2) != 2
                and (v["prng"] == "off" or v["glitch_test"] != "none")),
           Rule(OTHER_GADGETS_TEST, lambda v: glitch_test_gadget(v["glitch_test"]) not in
                (None, v.get("gadget", "hpc2")))),
    # the test modes run in verify --all (each 20-S-box point compiles for about a minute)
    test_points=({"key_bits": 128, "direction": "encrypt", "prng": "on"},
                 {"key_bits": 128, "direction": "encrypt", "prng": "on", "sboxes": 4, "shares": 2},
                 {"key_bits": 128, "direction": "encrypt", "prng": "on", "sboxes": 1, "shares": 3},
                 {"key_bits": 128, "direction": "encrypt", "prng": "on", "sboxes": 4, "shares": 2,
                  "gadget": "dom"}),
    paper="beyond the papers: issues 20, 36 (HPC2, Cassiers et al. 2021; Boyar-Peralta S-box "
          "circuit; DOM, Gross et al. 2016 and CT-RSA 2017; the 4-S-box column after SMAesH)",
)
