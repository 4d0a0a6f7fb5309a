"""Named studies: which design points to build, and which published numbers to show beside them.

Adding a study is adding a :class:`Study` to :data:`STUDIES`: a list of
``design_source`` keyword-argument dicts (use :func:`grid` for a cross
product), the plot axes, the paper tables to print under our results
(:class:`Published`), and the relative findings to compare (:class:`Ratio`).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

from ..errors import CipherfabError


def grid(**axes) -> list[dict]:
    """Cross product of parameter values: ``grid(key_bits=[128, 256], sbox=["lut"])``.
    A scalar is a one-value axis.  Order: the last axis varies fastest."""
    names = list(axes)
    values = [v if isinstance(v, (list, tuple)) else [v] for v in axes.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


@dataclass(frozen=True)
class Published:
    """A paper table (or some of its rows, by label or index) to print under our results.
    ``table="text"`` selects text anchors of the paper by their ``rows`` labels."""

    paper: str
    table: str
    rows: tuple = ()
    why: str = ""


@dataclass(frozen=True)
class Ratio:
    """A relative finding: our metric for point ``ours_num`` over ``ours_den`` beside the
    paper's ``key`` for row ``paper_num`` over ``paper_den``.

    ``ours_*`` select points by a subset of their parameters; ``metric`` is a dotted
    path into a record (``"area.lut4"``), aggregated by its median over seeds.
    """

    finding: str
    metric: str
    ours_num: dict
    ours_den: dict
    paper: str | None = None
    table: str | None = None
    paper_num: str | int | None = None
    paper_den: str | int | None = None
    key: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Ranking:
    """Rank named designs by ``metric`` (median over seeds, highest first) beside the
    paper's ranking of the same names by its ``key`` in ``table``: does the paper's
    order hold?  ``names`` maps a paper row label to our point selection."""

    finding: str
    metric: str
    names: dict
    paper: str
    table: str
    key: str


@dataclass(frozen=True)
class Goal:
    """A class of designs held to a goal (issue 18's table).  ``points`` select the class's
    designs (a point is in the class if any selection's parameters match it); its best point
    is the one with the highest median ``best_by`` (``lowest=True``: the lowest); each goal
    ``(metric, ">=" or "<=", value)`` is marked met or not with the best point's median.
    ``peer``: the label of an external core of the same run, compared in ``best_by``."""

    name: str
    points: tuple
    best_by: str
    goals: tuple
    lowest: bool = False
    peer: str | None = None


@dataclass
class Study:
    name: str
    title: str
    description: str
    points: list[dict]
    seeds: tuple[int, ...] = (1, 2)
    device: str = "ecp5-85k"
    x_param: str | None = None          #: parameter on the x axis of the Fmax/area plots
    group_param: str | None = None      #: one plot series per value of this parameter
    published: list[Published] = field(default_factory=list)
    ratios: list[Ratio] = field(default_factory=list)
    budget_minutes: float | None = None  #: expected wall time on 2 cores, for the report
    rankings: list[Ranking] = field(default_factory=list)
    #: synthesis-only devices (e.g. ``xcv``, Virtex) whose LUT counts go beside ours, seed 1
    estimates: tuple[str, ...] = ()
    software: bool = False              #: measure the ciphers' software baselines (study.software)
    bar_metric: str | None = None       #: one bar per design of this metric (e.g. Mbit/s per LUT4)
    #: key studies: the default number of random keys (``--keys N``); ``plugin``: a module
    #: giving the study's own parts: ``keys(n)`` and ``points(keys)`` (key studies),
    #: ``after_builds(records, device, keys) -> dict`` (merged into the results, real flow
    #: only), ``headline(results)`` and ``section(doc, results)``
    keys: int | None = None
    plugin: str | None = None
    goals: list[Goal] = field(default_factory=list)   #: classes and their goals, one table

    def builds_on(self, device: str | None = None) -> list[str]:
        """The devices the study's points are built on: a point's own ``device``, else
        ``device`` (a run's ``--device``) or the study's; a ``device`` given to a study whose
        points name theirs (``families``) is refused in one line."""
        if device is not None and any("device" in p for p in self.points):
            raise CipherfabError(f"--device: study {self.name!r} builds each point on its own device "
                                 "(it takes no --device)")
        return list(dict.fromkeys(p.get("device", device or self.device) for p in self.points))

    def as_dict(self) -> dict:
        d = asdict(self)
        d["seeds"] = list(self.seeds)
        d["estimates"] = list(self.estimates)
        return d


_COMMON_NOTE = ("The papers used Xilinx Virtex / Virtex-E / Virtex-II "
                "(slices of two 4-input LUTs, 4-kbit or 18-kbit block RAMs) with 2000-2006 tools; "
                "we use a Lattice ECP5 with yosys/nextpnr.  Compare ratios and relative findings, "
                "not absolute numbers.")

QUICK = Study(
    name="quick",
    title="AES iterative core: key size x S-box style (paper 003 Table 7.1 / paper 004 Table 1 shape)",
    description=("AES-128/192/256 encryption, one round per clock with the key schedule on the "
                 "fly, S-boxes as logic LUTs or as block-RAM ROMs, two placer seeds each."),
    points=grid(cipher="aes", arch="iterative", key_bits=[128, 192, 256], direction="encrypt",
                sbox=["lut", "rom"]),
    seeds=(1, 2),
    device="ecp5-85k",
    x_param="key_bits",
    group_param="sbox",
    budget_minutes=15,
    published=[
        Published("003", "Table 7.1", why="iterative (IL) and pipelined (P) AES-128 cores; "
                  "'the authors' row is the closest to our sbox=rom point (block-RAM S-boxes, "
                  "on-the-fly key schedule, 11 cycles)"),
        Published("003", "text", rows=("maximum core frequency", "cycles per block",
                                       "core throughput", "BRAMs of the iterative core",
                                       "software AES-128 (Gladman)", "software AES-192 (Gladman)",
                                       "software AES-256 (Gladman)"),
                  why="the iterative core's numbers from the running text"),
        Published("004", "Table 1", rows=("original (w/o BlockRAM)", "original"),
                  why="Usselmann's iterative AES-128 with logic S-boxes (~ our sbox=lut) and with "
                      "BlockRAM S-boxes (~ our sbox=rom)"),
        Published("004", "Table 2", rows=("original (w/o BlockRAM)", "original"),
                  why="wiring-delay ratio (post-route / pre-route Fmax)"),
        Published("004", "Table 3", rows=("original (w/o BlockRAM)", "original"),
                  why="generation time per tool stage"),
        Published("002", "Table 1", why="AES-128 cores compared by paper 002"),
        Published("002", "Table 2"),
        Published("002", "Table 3", why="efficiency: BlockRAMs and slices per Gbit/s"),
        Published("001", "Table 4", rows=("Sequential RIJNDAEL",),
                  why="LUT-based sequential (one round) core"),
        Published("001", "Table 6", rows=(3, 4, 5, 6, 7),
                  why="RAM-based sequential cores, 4/3/2-cycle rounds"),
        Published("000", "Table 3", why="single-round Rijndael with concurrent key setup"),
    ],
    ratios=[
        Ratio("logic S-box / block-RAM S-box: area", "area.lut4",
              {"key_bits": 128, "sbox": "lut"}, {"key_bits": 128, "sbox": "rom"},
              "004", "Table 1", "original (w/o BlockRAM)", "original", "slices",
              note="ours LUT4, paper slices"),
        Ratio("logic S-box / block-RAM S-box: block RAMs", "area.ebr",
              {"key_bits": 128, "sbox": "lut"}, {"key_bits": 128, "sbox": "rom"},
              "004", "Table 1", "original (w/o BlockRAM)", "original", "bram",
              note="ours EBR (18 kbit), paper Virtex-II BlockRAM (18 kbit)"),
        Ratio("logic S-box / block-RAM S-box: Fmax", "timing.fmax_mhz",
              {"key_bits": 128, "sbox": "lut"}, {"key_bits": 128, "sbox": "rom"},
              "004", "Table 1", "original (w/o BlockRAM)", "original", "fmax_mhz"),
        Ratio("logic S-box / block-RAM S-box: throughput", "performance.throughput_ecb_mbps",
              {"key_bits": 128, "sbox": "lut"}, {"key_bits": 128, "sbox": "rom"},
              "004", "Table 1", "original (w/o BlockRAM)", "original", "throughput_mbps"),
        Ratio("logic S-box / block-RAM S-box: wiring ratio", "timing.wiring_ratio",
              {"key_bits": 128, "sbox": "lut"}, {"key_bits": 128, "sbox": "rom"},
              "004", "Table 2", "original (w/o BlockRAM)", "original", "wiring_ratio",
              note="ours = post-route / nextpnr post-placement estimate (already includes estimated "
                   "wire delay); paper = after PAR / before PAR without wiring delay, so our ratios "
                   "sit nearer 1"),
        Ratio("logic S-box / block-RAM S-box: generation time", "times.total",
              {"key_bits": 128, "sbox": "lut"}, {"key_bits": 128, "sbox": "rom"},
              "004", "Table 3", "original (w/o BlockRAM)", "original", "gen_time_s"),
        Ratio("AES-192 / AES-128 throughput (block-RAM S-boxes)", "performance.throughput_ecb_mbps",
              {"key_bits": 192, "sbox": "rom"}, {"key_bits": 128, "sbox": "rom"},
              "003", "text", "software AES-192 (Gladman)", "software AES-128 (Gladman)",
              "throughput_mbps", note="paper figure is Gladman's software on a 933 MHz Pentium III; "
              "round-count scaling predicts 11/13 = 0.846"),
        Ratio("AES-256 / AES-128 throughput (block-RAM S-boxes)", "performance.throughput_ecb_mbps",
              {"key_bits": 256, "sbox": "rom"}, {"key_bits": 128, "sbox": "rom"},
              "003", "text", "software AES-256 (Gladman)", "software AES-128 (Gladman)",
              "throughput_mbps", note="paper figure is software; round-count scaling predicts "
              "11/15 = 0.733"),
    ],
)

def _aes128(arch: str, **axes) -> list[dict]:
    return grid(cipher="aes", arch=arch, key_bits=128, direction="encrypt", **axes)


def _pick(arch: str, **params) -> dict:
    """Selects the first point (in the study's order) with these parameters; a study point
    names only the parameters it sets, so the default-valued points come first."""
    return {"arch": arch, **params}


_KEPT_PARTS = ("the default flow keeps each declared part as a module (for the area split), "
               "a boundary ABC does not map across")
#: aes-space's points with a flow option: (name, the point, its flow option, how the
#: ratio names the option, why it differs from the default flow)
_FLOW_POINTS = (
    ("byte", _pick("byte", sbox="rom"), {"widelut": False}, "LUT4 only",
     "its muxes map to fewer LUT4 without the PFU's wide LUTs"),
    ("column", _pick("column", sbox="rom"), {"flatten": True}, "flat synthesis", _KEPT_PARTS),
    ("iterative", _pick("iterative", sbox="rom"), {"flatten": True}, "flat synthesis", _KEPT_PARTS),
    ("interleaved 3-stage", _pick("interleaved", sbox="rom", stages=3), {"flatten": True},
     "flat synthesis", _KEPT_PARTS),
    ("pipeline 4-stage", _pick("pipeline", sbox="rom", stages=4), {"ebr_outreg": True},
     "block-RAM output registers",
     "the register after each block-RAM read moved into the DP16KD (REGMODE OUTREG), as vendor "
     "synthesis does; Yosys's ECP5 memory library has no such option"),
    ("pipeline 4-stage", _pick("pipeline", sbox="rom", stages=4), {"ebr_outreg": True, "floorplan": True},
     "block-RAM output registers and floorplan",
     "as the point above, and every block RAM sited before placement in the order the data "
     "reaches it, along two EBR rows (--floorplan)"),
    ("pipeline 3-stage", _pick("pipeline", sbox="lut", stages=3), {"heap_timing_weight": 30, "heap_crit_exp": 4},
     "heap placer timing weight 30, criticality exponent 4",
     "the analytic placer pulls the cells of critical nets together harder than by default "
     "(nextpnr --placer-heap-timingweight 30 --placer-heap-critexp 4; its own are 10 and 2)"),
    ("pipeline 3-stage, S-box inputs registered",
     _pick("pipeline", sbox="lut", stages=3, sbox_input="registered"),
     {"heap_timing_weight": 30, "heap_crit_exp": 4},
     "heap placer timing weight 30, criticality exponent 4", "as the point above"),
)
#: the words for a flow point's S-box style in its ratios
_SBOX_WORDS = {"lut": "logic S-boxes", "rom": "block-RAM S-boxes"}

AES_SPACE = Study(
    name="aes-space",
    title="The AES-128 encryption design space: byte, column, iterative, interleaved, k rounds per "
          "clock, full pipeline",
    description=("AES-128 encryption across architectures: the compact 8-bit byte and 32-bit "
                 "column cores, the "
                 "iterative core (logic tables, composite-field logic or block-RAM S-boxes), the "
                 "interleaved round with offline round keys (paper 002; 1, 2 or 3 stages and as many "
                 "blocks in flight), k rounds per clock in logic (paper 003 Unrolled-k, k = 1, 2, 5, "
                 "10) and the key-agile full pipeline (paper 001 Fig. 7) with 1, 2 or 3 registers "
                 "per round (paper 001 Table 6: 2-, 3- and 4-cycle rounds); then the iterative core "
                 "with every key addition folded into the round (paper 001's modified sequential "
                 "core), the interleaved round and the pipeline with a register inside the S-box "
                 "(4 stages; with block-RAM S-boxes a second register after the block RAM), and "
                 "the pipeline with fixed round keys; then seven points with a flow "
                 "option: the byte core mapped to LUT4 only (no wide LUTs), the column, "
                 "iterative and 3-stage interleaved cores with block-RAM S-boxes synthesized flat "
                 "(no part kept for the area split), and the 4-stage block-RAM pipeline with the "
                 "block RAMs' output registers (--ebr-outreg), also with its block RAMs sited "
                 "in data order (--floorplan), and the 3-stage logic pipeline placed with a heavier "
                 "timing weight (--heap-timing-weight 30 --heap-crit-exp 4), also with a register "
                 "more before each round's S-boxes (--sbox-input registered); two placer seeds "
                 "each."),
    points=(_aes128("byte", sbox=["rom", "lut"])
            + _aes128("column", sbox=["rom", "lut", "composite"])
            + _aes128("iterative", sbox=["lut", "rom", "composite"])
            + _aes128("interleaved", sbox=["lut", "rom"], stages=[1, 2])
            + _aes128("interleaved", sbox="rom", stages=3)
            + _aes128("unrolled", sbox="lut", rounds_per_clock=[1, 2, 5, 10])
            + _aes128("pipeline", sbox=["lut", "rom"], stages=[1, 2])
            + _aes128("pipeline", sbox="rom", stages=3)
            + _aes128("pipeline", sbox="lut", stages=3)
            + _aes128("pipeline", sbox="lut", stages=3, sbox_input="registered")
            + _aes128("iterative", sbox=["lut", "rom"], key_add="folded")
            + _aes128("interleaved", sbox="lut", stages=4)
            + _aes128("pipeline", sbox=["lut", "rom"], stages=4)
            + _aes128("pipeline", sbox="rom", stages=2, keys="fixed")
            + _aes128("interleaved", sbox="lut", stages=2, key_clock="separate")
            + [p for _, point, flow, _, _ in _FLOW_POINTS for p in _aes128(**point, **flow)]),
    seeds=(1, 2),
    device="ecp5-85k",
    x_param="rounds_per_clock",
    budget_minutes=75,
    published=[
        Published("003", "Table 7.1", why="iterative, unrolled and pipelined AES-128 cores"),
        Published("001", "Table 4", why="LUT-based sequential and pipelined cores (Virtex1000)"),
        Published("001", "Table 6", why="RAM-based cores, 4/3/2-cycle rounds (Virtex3200E)"),
        Published("001", "Table 7", why="RAM-based comparisons"),
        Published("002", "Table 1", why="frequency and throughput of AES-128 cores"),
        Published("002", "Table 2", why="block RAMs and slices of AES-128 cores"),
        Published("002", "Table 3", why="area, memory and efficiency of AES-128 cores"),
    ],
    ratios=[
        Ratio(f"unrolled k={k} / k=1: Mbit/s per LUT4 (paper 003: k=1 is the most efficient)",
              "performance.mbps_per_lut4", _pick("unrolled", rounds_per_clock=k),
              _pick("unrolled", rounds_per_clock=1))
        for k in (2, 5, 10)
    ] + [
        Ratio("interleaved 2 stages / 1 stage: throughput ECB (paper 002: the 2-stage round "
              "doubles throughput)", "performance.throughput_ecb_mbps",
              _pick("interleaved", sbox=sbox, stages=2), _pick("interleaved", sbox=sbox, stages=1),
              note=f"{sbox} S-boxes")
        for sbox in ("lut", "rom")
    ] + [
        Ratio("interleaved 2 stages / 1 stage: LUT4 (paper 002: at little extra logic)", "area.lut4",
              _pick("interleaved", sbox=sbox, stages=2), _pick("interleaved", sbox=sbox, stages=1),
              note=f"{sbox} S-boxes")
        for sbox in ("lut", "rom")
    ] + [
        Ratio("interleaved 2 stages / iterative: throughput ECB", "performance.throughput_ecb_mbps",
              _pick("interleaved", sbox=sbox, stages=2), _pick("iterative", sbox=sbox),
              note=f"{sbox} S-boxes; the iterative core computes round keys on the fly")
        for sbox in ("lut", "rom")
    ] + [
        Ratio(f"pipeline {hi} / {lo} registers per round, block-RAM S-boxes: {what} (paper 001: "
              f"{hi + 1}-cycle / {lo + 1}-cycle RAM-based round)", metric,
              _pick("pipeline", sbox="rom", stages=hi),
              _pick("pipeline", sbox="rom", stages=lo),
              "001", "Table 6", rows[0], rows[1], key)
        for hi, lo, rows in ((2, 1, (1, 2)), (3, 2, (0, 1)))
        for what, metric, key in (("Fmax", "timing.fmax_mhz", "fmax_mhz"), ("FF", "area.ff", "ff"))
    ] + [
        Ratio("interleaved 3 / 2 stages, block-RAM S-boxes: Fmax (paper 001: sequential 3-cycle "
              "round, 4 blocks / 42 cycles, over 2-cycle round, 2 blocks / 21 cycles)",
              "timing.fmax_mhz",
              _pick("interleaved", sbox="rom", stages=3), _pick("interleaved", sbox="rom", stages=2),
              "001", "Table 6", 4, 6, "fmax_mhz"),
        Ratio("interleaved 3 / 2 stages, block-RAM S-boxes: LUT4 (paper 001: the same rows, LUT)",
              "area.lut4",
              _pick("interleaved", sbox="rom", stages=3), _pick("interleaved", sbox="rom", stages=2),
              "001", "Table 6", 4, 6, "lut"),
        Ratio("pipeline 2 / 1 registers per round, logic S-boxes: Mbit/s per LUT4",
              "performance.mbps_per_lut4",
              _pick("pipeline", sbox="lut", stages=2), _pick("pipeline", sbox="lut", stages=1)),
        Ratio("pipeline 2 / 1 registers per round, block-RAM S-boxes: Mbit/s per LUT4",
              "performance.mbps_per_lut4",
              _pick("pipeline", sbox="rom", stages=2),
              _pick("pipeline", sbox="rom", stages=1)),
        Ratio("composite / lut S-boxes, iterative: LUT4", "area.lut4",
              _pick("iterative", sbox="composite"), _pick("iterative", sbox="lut")),
        Ratio("column / iterative, block-RAM S-boxes: LUT4", "area.lut4",
              _pick("column", sbox="rom"), _pick("iterative", sbox="rom")),
        *[Ratio(f"iterative, key additions folded / merged into the load, {sbox} S-boxes: {what}",
                metric, _pick("iterative", sbox=sbox, key_add="folded"),
                _pick("iterative", sbox=sbox),
                note="folded: one XOR for every round key, Nr + 1 cycles per block")
          for sbox in ("lut", "rom")
          for what, metric in (("LUT4", "area.lut4"), ("Mbit/s per LUT4", "performance.mbps_per_lut4"))],
        *[Ratio(f"{arch} 4 / {lo} stages (a register inside the S-box), logic S-boxes: {what}",
                metric, _pick(arch, sbox="lut", stages=4), _pick(arch, sbox="lut", stages=lo))
          for arch, lo in (("interleaved", 2), ("pipeline", 2))
          for what, metric in (("Fmax", "timing.fmax_mhz"), ("LUT4", "area.lut4"))],
        Ratio("pipeline, fixed round keys / key-agile, block-RAM S-boxes, 2 stages: LUT4",
              "area.lut4", _pick("pipeline", sbox="rom", stages=2, keys="fixed"),
              _pick("pipeline", sbox="rom", stages=2)),
        Ratio("byte / column, block-RAM S-boxes: LUT4", "area.lut4",
              _pick("byte", sbox="rom"), _pick("column", sbox="rom")),
        Ratio("pipeline 3-stage, logic S-boxes, S-box inputs registered / direct: Fmax",
              "timing.fmax_mhz", _pick("pipeline", sbox="lut", stages=3, sbox_input="registered"),
              _pick("pipeline", sbox="lut", stages=3),
              note="one register more between rounds (--sbox-input registered), default flow"),
        *[Ratio(f"{said} / default flow, {core} core, {_SBOX_WORDS[point['sbox']]}: {what}", metric,
                {**point, **flow}, point, note=f"the same core; {note}")
          for core, point, flow, said, note in _FLOW_POINTS
          for what, metric in (("LUT4", "area.lut4"), ("Fmax", "timing.fmax_mhz"))],
    ],
    goals=[
        Goal("default iterative, logic S-box", (_pick("iterative", sbox="lut"),),
             "performance.mbps_per_lut4", (("performance.mbps_per_lut4", ">=", 0.40),),
             peer="Usselmann aes_core (OpenCores)"),
        Goal("iterative class, logic only",
             (_pick("iterative", sbox="lut"), _pick("iterative", sbox="composite"),
              _pick("interleaved", sbox="lut")),
             "performance.mbps_per_lut4", (("performance.mbps_per_lut4", ">=", 0.60),
                                           ("performance.throughput_ecb_mbps", ">=", 2500)),
             peer="Usselmann aes_core (OpenCores)"),
        Goal("iterative class, block-RAM S-box",
             (_pick("iterative", sbox="rom"), _pick("interleaved", sbox="rom")),
             "timing.fmax_mhz", (("timing.fmax_mhz", ">=", 180),)),
        Goal("full pipeline, key-agile, logic only", (_pick("pipeline", sbox="lut"),),
             "timing.fmax_mhz", (("timing.fmax_mhz", ">=", 250),
                                 ("performance.mbps_per_lut4", ">=", 0.80)),
             peer="tiny_aes (OpenCores)"),
        Goal("full pipeline, key-agile, block RAM",
             tuple(_pick("pipeline", sbox="rom", stages=n) for n in (1, 2, 3, 4))
             + ({**_pick("pipeline", sbox="rom", stages=4), "ebr_outreg": True},
                {**_pick("pipeline", sbox="rom", stages=4), "ebr_outreg": True, "floorplan": True}),
             "timing.fmax_mhz", (("timing.fmax_mhz", ">=", 250),
                                 ("performance.throughput_ecb_mbps", ">=", 30000),
                                 ("area.lut4", "<=", 10000), ("area.ebr", "<=", 208),
                                 ("performance.mbps_per_lut4", ">=", 3.0))),
        Goal("compact", (_pick("byte"), _pick("column")), "area.lut4",
             (("area.lut4", "<=", 450), ("area.ebr", "<=", 2), ("timing.fmax_mhz", ">=", 100)),
             lowest=True, peer="secworks/aes (encrypt, 128-bit key)"),
    ],
)

def _finalist(cipher: str, **params) -> dict:
    return {"cipher": cipher, "arch": "iterative", "key_bits": 128, "direction": "encrypt", **params}


#: paper 000's row names -> our point of that cipher (the paper's AES round was a T-box ROM)
_FINALIST_NAMES = {"Rijndael": _finalist("aes", sbox="tbox"), "Serpent": _finalist("serpent"),
                   "Twofish": _finalist("twofish"), "RC6": _finalist("rc6"),
                   "MARS": _finalist("mars")}
_PAPER_000 = (("serpent", "Serpent"), ("twofish", "Twofish"), ("rc6", "RC6"), ("mars", "MARS"))

FINALISTS = Study(
    name="finalists",
    title="The AES finalists as single-round iterative cores (paper 000 Tables 1-11 shape)",
    description=("AES-128 (T-box ROM round as paper 000 built it, and logic S-boxes), Serpent "
                 "(1 and 8 rounds per clock), Twofish (MDS/RS as XOR networks and as tables), "
                 "RC6 and MARS (multipliers on DSP blocks and as partial-product logic), each "
                 "with its key setup beside the rounds where the cipher allows (RC6 and MARS: "
                 "the key schedule fills a round-key memory first), 128-bit keys, two placer "
                 "seeds each; Virtex (xcv) synthesis estimates; software baselines measured on "
                 "the same machine (OpenSSL, Crypto++)."),
    points=[_finalist("aes", sbox="tbox"), _finalist("aes", sbox="lut"),
            _finalist("serpent"), _finalist("serpent", rounds_per_clock=8),
            _finalist("twofish"), _finalist("twofish", mds="rom"),
            _finalist("rc6"), _finalist("rc6", mul="logic"),
            _finalist("mars"), _finalist("mars", mul="logic")],
    seeds=(1, 2),
    device="ecp5-85k",
    group_param="cipher",
    budget_minutes=60,
    software=True,
    estimates=("xcv",),
    bar_metric="performance.mbps_per_lut4",
    rankings=[
        Ranking("Throughput per area: do Rijndael and Serpent suit the FPGA best?",
                "performance.mbps_per_lut4", _FINALIST_NAMES, "000", "Table 7",
                "throughput_per_slice_kbps"),
        Ranking("Throughput: does the paper's order hold?", "performance.throughput_ecb_mbps",
                _FINALIST_NAMES, "000", "Table 7", "throughput_mbps"),
    ],
    published=[Published("000", f"Table {n}") for n in range(1, 12)],
    ratios=[
        Ratio(f"{name} / Rijndael: Mbit/s per LUT4 (paper: Kbit/s per slice)",
              "performance.mbps_per_lut4", _finalist(cipher), _finalist("aes", sbox="tbox"),
              "000", "Table 7", name, "Rijndael", "throughput_per_slice_kbps")
        for cipher, name in _PAPER_000
    ] + [
        Ratio(f"{name} / Rijndael: throughput", "performance.throughput_ecb_mbps",
              _finalist(cipher), _finalist("aes", sbox="tbox"),
              "000", "Table 7", name, "Rijndael", "throughput_mbps")
        for cipher, name in _PAPER_000
    ] + [
        Ratio("Serpent 8 / 1 rounds per clock: throughput", "performance.throughput_ecb_mbps",
              _finalist("serpent", rounds_per_clock=8), _finalist("serpent"),
              note="paper 000 Table 9: Elbirt et al.'s 8-round Serpent 444.20 vs the paper's "
                   "one-round 148.95 Mbit/s (2.98x, different designs); goal >= 3x"),
        Ratio("Twofish MDS/RS as tables / as XOR networks: LUT4", "area.lut4",
              _finalist("twofish", mds="rom"), _finalist("twofish")),
        *[Ratio(f"{name} multiplier as logic / on DSP blocks: {what}", metric,
                _finalist(cipher, mul="logic"), _finalist(cipher))
          for cipher, name in (("rc6", "RC6"), ("mars", "MARS"))
          for what, metric in (("LUT4", "area.lut4"), ("throughput", "performance.throughput_ecb_mbps"))],
    ],
)

KEY_SPECIFIC = Study(
    name="key-specific",
    title="Key-specific AES-128 and DES circuits over random keys, and re-keying without "
          "synthesis (paper 004 Tables 1-6 shape)",
    description=("Every key-specific variant (AES-128 iterative: fixed_key, fixed_round_key, "
                 "xor_collapse, xor_by_rom_all, xor_by_rom_partial, fixed_round_key_rom; pipelined "
                 "pl_fixed_key, pl_fixed_round_key, pl_xor_collapse; DES iterative and pipelined "
                 "fixed_round_key and xor_collapse) built for N random keys beside the generic "
                 "core of the same shape, one placer seed; then the block-RAM-keyed variants "
                 "re-keyed from one in-context build to every other key, each result checked."),
    points=[],
    seeds=(1,),
    device="ecp5-85k",
    keys=100,
    plugin="cipherfab.study.key_specific",
    budget_minutes=45,
    published=[Published("004", f"Table {n}") for n in range(1, 7)],
)

SYSTEM = Study(
    name="system",
    title="The accelerator system: system vs core throughput against transfer size, per link "
          "(paper 003 Fig. 7.7 shape)",
    description=("Paper 003's iterative core (AES-128, block-RAM S-boxes), the interleaved one "
                 "(3 stages) and three pipelined ones (block-RAM S-boxes, 1 register per round; "
                 "logic S-boxes with 2 registers per round; block-RAM S-boxes with 4 registers per "
                 "round, the block RAMs' output registers and the floorplan: the block-RAM "
                 "pipeline class's point), built for their "
                 "Fmax, then simulated as systems (AXI4-Stream, 512-block and 16-block FIFOs, mode "
                 "engine, registers) for transfers of 1 to 16,384 blocks through the Pilchard "
                 "links of paper 003, PCIe Gen3 x4 and an AXI DMA, in CTR, CBC encrypt and GCM "
                 "encrypt (no AAD, 1 KiB of AAD)."),
    points=[{"cipher": "aes", "arch": "iterative", "key_bits": 128, "direction": "encrypt", "sbox": "rom"},
            {"cipher": "aes", "arch": "interleaved", "key_bits": 128, "direction": "encrypt",
             "sbox": "rom", "stages": 3},
            {"cipher": "aes", "arch": "pipeline", "key_bits": 128, "direction": "encrypt", "sbox": "rom",
             "stages": 1},
            {"cipher": "aes", "arch": "pipeline", "key_bits": 128, "direction": "encrypt", "sbox": "lut",
             "stages": 2},
            {"cipher": "aes", "arch": "pipeline", "key_bits": 128, "direction": "encrypt", "sbox": "rom",
             "stages": 4, "ebr_outreg": True, "floorplan": True}],
    seeds=(1,),
    device="ecp5-85k",
    plugin="cipherfab.study.system",
    budget_minutes=45,
    published=[Published("003", "text", rows=("core throughput", "system throughput, MMX + uncacheable",
                                               "system throughput, SSE + uncacheable",
                                               "system throughput, SSE + write-combining",
                                               "system throughput saturation (> 400 blocks)",
                                               "Pilchard transfer rate, uncacheable",
                                               "Pilchard transfer rate, write-combining",
                                               "I/O buffer depth"),
                         why="the core against the system through the Pilchard card")],
)

_FLOW_BASE = {"cipher": "aes", "arch": "iterative", "key_bits": 128, "direction": "encrypt", "sbox": "lut"}
#: one non-default flow option per point, beside the default flow (flow.options): (option,
#: value, how the findings name it)
_FLOW_CHOICES = (("placer", "sa", "placer sa"), ("router", "router2", "router2"),
                 ("abc9", False, "no-abc9 (classic abc)"), ("widelut", False, "no-widelut (LUT4 only)"))

FLOW_OPTIONS = Study(
    name="flow-options",
    title="Flow options on the AES-128 iterative core: placer, router, LUT mapper, wide LUTs",
    description=("The AES-128 iterative encryption core with logic S-boxes built with the default "
                 "flow (heap placer, router1, ABC9 LUT mapping, wide LUTs) and with one option "
                 "changed at a time: the simulated-annealing placer, router2, the classic abc "
                 "LUT mapper, LUT4 only; three placer seeds each, so the median and the best "
                 "of the seeds show how much of a difference is the placer's luck."),
    points=[_FLOW_BASE] + [{**_FLOW_BASE, name: value} for name, value, _ in _FLOW_CHOICES],
    seeds=(1, 2, 3),
    device="ecp5-85k",
    budget_minutes=40,
    bar_metric="timing.fmax_mhz",
    ratios=[Ratio(f"{said} / default flow: {what}", metric, {name: value}, {"sbox": "lut"},
                  note="the default flow is the first point (no flow option set)")
            for name, value, said in _FLOW_CHOICES
            for what, metric in (("LUT4", "area.lut4"), ("Fmax", "timing.fmax_mhz"))],
)

#: the families study's devices, one per family with place and route, and its cores
FAMILY_DEVICES = ("ecp5-85k", "ice40-up5k", "gowin-9k", "nexus-40", "gatemate-a1")
_FAMILY_CORES = (_aes128("iterative", sbox="lut") + _aes128("interleaved", sbox="rom", stages=3)
                 + _aes128("interleaved", sbox="lut", stages=2) + _aes128("column", sbox="rom"))

FAMILIES = Study(
    name="families",
    title="Device families: four AES-128 cores on ECP5, iCE40, Gowin, Nexus and GateMate",
    description=("The default AES-128 iterative encryption core (logic S-boxes), the 3-stage "
                 "interleaved core with block-RAM S-boxes, the 2-stage interleaved core with logic "
                 "S-boxes and the compact 32-bit column core with block-RAM S-boxes, placed and "
                 "routed on one device of each family with open place and route: ECP5 LFE5U-85F, "
                 "iCE40 UP5K, Gowin GW1NR-9, Nexus LIFCL-40 and GateMate CCGM1A1. ECP5 builds the "
                 "core out of context; the other families have no out-of-context mode, so the core "
                 "sits behind the serial I/O wrapper (its area is in the record's `unassigned` "
                 "part, with the core's control). Two placer seeds, each family with its own "
                 "flow's defaults; a point's figures are the median of the seeds that placed and "
                 "routed, and a seed whose tool failed is named with its error."),
    points=[{**core, "device": d} for d in FAMILY_DEVICES for core in _FAMILY_CORES],
    seeds=(1, 2),
    device="ecp5-85k",
    plugin="cipherfab.study.families",
    budget_minutes=60,
)

def _masked(sboxes: int, shares: int, gadget: str = "hpc2") -> dict:
    """A masked point (HPC2 points without the gadget key: their labels and builds predate it)."""
    return {"cipher": "aes", "arch": "masked", "key_bits": 128, "direction": "encrypt",
            "sboxes": sboxes, "shares": shares, **({"gadget": gadget} if gadget != "hpc2" else {})}


MASKING = Study(
    name="masking",
    title="Masked AES-128: S-boxes x shares, against the unmasked cores of the same datapaths "
          "and the open anchors",
    description=("The masked AES-128 encryption core (on-core Trivium randomness) with HPC2 "
                 "S-boxes and with DOM S-boxes (`--gadget dom`: 18 instead of 34 fresh bits a "
                 "pair of shares, two clocks more), "
                 "with 4 S-boxes (a 32-bit column, two lanes, 55 cycles a block; DOM 65), 1 (byte-serial, "
                 "200; DOM 220) or 20 (10), each on 2, 3 and 4 shares (secure at order 1, 2, 3), beside "
                 "the unmasked iterative, column and byte cores with logic S-boxes (lut, "
                 "composite): cost, Fmax, cycles a block, random bits a clock and a block, and "
                 "the committed robust-probing verdict of each point. Points that do not fit "
                 "the device are named with the count. Two placer seeds."),
    points=([_masked(s, d) for s in (4, 1) for d in (2, 3, 4)]
            + [{"cipher": "aes", "arch": arch, "key_bits": 128, "direction": "encrypt", "sbox": sbox}
               for arch in ("column", "byte", "iterative") for sbox in ("composite", "lut")]
            + [_masked(20, d) for d in (2, 3, 4)]              # the biggest builds last
            + [_masked(s, d, "dom") for s in (4, 1, 20) for d in (2, 3, 4)]),
    seeds=(1, 2),
    device="ecp5-85k",
    x_param="sboxes",
    group_param="shares",
    plugin="cipherfab.study.masking",
    budget_minutes=120,
    goals=[
        Goal("masked, 4 S-boxes, 2 shares", (_masked(4, 2), _masked(4, 2, "dom")), "area.lut4",
             (("area.lut4", "<=", 4000), ("performance.cycles_per_block_ecb", "<=", 100),
              ("timing.fmax_mhz", ">=", 100)), lowest=True),
        Goal("masked, 20 S-boxes, 2 shares", (_masked(20, 2), _masked(20, 2, "dom")), "area.lut4",
             (("area.lut4", "<=", 15000), ("performance.cycles_per_block_ecb", "<=", 10)),
             lowest=True),
    ],
)

#: every named study; add new ones here
STUDIES: dict[str, Study] = {s.name: s for s in (QUICK, AES_SPACE, FINALISTS, KEY_SPECIFIC, SYSTEM,
                                                 FLOW_OPTIONS, FAMILIES, MASKING)}


def get_study(name: str) -> Study:
    try:
        return STUDIES[name]
    except KeyError:
        raise CipherfabError(f"unknown study {name!r}; known studies: "
                             + ", ".join(sorted(STUDIES))) from None


def device_note() -> str:
    return _COMMON_NOTE
