"""Write the Verilog of accelerator systems (hw.system) with and without their GCM layer,
around the cores of the `system` study, for `cipherfab build --verilog` (see report.md).

    python docs/results/gcm-system/make_systems.py OUT_DIR [NAME...]

Each core gets two systems: ``<name>_gcm`` (the GHASH style the accelerator picks for it
from its cycles per block) and ``<name>_nogcm`` (the same system, GCM left out); the
difference is what GCM costs inside the system.  Prints one line per file: its path, top
and the core's cycles per block (for ``--cycles-per-block``).
"""

import sys
from pathlib import Path

from amaranth.back import verilog

from cipherfab.generate import declaration, make_core
from cipherfab.hw.system.system import AcceleratorSystem
from cipherfab.registry import resolve

CORES = {
    "iterative_lut": dict(arch="iterative", sbox="lut"),
    "iterative_rom": dict(arch="iterative", sbox="rom"),
    "interleaved_rom_3": dict(arch="interleaved", sbox="rom", stages=3),
    "interleaved_lut_2": dict(arch="interleaved", sbox="lut", stages=2),
    "pipeline_rom_1": dict(arch="pipeline", sbox="rom", stages=1),
    "pipeline_rom_4": dict(arch="pipeline", sbox="rom", stages=4),
    "pipeline_lut_2": dict(arch="pipeline", sbox="lut", stages=2),
}


def main(out: Path, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in names or CORES:
        params = resolve("aes", **CORES[name])
        cycles = declaration(params).cycles_per_block
        for suffix, ghash in (("gcm", "auto"), ("nogcm", None)):
            system = AcceleratorSystem(make_core(params), width=128, depth=512, ghash=ghash)
            top = f"system_{name}_{suffix}"
            path = out / f"{top}.v"
            path.write_text(verilog.convert(system, name=top))
            style = " ".join(str(p) for p in system.accelerator.ghash or () if p) or "none"
            print(f"{path} {top} cycles-per-block {cycles} ghash {style}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or any(n not in CORES for n in sys.argv[2:]):
        sys.exit(f"usage: python make_systems.py OUT_DIR [{'|'.join(CORES)}...]")
    main(Path(sys.argv[1]), sys.argv[2:])
