"""The published numbers: key anchors, and every verbatim row checked against the paper text."""

import json
from pathlib import Path

import pytest

from cipherfab.study import papers as P

#: the papers folder beside the repository (the project's shared/ checkout), when it is there
PAPER_DIR = Path(__file__).resolve().parents[3] / "shared" / "papers"


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


# ------------------------------------------------------------------------- the data files

from cipherfab.errors import CipherfabError  # noqa: E402
from cipherfab.study import paper_files  # noqa: E402


def test_every_paper_has_its_data_file_with_the_index_title():
    files = paper_files.read_all()
    assert [f["short"] for f in files] == list(paper_files.PAPER_FILES)
    for f in files:
        assert P.PAPERS[f["id"]]["title"] == f["title"]
    if PAPER_DIR.is_dir():
        for f in files:
            assert f["title"] in (PAPER_DIR / f["id"]).read_text()[:2000], f["id"]


# (file, text replaced, its replacement, what the one-line error must say)
BAD_DATA = [
    ("004.toml", 'rows = [', 'rows = [[', "004.toml: not valid TOML"),
    ("001.toml", 'note = "Synthesis estimate (FPGA Express 3.6.1), not',
     'ntoe = "Synthesis estimate (FPGA Express 3.6.1), not', "001.toml, Table 1: unknown key 'ntoe'"),
    ("004.toml", '["original", "108.", "449", "10", "73.7", "858."]',
     '["original", "108.", "449", "10", "73.7"]',
     "004.toml, Table 1, row 2, 'original': 4 cells after the label for 5 columns"),
    ("004.toml", '["original", "108.", "449",', '["original", "108.", 449,',
     "004.toml, Table 1, row 2: cell 449 is not printed text"),
    ("002.toml", 'caption = "Area and Memory Usage Comparisons of AES-128 Implementations"\n', '',
     "002.toml, Table 3: missing 'caption'"),
    ("003.toml", 'id = "003_fdeedb538389ae39.txt"', 'id = "004_fdeedb538389ae39.txt"',
     "003.toml, [paper]: id '004_fdeedb538389ae39.txt' is not paper 003's file name"),
    ("002.toml", 'table = "Table 2"', 'table = "Table 1"', "002.toml, Table 1: two tables named"),
    ("004.toml", 'printed = "23040"', 'printed = "23041"',
     "004.toml, text 'XC2V4000 capacity': printed '23041' does not occur in its quote"),
    ("001.toml", 'parsed = [2304, 672, 5.8]', 'parsed = [2304, 672]',
     "001.toml, Table 1, row 1, 'γ': 'parsed' must be 3 numbers, one per cell"),
    ("001.toml", 'verbatim = false, parsed', 'verbatim = "no", parsed',
     "001.toml, Table 1, row 1: 'verbatim' is 'no', not true/false"),
]


@pytest.fixture
def data_copy(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    for f in paper_files.DATA_DIR.glob("*.toml"):
        (folder / f.name).write_bytes(f.read_bytes())
    return folder


def _one_line_error(folder) -> str:
    with pytest.raises(CipherfabError) as e:
        paper_files.read_all(folder)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("papers data ")
    return msg


@pytest.mark.parametrize("file, old, new, needle", BAD_DATA)
def test_a_malformed_data_file_is_one_line_naming_file_and_entry(data_copy, file, old, new, needle):
    text = (data_copy / file).read_text()
    assert old in text  # the case still edits what it means to
    (data_copy / file).write_text(text.replace(old, new, 1))
    assert needle in _one_line_error(data_copy)


def test_a_row_without_any_device_is_refused(data_copy):
    text = (data_copy / "004.toml").read_text()
    (data_copy / "004.toml").write_text(text.replace('device = "XC2V4000-FF1252-4 (Virtex-II)"\n', "", 1))
    assert "004.toml, Table 1, row 1, 'original (w/o BlockRAM)': no device" in _one_line_error(data_copy)


def test_a_missing_or_unknown_data_file_is_refused(data_copy):
    (data_copy / "005.toml").write_text((data_copy / "004.toml").read_text())
    assert "005.toml: not one of the papers 000, 001, 002, 003, 004" in _one_line_error(data_copy)
    (data_copy / "005.toml").unlink()
    (data_copy / "003.toml").unlink()
    assert f"003.toml: missing from {data_copy}" in _one_line_error(data_copy)


def test_the_report_stops_on_broken_paper_data_before_writing(data_copy, tmp_path, monkeypatch, capsys):
    from cipherfab.study import report
    (data_copy / "002.toml").unlink()
    monkeypatch.setattr(paper_files, "DATA_DIR", data_copy)
    P._data.cache_clear()
    try:
        out = tmp_path / "r"
        out.mkdir()
        (out / "results.json").write_text(json.dumps({"study": {"name": "x"}, "aggregates": []}))
        assert report.main([str(out / "results.json")]) == 2
    finally:
        P._data.cache_clear()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "papers data 002.toml: missing from" in err[0]
    assert sorted(p.name for p in out.iterdir()) == ["results.json"]


def test_every_published_number_a_study_names_is_in_the_data():
    """The report skips a paper table or row it cannot find, so a label edited in a data file
    would silently drop it from a report: every name the studies use must resolve."""
    from cipherfab.study.studies import STUDIES
    for study in STUDIES.values():
        for sel in study.published:
            for row in sel.rows or ([] if sel.table == "text" else [0]):
                assert P.get_row(sel.paper, sel.table, row), (study.name, sel)
        for r in study.ratios:
            if r.paper:
                for row in (r.paper_num, r.paper_den):
                    assert r.key in P.get_row(r.paper, r.table, row)["values"], (study.name, r)
        for r in study.rankings:
            have = [name for name in r.names if P.value(r.paper, r.table, name, r.key) is not None]
            assert len(have) >= 2, (study.name, r.finding)
