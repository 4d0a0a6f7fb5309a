"""The generator digest covers every package file that runs while a point's Verilog is made.

``verify --status`` trusts a ledger entry without generating its point again while the digest
of :func:`ledger.generator_files` for that point is unchanged; a file that ran during
generation but is not in that set would let a Verilog change go unnoticed.  Each cipher's and
architecture's cheapest point is made under a profiler that records the files of the code it
calls while every module is elaborated (where a cipher's own code runs), and for two small
points the whole of ``generate_verilog`` (the writing, export and lint waivers: shared files).
"""

import sys
from pathlib import Path

from amaranth.hdl import Fragment

from cipherfab.gctune import fewer_collections
from cipherfab.generate import generate_verilog, make_core
from cipherfab.registry import all_points
from cipherfab.sim import ledger

PKG = ledger._package()
WRITTEN = {("aes", "byte"), ("tdes", "iterative")}


def _cheapest_points():
    first = {}
    for p in all_points():
        first.setdefault((p.cipher, p.arch), p)
    return list(first.values())


def _ran(run) -> set[Path]:
    files = set()

    def profile(frame, event, arg):
        if event == "call":
            files.add(frame.f_code.co_filename)
    with fewer_collections():
        sys.setprofile(profile)
        try:
            run()
        finally:
            sys.setprofile(None)
    return {Path(f).resolve() for f in files if Path(f).resolve().is_relative_to(PKG)}


def test_every_file_that_runs_in_generation_is_in_the_points_digest():
    for p in _cheapest_points():
        if (p.cipher, p.arch) in WRITTEN:
            ran = _ran(lambda: generate_verilog(p))
        else:
            ran = _ran(lambda: Fragment.get(make_core(p), None))
        missing = sorted(str(f.relative_to(PKG)) for f in ran - set(ledger.generator_files(p)))
        assert not missing, f"{p.top}: {missing} ran but is not in its generator files"


def test_a_point_depends_on_its_architecture_not_on_the_others():
    points = {(p.cipher, p.arch): p for p in _cheapest_points()}
    names = {k: {str(f.relative_to(PKG)) for f in ledger.generator_files(p)}
             for k, p in points.items()}
    assert "ciphers/aes/byte.py" in names["aes", "byte"]
    assert "ciphers/aes/byte.py" not in names["aes", "iterative"]
    assert "ciphers/aes/pipeline.py" not in names["aes", "interleaved"]
    assert not any(n.startswith("ciphers/aes/") for n in names["serpent", "iterative"])
    for k in names:
        assert {"hw/modes.py", "hw/system/system.py", "hw/system/accelerator.py", "sim/verify.py"}.isdisjoint(
            names[k]), k
        assert {"generate.py", "lint.py", "hw/export.py", f"ciphers/{k[0]}/__init__.py"} <= names[k]
    assert ledger.generator_digest(points["aes", "byte"]) != ledger.generator_digest(
        points["aes", "iterative"])


def test_imports_inside_functions_are_followed_and_packages_are_not(tmp_path):
    pkg = tmp_path / "cipherfab"
    (pkg / "a").mkdir(parents=True)
    for f in ("__init__.py", "a/__init__.py", "a/y.py", "b.py", "c.py"):
        (pkg / f).write_text("")
    (pkg / "a" / "x.py").write_text("import os\ndef f():\n    from ..b import g\n"
                                    "    from . import y\n    from cipherfab.a import z\n")
    targets, parents = ledger._imports(pkg, pkg / "a" / "x.py")
    assert targets == {pkg / "b.py", pkg / "a" / "y.py", pkg / "a" / "__init__.py"}
    assert parents == {pkg / "__init__.py"}


def test_the_gcm_digest_covers_every_file_that_makes_the_system():
    """GCM ledger entries (host.verify_gcm) are taken at their word while their digest holds:
    every package file that runs while the system around a core is generated must be in it
    (and the system's Verilog cache key, which is the same digest)."""
    from cipherfab.generate import system_verilog
    from cipherfab.registry import resolve
    from cipherfab.host import system_cache
    p = resolve("aes", "byte")
    ran = _ran(lambda: system_verilog(p, None, 8))
    covered = system_cache.system_files(p)
    missing = sorted(str(f.relative_to(PKG)) for f in ran - covered)
    assert not missing, f"{missing} ran but is not in the GCM digest"
    names = {str(f.relative_to(PKG)) for f in covered}
    assert {"hw/gcm/gcm.py", "hw/gcm/ghash_unit.py", "hw/modes.py", "generate.py"} <= names
    # the checking code is not what a verdict is about (docs/verification.md)
    assert not names & {"sim/ledger.py", "host/verify_gcm.py", "vectors/gcm.py", "host/gcm_reference.py"}
