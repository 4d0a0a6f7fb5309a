"""Block-RAM contents, from the generated Verilog down to the ECP5 config and back.

Three views of the same bits:

* **logical**: a memory of the generated Verilog (Amaranth writes each as
  ``reg [W-1:0] NAME [D-1:0];`` and an ``initial`` block of ``NAME[i] = W'h..;``),
  named by its module path and name, e.g. ``core.datapath.keyed_sbox3``;
* **cell**: a DP16KD block RAM of the synthesized netlist, its 18 kbit as
  ``INITVAL_00`` .. ``INITVAL_3F`` (16 eighteen-bit words with 2 padding bits each);
* **config**: the same 18 kbit as 2048 nine-bit words after ``.bram_init N`` in the
  ECP5 textual config that ``ecppack`` packs (``N`` the cell's ``WID``).

In a data-width-``w`` mode, bit ``b`` of word ``a`` is bit ``n = a*w + b`` of the
flat space; the 1/2/4-bit modes use eight bits of each nine-bit word, the 9/18-bit
modes all nine (prjtrellis' ``ecpbram`` and nextpnr's bitstream writer agree).

**Mapping by probe.**  Which logical bits a cell holds is found, not assumed: the
design is synthesized with *probe* contents in place of the real ones, in which
the 32-bit column of data bit ``j`` over addresses ``32h .. 32h+31`` of memory ``m``
spells a number (``code``) unique to ``(m, j, h)``.  Reading each cell's columns
back names its memory, bit and address base; the whole cell is then checked
against the probe, and every logical bit must be found in some cell (a memory
folded into logic is refused).  Synthesis does not look at ROM contents when it
maps a memory to block RAM, so the probe build places the same netlist the real
contents would; the real contents are then written in exactly as a re-keying
writes another key's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CipherfabError

CELL_BITS = 18432
CONFIG_WORDS = 2048
SPAN = 32             #: addresses per probe code


@dataclass
class LogicalMemory:
    path: str          # module path inside the core + memory name, e.g. core.datapath.keyed_sbox3
    width: int
    depth: int
    words: list[int]


# --- logical: the generated Verilog ------------------------------------------------------

_MODULE = re.compile(r"^module (\\?\S+)\s*\(", re.M)
_DECL = re.compile(r"^\s*reg \[(\d+):0\] (\w+) \[(\d+):0\];$", re.M)


def _module_path(module: str, top: str) -> str:
    name = module.lstrip("\\")
    return "" if name == top else name[len(top) + 1:] if name.startswith(top + ".") else name


def memories(verilog: str, top: str) -> list[LogicalMemory]:
    """Every memory with an ``initial`` block in Amaranth's Verilog of core ``top``."""
    out = []
    starts = [(m.start(), m.group(1)) for m in _MODULE.finditer(verilog)] + [(len(verilog), "")]
    for (begin, module), (end, _) in zip(starts, starts[1:]):
        body = verilog[begin:end]
        for d in _DECL.finditer(body):
            width, name, depth = int(d.group(1)) + 1, d.group(2), int(d.group(3)) + 1
            init = re.compile(rf"^\s*{re.escape(name)}\[(\d+)\] = \d+'h([0-9a-fA-F]+);$", re.M)
            words = [0] * depth
            found = False
            for a in init.finditer(body):
                words[int(a.group(1))] = int(a.group(2), 16)
                found = True
            if found:
                prefix = _module_path(module, top)
                out.append(LogicalMemory(f"{prefix}.{name}" if prefix else name, width, depth, words))
    return out


def with_contents(verilog: str, top: str, contents: dict[str, list[int]]) -> str:
    """``verilog`` with the named memories' initial words replaced."""
    out, starts = [], [(m.start(), m.group(1)) for m in _MODULE.finditer(verilog)] + [(len(verilog), "")]
    out.append(verilog[:starts[0][0]])
    for (begin, module), (end, _) in zip(starts, starts[1:]):
        body = verilog[begin:end]
        prefix = _module_path(module, top)
        for d in _DECL.finditer(body):
            name = d.group(2)
            path = f"{prefix}.{name}" if prefix else name
            if path in contents:
                words = contents[path]
                body = re.sub(rf"^(\s*{re.escape(name)}\[(\d+)\] = (\d+)'h)[0-9a-fA-F]+;$",
                              lambda m: f"{m.group(1)}{words[int(m.group(2))]:0{(int(m.group(3)) + 3) // 4}x};",
                              body, flags=re.M)
        out.append(body)
    return "".join(out)


def without_contents(verilog: str) -> str:
    """``verilog`` with every memory's initial words blanked (to compare two designs' logic)."""
    return re.sub(r"^(\s*\w+\[\d+\] = \d+'h)[0-9a-fA-F]+;$", r"\1_;", verilog, flags=re.M)


# --- probe contents -------------------------------------------------------------------------

def _columns(mems: list[LogicalMemory]):
    """(memory index, data bit, span, code, addresses in the span) for every probe column."""
    code = 1
    for i, m in enumerate(mems):
        spans = -(-m.depth // SPAN)
        for h in range(spans):
            for j in range(m.width):
                yield i, j, h, code + j + m.width * h, min(SPAN, m.depth - h * SPAN)
        code += m.width * spans


def decode_codes(mems: list[LogicalMemory]) -> dict[int, tuple[int, int, int]]:
    """A column's bits over one span (as read from a cell) -> (memory index, data bit, span).

    Codes count up from 1; a span shorter than 32 addresses keeps the low bits of its
    codes, which must stay distinct and non-constant (else: refused)."""
    out = {}
    for i, j, h, code, valid in _columns(mems):
        key = code & ((1 << valid) - 1)
        if key in out or key in (0, (1 << valid) - 1):
            raise CipherfabError(f"memory {mems[i].path} ({mems[i].depth} words) is too shallow to "
                                 "probe its block-RAM placement")
        out[key] = (i, j, h)
    return out


def probe_contents(mems: list[LogicalMemory]) -> dict[str, list[int]]:
    """Contents in which each (memory, bit, 32-address span) column spells its own code."""
    decode_codes(mems)     # refuses memories too shallow to probe
    out = {m.path: [0] * m.depth for m in mems}
    for i, j, h, code, valid in _columns(mems):
        words = out[mems[i].path]
        for a in range(valid):
            words[h * SPAN + a] |= ((code >> a) & 1) << j
    return out


# --- cells and config ------------------------------------------------------------------------

def flat(width: int, a: int, b: int) -> int:
    """Bit b of word a, data width ``width``: its index in the 2048 x 9 flat space."""
    n = a * width + b
    return n if width >= 9 else 9 * (n // 8) + n % 8


def cell_depth(width: int) -> int:
    return {1: 16384, 2: 8192, 4: 4096, 9: 2048, 18: 1024}[width]


def initval_to_words(params: dict) -> list[int]:
    """A cell's INITVAL_00..3F (binary strings from Yosys' JSON) as 2048 nine-bit words."""
    words = [0] * CONFIG_WORDS
    for i in range(64):
        v = params.get(f"INITVAL_{i:02X}", "0")
        value = int(v, 2) if set(v) <= {"0", "1"} else 0
        for j in range(16):
            w18 = (value >> (20 * j)) & 0x3FFFF
            words[32 * i + 2 * j] = w18 & 0x1FF
            words[32 * i + 2 * j + 1] = w18 >> 9
    return words


def words_to_initval(words: list[int]) -> dict[str, str]:
    out = {}
    for i in range(64):
        value = 0
        for j in range(16):
            value |= (words[32 * i + 2 * j] | words[32 * i + 2 * j + 1] << 9) << (20 * j)
        out[f"INITVAL_{i:02X}"] = format(value, "0320b")
    return out


def get_bit(words: list[int], n: int) -> int:
    return (words[n // 9] >> (n % 9)) & 1


def set_bit(words: list[int], n: int, v: int) -> None:
    if v:
        words[n // 9] |= 1 << (n % 9)
    else:
        words[n // 9] &= ~(1 << (n % 9))


def map_cell(name: str, words: list[int], widths: list[int], mems: list[LogicalMemory],
             probe: dict[str, list[int]], codes: dict) -> dict | None:
    """Which memory, address base and data bits a cell holds (checked bit by bit against
    the probe), or None if it holds none of them."""
    for w in dict.fromkeys(widths):
        if w not in (1, 2, 4, 9, 18):
            continue
        depth = cell_depth(w)
        columns, where = {}, set()
        for p in range(w):
            col = sum(get_bit(words, flat(w, a, p)) << a for a in range(SPAN))
            if col in codes:
                i, j, h = codes[col]
                columns[p] = j
                where.add((i, h))
        if len(where) != 1:
            continue
        (i, h), = where
        m, base = mems[i], h * SPAN
        contents = probe[m.path]
        if all(get_bit(words, flat(w, a, p)) ==
               ((contents[base + a] >> j) & 1 if base + a < m.depth else 0)
               for p, j in columns.items() for a in range(depth)):
            return {"cell": name, "width": w, "memory": m.path, "base": base, "depth": depth,
                    "columns": {str(p): j for p, j in columns.items()}}
    return None


def fill(words: list[int], cell: dict, contents: list[int]) -> None:
    """Write ``contents`` (the cell's memory) into a cell's nine-bit words."""
    w, base = cell["width"], cell["base"]
    for p, j in cell["columns"].items():
        p = int(p)
        for a in range(cell["depth"]):
            addr = base + a
            set_bit(words, flat(w, a, p), (contents[addr] >> j) & 1 if addr < len(contents) else 0)


def coverage_problem(cells: list[dict], mems: list[LogicalMemory]) -> str | None:
    """None when every bit of every memory sits in some mapped cell."""
    for m in mems:
        for j in range(m.width):
            covered = set()
            for c in cells:
                if c["memory"] == m.path and j in c["columns"].values():
                    covered.update(range(c["base"], min(c["base"] + c["depth"], m.depth)))
            if len(covered) < m.depth:
                return f"bit {j} of memory {m.path} is not in block RAM (synthesis put it in logic)"
    return None


def read_config(text: str) -> dict[int, list[int]]:
    """``.bram_init N`` sections of an ECP5 textual config: N -> 2048 nine-bit words."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith(".bram_init "):
            cur = out.setdefault(int(line.split()[1]), [])
        elif cur is not None:
            if not line.strip() or line.startswith("."):
                cur = None
            else:
                cur.extend(int(x, 16) for x in line.split())
    return out


def write_config(text: str, data: dict[int, list[int]]) -> str:
    """``text`` with the given ``.bram_init`` sections' words replaced (8 per line, as
    nextpnr writes them); every other line unchanged."""
    lines, out, i = text.splitlines(keepends=True), [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.startswith(".bram_init ") and int(line.split()[1]) in data:
            words = data[int(line.split()[1])]
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("."):
                i += 1
            out += [" ".join(f"{x:03x}" for x in words[k:k + 8]) + "\n" for k in range(0, len(words), 8)]
    return "".join(out)


def write_contents(src_dir: Path, manifest: dict, contents: dict[str, list[int]], src: str,
                   dst: str, dst_dir: Path | None = None) -> dict[int, list[int]]:
    """Copy config ``src`` to ``dst`` with each mapped block RAM holding ``contents``;
    return the new words by ``WID``."""
    try:
        text = (src_dir / src).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise CipherfabError(f"cannot read {src_dir / src}: {getattr(e, 'strerror', None) or e}") from None
    data = read_config(text)
    new: dict[int, list[int]] = {}
    for cell in manifest["cells"]:
        if cell["wid"] not in data:
            raise CipherfabError(f"config {src} has no block RAM {cell['wid']} ({cell['cell']})")
        words = new.setdefault(cell["wid"], list(data[cell["wid"]]))
        fill(words, cell, contents[cell["memory"]])
    ((dst_dir or src_dir) / dst).write_text(write_config(text, new))
    return new
