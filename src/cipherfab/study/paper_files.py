"""Reading and checking the papers' data files (``data/papers/<short>.toml``).

The published numbers are data a researcher corrects by hand, so a slip in a file
(a typo'd key, a row one cell short, a paper's file missing from an install) must
stop the reader with one line naming the file and the entry, never turn into a
report that silently lacks a table: the report skips papers and tables it cannot
find, so a missing file is caught here, against :data:`PAPER_FILES`.

The format itself is described in :mod:`cipherfab.study.papers`.  This module
returns plain checked dicts; ``papers`` builds its dataclasses from them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ..errors import CipherfabError

#: the papers of the papers folder's INDEX.md (../shared/papers/ beside the repository), one
#: data file each, in report order
PAPER_FILES = ("000", "001", "002", "003", "004")
DATA_DIR = Path(__file__).resolve().parent / "data" / "papers"

_NUMBER = (int, float)
#: allowed keys: name -> (accepted types, required)
_PAPER = {"id": (str, True), "cite": (str, True), "title": (str, True)}
_TABLE = {"table": (str, True), "caption": (str, True), "columns": (list, True),
          "rows": (list, True), "device": (str, False), "note": (str, False),
          "label_header": (str, False)}
_COLUMN = {"key": (str, True), "header": (str, True), "unit": (str, False)}
_ROW = {"row": (list, True), "device": (str, False), "note": (str, False),
        "verbatim": (bool, False), "label_printed": (bool, False), "parsed": (list, False)}
_TEXT = {"where": (str, True), "row": (str, True), "key": (str, True), "printed": (str, True),
         "quote": (str, True), "unit": (str, False), "device": (str, False),
         "note": (str, False), "value": (_NUMBER, False)}
_FILE = {"paper": (dict, True), "tables": (list, False), "text": (list, False)}


class _Where:
    """Where in which file a problem is: every error message starts with it."""

    def __init__(self, file: str, *parts: str):
        self.text = ", ".join((file, *parts))

    def fail(self, problem: str):
        raise CipherfabError(f"papers data {self.text}: {problem}")


def _fields(value, spec: dict, where: _Where) -> dict:
    """``value`` as a dict holding only the keys of ``spec``, each of its type."""
    if not isinstance(value, dict):
        where.fail(f"expected a table of {', '.join(spec)}, got {value!r}")
    for key in value:
        if key not in spec:
            where.fail(f"unknown key {key!r} (allowed: {', '.join(spec)})")
    for key, (types, required) in spec.items():
        if key not in value:
            if required:
                where.fail(f"missing {key!r}")
            continue
        v = value[key]
        if not isinstance(v, types) or (types is _NUMBER and isinstance(v, bool)):
            where.fail(f"{key!r} is {v!r}, not {_type_name(types)}")
    return dict(value)


def _type_name(types) -> str:
    return {str: "text", list: "a list", dict: "a table", bool: "true/false",
            _NUMBER: "a number"}.get(types, str(types))


def _texts(values: list, where: _Where, what: str) -> tuple[str, ...]:
    """Printed cells: non-empty strings (a missing value is printed as '/', '-' or '---')."""
    for v in values:
        if not isinstance(v, str) or not v:
            where.fail(f"{what} {v!r} is not printed text (quote numbers: \"970.\")")
    return tuple(values)


def _column(c, where: _Where) -> dict:
    c = _fields(c, _COLUMN, where)
    return {"key": c["key"], "header": c["header"], "unit": c.get("unit")}


def _row(r, columns: list[dict], table: dict, where: _Where) -> dict:
    """One row: ``[label, cell, ...]`` or ``{row = [...], note = ..., ...}``."""
    r = _fields(r, _ROW, where) if isinstance(r, dict) else {"row": r}
    if not isinstance(r["row"], list) or not r["row"]:
        where.fail(f"a row is [label, cell, ...], got {r['row']!r}")
    label, *cells = _texts(r["row"], where, "cell")
    where = _Where(where.text, repr(label))
    if len(cells) != len(columns):
        where.fail(f"{len(cells)} cells after the label for {len(columns)} columns")
    parsed = r.get("parsed")
    if parsed is not None:
        if len(parsed) != len(cells) or not all(
                isinstance(p, _NUMBER) and not isinstance(p, bool) for p in parsed):
            where.fail(f"'parsed' must be {len(cells)} numbers, one per cell")
        parsed = tuple(parsed)
    has_device_cell = any(c["key"] == "device" for c in columns)
    if not (r.get("device") or has_device_cell or table.get("device")):
        where.fail("no device (give the row or its table a 'device', or add a Device column)")
    return {"label": label, "cells": tuple(cells), "device": r.get("device"),
            "note": r.get("note"), "verbatim": r.get("verbatim", True),
            "label_printed": r.get("label_printed", True), "parsed": parsed}


def _table(t, pid: str, file: str, index: int) -> dict:
    name = t.get("table") if isinstance(t, dict) else None
    where = _Where(file, name if isinstance(name, str) else f"table {index + 1}")
    t = _fields(t, _TABLE, where)
    if not t["columns"]:
        where.fail("no columns")
    columns = [_column(c, _Where(file, t["table"], f"column {i + 1}"))
               for i, c in enumerate(t["columns"])]
    keys = [c["key"] for c in columns]
    if len(set(keys)) != len(keys):
        where.fail(f"column keys repeat: {keys}")
    rows = [_row(r, columns, t, _Where(file, t["table"], f"row {i + 1}"))
            for i, r in enumerate(t["rows"])]
    if not rows:
        where.fail("no rows")
    return {"paper": pid, "table": t["table"], "caption": t["caption"], "columns": columns,
            "rows": rows, "device": t.get("device"), "note": t.get("note"),
            "label_header": t.get("label_header", "Design")}


def _anchor(a, pid: str, file: str, index: int) -> dict:
    name = a.get("row") if isinstance(a, dict) else None
    where = _Where(file, f"text {name!r}" if isinstance(name, str) else f"text {index + 1}")
    a = _fields(a, _TEXT, where)
    if a["printed"] not in a["quote"]:
        where.fail(f"printed {a['printed']!r} does not occur in its quote")
    if not a.get("device"):
        where.fail("no device")
    return {"paper": pid, "where": a["where"], "row": a["row"], "key": a["key"],
            "printed": a["printed"], "unit": a.get("unit"), "quote": a["quote"],
            "device": a["device"], "note": a.get("note"), "value": a.get("value")}


def _unique(names: list[str], file: str, what: str):
    seen = set()
    for n in names:
        if n in seen:
            _Where(file, n).fail(f"two {what} named {n!r}")
        seen.add(n)


def read_paper(path: Path) -> dict:
    """One paper's file: ``{"id", "short", "cite", "title", "tables", "anchors"}``."""
    file, short = path.name, path.stem
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        _Where(file).fail(f"cannot read {path}: {e.strerror or e}")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        _Where(file).fail(f"not valid TOML: {e}")
    raw = _fields(raw, _FILE, _Where(file))
    meta = _fields(raw["paper"], _PAPER, _Where(file, "[paper]"))
    pid = meta["id"]
    if not pid.startswith(short + "_"):
        _Where(file, "[paper]").fail(f"id {pid!r} is not paper {short}'s file name")
    tables = [_table(t, pid, file, i) for i, t in enumerate(raw.get("tables", []))]
    anchors = [_anchor(a, pid, file, i) for i, a in enumerate(raw.get("text", []))]
    _unique([t["table"] for t in tables], file, "tables")
    _unique([a["row"] for a in anchors], file, "text numbers")
    return {"id": pid, "short": short, "cite": meta["cite"], "title": meta["title"],
            "tables": tables, "anchors": anchors}


def read_all(folder: Path | None = None) -> list[dict]:
    """Every paper of :data:`PAPER_FILES`, in order; a missing or unknown file is an error."""
    folder = Path(folder or DATA_DIR)
    found = {p.stem for p in folder.glob("*.toml")}
    for short in PAPER_FILES:
        if short not in found:
            _Where(f"{short}.toml").fail(f"missing from {folder} (one file per paper "
                                         f"{', '.join(PAPER_FILES)})")
    for extra in sorted(found - set(PAPER_FILES)):
        _Where(f"{extra}.toml").fail(f"not one of the papers {', '.join(PAPER_FILES)} "
                                     "(add it to paper_files.PAPER_FILES)")
    return [read_paper(folder / f"{short}.toml") for short in PAPER_FILES]
