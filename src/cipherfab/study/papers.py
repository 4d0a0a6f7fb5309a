"""The papers' published numbers, as printed, with their devices: the API over the data files.

The numbers live in ``data/papers/<short>.toml``, one file per paper of
the papers folder's ``INDEX.md`` (``../shared/papers/`` beside the repository), so that a researcher corrects a transcription in
data rather than in code; :mod:`.paper_files` reads and checks them (a malformed or
missing file is one :class:`~cipherfab.errors.CipherfabError` line naming the file and
the entry).  They are read on first use, not at import, so a broken file fails the
report that needs it, not every ``cipherfab`` command.

Every cell is kept as the *printed string* (``"970."``, ``"5/52"``,
``"2275 (33%)"``, ``"[3] 188.00"``, ``"/"``); the numeric value is parsed from
it (a plain decimal, optionally with a ``[ref]`` prefix or a ``(nn%)``
suffix) and is ``None`` for anything else (``/``, ``-``, ``---``, fractions).
Where the extracted text is ambiguous or self-contradictory the row or table
carries a ``note`` instead of a guess.

File format (TOML; strings only where the paper prints text or numbers)::

    [paper]                     # the source: INDEX.md's file name, citation, title
    id = "004_ecc98c3b1ab80ceb.txt"
    cite = "Atono, Ichikawa, IEICE 2006"
    title = "Design and Evaluation of ..."

    [[tables]]                  # one per table, in the paper's order
    table = "Table 1"           # the number as printed ("Table 7.1")
    caption = "..."             # as printed
    device = "XC2V4000-FF1252-4 (Virtex-II)"  # of every row, unless the row or a Device column says
    note = "..."                # optional: how to read the table
    label_header = "Type"       # optional: the first column's header (default "Design")
    columns = [ { key = "slices", header = "Logic Scale (slice)", unit = "slice" }, ... ]
    rows = [
      ["original", "108.", "449", ...],          # label, then one printed cell per column
      { row = ["fixed_key", ...], note = "...", device = "...",
        verbatim = false,       # label and cells are not one line of the paper text
        label_printed = false,  # the label is ours (a one-row table named by its caption)
        parsed = [2304, 672] }, # the numbers, where a printed cell is an expression
    ]

    [[text]]                    # a number stated in the running text
    where = "4"                 # section
    row = "XC2V4000 capacity"   # what the number is about (the look-up name)
    key = "slices"
    printed = "23040"           # as printed; must occur in the quote
    unit = "Slice"
    device = "..."
    quote = "which contains 23040 Slice and 120 BlockRAM"
    note = "..."                # optional; value = 10 where the printed form is a word

``tests/study/test_papers.py`` checks every verbatim row against the paper texts.

Public API (unchanged since the numbers were Python literals):

- :data:`PAPERS` - paper id -> short id, citation, title; ``P000`` .. ``P004`` the ids.
- :func:`tables` - every :class:`Table` (rows with their columns and devices).
- :func:`text_anchors` - numbers stated in the running text (with a quote).
- :func:`entries` - both, flattened to JSON-ready dicts (paper, table, row,
  device, values {key: {value, unit, printed, header}}, note).
- :func:`get_table`, :func:`get_row`, :func:`value` - look-ups; the paper may
  be given as its file name or its three-digit short id (``"004"``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from . import paper_files


@dataclass(frozen=True)
class Column:
    key: str            #: normalised quantity name used by reports
    header: str         #: the column header as printed (flattened to one line)
    unit: str | None    #: the unit as printed, None for text columns


@dataclass(frozen=True)
class Row:
    label: str                  #: row label as printed (see label_printed)
    cells: tuple[str, ...]      #: the cells after the label, as printed
    device: str | None = None   #: overrides the table's device for this row
    note: str | None = None
    verbatim: bool = True       #: label + cells appear as one tab-separated line of the paper text
    label_printed: bool = True  #: False when the label is ours (a one-row table titled by its caption)
    parsed: tuple | None = None  #: numeric values where a printed cell is an expression


@dataclass(frozen=True)
class Table:
    paper: str
    table: str                  #: "Table 7.1"
    caption: str                #: as printed
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    device: str | None = None   #: device of every row unless the row (or a device column) says otherwise
    note: str | None = None
    label_header: str = "Design"

    @property
    def short(self) -> str:
        return _data().papers[self.paper]["short"]


@dataclass(frozen=True)
class TextAnchor:
    paper: str
    where: str          #: section / paragraph
    row: str            #: what the number is about
    key: str
    printed: str        #: the number as printed
    unit: str | None
    quote: str          #: verbatim extract of the paper text that contains it
    device: str | None = None
    note: str | None = None
    value: int | float | None = None  #: only where the printed form is not a numeral ("ten")


_NUM = re.compile(r"^(?:\[(\d+)\]\s+)?(-?\d+(?:\.\d*)?)(?:\s*\((\d+)%\))?$")


def parse_number(printed: str) -> int | float | None:
    """The numeric value of a printed cell, or None when it is not a plain number.

    ``"970."`` -> 970.0, ``"449"`` -> 449, ``"2275 (33%)"`` -> 2275,
    ``"[3] 188.00"`` -> 188.0, ``"/"``/``"-"``/``"---"``/``"5/52"``/``"1/1.84"`` -> None.
    """
    m = _NUM.match(printed.strip())
    if not m:
        return None
    s = m.group(2)
    return float(s) if "." in s else int(s)


@dataclass(frozen=True)
class _Loaded:
    papers: dict[str, dict[str, str]]
    tables: tuple[Table, ...]
    anchors: tuple[TextAnchor, ...]


def _build(files: list[dict]) -> _Loaded:
    """The checked file contents as the dataclasses the look-ups return."""
    papers = {f["id"]: {"short": f["short"], "cite": f["cite"], "title": f["title"]} for f in files}
    tables = tuple(
        Table(t["paper"], t["table"], t["caption"], tuple(Column(**c) for c in t["columns"]),
              tuple(Row(**r) for r in t["rows"]), t["device"], t["note"], t["label_header"])
        for f in files for t in f["tables"])
    anchors = tuple(TextAnchor(**a) for f in files for a in f["anchors"])
    return _Loaded(papers, tables, anchors)


@functools.cache
def _data() -> _Loaded:
    return _build(paper_files.read_all())


def __getattr__(name: str):
    """``PAPERS`` and ``P000`` .. ``P004`` are read from the data files on first use."""
    if name == "PAPERS":
        return _data().papers
    if re.fullmatch(r"P\d{3}", name):
        for pid, meta in _data().papers.items():
            if meta["short"] == name[1:]:
                return pid
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tables() -> tuple[Table, ...]:
    """Every transcribed table, papers 000..004 in order."""
    return _data().tables


def text_anchors() -> tuple[TextAnchor, ...]:
    return _data().anchors


def _paper_id(paper: str) -> str:
    papers = _data().papers
    if paper in papers:
        return paper
    for pid, meta in papers.items():
        if meta["short"] == paper or pid.split(".")[0] == paper:
            return pid
    raise KeyError(f"unknown paper {paper!r}")


def _norm_table(table: str) -> str:
    t = table.strip()
    return t if t.lower().startswith("table") else f"Table {t}"


def get_table(paper: str, table: str) -> Table:
    pid, tname = _paper_id(paper), _norm_table(table)
    for t in tables():
        if t.paper == pid and t.table == tname:
            return t
    raise KeyError(f"no {tname} in paper {pid}")


def row_device(t: Table, r: Row) -> str | None:
    """The device of one row: the row's own, else the printed Device cell, else the table's."""
    if r.device:
        return r.device
    for c, cell in zip(t.columns, r.cells):
        if c.key == "device":
            return cell
    return t.device


def row_entry(t: Table, r: Row, index: int) -> dict:
    values = {}
    parsed = r.parsed or tuple(parse_number(cell) for cell in r.cells)
    for c, cell, num in zip(t.columns, r.cells, parsed):
        if c.key == "device":
            continue
        values[c.key] = {"value": num,
                         "printed": cell, "unit": c.unit, "header": c.header}
    notes = [n for n in (r.note, ) if n]
    return {"paper": t.paper, "paper_short": t.short, "table": t.table, "caption": t.caption,
            "row": r.label, "row_index": index, "device": row_device(t, r), "values": values,
            "note": "; ".join(notes) or None, "table_note": t.note, "verbatim": r.verbatim}


def anchor_entry(a: TextAnchor) -> dict:
    return {"paper": a.paper, "paper_short": _data().papers[a.paper]["short"],
            "table": f"text (section {a.where})", "caption": None, "row": a.row,
            "row_index": None, "device": a.device,
            "values": {a.key: {"value": a.value if a.value is not None else parse_number(a.printed),
                               "printed": a.printed,
                               "unit": a.unit, "header": a.row}},
            "note": a.note, "table_note": None, "verbatim": True, "quote": a.quote}


def get_anchor(paper: str, row: str) -> dict:
    """A text anchor of one paper, by its ``row`` description."""
    pid = _paper_id(paper)
    for a in text_anchors():
        if a.paper == pid and a.row == row:
            return anchor_entry(a)
    raise KeyError(f"no text anchor {row!r} in paper {pid}")


def get_row(paper: str, table: str, row: str | int) -> dict:
    """One row as an entry dict; ``row`` is the printed label or the 0-based row index
    (labels repeat in some tables, e.g. paper 001 Table 6).  ``table="text"`` looks up a
    text anchor by its description."""
    if table == "text":
        return get_anchor(paper, str(row))
    t = get_table(paper, table)
    if isinstance(row, int):
        return row_entry(t, t.rows[row], row)
    hits = [i for i, r in enumerate(t.rows) if r.label == row]
    if not hits:
        raise KeyError(f"no row {row!r} in {t.table} of paper {t.paper}")
    if len(hits) > 1:
        raise KeyError(f"row label {row!r} is not unique in {t.table} of paper {t.paper}; "
                       f"use its index {hits}")
    return row_entry(t, t.rows[hits[0]], hits[0])


def value(paper: str, table: str, row: str | int, key: str):
    """The parsed number of one cell (None when the printed cell is not a number)."""
    return get_row(paper, table, row)["values"][key]["value"]


def entries() -> list[dict]:
    """Every table row and text anchor as a JSON-ready dict."""
    out = []
    for t in tables():
        out.extend(row_entry(t, r, i) for i, r in enumerate(t.rows))
    out.extend(anchor_entry(a) for a in text_anchors())
    return out


def selected_entries(selections) -> list[tuple[Table, dict]]:
    """(table, :func:`row_entry`) of every table row a study's ``published`` selections name,
    in table order (a selection without ``rows`` takes them all; ``text`` selections are
    anchors, not table rows; a table not in the data is skipped)."""
    out = []
    for sel in selections or []:
        if sel["table"] == "text":
            continue
        try:
            t = get_table(sel["paper"], sel["table"])
        except KeyError:
            continue
        want = list(sel.get("rows") or [])
        out.extend((t, row_entry(t, r, i)) for i, r in enumerate(t.rows)
                   if not want or i in want or r.label in want)
    return out


def table_dict(t: Table, rows: list[int | str] | None = None) -> dict:
    """A table (optionally a subset of its rows) as a JSON-ready dict for reports."""
    idx = list(range(len(t.rows)))
    if rows is not None:
        idx = []
        for r in rows:
            if isinstance(r, int):
                idx.append(r)
            else:
                idx.extend(i for i, rr in enumerate(t.rows) if rr.label == r)
    return {"paper": t.paper, "paper_short": t.short, "cite": _data().papers[t.paper]["cite"],
            "table": t.table, "caption": t.caption, "device": t.device, "note": t.note,
            "label_header": t.label_header,
            "columns": [{"key": c.key, "header": c.header, "unit": c.unit} for c in t.columns],
            "rows": [{"label": t.rows[i].label, "cells": list(t.rows[i].cells),
                      "device": row_device(t, t.rows[i]), "note": t.rows[i].note} for i in idx]}
