"""Bad input to ``cipherfab build`` and ``cipherfab rekey``: one line, exit 2, nothing written.

The table runs ``cipherfab.cli.main`` in-process in a folder of its own (a fake
in-context build ``b``, a file, a full folder, an empty one, a small Verilog file).
Every tool run and every elaboration fails the test, so each refusal is shown to
come before synthesis, place and route, packing and the generator; and the folder
must be exactly as it was afterwards: no partial output anywhere, nothing written
into the build.  The tests after the table cover what needs a run to go further:
the rekey timeout, the whole-or-nothing output folders, the cached build with a
bad work folder, the wrapper's refusal after elaboration, and the one label.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from pathlib import Path

import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.flow import paths, tools
from flowhelpers import TINY_V

KEY = "2b7e151628aed2a6abf7158809cf4f3c"
OTHER = "000102030405060708090a0b0c0d0e0f"
REKEYED = ("aes", "key_specific", "fixed_round_key_rom")


@functools.lru_cache(maxsize=None)
def generated(key: str):
    """(params, Verilog, CoreInfo) of the re-keyable core for ``key``, elaborated once."""
    from cipherfab.generate import generate_verilog
    from cipherfab.registry import resolve
    cipher, arch, variant = REKEYED
    params = resolve(cipher, arch, variant=variant, key=key)
    verilog, info, _ = generate_verilog(params)
    return params, verilog, info


def fake_build(folder: Path, key: str = KEY, **manifest_changes) -> Path:
    """An in-context build as ``build --bitstream`` leaves it, without running a tool: the
    real core and manifest, one block RAM mapped, a config holding it, stand-in netlist and
    bitstream.  Enough for every check of ``rekey`` and for re-keying with tools faked."""
    params, verilog, info = generated(key)
    folder.mkdir(parents=True)
    cell = {"cell": "ram0", "wid": 3, "width": 9, "memory": "core.datapath.sub_bytes.rom0", "base": 0,
            "depth": 2048, "columns": {str(j): j for j in range(8)}}
    manifest = {"format": 1, "design": params.as_dict(), "top": params.top, "info": info.as_json(),
                "key": key, "cells": [cell],
                "times": {"elaborate": 1.0, "synthesize": 20.0, "place_route": 40.0, "pack": 2.0, "total": 63.0}}
    manifest.update(manifest_changes)
    (folder / "build.json").write_text(json.dumps(manifest))
    (folder / "core.v").write_text(verilog)
    words = "".join(" ".join(["000"] * 8) + "\n" for _ in range(256))
    (folder / "design.config").write_text(f".device LFE5U-85F\n.bram_init 3\n{words}\n.tile X\nbits\n")
    for name in ("netlist.json", "design.bit", "readback.config"):
        (folder / name).write_text("stand-in\n")
    return folder


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The folder the table runs in: a build ``b`` and the paths the cases point at."""
    ws = tmp_path_factory.mktemp("bad-input")
    fake_build(ws / "b")
    fake_build(ws / "no-core").joinpath("core.v").unlink()
    fake_build(ws / "no-config").joinpath("design.config").unlink()
    fake_build(ws / "no-netlist").joinpath("netlist.json").unlink()
    fake_build(ws / "no-times", times={"total": 1.0})
    fake_build(ws / "runtime-key", design={"cipher": "aes", "arch": "iterative"})
    fake_build(ws / "no-rom", cells=[])
    fake_build(ws / "bad-cell", cells=[{"cell": "ram0", "wid": 3, "width": 7, "memory": "core.datapath.sub_bytes.rom0",
                                         "base": 0, "depth": 2048, "columns": {"0": 0}}])
    (ws / "garbled").mkdir()
    (ws / "garbled" / "build.json").write_text("{not json")
    (ws / "afile").write_text("a file\n")
    (ws / "full").mkdir()
    (ws / "full" / "keep.txt").write_text("someone's file\n")
    (ws / "empty").mkdir()
    (ws / "tiny.v").write_text(TINY_V)
    (ws / "badtag.v").write_text(TINY_V.replace("  reg [7:0] acc;", '  (* cipherfab_share = "7" *) reg [7:0] acc;'))
    (ws / "notag.v").write_text(TINY_V.replace("  reg [7:0] acc;", "  (* cipherfab_share *) reg [7:0] acc;"))
    return ws


def snapshot(folder: Path) -> dict:
    """Every path under ``folder`` with its size and modification time."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            st = p.lstat()
            out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def no_work(monkeypatch):
    """Any tool run, model compile or elaboration fails the test: a refusal comes first."""
    def forbidden(what):
        def fail(*args, **kwargs):
            raise AssertionError(f"{what} ran before the refusal")
        return fail
    monkeypatch.setattr(tools, "run", forbidden("a tool"))
    monkeypatch.setattr("cipherfab.generate.generate_verilog", forbidden("the generator"))
    monkeypatch.setattr("cipherfab.sim.verilated.VerilatedCore", forbidden("Verilator"))


def one_line_refusal(capsys, argv) -> str:
    """Run ``argv``; it must exit 2 with exactly one stderr line and no traceback; return the line."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


TABLE = [
    # --- build: device, speed, seed, router, timeout -------------------------------------------------
    (["build", "aes", "--device", "virtex9"], "unknown device 'virtex9': known devices are ecp5-25k"),
    (["build", "aes", "--device", ""], "unknown device '': known devices are"),
    (["build", "aes", "--speed", "9"], "unknown speed grade 9 for ecp5-85k: choose 6, 7 or 8"),
    (["build", "aes", "--speed", "-1"], "unknown speed grade -1 for ecp5-85k"),
    (["build", "aes", "--speed", "fast"], "argument --speed: invalid int value: 'fast'"),
    (["build", "aes", "--device", "ice40-hx8k", "--speed", "8"], "--speed applies to ECP5 devices only, not ice40-hx8k"),
    (["build", "aes", "--device", "gowin-9k", "--speed", "8"], "--speed applies to ECP5 devices only, not gowin-9k"),
    (["build", "aes", "--device", "gowin-9k", "--no-widelut"], "--no-widelut applies to ECP5 devices (synth_ecp5), not gowin-9k"),
    (["build", "aes", "--device", "gowin-9k", "--ebr-outreg"],
     "--ebr-outreg applies to ECP5 devices (synth_ecp5), not gowin-9k"),
    (["build", "aes", "--ebr-outreg", "--no-ebr-outreg"], "argument --ebr-outreg/--no-ebr-outreg: given both ways"),
    (["build", "aes", "--bitstream", "new", "--ebr-outreg"], "--ebr-outreg does not apply to --bitstream builds"),
    (["build", "aes", "--device", "gowin-9k", "--floorplan"],
     "--floorplan applies to ECP5 devices (synth_ecp5), not gowin-9k"),
    (["build", "aes", "--floorplan", "--no-floorplan"], "argument --floorplan/--no-floorplan: given both ways"),
    (["build", "aes", "--bitstream", "new", "--floorplan"], "--floorplan does not apply to --bitstream builds"),
    (["build", "aes", "--device", "gowin-9k", "--paths", "3"], "--paths applies to ECP5 builds"),
    (["build", "aes", "--heap-timing-weight", "0"], "argument --heap-timing-weight: must be >= 1, got 0"),
    (["build", "aes", "--heap-timing-weight", "fast"], "argument --heap-timing-weight: invalid integer 'fast'"),
    (["build", "aes", "--heap-crit-exp", "17"],
     "argument --heap-crit-exp: must be <= 16 (what this flow offers), got 17"),
    (["build", "aes", "--placer", "sa", "--heap-crit-exp", "4"], "--heap-crit-exp applies to the heap placer, not --placer sa"),
    (["build", "aes", "--device", "gowin-9k", "--heap-timing-weight", "30"],
     "--heap-timing-weight is not offered on gowin-9k: its nextpnr has no heap placer options"),
    (["build", "aes", "--device", "xc7", "--heap-crit-exp", "4"], "--heap-crit-exp applies to place and route: xc7 is synthesis only"),
    (["build", "aes", "--bitstream", "new", "--heap-timing-weight", "30"],
     "--heap-timing-weight does not apply to --bitstream builds"),
    (["build", "aes", "--device", "nexus-40", "--speed", "9"], "--speed applies to ECP5 devices only, not nexus-40"),
    (["build", "aes", "--device", "nexus-40", "--no-abc9"], "--no-abc9 applies to ECP5 devices (synth_ecp5), not nexus-40"),
    (["build", "aes", "--device", "nexus-40", "--bitstream", "new"], "--bitstream builds are for ECP5 devices"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--device", "nexus-40"],
     "a build on nexus-40 (every IO needs a pin: the core goes behind the serial I/O wrapper) needs a generated core"),
    (["build", "aes", "--device", "gatemate-a1", "--router", "router1"],
     "--router router1 is not offered on gatemate-a1: Cologne Chip GateMate routes with router2"),
    (["build", "aes", "--device", "gatemate-a1", "--speed", "8"], "--speed applies to ECP5 devices only, not gatemate-a1"),
    (["build", "aes", "--device", "gatemate-a1", "--paths", "2"], "--paths applies to ECP5 builds"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--device", "gatemate-a1"],
     "a build on gatemate-a1 (every IO needs a pin: the core goes behind the serial I/O wrapper) needs a generated core"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--device", "gowin-9k"],
     "a build on gowin-9k (every IO needs a pin: the core goes behind the serial I/O wrapper) needs a generated core"),
    (["build", "aes", "--device", "xc7", "--speed", "8"], "--speed applies to ECP5 devices only, not xc7"),
    (["build", "aes", "--seed", "-1"], "argument --seed: must be >= 0, got -1"),
    (["build", "aes", "--seed", "nan"], "argument --seed: invalid integer 'nan'"),
    (["build", "aes", "--seed", ""], "argument --seed: invalid integer ''"),
    (["build", "aes", "--seed", "2147483648"], "argument --seed: must be <= 2147483647 (nextpnr's seed is a C int)"),
    (["build", "aes", "--device", "xc7", "--seed", "2"], "--seed applies to place and route: xc7 is synthesis only"),
    (["build", "aes", "--device", "xc2v", "--router", "router2"], "--router applies to place and route: xc2v is synthesis only"),
    (["build", "aes", "--router", "router3"], "argument --router: invalid choice: 'router3'"),
    # --- build: flow options (placer, LUT mapping, wide LUTs) and --seeds N -------------------------
    (["build", "aes", "--placer", "annealing"], "argument --placer: invalid choice: 'annealing'"),
    (["build", "aes", "--placer", ""], "argument --placer: invalid choice: ''"),
    (["build", "aes", "--device", "xc7", "--placer", "sa"], "--placer applies to place and route: xc7 is synthesis only"),
    (["build", "aes", "--abc9", "--no-abc9"], "argument --abc9/--no-abc9: given both ways: choose --abc9 or --no-abc9"),
    (["build", "aes", "--no-widelut", "--widelut"], "argument --widelut/--no-widelut: given both ways"),
    (["build", "aes", "--flatten", "--no-flatten"], "argument --flatten/--no-flatten: given both ways"),
    (["build", "aes", "--flatten=no"], "argument --flatten/--no-flatten: ignored explicit argument 'no'"),
    (["build", "aes", "--bitstream", "new", "--flatten"], "--flatten does not apply to --bitstream builds"),
    (["build", "aes", "--abc9=yes"], "argument --abc9/--no-abc9: ignored explicit argument 'yes'"),
    (["build", "aes", "--device", "ice40-hx8k", "--no-abc9"], "--no-abc9 applies to ECP5 devices (synth_ecp5), not ice40-hx8k"),
    (["build", "aes", "--device", "xc2v", "--widelut"], "--widelut applies to ECP5 devices (synth_ecp5), not xc2v"),
    (["build", "aes", "--seeds", "0"], "argument --seeds: must be >= 1, got 0"),
    (["build", "aes", "--seeds", "-3"], "argument --seeds: must be >= 1, got -3"),
    (["build", "aes", "--seeds", "101"], "argument --seeds: must be <= 100 (each seed is a full place and route)"),
    (["build", "aes", "--seeds", "99999999999999999999"], "argument --seeds: must be <= 100"),
    (["build", "aes", "--seeds", "2.5"], "argument --seeds: invalid integer '2.5'"),
    (["build", "aes", "--seeds", ""], "argument --seeds: invalid integer ''"),
    (["build", "aes", "--seed", "2147483647", "--seeds", "2"],
     "--seed 2147483647 --seeds 2 goes past seed 2147483647 (nextpnr's seed is a C int)"),
    (["build", "aes", "--seeds", "3", "--workdir", "w"], "--workdir keeps one build's files: it does not apply with --seeds"),
    (["build", "aes", "--device", "xcv", "--seeds", "3"], "--seeds applies to place and route: xcv is synthesis only"),
    (["build", "aes", "--bitstream", "new", "--placer", "sa"], "--placer does not apply to --bitstream builds"),
    (["build", "aes", "--share-placement", "apart"], "argument --share-placement: invalid choice: 'apart'"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--share-placement", "free"],
     "--share-placement free applies to masked (share-tagged) cores placed on ECP5; tiny on ecp5-85k has no share tags"),
    (["build", "aes", "--device", "xc7", "--share-placement", "free"],
     "--share-placement applies to place and route: xc7 is synthesis only"),
    (["build", "aes", "--bitstream", "new", "--share-placement", "free"],
     "--share-placement does not apply to --bitstream builds"),
    (["build", "aes", "--bitstream", "new", "--no-widelut"], "--widelut does not apply to --bitstream builds"),
    (["build", "aes", "--bitstream", "new", "--seeds", "2"], "--seeds does not apply to --bitstream builds"),
    (["build", "aes", "--timeout", "0"], "argument --timeout: must be > 0 seconds, got 0"),
    (["build", "aes", "--timeout", "-3"], "argument --timeout: must be > 0 seconds, got -3"),
    (["build", "aes", "--timeout", "nan"], "argument --timeout: must be > 0 seconds, got nan"),
    (["build", "aes", "--timeout", "inf"], "argument --timeout: must be > 0 seconds, got inf"),
    (["build", "aes", "--timeout", "1e999"], "argument --timeout: must be > 0 seconds"),
    # --- build: worst paths -------------------------------------------------------------------------
    (["build", "aes", "--paths", "0"], "argument --paths: must be >= 1, got 0"),
    (["build", "aes", "--paths", "-2"], "argument --paths: must be >= 1, got -2"),
    (["build", "aes", "--paths", "21"], "argument --paths: must be <= 20 (a build keeps that many), got 21"),
    (["build", "aes", "--paths", "three"], "argument --paths: invalid integer 'three'"),
    (["build", "aes", "--paths", ""], "argument --paths: invalid integer ''"),
    (["build", "aes", "--paths", "2.5"], "argument --paths: invalid integer '2.5'"),
    (["build", "aes", "--device", "xc7", "--paths", "3"], "--paths applies to place and route: xc7 is synthesis only"),
    (["build", "aes", "--device", "ice40-up5k", "--paths", "3"],
     "--paths applies to ECP5 builds (it reads nextpnr-ecp5's routed delays), not ice40-up5k"),
    (["build", "aes", "--bitstream", "new", "--paths", "3"], "--paths does not apply to --bitstream builds"),
    # --- build: core options ------------------------------------------------------------------------
    (["build", "aes", "--stages", "9", "--arch", "interleaved"], "--stages 9 is not supported"),
    (["build", "aes", "--arch", "pipeline", "--sbox-input", "registered"],
     "aes pipeline: --sbox-input registered needs --stages 2 or more"),
    (["build", "aes", "--arch", "pipeline", "--stages", "3", "--sbox-input", "yes"],
     "--sbox-input 'yes' is not supported; choose from direct, registered"),
    (["build", "aes", "--sbox-input", "registered"], "--sbox-input does not apply"),
    (["build", "aes", "--key-bits", "-128"], "--key-bits -128 is not supported"),
    (["build", "aes", "--arch", "key_specific", "--key", "abcd"], "a 128-bit key is 32 hex digits"),
    (["build", "aes", "--arch", "key_specific", "--key", "zz" * 16], "a 128-bit key is 32 hex digits"),
    (["build", "aes", "--arch", "key_specific", "--key", ""], "--key '': a 128-bit key is 32 hex digits"),
    (["build", "aes", "--key", KEY], "--key does not apply"),
    (["build", "aes", "--arch", "masked", "--prng", "off", "--glitch-test", "hpc2-unregistered"],
     "aes masked: --glitch-test needs --prng on"),
    (["build", "aes", "--arch", "masked", "--glitch-test", "hpc2"], "--glitch-test 'hpc2' is not supported; choose from none, hpc2-unregistered"),
    (["build", "aes", "--glitch-test", "none"], "--glitch-test does not apply"),
    (["build", "aes", "--arch", "masked", "--gadget", "ti"], "--gadget 'ti' is not supported; choose from hpc2, dom"),
    (["build", "aes", "--arch", "masked", "--gadget", "dom", "--glitch-test", "hpc2-unregistered"],
     "a gadget's glitch test mode (--glitch-test hpc2-unregistered, dom-unregistered) needs that --gadget"),
    (["build", "aes", "--gadget", "dom"], "--gadget does not apply"),
    (["build", "aes", "--arch", "masked", "--sboxes", "3"], "--sboxes 3 is not supported; choose from 20, 4, 1"),
    (["build", "aes", "--arch", "masked", "--sboxes", "four"], "argument --sboxes: invalid integer 'four'"),
    (["build", "aes", "--arch", "masked", "--shares", "5"], "--shares 5 is not supported; choose from 2, 3, 4"),
    (["build", "aes", "--arch", "masked", "--shares", "1"], "--shares 1 is not supported; choose from 2, 3, 4"),
    (["build", "aes", "--arch", "masked", "--shares", "3", "--prng", "off"],
     "the test modes (--prng off, --glitch-test) are built on 2 shares"),
    (["build", "aes", "--arch", "masked", "--sboxes", "4", "--shares", "4", "--glitch-test", "refresh-recombined"],
     "the test modes (--prng off, --glitch-test) are built on 2 shares"),
    (["build", "aes", "--sboxes", "4"], "--sboxes does not apply"),
    (["build", "aes", "--shares", "2"], "--shares does not apply"),
    (["build", "aes", "--arch", "warp"], "--arch 'warp' is not supported"),
    (["build", "des"], "unknown cipher 'des'"),
    # --- build: output paths (checked before anything, the cache included) --------------------------
    (["build", "aes", "--json", ""], "--json: empty path"),
    (["build", "aes", "--json", "/dev/null/x"], "--json /dev/null/x: /dev/null is not a folder"),
    (["build", "aes", "--json", "/proc/x.json"], "--json /proc/x.json: cannot write in /proc"),
    (["build", "aes", "--json", "full"], "--json full: is a folder, not a file name"),
    (["build", "aes", "--json", "nowhere/rec.json"], "--json nowhere/rec.json: folder nowhere does not exist"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--json", "tiny.v"],
     "--json tiny.v is one of the --verilog files"),
    (["build", "aes", "--json", "w", "--workdir", "w"], "--json w is the --workdir folder"),
    (["build", "aes", "--workdir", "w", "--json", "w/r.json", "--arch", "warp"], "--arch 'warp' is not supported"),
    (["build", "aes", "--workdir", ""], "--workdir: empty path"),
    (["build", "aes", "--workdir", "/dev/null/x"], "--workdir /dev/null/x: /dev/null is not a folder"),
    (["build", "aes", "--workdir", "/proc/x"], "--workdir /proc/x: cannot write in /proc"),
    (["build", "aes", "--workdir", "/proc/x", "--no-cache"], "--workdir /proc/x: cannot write in /proc"),
    (["build", "aes", "--workdir", "afile"], "--workdir afile: exists and is not a folder"),
    (["build", "aes", "--workdir", "afile", "--no-cache"], "--workdir afile: exists and is not a folder"),
    (["build", "aes", "--bitstream", ""], "--bitstream: empty path"),
    (["build", "aes", "--bitstream", "/dev/null/x"], "--bitstream /dev/null/x: /dev/null is not a folder"),
    (["build", "aes", "--bitstream", "/proc/x"], "--bitstream /proc/x: cannot write in /proc"),
    (["build", "aes", "--bitstream", "afile"], "--bitstream afile: exists and is not a folder"),
    (["build", "aes", "--bitstream", "full"], "--bitstream full: folder exists and is not empty"),
    (["build", "aes", "--bitstream", "b"], "--bitstream b: folder exists and is not empty"),
    (["build", "aes", "--bitstream", "."], "--bitstream .: give the folder by its name"),
    (["build", "aes", "--bitstream", "b/.."], "--bitstream b/..: give the folder by its name"),
    (["build", "aes", "--bitstream", "new", "--json", "r.json"], "--json does not apply to --bitstream builds"),
    (["build", "aes", "--bitstream", "new", "--no-cache"], "--no-cache does not apply to --bitstream builds"),
    (["build", "aes", "--bitstream", "new", "--workdir", "w"], "--workdir does not apply to --bitstream builds"),
    (["build", "aes", "--bitstream", "new", "--device", "xc7"], "--bitstream builds are for ECP5 devices"),
    (["build", "aes", "--bitstream", "new", "--device", "ice40-up5k"], "--bitstream builds are for ECP5 devices"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--bitstream", "new"],
     "--bitstream needs a generated core"),
    # --- build: external cores ----------------------------------------------------------------------
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "0"], "--cycles-per-block: must be >= 1"),
    # --- build: share tags (merged shares), checked before synthesis --------------------------------
    (["build", "--verilog", "badtag.v", "--top", "tiny", "--cycles-per-block", "1"],
     'Verilog line 2: cipherfab_share = "7": a share index is 0 to 3'),
    (["build", "--verilog", "notag.v", "--top", "tiny", "--cycles-per-block", "1", "--no-cache"],
     'Verilog line 2: cipherfab_share without a value: a share index is 0 to 3'),
    (["build", "--verilog", "badtag.v", "--top", "tiny", "--cycles-per-block", "1", "--seeds", "2"],
     'cipherfab_share = "7"'),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "10000000000"],
     "--cycles-per-block: must be <= 1000000000"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--latency", "0"],
     "--latency: must be >= 1"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--key-setup-cycles", "-1"],
     "--key-setup-cycles: must be >= 0"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--block-bits", "0"],
     "--block-bits: must be >= 1"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--block-bits", "9" * 500],
     "--block-bits: must be <= 4096"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "4", "--cycles-per-block-cbc", "2"],
     "--cycles-per-block-cbc 2 is less than --cycles-per-block 4"),
    (["build", "--verilog", "tiny.v", "--top", "tiny core", "--cycles-per-block", "1"], "not a Verilog module name"),
    (["build", "--verilog", "tiny.v", "--top", "huge", "--cycles-per-block", "1"], "--top huge: no module huge in tiny.v"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--label", " "], "--label: empty text"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--include-dir", ""],
     "--include-dir: empty path"),
    (["build", "--verilog", "tiny.v", "--top", "tiny", "--cycles-per-block", "1", "--include-dir", "afile"],
     "--include-dir afile: not a folder"),
    (["build", "--verilog", "", "--top", "tiny", "--cycles-per-block", "1"], "--verilog: empty file name"),
    (["build", "--verilog", "tiny.v", "./tiny.v", "--top", "tiny", "--cycles-per-block", "1"],
     "--verilog ./tiny.v is given twice"),
    (["build", "--verilog", "full", "--top", "tiny", "--cycles-per-block", "1"], "Verilog file full: is a folder, not a file"),
    (["build", "--verilog", "gone.v", "--top", "tiny", "--cycles-per-block", "1"],
     "Verilog file gone.v: no such file"),
    # --- rekey: the build ---------------------------------------------------------------------------
    (["rekey", "", "--key", OTHER], "BUILD: empty path"),
    (["rekey", "gone", "--key", OTHER], "no build at gone"),
    (["rekey", "afile", "--key", OTHER], "afile is not a folder"),
    (["rekey", "empty", "--key", OTHER], "empty is not an in-context build (build.json missing)"),
    (["rekey", "garbled", "--key", OTHER], "cannot read garbled/build.json"),
    (["rekey", "no-times", "--key", OTHER], "is not a cipherfab build manifest (times without"),
    (["rekey", "no-core", "--key", OTHER], "build no-core is incomplete: core.v missing"),
    (["rekey", "no-config", "--key", OTHER], "build no-config is incomplete: design.config missing"),
    (["rekey", "no-netlist", "--key", OTHER], "build no-netlist is incomplete: netlist.json missing"),
    (["rekey", "runtime-key", "--key", OTHER], "has no built-in key: it takes keys at run time"),
    (["rekey", "no-rom", "--key", OTHER], "has no key ROM: its key is in logic"),
    (["rekey", "bad-cell", "--key", OTHER], "block RAM ram0: a width, base, depth or column out of range"),
    # --- rekey: key, blocks, timeout ----------------------------------------------------------------
    (["rekey", "b", "--key", "abcd"], "a 128-bit key is 32 hex digits"),
    (["rekey", "b", "--key", "zz" * 16], "a 128-bit key is 32 hex digits"),
    (["rekey", "b", "--key", ""], "--key '': a 128-bit key is 32 hex digits"),
    (["rekey", "b", "--key", "0x" + OTHER[2:]], "a 128-bit key is 32 hex digits"),
    (["rekey", "b", "--key", OTHER + "00"], "a 128-bit key is 32 hex digits"),
    (["rekey", "b"], "the following arguments are required: --key"),
    (["rekey", "b", "--key", OTHER, "--blocks", "0"], "argument --blocks: must be >= 1, got 0"),
    (["rekey", "b", "--key", OTHER, "--blocks", "-5"], "argument --blocks: must be >= 1, got -5"),
    (["rekey", "b", "--key", OTHER, "--blocks", "1e3"], "argument --blocks: invalid integer '1e3'"),
    (["rekey", "b", "--key", OTHER, "--blocks", "10000000001"], "argument --blocks: must be <= 10000000"),
    (["rekey", "b", "--key", OTHER, "--blocks", "10", "--no-check"], "--blocks sets the check's random blocks"),
    (["rekey", "b", "--key", OTHER, "--timeout", "0"], "argument --timeout: must be > 0 seconds, got 0"),
    (["rekey", "b", "--key", OTHER, "--timeout", "nan"], "argument --timeout: must be > 0 seconds, got nan"),
    (["rekey", "b", "--key", OTHER, "--timeout", "-1", "--no-check"], "argument --timeout: must be > 0 seconds"),
    # --- rekey: the output folder -------------------------------------------------------------------
    (["rekey", "b", "--key", OTHER, "--out", ""], "--out: empty path"),
    (["rekey", "b", "--key", OTHER, "--out", "/dev/null/x"], "--out /dev/null/x: /dev/null is not a folder"),
    (["rekey", "b", "--key", OTHER, "--out", "/proc/x"], "--out /proc/x: cannot write in /proc"),
    (["rekey", "b", "--key", OTHER, "--out", "afile"], "--out afile: exists and is not a folder"),
    (["rekey", "b", "--key", OTHER, "--out", "full"], "--out full: folder exists and is not empty"),
    (["rekey", "b", "--key", OTHER, "--out", "b"], "--out b: folder exists and is not empty"),
    (["rekey", "b", "--key", OTHER, "--out", "."], "--out .: give the folder by its name"),
]


@pytest.mark.parametrize("argv,needle", TABLE, ids=[" ".join(a)[:60] for a, _ in TABLE])
def test_bad_input_is_one_line_before_any_work(argv, needle, workspace, monkeypatch, capsys, no_work):
    monkeypatch.chdir(workspace)
    before = snapshot(workspace)
    line = one_line_refusal(capsys, argv)
    assert needle in line
    assert snapshot(workspace) == before, "a refusal wrote or changed something"


# ------------------------------------------------------------------------ beyond the table

def test_share_placement_on_a_generated_core_without_tags_is_refused_before_any_tool(monkeypatch, capsys):
    """Whether a generated core carries share tags is known from its Verilog: refused after
    the generator, before any tool runs."""
    def fail(*args, **kwargs):
        raise AssertionError("a tool ran before the refusal")
    monkeypatch.setattr(tools, "run", fail)
    assert main(["build", "aes", "--share-placement", "free", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.splitlines()[0].startswith("build [0.0 s]: elaborating")
    line = err.splitlines()[-1]
    assert len(err.splitlines()) == 2 and line.endswith("--share-placement free applies to masked (share-tagged) cores placed on ECP5; "
                         "aes_iterative_128_encrypt_lut on ecp5-85k has no share tags")


def faked_tools(monkeypatch, seen: list):
    """tools.run as ecppack and ecpunpack would answer (a bitstream, a read-back), recording
    each call's timeout; a timeout below 1 s times out as tools.run would."""
    def run(tool, args, cwd, log, timeout=None):
        seen.append((tool, timeout))
        if timeout is not None and timeout < 1:
            raise CipherfabError(f"{tool} timed out after {timeout:g} s")
        if tool == "yowasp-ecppack":
            shutil.copyfile(Path(cwd) / "design.config", Path(cwd) / "design.bit")
        (Path(cwd) / log).write_text("")
        return tools.ToolRun(0, 0.01, [])
    monkeypatch.setattr(tools, "run", run)


def test_rekey_honours_timeout_with_no_check(tmp_path, monkeypatch, capsys):
    """Defect 5: --timeout with --no-check limits ecppack (it ran unlimited); the timed-out
    re-keying leaves no output folder and the build as it was."""
    build = fake_build(tmp_path / "b")
    before, seen = snapshot(build), []
    faked_tools(monkeypatch, seen)
    out = tmp_path / "new"
    line = one_line_refusal(capsys, ["rekey", str(build), "--key", OTHER, "--out", str(out),
                                     "--timeout", "0.01", "--no-check"])
    assert "yowasp-ecppack timed out after 0.01 s" in line
    assert seen == [("yowasp-ecppack", 0.01)]
    assert not out.exists() and snapshot(build) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".new")]


def test_rekey_output_is_whole_and_never_in_the_build(tmp_path, monkeypatch, capsys):
    """Defect 4: --out gets the design, the build gets nothing; running it again replaces
    that earlier output; a folder that holds a build is never replaced."""
    build = fake_build(tmp_path / "b")
    before, seen = snapshot(build), []
    faked_tools(monkeypatch, seen)
    out = tmp_path / "deep" / "new"
    for _ in range(2):
        assert main(["rekey", str(build), "--key", OTHER, "--out", str(out), "--no-check"]) == 0
        assert sorted(p.name for p in out.iterdir()) == ["design.bit", "design.config", "ecppack.log", "rekey.json"]
        assert json.loads((out / "rekey.json").read_text())["key"] == OTHER
    assert snapshot(build) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["new"]      # no staging folder left
    # a build folder that an old cipherfab gave a rekey.json is still a build
    (build / "rekey.json").write_text("{}")
    line = one_line_refusal(capsys, ["rekey", str(build), "--key", OTHER, "--out", str(build), "--no-check"])
    assert "that would write over the build" in line


def test_failed_rekey_removes_the_folders_it_made(tmp_path, monkeypatch, capsys):
    build = fake_build(tmp_path / "b")
    faked_tools(monkeypatch, [])
    out = tmp_path / "x" / "y" / "new"
    one_line_refusal(capsys, ["rekey", str(build), "--key", OTHER, "--out", str(out), "--timeout", "0.5"])
    assert not (tmp_path / "x").exists()


def test_staged_failure_keeps_files_in_the_cache(tmp_path, cache_root):
    with pytest.raises(CipherfabError, match=r"^no good \(its files: .*failed.*\)$") as e:
        with paths.staged(tmp_path / "out", "bitstream") as wd:
            (wd / "yosys.log").write_text("ERROR: no good\n")
            raise CipherfabError("no good")
    kept = Path(str(e.value).split("its files: ")[1].rstrip(")"))
    assert kept.parent == cache_root / "failed" and (kept / "yosys.log").is_file()
    assert list(tmp_path.iterdir()) == [tmp_path / "cache"]


def test_json_is_written_whole(tmp_path):
    target = tmp_path / "rec.json"
    target.write_text("old\n")
    paths.write_file(target, "{}\n", "--json")
    assert target.read_text() == "{}\n" and sorted(p.name for p in tmp_path.iterdir()) == ["rec.json"]


def test_cached_build_still_checks_workdir(tmp_path, monkeypatch):
    """Defect 6: with a cached record a bad --workdir was ignored."""
    from cipherfab.flow import build, cache
    from flowhelpers import mini_source
    monkeypatch.setattr(cache, "load", lambda key: pytest.fail("the cache answered before --workdir was checked"))
    (tmp_path / "afile").write_text("x")
    for bad, needle in ((tmp_path / "afile", "exists and is not a folder"), ("/proc/x", "cannot write in /proc"),
                        ("/dev/null/x", "/dev/null is not a folder")):
        with pytest.raises(CipherfabError, match=needle):
            build(mini_source(), workdir=bad)
    with pytest.raises(CipherfabError, match=r"seed must be a whole number in 0\.\.2147483647"):
        build(mini_source(), seed=2**31)


def test_wrapper_refusal_writes_nothing(tmp_path, monkeypatch, capsys):
    """Defect 7: a core the serial wrapper cannot take (a second clock) is refused before
    the first file (it left b18/core.v)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tools, "run", lambda *a, **k: pytest.fail("a tool ran"))
    line = one_line_refusal(capsys, ["build", "aes", "--arch", "interleaved", "--key-clock", "separate",
                                     "--sbox", "rom", "--bitstream", "b18"])
    assert "has a clock besides clk (key_clk)" in line
    assert [p.name for p in tmp_path.iterdir() if p.name != "cache"] == []


def test_one_label_for_a_point():
    """Item 14: build records labelled the default point ...-rom-load; generate's header and
    the studies say ...-rom.  One function now labels them all."""
    from cipherfab.flow.source import point_label
    from cipherfab.flow.source import design_source
    from cipherfab.study.points import point_label as study_label
    src = design_source("aes", arch="iterative", sbox="rom")
    assert src.label() == point_label(src.design) == "aes-iterative-128-encrypt-rom"
    assert study_label({"cipher": "aes", "arch": "iterative", "key_bits": 128, "direction": "encrypt",
                        "sbox": "rom"}) == src.label()
    assert point_label({**src.design, "key_add": "folded"}) == "aes-iterative-128-encrypt-rom-folded"
    assert point_label({"cipher": "mini", "arch": "x", "n": 3}) == "mini-x-3"
