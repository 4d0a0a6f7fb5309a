"""Wires that compute the same thing, computed once, before Verilator builds a model.

Amaranth repeats a shared expression for every place that reads part of it: Serpent's
iterative core reads each of the key lane's four new prekeys bit by bit (32 bitslice
S-boxes), and its Verilog (2.2 MB) holds the prekey chain about a thousand times over
(1156 copies of ``w0 ^ w3``). Verilator's optimisers do not merge the copies, which are
assigned in parts (``assign { \\$115 [30:29], ... } = ...``), so the model computed all of
them every clock: 225,000 cycles/s, where the same core with the prekeys in named signals
runs 1.7 million.

:func:`merge_duplicates` finds, per module, the wires that are driven only by ``assign``
statements which write that wire alone and cover each of its bits once, and whose
statements are equal (the same parts of the wire, the same right-hand sides, the same
declaration) once the wires already found equal are named alike. Such wires hold the same
value: a continuous assignment is a pure function of the names it reads, in one module. The
first one keeps its logic; each other one is driven from it (``assign \\$120 = \\$115 ;`` in
place of its own statements, the rest of its lines left empty, so line numbers stay). Found
equal wires make further right-hand sides equal, so the search repeats until nothing merges.
Readers are not rewritten, registers and ports are not touched: the model computes each
value once and every signal keeps its value, name and line.

Only the simulated text changes: what ``generate`` writes and the ledger records is the text
as written, and Verilator lints that text (see ``build_library``), since a merge can leave
bits of a wire unread that were read before.
"""

from __future__ import annotations

import re

from .fold import _blocks, merge_equal

#: part of a compiled model's cache key: a change here builds the models again
CSE_VERSION = "cse 1"

_NAME = r"(?:\\\S+|[A-Za-z_][A-Za-z0-9_$]*)"
#: an expression split at its words (odd items): based literals first (``24'h000000`` holds
#: no name), then names; the text between them is kept as written
_WORDS = re.compile(r"(\d*'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+|\\\S+|[A-Za-z_][A-Za-z0-9_$]*)")
_WAIVER = re.compile(r"/\* verilator lint_o(?:n|ff) \w+ \*/")
_WIRE = re.compile(rf"wire\s+(signed\s+)?(?:\[(\d+):(\d+)\]\s+)?({_NAME})\s*;")
_PORT = re.compile(rf"(?:input|output|inout)\s+(?:wire\s+|reg\s+)?(?:signed\s+)?(?:\[\d+:\d+\]\s+)?({_NAME})\s*;")
_ASSIGN = re.compile(r"assign (.+?) = (.+);")
_PART = re.compile(rf"({_NAME})\s*(?:\[(\d+)(?::(\d+))?\])?")
#: merging rounds at most (each round merges the wires whose inputs the last one merged)
MAX_ROUNDS = 200
#: the share of the text a merge must save for a model to be built from the merged text (see
#: ``build_library``: a merged model costs a lint run of its own); Serpent's iterative core
#: 44%, Twofish's 16%, the DES iterative core 14%, the AES iterative core 1.5%
MIN_SAVING = 0.10


def _parts(lhs: str):
    """[(name, high bit or None, low bit or None)] of an assign's left-hand side, or None
    when it is not a name, a part of one, or a concatenation of those."""
    if lhs.startswith("{"):
        if not lhs.endswith("}"):
            return None
        items = [s.strip() for s in lhs[1:-1].split(",")]
    else:
        items = [lhs]
    out = []
    for item in items:
        m = _PART.fullmatch(item)
        if not m:
            return None
        hi = None if m.group(2) is None else int(m.group(2))
        lo = hi if m.group(3) is None else int(m.group(3))
        out.append((m.group(1), hi, lo))
    return out


def _module(lines: list[str]) -> int:
    """Merge the duplicate wires of one module's body (in place); returns how many merged."""
    wires: dict[str, tuple] = {}           # name -> (declaration key, width, line)
    ports, bad = set(), set()
    assigns: dict[str, list] = {}           # wire -> [(line, lhs with the wire as '@', rhs tokens)]
    for n, raw in enumerate(lines):
        ln = _WAIVER.sub("", raw).strip()
        if m := _WIRE.fullmatch(ln):
            hi, lo = m.group(2), m.group(3)
            width = 1 if hi is None else int(hi) - int(lo) + 1
            if m.group(4) in wires or (hi is not None and int(lo) != 0):
                bad.add(m.group(4))
            wires[m.group(4)] = ((bool(m.group(1)), width), width, n)
        elif m := _PORT.fullmatch(ln):
            ports.add(m.group(1))
        elif m := _ASSIGN.fullmatch(ln):
            parts = _parts(m.group(1).strip())
            names = {p[0] for p in parts} if parts else set(_WORDS.split(m.group(1))[1::2])
            if parts is None or len(names) != 1:
                bad.update(names)
                continue
            (name,) = names
            lhs = " ".join(f"@[{hi}:{lo}]" if hi is not None else "@" for _, hi, lo in parts)
            assigns.setdefault(name, []).append((n, lhs, parts, tuple(_WORDS.split(m.group(2).strip()))))
    candidates = {}
    for name, stmts in assigns.items():
        if name in bad or name in ports or name not in wires:
            continue
        width, covered, ok = wires[name][1], [0] * wires[name][1], True
        for _, _, parts, _ in stmts:
            for _, hi, lo in parts:
                hi, lo = (width - 1, 0) if hi is None else (hi, lo)
                if not 0 <= lo <= hi < width:
                    ok = False
                    break
                for b in range(lo, hi + 1):
                    covered[b] += 1
        if ok and all(c == 1 for c in covered):
            candidates[name] = stmts
    def key(name, rep):
        return (wires[name][0], tuple(sorted(
            (lhs, tuple(rep.get(t, t) for t in rhs)) for _, lhs, _, rhs in candidates[name])))
    rep = merge_equal(sorted(candidates, key=lambda w: wires[w][2]), key, MAX_ROUNDS)
    for name, first in rep.items():
        stmts = sorted(candidates[name])
        lines[stmts[0][0]] = f"  assign {name} = {first} ;"
        for n, *_ in stmts[1:]:
            lines[n] = ""
    return len(rep)


def merge_duplicates(text: str, min_saving: float = 0.0) -> tuple[str, int]:
    """(the text with duplicate wires driven from one copy, how many wires were merged);
    the text unchanged (and 0) when it is not laid out as Yosys writes Verilog, or when the
    merge makes it shorter by less than ``min_saving`` (a fraction of its characters)."""
    lines = text.split("\n")
    merged = 0
    for _, _, head, end in _blocks(lines):
        body = lines[head + 1:end]
        merged += _module(body)
        lines[head + 1:end] = body
    out = "\n".join(lines)
    if not merged or len(out) > (1 - min_saving) * len(text):
        return text, 0
    return out, merged
