"""Identical modules folded into one before Verilator builds a model.

Amaranth writes one Verilog module per elaborated instance: the ten SubBytes units of an AES
pipeline are ten modules whose texts differ only in the numbers Yosys gives its internal
names (``\\$auto$rtlil.cc:2739:Not$1514``). Verilator parses, optimises and the C++ compiler
compiles each of them; folded into one module with ten instances, each is done once (an
AES-128 composite-S-box pipeline: 5.8 MB of Verilog, 1.x MB folded).

Two modules fold when their port lists are equal and their bodies are equal up to a
one-to-one renaming of their escaped identifiers that are not ports (and after the
submodules they instantiate have folded): the same logic under other internal names, so the
folded text simulates exactly as the written one. Only the simulated text is folded; what
``generate`` writes, and what the verification ledger records, is the text as written.

:func:`fold` also returns, per line of the folded text, the lines of the written text it
stands for, so that Verilator's lint warnings on the folded text are placed on every copy
(:func:`unfold_warnings`).
"""

from __future__ import annotations

import itertools
import re

_ESCAPED = re.compile(r"\\\S+")
_MODULE = re.compile(r"module (\\\S+|\w+) \((.*)\);$")
_WARNING_LINE = re.compile(r"^(%(?:Warning|Error)[-\w]*: (?:[^:]*/)?core\.v:)(\d+)(:.*)$")

#: part of a compiled model's cache key: a change to folding builds the models again
FOLD_VERSION = "fold 1"


def _blocks(lines: list[str]) -> list[tuple[str, int, int, int]]:
    """(name, first line of its attributes, ``module`` line, ``endmodule`` line) per module."""
    blocks, i = [], 0
    while i < len(lines):
        m = _MODULE.match(lines[i])
        if m:
            first = i
            while first > 0 and lines[first - 1].startswith("(*") and lines[first - 1].endswith("*)"):
                first -= 1
            end = i
            while end < len(lines) and lines[end] != "endmodule":
                end += 1
            if end == len(lines):
                return []                  # not Yosys' layout: leave the text as it is
            blocks.append((m.group(1), first, i, end))
            i = end
        i += 1
    return blocks


def _key(lines: list[str], head: int, rename: dict[str, str], modules: set[str]) -> tuple:
    """The block's text with submodule names folded and internal names numbered in order."""
    ports = set(_ESCAPED.findall(lines[head].split("(", 1)[1]))
    names: dict[str, str] = {}

    def canon(m: re.Match) -> str:
        word = m.group(0)
        if word in modules:
            return rename.get(word, word)
        if word in ports:
            return word
        return names.setdefault(word, f"\\#{len(names)}")

    out = [_ESCAPED.sub(canon, ln) for ln in lines]
    out[head] = "module # (" + lines[head].split("(", 1)[1]
    return tuple(out)


def merge_equal(names, key, rounds: int | None = None) -> dict[str, str]:
    """Names whose keys are equal, merged into the first of them: ``key(name, merged)`` may
    read the merges found so far (two copies that read copies of each other become equal in
    the next round), so the rounds repeat until one merges nothing (or ``rounds`` ran).
    Returns each merged name -> the name that stands for it in the end."""
    merged: dict[str, str] = {}
    for _ in range(rounds) if rounds else itertools.count():
        groups: dict[tuple, str] = {}
        new = {}
        for name in names:
            if name in merged:
                continue
            k = key(name, merged)
            if k in groups:
                new[name] = groups[k]
            else:
                groups[k] = name
        if not new:
            break
        merged.update(new)
    for name, first in merged.items():
        while first in merged:
            first = merged[first]
        merged[name] = first
    return merged


def fold(text: str) -> tuple[str, list[list[int]]]:
    """(folded text, for each of its lines the 1-based lines of ``text`` it stands for)."""
    lines = text.split("\n")
    blocks = _blocks(lines)
    modules = {name for name, *_ in blocks}
    spans = {name: (first, head, end) for name, first, head, end in blocks}

    def key(name, rename):
        first, head, end = spans[name]
        return _key(lines[first:end + 1], head - first, rename, modules)
    rename = merge_equal([name for name, *_ in blocks], key)
    if not rename:
        return text, [[n + 1] for n in range(len(lines))]
    final = rename.get          # merge_equal resolved every chain

    start = {name: first for name, first, _, _ in blocks}
    copies: dict[str, list[str]] = {}
    for name in rename:
        copies.setdefault(final(name), []).append(name)
    dropped = {n: (first, end) for n, first, _, end in blocks if n in rename}
    owner = {}                              # line index -> kept module whose block holds it
    for name, first, _, end in blocks:
        if name not in rename:
            for n in range(first, end + 1):
                owner[n] = name
    skip = set()
    for first, end in dropped.values():
        skip.update(range(first, end + 2 if end + 1 < len(lines) and lines[end + 1] == "" else end + 1))

    def swap(m: re.Match) -> str:
        return final(m.group(0)) if m.group(0) in rename else m.group(0)

    out, where = [], []
    for n, ln in enumerate(lines):
        if n in skip:
            continue
        out.append(_ESCAPED.sub(swap, ln) if "\\" in ln else ln)
        stands = [n + 1]
        kept = owner.get(n)
        for dup in copies.get(kept, ()) if kept else ():
            stands.append(start[dup] + (n - start[kept]) + 1)
        where.append(stands)
    return "\n".join(out), where


def unfold_warnings(warnings: str, where: list[list[int]]) -> str:
    """Verilator's ``warnings`` on the folded text, each repeated on every line it stands for."""
    out = []
    for line in warnings.splitlines():
        m = _WARNING_LINE.match(line)
        n = int(m.group(2)) if m else 0
        if m and 0 < n <= len(where):
            out.extend(f"{m.group(1)}{k}{m.group(3)}" for k in where[n - 1])
        else:
            out.append(line)
    return "\n".join(out)
