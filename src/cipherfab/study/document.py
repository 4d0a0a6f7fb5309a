"""A report as a document (headings, paragraphs, code, lists, tables, images), rendered to
Markdown and HTML by two Jinja2 templates in ``data/templates/``.

Why a document plus two templates rather than one template with a format switch: the
*content* (what a study report says, in which order, with which captions and notes) is
built once, as a :class:`Doc`, by ``report.build_doc`` and the study plug-ins' ``section``
functions, so report.md and report.html cannot say different things.  What differs
between the formats is only syntax, and it differs in every block (a table is pipes and
``---:`` in one, ``<tr>``/``<td class='r'>`` in the other; escaping is ``\\|`` in one and
HTML entities in the other): a single template would interleave the two syntaxes line by
line, while two ~40-line templates each read as the format they produce.

Escaping: the HTML environment escapes every ``{{ value }}`` with :func:`html.escape`
(``&#x27;`` for a quote, as the committed reports have), not Jinja's own escape
(``&#39;``), so the rendered reports stay byte-identical to those written before
templates; ``|inline`` additionally turns `code` spans into ``<code>``.
"""

from __future__ import annotations

import base64
import functools
import html
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

TEMPLATES = Path(__file__).resolve().parent / "data" / "templates"


class Doc:
    """The blocks of a report, in order; each block is a dict with its ``kind``."""

    def __init__(self):
        self.blocks: list[dict[str, Any]] = []

    def h(self, level: int, text: str):
        self.blocks.append({"kind": "h", "level": level, "text": text})

    def p(self, text: str):
        self.blocks.append({"kind": "p", "text": text})

    def code(self, text: str):
        self.blocks.append({"kind": "code", "text": text})

    def ul(self, items: list[str]):
        self.blocks.append({"kind": "ul", "bullets": list(items)})

    def table(self, headers: list[str], rows: list[list[str]], caption: str = "",
              notes: list[str] | None = None, align: list[str] | None = None):
        """``align``: "l" or "r" per column; by default the first column left, the rest right."""
        self.blocks.append({"kind": "table", "headers": headers, "rows": rows, "caption": caption,
                            "notes": notes or [],
                            "align": align or ["l"] + ["r"] * (len(headers) - 1)})

    def img(self, file: str, title: str, caption: str):
        self.blocks.append({"kind": "img", "file": file, "title": title, "caption": caption})

    def chart(self, data: str, script: str, caption: str):
        """An interactive chart (:mod:`.chart`): its JSON data and drawing code, inlined in
        report.html; report.md gives the caption only."""
        self.blocks.append({"kind": "chart", "data": data, "script": script, "caption": caption})


def _md_cell(s: Any) -> str:
    """A Markdown table cell: a pipe would end the cell, a newline the row."""
    return str(s).replace("|", "\\|").replace("\n", " ")


def _html_value(v: Any) -> Markup:
    """Every ``{{ value }}`` of the HTML template, escaped as :func:`html.escape` does."""
    return v if isinstance(v, Markup) else Markup(html.escape(str(v)))


def _inline(text: str) -> Markup:
    """Escape, then turn `code` spans into <code>."""
    parts = html.escape(text).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


@functools.cache
def _env(fmt: str) -> jinja2.Environment:
    """The environment of one format: Markdown (no escaping) or HTML (escaping everything)."""
    is_html = fmt == "html"
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        autoescape=is_html, finalize=_html_value if is_html else None)
    env.filters.update(md_cell=_md_cell, inline=_inline)
    env.globals["zip"] = zip
    return env


def render_md(doc: Doc) -> str:
    """report.md: the blocks separated by blank lines, ending in exactly one newline."""
    return _env("md").get_template("report.md.j2").render(blocks=doc.blocks).rstrip() + "\n"


def render_html(doc: Doc, folder: Path | None = None, title: str = "study report") -> str:
    """report.html, self-contained: images found in ``folder`` are embedded as data URIs
    (and still linked by file name)."""
    blocks = [dict(b, src=_image_source(b["file"], folder)) if b["kind"] == "img" else b
              for b in doc.blocks]
    return _env("html").get_template("report.html.j2").render(blocks=blocks, title=title)


def _image_source(file: str, folder: Path | None) -> str:
    path = Path(folder) / file if folder is not None else None
    if path is None or not path.exists():
        return file
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
