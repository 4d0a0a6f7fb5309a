"""Write the Verilog of accelerator systems built with fewer modes (``generate --system
--modes``), around the iterative lut and interleaved rom-3 AES-128 cores, for `cipherfab
build --verilog` (see report.md, "What each mode costs").

    python docs/results/modes/make_mode_systems.py OUT_DIR [VARIANT...]

Variants: ``all`` (every mode the core runs: the default system), ``min`` (ECB and CTR, the
least a system is built with here) and ``min+NAME`` for each other mode name (CBC, OFB, CFB,
CFB8, CFB1, XTS, GCM with CMAC): what that mode adds on its own.  Prints one line per file:
its path and top.
"""

import sys
from pathlib import Path

from cipherfab.generate import system_modes, system_verilog
from cipherfab.hw.modes import FAMILIES
from cipherfab.registry import resolve

CORES = {"iterative_lut": dict(arch="iterative", sbox="lut"),
         "interleaved_rom_3": dict(arch="interleaved", sbox="rom", stages=3)}
VARIANTS = {"all": None, "min": "ecb,ctr",
            **{f"min+{n}": f"ecb,ctr,{n}" for n in FAMILIES if n not in ("ecb", "ctr")}}


def main(out: Path, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for core, kw in CORES.items():
        params = resolve("aes", **kw)
        for variant in names or VARIANTS:
            text, top, facts = system_verilog(params, 128, 512, system_modes(params, VARIANTS[variant]))
            path = out / f"system_{core}_{variant.replace('+', '_')}.v"
            path.write_text(text)
            print(f"{path} {top} modes {','.join(facts['modes'])}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or any(n not in VARIANTS for n in sys.argv[2:]):
        sys.exit(f"usage: python make_mode_systems.py OUT_DIR [{'|'.join(VARIANTS)}...]")
    main(Path(sys.argv[1]), sys.argv[2:])
