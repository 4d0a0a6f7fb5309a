"""The published numbers: key anchors, and every verbatim row checked against the paper text."""

import json
from pathlib import Path

import pytest

from cipherfab.study import papers as P

PAPER_DIR = Path("/work/shared/papers")


def test_key_anchors():
    assert P.value("003", "Table 7.1", "the authors", "throughput_mbps") == 755.1
    assert P.get_row("003", "7.1", "the authors")["device"].startswith("XCV1000HQ240-6")
    row = P.get_row("004", "Table 1", "original")
    assert row["values"]["slices"]["value"] == 449
    assert row["values"]["fmax_mhz"]["value"] == 73.7
    assert row["values"]["throughput_mbps"]["value"] == 858.0
    assert row["values"]["throughput_mbps"]["printed"] == "858."
    assert row["values"]["throughput_mbps"]["unit"] == "Mbps"
    assert row["device"].startswith("XC2V4000-FF1252-4")
    assert P.value("004", "Table 1", "original (w/o BlockRAM)", "slices") == 1777
    assert P.value("004", "Table 2", "original", "wiring_ratio") == 0.698
    assert P.value("004", "Table 3", "pl_original", "synthesis_s") == 6313.0
    assert P.value("004", "Table 4", "original", "throughput_mbps") == 385.0
    assert P.value("004", "Table 6", "xor_collapse", "slices") == 103
    assert P.value("002", "Table 1", "Proposed", "throughput_mbps") == 1940.9
    assert P.value("002", "Table 2", "Proposed", "bram") == 8
    assert P.value("002", "Table 3", "Proposed", "slices_per_gbps") == 578.05
    assert P.value("001", "Table 4", "Sequential RIJNDAEL", "fmax_mhz") == 127
    assert P.value("001", "Table 1", "γ", "lut") == 2304
    assert P.value("001", "Table 4", "Pipeline RIJNDAEL", "fmax_mhz") is None  # printed "/"
    assert P.value("001", "Table 6", 7, "slices") == 405
    assert P.value("001", "Table 7", 1, "throughput_mbps") == 11776
    assert P.value("000", "Table 3", "Rijndael", "throughput_mbps") == 353.0
    assert P.value("000", "Table 10", "Rijndael", "sw_throughput_mbps") == 243.0
    assert P.value("000", "Table 11", "Rijndael", "asic_throughput_mbps") == 605.77
    # text anchors
    assert P.get_anchor("003", "maximum core frequency")["values"]["fmax_mhz"]["value"] == 65
    assert P.get_anchor("003", "cycles per block")["values"]["cycles_per_block"]["value"] == 11
    assert P.get_anchor("003", "BRAMs of the iterative core")["values"]["bram"]["value"] == 10
    assert P.get_anchor("003", "system throughput, MMX + uncacheable")[
        "values"]["system_throughput_mbps"]["value"] == 210


def test_sections_requested_by_the_spec_are_present():
    have = {(t.short, t.table) for t in P.tables()}
    want = {("003", "Table 7.1")}
    want |= {("004", f"Table {i}") for i in range(1, 7)}
    want |= {("001", f"Table {i}") for i in range(4, 8)}
    want |= {("002", f"Table {i}") for i in range(1, 4)}
    want |= {("000", f"Table {i}") for i in range(6, 11)}
    assert want <= have


def test_every_row_has_a_device_and_values_keep_printed_form():
    for e in P.entries():
        assert e["device"], (e["paper"], e["table"], e["row"])
        assert e["paper"] in P.PAPERS
        for v in e["values"].values():
            assert isinstance(v["printed"], str) and v["printed"]
    json.dumps(P.entries())  # JSON-ready


def test_missing_tables_are_flagged_not_invented():
    for t in ("Table 6", "Table 7", "Table 8"):
        tab = P.get_table("000", t)
        assert "missing from the extracted text" in tab.note
        assert not any(r.verbatim for r in tab.rows)


@pytest.mark.parametrize("printed, value", [
    ("970.", 970.0), ("449", 449), ("2275 (33%)", 2275), ("[3] 188.00", 188.0),
    ("/", None), ("-", None), ("---", None), ("5/52", None), ("1/1.84", None), ("IL", None),
    ("0.433", 0.433)])
def test_parse_number(printed, value):
    got = P.parse_number(printed)
    assert got == value and type(got) is type(value)


def _tab_lines(text: str) -> list[list[str]]:
    out = []
    for line in text.splitlines():
        cells = line.split("\t")
        while cells and cells[-1] == "":
            cells.pop()
        out.append(cells)
    return out


@pytest.mark.skipif(not PAPER_DIR.is_dir(), reason="paper texts not available")
def test_rows_are_transcribed_verbatim():
    checked = 0
    for t in P.tables():
        lines = _tab_lines((PAPER_DIR / t.paper).read_text())
        for r in t.rows:
            if not r.verbatim:
                continue
            want = ([r.label] if r.label_printed else []) + list(r.cells)
            assert want in lines, f"paper {t.short} {t.table} row {r.label!r}: {want}"
            checked += 1
    assert checked > 100


@pytest.mark.skipif(not PAPER_DIR.is_dir(), reason="paper texts not available")
def test_text_anchor_quotes_are_verbatim():
    for a in P.text_anchors():
        text = (PAPER_DIR / a.paper).read_text()
        assert a.quote in text, a.quote
        assert a.printed in a.quote


@pytest.mark.skipif(not PAPER_DIR.is_dir(), reason="paper texts not available")
def test_non_verbatim_cells_still_match_the_numbers_in_the_text():
    # paper 000 Tables 6-8 reuse Tables 1-5; paper 001 Table 1 is LaTeX in the text
    for t in ("Table 6", "Table 7", "Table 8"):
        for r in P.get_table("000", t).rows:
            src = P.get_table("000", r.note.split(" of paper")[0].removeprefix("values from "))
            for c, cell in zip(P.get_table("000", t).columns, r.cells):
                i = [cc.key for cc in src.columns].index(c.key)
                assert src.rows[0].cells[i] == cell
    text = (PAPER_DIR / P.P001).read_text()
    assert "$144 \\times 16 = 2304$" in text and "$42 \\times 16 = 672$" in text
