"""The papers' published numbers, transcribed as printed, with their devices.

Every cell is kept as the *printed string* (``"970."``, ``"5/52"``,
``"2275 (33%)"``, ``"[3] 188.00"``, ``"/"``); the numeric value is parsed from
it (a plain decimal, optionally with a ``[ref]`` prefix or a ``(nn%)``
suffix) and is ``None`` for anything else (``/``, ``-``, ``---``, fractions).
Where the extracted text is ambiguous or self-contradictory the row or table
carries a ``note`` instead of a guess.

The source texts are ``/work/shared/papers/<paper id>`` (see INDEX.md there);
``tests/study/test_papers.py`` checks every verbatim row against them.

Public API:

- :data:`PAPERS` - paper id -> short id, citation, what it is about.
- :func:`tables` - every :class:`Table` (rows with their columns and devices).
- :func:`text_anchors` - numbers stated in the running text (with a quote).
- :func:`entries` - both, flattened to JSON-ready dicts (paper, table, row,
  device, values {key: {value, unit, printed, header}}, note).
- :func:`get_table`, :func:`get_row`, :func:`value` - look-ups; the paper may
  be given as its file name or its three-digit short id (``"004"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

P000 = "000_fea2e17343804b7a.txt"
P001 = "001_3a50a7d0a86e39aa.txt"
P002 = "002_1ec6ef09f9f7e661.txt"
P003 = "003_fdeedb538389ae39.txt"
P004 = "004_ecc98c3b1ab80ceb.txt"

PAPERS: dict[str, dict[str, str]] = {
    P000: {"short": "000", "cite": "Dandalis, Prasanna, Rolim, AES3 2000",
           "title": "A Comparative Study of Performance of AES Final Candidates Using FPGAs"},
    P001: {"short": "001", "cite": "Standaert, Rouvroy, Quisquater, Legat, FPGA'03",
           "title": "A Methodology to Implement Block Ciphers in Reconfigurable Hardware "
                    "and its Application to Fast and Compact AES RIJNDAEL"},
    P002: {"short": "002", "cite": "Brokalakis et al.",
           "title": "A High-Speed and Area Efficient Hardware Implementation of "
                    "AES-128 Encryption Standard"},
    P003: {"short": "003", "cite": "Tong, Lo, Lee, Leong",
           "title": "A System Level Implementation of Rijndael on a Memory-slot based "
                    "FPGA Card"},
    P004: {"short": "004", "cite": "Atono, Ichikawa, IEICE 2006",
           "title": "Design and Evaluation of Data-Dependent Hardware for AES "
                    "Encryption Algorithm"},
}


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
        return PAPERS[self.paper]["short"]


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


def _t(paper, table, caption, columns, rows, **kw) -> Table:
    cols = tuple(Column(*c) for c in columns)
    out = []
    for r in rows:
        if isinstance(r, Row):
            out.append(r)
        else:
            label, *cells = r
            out.append(Row(label, tuple(cells)))
    for r in out:
        if len(r.cells) != len(cols):
            raise AssertionError(f"{paper} {table} row {r.label!r}: {len(r.cells)} cells, "
                                 f"{len(cols)} columns")
    return Table(paper, table, caption, cols, tuple(out), **kw)


# --------------------------------------------------------------------------------------
# paper 000 - Dandalis, Prasanna, Rolim (AES3 2000)
# --------------------------------------------------------------------------------------

_D000 = ("Xilinx Virtex, speed grade -6 (part not named in paper 000; papers 001 Table 5 "
         "and 003 Table 7.1 list this design on an XCV1000)")
_N000 = ("Single-round iterative core, 128-bit key, key setup running concurrently with "
         "encryption; placed-and-routed with Xilinx Foundation Series v2.1i.")
_C000 = [
    ("key_setup_latency_us", "Key-Setup Latency µs", "µs"),
    ("key_setup_fraction", "key-setup latency time / block encryption time", "ratio"),
    ("throughput_mbps", "Throughput Mbits / sec", "Mbits / sec"),
    ("throughput_per_slice_kbps", "Throughput KBits / (sec*slice)", "KBits / (sec*slice)"),
    ("slices", "Area Requirements Total", "slices"),
    ("slices_key_setup", "# of slices Key-Setup", "slices"),
    ("slices_core", "# of slices Cryptographic Core", "slices"),
]
_C000_MB = [(k, h.replace("Mbits", "MBits"), u.replace("Mbits", "MBits")) for k, h, u in _C000]

# (table, algorithm, printed-units columns, cells)
_P000_ALGOS = [
    ("Table 1", "MARS", _C000, ("1.96", "3.12", "101.88", "29.55", "6896", "2275 (33%)", "4621 (67%)"),
     "Key setup without the final key-word modification (string matching) stage."),
    ("Table 2", "RC6", _C000, ("0.17", "0.15", "112.87", "42.59", "2650", "901 (34%)", "1749 (66%)"), None),
    ("Table 3", "Rijndael", _C000_MB, ("0.07", "0.20", "353.00", "62.22", "5673", "1361 (24%)", "4312 (76%)"),
     "ROM-based look-up table round (S-box and MixColumns merged), 10 rounds."),
    ("Table 4", "Serpent", _C000_MB, ("0.08", "0.09", "148.95", "58.41", "2550", "1300 (51%)", "1250 (49%)"), None),
    ("Table 5", "Twofish", _C000_MB, ("0.18", "0.25", "173.06", "18.48", "9363", "6554 (70%)", "2809 (30%)"), None),
]

_T000 = [
    _t(P000, tab, f"Implementation Results for {algo}", cols,
       [Row(algo, cells, note=note, label_printed=False)],
       device=_D000, note=_N000, label_header="Algorithm")
    for tab, algo, cols, cells, note in _P000_ALGOS
]

_MISSING = ("The body of {t} is missing from the extracted text (only its caption survives). "
            "These rows carry the same quantities from Tables 1-5 of paper 000 (one table per "
            "algorithm), which {t} summarises; they are NOT a transcription of {t} itself.")


def _summary(table, caption, keys):
    cols = [c for c in _C000_MB if c[0] in keys]
    idx = [i for i, c in enumerate(_C000_MB) if c[0] in keys]
    rows = [Row(algo, tuple(cells[i] for i in idx), verbatim=False,
                note=f"values from {tab} of paper 000")
            for tab, algo, _c, cells, _n in _P000_ALGOS]
    return _t(P000, table, caption, cols, rows, device=_D000,
              note=_MISSING.format(t=table), label_header="AES Algorithm")


_T000 += [
    _summary("Table 6", "Key-Setup Latency Comparisons of Our FPGA Implementations",
             {"key_setup_latency_us", "key_setup_fraction"}),
    _summary("Table 7", "Throughput Comparisons of Our FPGA Implementations",
             {"throughput_mbps", "throughput_per_slice_kbps"}),
    _summary("Table 8", "Area Comparisons of Our FPGA Implementations",
             {"slices", "slices_key_setup", "slices_core"}),
    _t(P000, "Table 9", "Performance Comparisons with FPGA Implementations [9,11]",
       [("throughput_elbirt9_mbps", "Throughput Mbits/sec [9]", "Mbits/sec"),
        ("throughput_mbps", "Throughput Mbits/sec Our", "Mbits/sec"),
        ("throughput_gaj11_mbps", "Throughput Mbits/sec [11]", "Mbits/sec")],
       [("MARS", "---", "101.88", "39.80"),
        ("RC6", "126.50", "112.87", "103.90"),
        ("Rijndael", "300.10", "353.00", "331.50"),
        ("Serpent", "444.20", "148.95", "339.40"),
        ("Twofish", "119.60", "173.06", "177.30")],
       device="Xilinx Virtex (all three columns); [9] = Elbirt et al., [11] = Gaj & Chodowiec",
       note="[9] values are its feedback-mode figures; [9] and [11] implement the "
            "cryptographic core only (no key setup).",
       label_header="AES Algorithm"),
    _t(P000, "Table 10", "Performance Comparisons with Software Implementations [3,4]",
       [("sw_throughput_mbps", "Throughput MBits/sec Software", "MBits/sec"),
        ("throughput_mbps", "Throughput MBits/sec Our", "MBits/sec"),
        ("throughput_speedup", "Throughput Speed-up", None),
        ("sw_key_setup_us", "Key-Setup Latency µs Software", "µs"),
        ("key_setup_latency_us", "Key-Setup Latency µs Our", "µs"),
        ("key_setup_speedup", "Key-Setup Latency Speed-up", None)],
       [("MARS", "[3] 188.00", "101.88", "1/1.84", "[4] 8.22", "1.96", "4.19"),
        ("RC6", "[3] 258.00", "112.87", "1/2.28", "[4] 3.79", "0.17", "22.29"),
        ("Rijndael", "[3] 243.00", "353.00", "1.45", "[4] 2.15", "0.07", "30.71"),
        ("Serpent", "[4] 60.90", "148.95", "2.44", "[4] 11.57", "0.08", "144.62"),
        ("Twofish", "[3] 204.00", "173.06", "1/1.17", "[4] 15.44", "0.18", "85.78")],
       device="Our: Xilinx Virtex -6; software: [3] Aoki & Lipmaa optimised assembly on "
              "Pentium II, [4] Bassham ANSI C",
       note="The [n] prefix in a software cell names the source of that number; speed-ups "
            "printed as 1/x are kept as text (value None).",
       label_header="AES Algorithm"),
    _t(P000, "Table 11", "Performance Comparisons with ASIC Implementations [17]",
       [("asic_throughput_mbps", "Throughput MBits/sec NSA ASIC", "MBits/sec"),
        ("throughput_mbps", "Throughput MBits/sec Our", "MBits/sec"),
        ("throughput_speedup", "Throughput Speed-up", None),
        ("asic_key_setup_us", "Key-Setup Latency µs NSA ASIC", "µs"),
        ("key_setup_latency_us", "Key-Setup Latency µs Our", "µs"),
        ("key_setup_speedup", "Key-Setup Latency Speed-up", None)],
       [("MARS", "56.71", "101.88", "1.79", "9.55", "1.96", "4.87"),
        ("RC6", "102.83", "112.87", "1.09", "5.74", "0.17", "33.76"),
        ("Rijndael", "605.77", "353.00", "1/1.71", "0.00", "0.07", "---"),
        ("Serpent", "202.33", "148.95", "1/1.35", "0.02", "0.08", "1/4"),
        ("Twofish", "105.14", "173.06", "1.64", "0.06", "0.18", "1/3")],
       device="Our: Xilinx Virtex -6 (0.18 µm); ASIC: NSA simulations [17], 0.5 µm MOSIS library, "
              "iterative architectures",
       label_header="AES Algorithm"),
]

# --------------------------------------------------------------------------------------
# paper 001 - Standaert, Rouvroy, Quisquater, Legat (FPGA'03)
# --------------------------------------------------------------------------------------

_D001_V = "XCV1000BG560-6 (printed VIRTEX1000BG560-6)"
_D001_VE = "XCV3200ECG1156-8 (printed VIRTEX3200ECG1156-8)"
_C001_COMP = [("lut", "Nbr of LUT", "LUT"), ("ff", "Nbr of registers", "registers"),
              ("delay_ns", "Estimated delay (ns)", "ns")]
_C001_IMPL = [
    ("lut", "Nbr of LUT", "LUT"), ("ff", "Nbr of reg.", "registers"),
    ("slices", "Nbr of slices", "slices"), ("bram", "RAM blocks", "RAM blocks"),
    ("latency_cycles", "Latency (cycles)", "cycles"),
    ("output_every_cycles", "Output every (cycles)", "cycles"),
    ("fmax_synth_mhz", "Freq. after Synt. (Mhz)", "Mhz"),
    ("fmax_mhz", "Freq. after Impl. (Mhz)", "Mhz"),
]
_N001_EVERY = ("'Output every' printed as b/c reads as b blocks every c cycles (b blocks "
               "interleaved in the round); kept as text.")

_T001 = [
    _t(P001, "Table 1", "Synthesis of the non-linear layer γ.", _C001_COMP,
       [Row("γ", ("144 × 16 = 2304", "42 × 16 = 672", "5.8"), verbatim=False,
            parsed=(2304, 672, 5.8),
            note="cells printed as LaTeX '$144 \\times 16 = 2304$' and '$42 \\times 16 = 672$'; "
                 "value is the product (16 S-boxes)")],
       device=_D001_V, note="Synthesis estimate (FPGA Express 3.6.1), not placed and routed.",
       label_header="Component"),
    _t(P001, "Table 2", "Synthesis of the Mixadd transform ϵ.", _C001_COMP,
       [("ϵ", "304", "304", "4.8")],
       device=_D001_V, note="Synthesis estimate (FPGA Express 3.6.1).", label_header="Component"),
    _t(P001, "Table 3", "Synthesis of the round and key round.", _C001_COMP,
       [("LUT-based round", "2608", "976", "5.8"),
        ("LUT-based key round", "768", "488", "5.8")],
       device=_D001_V, note="Synthesis estimate (FPGA Express 3.6.1).", label_header="Component"),
    _t(P001, "Table 4", "RIJNDAEL encryption implementations on VIRTEX1000.", _C001_IMPL,
       [Row("Pipeline RIJNDAEL", ("33712", "14592", "17984", "0", "42", "1", "172", "/"),
            note="does not fit a VIRTEX1000; no post-implementation frequency ('/')"),
        Row("Sequential RIJNDAEL", ("3916", "2132", "2257", "0", "52", "5/52", "172", "127"),
            note=_N001_EVERY)],
       device=_D001_V, note="LUT-based S-boxes; synthesis FPGA Express 3.6.1, implementation "
                            "Xilinx ISE-4.", label_header="Type"),
    _t(P001, "Table 5", "Comparisons with other LUT-based implementations.",
       [("slices", "Nbr of slices", "slices"), ("device", "Device", None),
        ("throughput_mbps", "Throughput (Mbits/s)", "Mbits/s"),
        ("throughput_per_slice", "Throughput/Area (Mbits/s / slices)", "Mbits/s/slices")],
       [("Gaj et al.", "2900", "VIRTEX1000", "331.5", "0.11"),
        ("Dandalis et al.", "5673", "VIRTEX1000", "353", "0.06"),
        Row("Elbirt et al.", ("9004", "VIRTEX1000", "1940", "0.22"),
            note="paper 003 Table 7.1 lists Elbirt as 10992 CLB / 1937.9 Mbit/sec on "
                 "XCV1000BG560-4"),
        Row("Our design", ("2257", "VIRTEX1000", "1563", "0.69"), device=_D001_V,
            note="the Sequential RIJNDAEL of Table 4 (127 MHz, 5 blocks / 52 cycles)")],
       note="Device column printed as the family/part name only.", label_header="Type"),
    _t(P001, "Table 6", "RIJNDAEL encryption implementations on VIRTEX3200E.", _C001_IMPL,
       [Row("Pipeline RIJNDAEL", ("4912", "7792", "5144", "100", "42", "1", "285", "112"),
            note="4-cycle round (register after the RAM S-box)"),
        Row("Pipeline RIJNDAEL", ("4272", "6832", "4032", "100", "32", "1", "232", "92"),
            note="3-cycle round"),
        Row("Pipeline RIJNDAEL", ("3516", "3840", "2784", "100", "21", "1", "208", "92"),
            note="2-cycle round"),
        Row("Sequential RIJNDAEL", ("1036", "1452", "866", "10", "52", "5/52", "285", "147"),
            note="4-cycle round; " + _N001_EVERY),
        Row("Sequential RIJNDAEL", ("965", "1372", "739", "10", "42", "4/42", "232", "135"),
            note="3-cycle round; " + _N001_EVERY),
        Row("Sequential RIJNDAEL", ("877", "932", "550", "10", "31", "3/31", "208", "117"),
            note="2-cycle round (31-cycle version); " + _N001_EVERY),
        Row("Sequential RIJNDAEL", ("877", "668", "542", "10", "21", "2/21", "208", "119"),
            note="2-cycle round, register after the multiplexor removed (21-cycle version); "
                 + _N001_EVERY),
        Row("Modified sequential", ("709", "413", "405", "10", "20", "2/20", "192", "87"),
            note="initial and final key additions folded into the round (Fig. 9); "
                 + _N001_EVERY)],
       device=_D001_VE, note="RAM-based (block RAM) S-boxes; rows differ only in pipeline "
                             "stages (section 6.2 list items 1-4).", label_header="Type"),
    _t(P001, "Table 7", "Comparisons with other RAM-based implementations.",
       [("lut", "Nbr of LUT's", "LUT"), ("slices", "Nbr of slices", "slices"),
        ("bram", "RAM blocks", "RAM blocks"), ("device", "Device", None),
        ("throughput_mbps", "Throughput (Mbits/s)", "Mbits/s"),
        ("throughput_per_area", "Throughput/Area (Mbits/s / slices.LUT's)", "Mbits/s/(slices or LUT's)")],
       [Row("McLoone et al.", ("/", "2222", "100", "VIRTEX810E", "6956", "3.1"),
            note="device printed 'VIRTEX810E'; paper 003 lists this design on an XCV812EBG560-8"),
        Row("Our design", ("3516", "2784", "100", "VIRTEX3200E", "11776", "4.2"), device=_D001_VE),
        ("Helion tech.", "899", "/", "10", "VIRTEX3200E", "1187", "1.32"),
        Row("Our design", ("877", "542", "10", "VIRTEX3200E", "1450", "1.65"), device=_D001_VE)],
       note="The last column's printed unit is 'Mbits/s / slices.LUT's': it is throughput per "
            "slice where slices are given (6956/2222, 11776/2784) and per LUT otherwise "
            "(1187/899) - except 1450/877 = 1.65, which is per LUT although 542 slices are given. "
            "Ambiguous as printed; compare throughput and area columns instead.",
       label_header="Type"),
]

# --------------------------------------------------------------------------------------
# paper 002 - Brokalakis et al.
# --------------------------------------------------------------------------------------

_D002 = "XC2V1000BG575-5 (Virtex-II, printed 'XC2V1000bg575 (speed grade -5)')"
_D002_OTHERS = "not stated in paper 002"
_REF002 = {
    "[2]": "[2] = Amphion (commercial core)",
    "[3]": "[3] = Helion Technology (commercial core)",
    "[4]": "[4] = Lipmaa, software (no area, no frequency)",
    "[6]": "[6] = Standaert et al., FPGA'03 (paper 001)",
    "[8]": "[8] = Labbe & Perez, FPL 2002: a 5-pipelined version (resources replicated 5 times)",
    "[10]": "[10] = George Mason University AES cores",
}


def _rows002(rows):
    out = []
    for label, *cells in rows:
        if label == "Proposed":
            out.append(Row(label, tuple(cells), device=_D002))
        else:
            out.append(Row(label, tuple(cells), device=_D002_OTHERS, note=_REF002[label]))
    return out


_T002 = [
    _t(P002, "Table 1", "Frequency and Throughput Comparisons of AES-128 Implementations",
       [("fmax_mhz", "Frequency (MHz)", "MHz"), ("throughput_mbps", "Throughput (Mbps)", "Mbps")],
       _rows002([("[2]", "113.7", "1323"), ("[3]", "146.0", "1699"), ("[4]", "-", "1538"),
                 ("[6]", "115.0", "1330"), ("[8]", "29.9", "1911"), ("[10]", "119.0", "1450.0"),
                 ("Proposed", "159.2", "1940.9")]),
       note="Proposed: offline key expansion (20 cycles), 2-cycle round, two blocks interleaved, "
            "8 dual-ported BlockRAM S-boxes.", label_header="DESIGN"),
    _t(P002, "Table 2", "Frequency and Throughput Comparisons of AES-128 Implementations",
       [("bram", "BlockRAMs", "BlockRAMs"), ("slices", "CLB Slices", "CLB Slices")],
       _rows002([("[2]", "10", "573"), ("[3]", "10", "450"), ("[4]", "-", "-"),
                 ("[6]", "10", "800"), ("[8]", "4", "8767"), ("[10]", "10", "542"),
                 ("Proposed", "8", "1122")]),
       note="Caption printed identical to Table 1's although the table holds memory and area "
            "(apparently a misprint in the paper).", label_header="DESIGN"),
    _t(P002, "Table 3", "Area and Memory Usage Comparisons of AES-128 Implementations",
       [("bram_per_gbps", "BlockRAMs/Gbps", "BlockRAMs/Gbps"),
        ("slices_per_gbps", "Slices/Gbps", "Slices/Gbps")],
       _rows002([("[2]", "7.56", "758.05"), ("[3]", "5.88", "264.86"), ("[4]", "-", "-"),
                 ("[6]", "7.69", "615.38"), ("[8]", "1.05", "4587.65"), ("[10]", "6.90", "373.79"),
                 ("Proposed", "4.12", "578.05")]),
       label_header="DESIGN"),
]

# --------------------------------------------------------------------------------------
# paper 003 - Tong, Lo, Lee, Leong (Pilchard)
# --------------------------------------------------------------------------------------

_D003 = "XCV1000HQ240-6 (text: 'Xilinx Virtex-E XCV1000-6')"

_T003 = [
    _t(P003, "Table 7.1", "Comparison of 128-bit Rijndael Encryption Implementations.",
       [("type", "Type", None), ("device", "Device", None),
        ("area_clb", "Area (CLB)", "CLB"),
        ("throughput_mbps", "Throughput (Mbit/sec)", "Mbit/sec")],
       [Row("Gaj [8]", ("IL", "XCV1000BG560-6", "2902", "331.5"),
            note="implements encryption and decryption on the chip (section 7); "
                 "paper 001 Table 5 gives 2900 slices"),
        Row("Dandalis [9]", ("IL", "XCV1000", "5673", "353.0"),
            note="= paper 000 (Table 3: 5673 slices, 353.00 Mbit/s)"),
        Row("the authors", ("IL", "XCV1000HQ240-6", "702", "755.1"), device=_D003,
            note="65 MHz, 11 cycles per block, on-the-fly key schedule, 10 BRAMs (8 for the "
                 "round's 16 S-boxes, 2 for the key schedule)"),
        Row("Elbirt [4]", ("P", "XCV1000BG560-4", "10992", "1937.9"),
            note="paper 001 Table 5 lists Elbirt et al. as 9004 slices / 1940 Mbits/s"),
        Row("McLoone [3]", ("P", "XCV3200EBG560-8", "7576", "3239.0"),
            note="encryption and decryption; section 2 prints the device as XCV3200E-CG1156-8"),
        Row("McLoone [3]", ("P", "XCV812EBG560-8", "2222", "6956.0"),
            note="section 2 rounds this to 7 Gbits/sec")],
       note="'Area (CLB)' as printed; the Dandalis (5673) and Gaj (2902 vs 2900) figures match "
            "slice counts in papers 000/001, so the column is probably slices. IL = Iterative "
            "Looping, P = Pipelining. Figs 7.1-7.3 (slices, frequency, throughput vs unrolling "
            "degree 1/2/5/10) are images only; their values are not in the text.",
       label_header="Implementation"),
]

# --------------------------------------------------------------------------------------
# paper 004 - Atono, Ichikawa (IEICE 2006)
# --------------------------------------------------------------------------------------

_D004 = "XC2V4000-FF1252-4 (Virtex-II)"
_C004_GEN = [("gen_time_s", "Gen. Time (sec.)", "sec."), ("slices", "Logic Scale (slice)", "slice"),
             ("bram", "Block RAM", "BlockRAM"), ("fmax_mhz", "Max. Freq. (MHz)", "MHz"),
             ("throughput_mbps", "Throughput (Mbps)", "Mbps")]
_C004_TIMES = [("gen_time_s", "Total", "sec."), ("synthesis_s", "Synthesis", "sec."),
               ("ngdbuild_s", "NGDbuild", "sec."), ("map_s", "Map", "sec."),
               ("par_s", "Par", "sec."), ("trce_s", "Trce", "sec.")]
_N004 = ("Averages over 100 random keys except 'original' rows (not key-specific). "
         "Synthesis Leonardo Spectrum 2005a.82, mapping/P&R Xilinx ISE 8.1.01i, optimisation "
         "'auto'. 'original' = Usselmann's iterative core with SubBytes in BlockRAM; "
         "'original (w/o BlockRAM)' = logic S-boxes; pl_* = 11-stage pipelines.")

_T004 = [
    _t(P004, "Table 1", "Circuit generation results of AES circuits.", _C004_GEN,
       [("original (w/o BlockRAM)", "204.", "1777", "0", "83.4", "970."),
        ("original", "108.", "449", "10", "73.7", "858."),
        ("fixed_key", "104.", "442", "10", "71.4", "831."),
        ("fixed_round_key", "100.", "371", "8", "90.8", "1057."),
        ("xor_collapse", "106.", "265", "8", "91.3", "1062."),
        ("xor_by_ROM_all", "104.", "255", "27", "40.6", "472."),
        ("xor_by_ROM_partial", "95.", "192", "27", "45.9", "534."),
        ("pl_original", "6455.", "2570", "100", "51.8", "6630."),
        ("pl_fixed_key", "6414.", "2424", "100", "61.4", "7859."),
        ("pl_fixed_round_key", "1687.", "1192", "80", "90.2", "11546."),
        ("pl_xor_collapse", "1685.", "1192", "80", "90.2", "11546.")],
       device=_D004, note=_N004),
    _t(P004, "Table 2", "Estimated operational frequencies of AES circuits with/without "
                        "wiring delay.",
       [("fmax_mhz", "Wiring delay inclusive (MHz)", "MHz"),
        ("fmax_prefit_mhz", "No wiring delay (MHz)", "MHz"), ("wiring_ratio", "Ratio", None)],
       [("original (w/o BlockRAM)", "83.4", "192.8", "0.433"),
        ("original", "73.7", "105.6", "0.698"),
        ("fixed_key", "71.4", "105.6", "0.676"),
        ("fixed_round_key", "90.8", "193.8", "0.469"),
        ("xor_collapse", "91.3", "183.5", "0.498"),
        ("xor_by_ROM_all", "40.6", "96.9", "0.419"),
        ("xor_by_ROM_partial", "45.9", "119.5", "0.384")],
       device=_D004, note="Frequencies after PAR vs before PAR; ratio = after/before."),
    _t(P004, "Table 3", "Detailed circuit generation times of AES circuits (sec.).", _C004_TIMES,
       [("original (w/o BlockRAM)", "204.", "106.", "11.", "9.", "72.", "6."),
        ("original", "108.", "51.", "7.", "5.", "41.", "4."),
        ("fixed_key", "104.", "51.", "7.", "4.", "38.", "4."),
        ("fixed_round_key", "100.", "49.", "7.", "4.", "37.", "4."),
        ("xor_collapse", "106.", "58.", "6.", "4.", "34.", "3."),
        ("xor_by_ROM_all", "104.", "55.", "8.", "4.", "34.", "3."),
        ("xor_by_ROM_partial", "95.", "48.", "8.", "4.", "32.", "3."),
        ("pl_original", "6455.", "6313.", "14.", "12.", "108.", "8."),
        ("pl_fixed_key", "6414.", "6273.", "14.", "11.", "108.", "8."),
        ("pl_fixed_round_key", "1687.", "1598.", "10.", "7.", "66.", "6."),
        ("pl_xor_collapse", "1685.", "1595.", "10.", "7.", "66.", "6.")],
       device=_D004, note="Tools ran on an AMD Athlon 64 3500+, 2 GB, Windows 2000."),
    _t(P004, "Table 4", "Circuit generation results of DES circuit.", _C004_GEN,
       [("original (w/o BlockRAM)", "126.", "589", "0", "165.0", "660."),
        ("original", "116.", "517", "4", "96.2", "385."),
        ("fixed_round_key", "71.", "81", "4", "89.2", "357."),
        ("xor_collapse", "75.", "102", "4", "73.8", "295."),
        ("pl_original", "177.", "1356", "64", "68.1", "4358."),
        ("pl_fixed_round_key", "117.", "828", "64", "69.9", "4474."),
        ("pl_xor_collapse", "116.", "835", "64", "69.2", "4429.")],
       device=_D004,
       note="DES (Usselmann's DES core). In the extracted text the rows precede the caption; "
            "assignment to Table 4 confirmed by the text (71-75 s generation times) and by "
            "Table 5's totals. " + _N004.split(" 'original' =")[0]),
    _t(P004, "Table 5", "Detailed circuit generation times of DES circuit (sec.).", _C004_TIMES,
       [("original (w/o BlockRAM)", "126.", "69.", "5.", "4.", "44.", "3."),
        ("original", "116.", "63.", "6.", "4.", "39.", "3."),
        ("fixed_round_key", "71.", "34.", "6.", "3.", "25.", "3."),
        ("xor_collapse", "75.", "38.", "6.", "3.", "25.", "3."),
        ("pl_original", "177.", "89.", "9.", "6.", "67.", "6."),
        ("pl_fixed_round_key", "117.", "59.", "7.", "5.", "42.", "4."),
        ("pl_xor_collapse", "116.", "58.", "7.", "5.", "41.", "4.")],
       device=_D004, note="DES."),
    _t(P004, "Table 6", "Circuit generation results of DES circuit, where the optimization "
                        "option was set to \"area\".", _C004_GEN,
       [("original (w/o BlockRAM)", "87.", "396", "0", "133.0", "532."),
        ("original", "81.", "332", "4", "81.7", "327."),
        ("fixed_round_key", "68.", "81", "4", "88.9", "356."),
        ("xor_collapse", "69.", "103", "4", "74.8", "299."),
        ("pl_original", "158.", "1357", "64", "67.4", "4314."),
        ("pl_fixed_round_key", "104.", "828", "64", "69.8", "4467."),
        ("pl_xor_collapse", "105.", "835", "64", "69.2", "4429.")],
       device=_D004, note="DES, optimisation option 'area' instead of 'auto'."),
]

_TABLES: tuple[Table, ...] = tuple(_T000 + _T001 + _T002 + _T003 + _T004)

# --------------------------------------------------------------------------------------
# numbers stated in the running text
# --------------------------------------------------------------------------------------

_A = TextAnchor
_ANCHORS: tuple[TextAnchor, ...] = (
    # paper 000
    _A(P000, "4.6", "dual-clock key-setup latency reduction, MARS", "dual_clock_factor", "1.35", None,
       "reduced by a factor of 1.35, 2.96, 1.43, 1.00, and 1.15", _D000),
    _A(P000, "4.6", "dual-clock key-setup latency reduction, RC6", "dual_clock_factor", "2.96", None,
       "reduced by a factor of 1.35, 2.96, 1.43, 1.00, and 1.15", _D000),
    _A(P000, "4.6", "dual-clock key-setup latency reduction, Rijndael", "dual_clock_factor", "1.43", None,
       "reduced by a factor of 1.35, 2.96, 1.43, 1.00, and 1.15", _D000,
       note="estimate from separate key-setup and core implementations, each at its own Fmax"),
    _A(P000, "4.6", "dual-clock key-setup latency reduction, Serpent", "dual_clock_factor", "1.00", None,
       "reduced by a factor of 1.35, 2.96, 1.43, 1.00, and 1.15", _D000),
    _A(P000, "4.6", "dual-clock key-setup latency reduction, Twofish", "dual_clock_factor", "1.15", None,
       "reduced by a factor of 1.35, 2.96, 1.43, 1.00, and 1.15", _D000),
    _A(P000, "4.1", "MARS cycles per block", "cycles_per_block", "32", "clock cycles",
       "The encryption time for one block of data was 32 clock cycles", _D000,
       note="16 cycles average when all three stages work on different blocks (non-feedback)"),
    # paper 001
    _A(P001, "7", "maximum throughput (pipelined designs)", "throughput_gbps", "14", "Gbits/s",
       "Throughput is up to 14 Gbits/s", "not stated for this figure (paper 001 used "
       "XCV1000BG560-6 and XCV3200ECG1156-8)",
       note="no table row gives 14 Gbits/s; the largest tabulated value is 11776 Mbits/s "
            "(Table 7, RAM-based pipeline on VIRTEX3200E)"),
    _A(P001, "7", "smallest area", "slices", "405", "slices",
       "area requirements can be limited to 405 slices and 10 RAM blocks", _D001_VE),
    _A(P001, "7", "smallest area, RAM blocks", "bram", "10", "RAM blocks",
       "area requirements can be limited to 405 slices and 10 RAM blocks", _D001_VE),
    _A(P001, "2", "XCV1000 capacity", "slices", "12288", "slices",
       "A VIRTEX1000BG560-6 FPGA contains 12288 slices and 32 RAM blocks", _D001_V),
    _A(P001, "2", "XCV3200E capacity", "slices", "32448", "slices",
       "A VIRTEX3200ECG1156-8 FPGA contains 32448 slices and 208 RAM blocks", _D001_VE),
    # paper 002
    _A(P002, "abstract", "throughput (Proposed)", "throughput_gbps", "1.94", "Gbps",
       "a 1.94Gbps throughput is achieved", _D002),
    _A(P002, "abstract", "BlockRAMs (Proposed)", "bram", "8", "BlockRAMs",
       "the memory usage remains low (8 BlockRAMs)", _D002),
    _A(P002, "2.2", "offline key expansion", "key_setup_cycles", "20", "cycles",
       "The whole key expansion process requires 20 cycles to be completed", _D002,
       note="10 round keys, 2 cycles each (synchronous ROM S-box)"),
    _A(P002, "2.3", "cycles per round", "cycles_per_round", "2", "cycles",
       "the completion of an encryption round requires 2 cycles", _D002),
    _A(P002, "2.3", "cycles per block (latency)", "latency_cycles", "20", "cycles",
       "a total of 20 cycles is needed to produce the final state", _D002,
       note="two blocks interleaved, so 10 cycles per block in non-feedback use"),
    # paper 003
    _A(P003, "7", "maximum core frequency", "fmax_mhz", "65", "MHz",
       "The maximum core frequency was 65 MHz", _D003,
       note="the conclusion (section 8) says 64 MHz"),
    _A(P003, "8", "maximum core frequency (conclusion)", "fmax_mhz", "64", "MHz",
       "operating at a maximum frequency of 64 MHz", _D003,
       note="contradicts section 7's 65 MHz; 65 x 128 / 11 = 756.4, 64 x 128 / 11 = 744.7"),
    _A(P003, "7", "cycles per block", "cycles_per_block", "11", "clock cycles",
       "11 clock cycles were needed in a 128-bit key design", _D003),
    _A(P003, "7", "core throughput", "throughput_mbps", "755", "Mbit/sec",
       "the throughput of the Rijndael core was 755 Mbit/sec", _D003,
       note="Table 7.1 prints 755.1"),
    _A(P003, "4", "BRAMs of the iterative core", "bram", "ten", "BRAMs",
       "ten BRAMs were required for the Iterative Looping architecture", _D003,
       note="printed as a word; eight for the round's 16 S-boxes plus two for the key schedule",
       value=10),
    _A(P003, "4", "I/O buffers", "bram", "16", "BRAMs",
       "Both of them were composed of 16 BRAMs and can store 512 128-bit data blocks", _D003,
       note="ambiguous whether 16 BRAMs each or together; 512 x 128 bits = 16 x 4096 bits "
            "suggests 16 BRAMs per buffer"),
    _A(P003, "4", "I/O buffer depth", "fifo_blocks", "512", "128-bit blocks",
       "can store 512 128-bit data blocks", _D003),
    _A(P003, "4", "XCV1000 capacity", "slices", "12288", "CLB slices",
       "for a total of 12288 CLB slices", _D003),
    _A(P003, "7", "system throughput, MMX + uncacheable", "system_throughput_mbps", "210", "Mbit/sec",
       "The System Throughput was approximately 210 Mbit/sec for data sizes from 1.5KB to 23KB",
       "Pilchard (DIMM slot), Pentium III 933 MHz host"),
    _A(P003, "7", "Pilchard transfer rate, uncacheable", "transfer_rate_mbps", "298", "Mbit/sec",
       "Pilchard's read/write transfer rate in Uncacheable memory mode, which was 298 Mbit/sec",
       "Pilchard (DIMM slot), Pentium III 933 MHz host",
       note="section 4 and the conclusion give 35 MB/sec (280 Mbit/sec) for the same quantity"),
    _A(P003, "4", "Pilchard transfer rate, uncacheable movq", "transfer_rate_mbps", "280", "Mbit/sec",
       "was 35 MB/sec (280 Mbit/sec)", "Pilchard (DIMM slot), Pentium III 933 MHz host"),
    _A(P003, "7", "system throughput, SSE + uncacheable", "system_throughput_mbps", "319", "Mbit/sec",
       "achieving 319 Mbit/sec in Uncacheable mode", "Pilchard (DIMM slot), Pentium III 933 MHz host"),
    _A(P003, "7", "system throughput, SSE + write-combining", "system_throughput_mbps", "455", "Mbit/sec",
       "455 Mbit/sec in Write-combining mode", "Pilchard (DIMM slot), Pentium III 933 MHz host",
       note="the abstract says 445 Mbit/sec"),
    _A(P003, "abstract", "system throughput, SSE + write-combining (abstract)", "system_throughput_mbps",
       "445", "Mbit/sec", "the measured throughput of the AES core to reach 445 Mbit/sec",
       "Pilchard (DIMM slot), Pentium III 933 MHz host", note="section 7 says 455 Mbit/sec"),
    _A(P003, "7", "system throughput saturation (> 400 blocks)", "system_throughput_mbps", "450", "Mbit/sec",
       "throughput saturates at around 450 Mbit/sec", "Pilchard (DIMM slot), Pentium III 933 MHz host",
       note="for transfers larger than 400 128-bit values (Fig. 7.7)"),
    _A(P003, "7", "Pilchard transfer rate, write-combining", "transfer_rate_mbps", "483", "Mbit/sec",
       "the transfer rate of Pilchard in Write-combining mode, which is 483 Mbit/sec",
       "Pilchard (DIMM slot), Pentium III 933 MHz host"),
    _A(P003, "4", "PCI transfer rate without DMA", "transfer_rate_mbps", "40", "Mbit/sec",
       "transfer rate of 40 Mbit/sec offered by traditional PCI bus", "PCI bus (no DMA)"),
    _A(P003, "2", "software AES-128 (Gladman)", "throughput_mbps", "325", "Mbits/sec",
       "his 128-bit key design achieved a throughput of 325 Mbits/sec",
       "software, Pentium III 933 MHz"),
    _A(P003, "2", "software AES-192 (Gladman)", "throughput_mbps", "275", "Mbits/sec",
       "the 192-bit key design reached 275 Mbits/sec", "software, Pentium III 933 MHz"),
    _A(P003, "2", "software AES-256 (Gladman)", "throughput_mbps", "236", "Mbits/sec",
       "the 256-bit key design ran at 236 Mbits/sec", "software, Pentium III 933 MHz"),
    # paper 004
    _A(P004, "4", "XC2V4000 capacity", "slices", "23040", "Slice",
       "which contains 23040 Slice and 120 BlockRAM", _D004),
    _A(P004, "summary", "iterative key-specific: logic reduction", "logic_reduction_pct", "41", "%",
       "In our iterative design, 41% of the logic gates and 20% of RAM were reduced, while 24% "
       "more performance was derived", _D004, note="xor_collapse vs original"),
    _A(P004, "summary", "pipelined key-specific: logic reduction", "logic_reduction_pct", "54", "%",
       "In our pipelined design, 54% of the logic gates and 20% of RAM were reduced, while 74% "
       "higher performance was achieved", _D004, note="pl_fixed_round_key / pl_xor_collapse vs pl_original"),
    _A(P004, "4", "pipelined key-specific generation time", "gen_time_min", "28", "minutes",
       "the circuit generation time is more than 28 minutes", _D004),
)


def tables() -> tuple[Table, ...]:
    """Every transcribed table, papers 000..004 in order."""
    return _TABLES


def text_anchors() -> tuple[TextAnchor, ...]:
    return _ANCHORS


def _paper_id(paper: str) -> str:
    if paper in PAPERS:
        return paper
    for pid, meta in PAPERS.items():
        if meta["short"] == paper or pid.split(".")[0] == paper:
            return pid
    raise KeyError(f"unknown paper {paper!r}")


def _norm_table(table: str) -> str:
    t = table.strip()
    return t if t.lower().startswith("table") else f"Table {t}"


def get_table(paper: str, table: str) -> Table:
    pid, tname = _paper_id(paper), _norm_table(table)
    for t in _TABLES:
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
    return {"paper": a.paper, "paper_short": PAPERS[a.paper]["short"],
            "table": f"text (section {a.where})", "caption": None, "row": a.row,
            "row_index": None, "device": a.device,
            "values": {a.key: {"value": a.value if a.value is not None else parse_number(a.printed),
                               "printed": a.printed,
                               "unit": a.unit, "header": a.row}},
            "note": a.note, "table_note": None, "verbatim": True, "quote": a.quote}


def get_anchor(paper: str, row: str) -> dict:
    """A text anchor of one paper, by its ``row`` description."""
    pid = _paper_id(paper)
    for a in _ANCHORS:
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
    for t in _TABLES:
        out.extend(row_entry(t, r, i) for i, r in enumerate(t.rows))
    out.extend(anchor_entry(a) for a in _ANCHORS)
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
    return {"paper": t.paper, "paper_short": t.short, "cite": PAPERS[t.paper]["cite"],
            "table": t.table, "caption": t.caption, "device": t.device, "note": t.note,
            "label_header": t.label_header,
            "columns": [{"key": c.key, "header": c.header, "unit": c.unit} for c in t.columns],
            "rows": [{"label": t.rows[i].label, "cells": list(t.rows[i].cells),
                      "device": row_device(t, t.rows[i]), "note": t.rows[i].note} for i in idx]}
