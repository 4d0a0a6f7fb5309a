"""Bad input to ``cipherfab study`` and ``cipherfab pick`` (and the Dask hint of ``verify``):
one line on stderr naming the problem, exit 2, nothing on stdout, and no build started.

Each case is (argv, the words the line must hold); ``{tmp}`` stands for a folder holding the
files made by ``files`` below.  Cases marked ``NO_DASK`` run as if the ``cluster`` extra
(dask[distributed]) were not installed.
"""

import json
import sys
from pathlib import Path

import pytest

from cipherfab.cli import main
from cipherfab.study import pool, runner

NO_DASK = "no dask"
HINT = "pip install 'cipherfab[cluster]'"
ADDR = "tcp://127.0.0.1:8786"
ROOT = Path(__file__).resolve().parents[2]

STUDY = [
    # the study
    (["study", "nosuch"], "unknown study 'nosuch'; known studies: aes-space, families, finalists"),
    (["study", ""], "unknown study ''"),
    # -j
    (["study", "quick", "-j", "0"], "argument -j/--jobs: must be >= 1, got 0"),
    (["study", "quick", "-j", "-3"], "argument -j/--jobs: must be >= 1, got -3"),
    (["study", "quick", "-j", "x"], "argument -j/--jobs: invalid integer 'x'"),
    (["study", "quick", "-j", ""], "argument -j/--jobs: invalid integer ''"),
    (["study", "quick", "-j", "1e3"], "argument -j/--jobs: invalid integer '1e3'"),
    (["study", "quick", "-j", "100000"], "argument -j/--jobs: must be <= "),
    (["study", "quick", "-j", "2", "--scheduler", ADDR], "-j/--jobs and --scheduler exclude each other"),
    # --scheduler
    (["study", "quick", "--scheduler", ""], "argument --scheduler: empty address"),
    (["study", "quick", "--scheduler", "nonsense"], "invalid scheduler address 'nonsense'"),
    (["study", "quick", "--scheduler", "tcp://"], "invalid scheduler address 'tcp://'"),
    (["study", "quick", "--scheduler", "tcp://:8786"], "invalid scheduler address 'tcp://:8786'"),
    (["study", "quick", "--scheduler", "tcp://host"], "invalid scheduler address 'tcp://host'"),
    (["study", "quick", "--scheduler", "http://127.0.0.1:8786"], "unsupported scheme 'http'"),
    (["study", "quick", "--scheduler", "tcp://127.0.0.1:0"], "port must be 1..65535"),
    (["study", "quick", "--scheduler", "tcp://127.0.0.1:70000"], "port must be 1..65535"),
    (["study", "quick", "--scheduler", ADDR, NO_DASK], HINT),
    (["study", "key-specific", "--keys", "2", "--scheduler", ADDR, NO_DASK], HINT),
    # --seeds
    (["study", "quick", "--seeds", "2147483648"], "seeds must be <= 2147483647"),
    (["study", "quick", "--seeds", "1,99999999999999999999"], "seeds must be <= 2147483647"),
    (["study", "quick", "--seeds", "nan"], "seeds must be comma-separated integers, not 'nan'"),
    (["study", "quick", "--seeds", "inf"], "seeds must be comma-separated integers, not 'inf'"),
    (["study", "quick", "--seeds", "1.5"], "seeds must be comma-separated integers"),
    (["study", "quick", "--seeds", " "], "at least one seed is needed"),
    (["study", "quick", "--seeds", "1,2,1"], "repeated seed in '1,2,1'"),
    # --keys
    (["study", "key-specific", "--keys", "0"], "argument --keys: must be >= 1, got 0"),
    (["study", "key-specific", "--keys", "-1"], "argument --keys: must be >= 1, got -1"),
    (["study", "key-specific", "--keys", "1001"], "argument --keys: must be <= 1000"),
    (["study", "key-specific", "--keys", "nan"], "argument --keys: invalid integer 'nan'"),
    (["study", "quick", "--keys", "5"], "--keys applies to key studies (key-specific), not 'quick'"),
    (["study", "system", "--keys", "5"], "--keys applies to key studies (key-specific), not 'system'"),
    # --device
    (["study", "quick", "--device", ""], "unknown device ''"),
    (["study", "quick", "--device", "nosuch"], "unknown device 'nosuch'"),
    (["study", "quick", "--device", "xcv"], "device 'xcv' is synthesis-only"),
    (["study", "finalists", "--device", "xc7"], "device 'xc7' is synthesis-only"),
    # flow options for every point
    (["study", "quick", "--placer", "annealing"], "argument --placer: invalid choice: 'annealing'"),
    (["study", "quick", "--router", "router3"], "argument --router: invalid choice: 'router3'"),
    (["study", "quick", "--abc9", "--no-abc9"], "argument --abc9/--no-abc9: given both ways"),
    (["study", "quick", "--device", "ice40-hx8k", "--ebr-outreg"],
     "--ebr-outreg applies to ECP5 devices (synth_ecp5), not ice40-hx8k"),
    (["study", "quick", "--device", "ice40-hx8k", "--floorplan"],
     "--floorplan applies to ECP5 devices (synth_ecp5), not ice40-hx8k"),
    (["study", "quick", "--device", "ice40-hx8k", "--no-widelut"],
     "--no-widelut applies to ECP5 devices (synth_ecp5), not ice40-hx8k"),
    (["study", "families", "--device", "ecp5-85k"],
     "--device: study 'families' builds each point on its own device (it takes no --device)"),
    (["study", "families", "--router", "router1"],
     "--router router1 is not offered on gatemate-a1: Cologne Chip GateMate routes with router2"),
    (["study", "families", "--no-widelut"], "--no-widelut applies to ECP5 devices (synth_ecp5), not ice40-up5k"),
    (["study", "quick", "--heap-crit-exp", "0"], "argument --heap-crit-exp: must be >= 1, got 0"),
    (["study", "quick", "--placer", "sa", "--heap-timing-weight", "30"],
     "--heap-timing-weight applies to the heap placer, not --placer sa"),
    (["study", "families", "--heap-timing-weight", "30"],
     "--heap-timing-weight is not offered on gowin-9k: its nextpnr has no heap placer options"),
    (["study", "quick", "--device", "gatemate-a1", "--router", "router1"],
     "--router router1 is not offered on gatemate-a1: Cologne Chip GateMate routes with router2"),
    (["study", "flow-options", "--router", "router2"],
     "--router: point aes-iterative-128-encrypt-lut-router2 sets router itself"),
    (["study", "flow-options", "--no-abc9"], "--no-abc9: point aes-iterative-128-encrypt-lut-no-abc9 sets abc9 itself"),
    (["study", "aes-space", "--flatten"], "--flatten: point aes-column-128-encrypt-rom-flatten sets flatten itself"),
    (["study", "quick", "--flatten", "--no-flatten"], "argument --flatten/--no-flatten: given both ways"),
    # --out
    (["study", "quick", "--out", ""], "argument --out: empty folder name"),
    (["study", "quick", "--out", "  "], "argument --out: empty folder name"),
    (["study", "quick", "--out", "{tmp}/file"], "cannot write results to {tmp}/file/quick: Not a directory"),
    (["study", "quick", "--out", "/dev/null"], "cannot write results to /dev/null/quick: Not a directory"),
    (["study", "quick", "--out", "/dev/null/x"], "cannot write results to /dev/null/x/quick"),
    (["study", "quick", "--out", "/proc/x"], "cannot write results to /proc/x/quick"),
    (["study", "quick", "--out", "{tmp}/taken"], "{tmp}/taken/quick: it is a file, not a folder"),
    (["study", "quick", "--out", "{tmp}/" + "x" * 300], "File name too long"),
    # the builds an interrupted run saved, which the next run resumes from
    (["study", "quick", "--out", "{tmp}/resume-json"],
     "cannot resume from {tmp}/resume-json/quick/partial/builds/" + "a" * 32 + ".json: "
     "not a saved build measurement (Expecting"),
    (["study", "quick", "--out", "{tmp}/resume-name"],
     "cannot resume from {tmp}/resume-name/quick/partial/builds/notakey.json: not a saved build"),
    (["study", "quick", "--out", "{tmp}/resume-shape"],
     "cannot resume from {tmp}/resume-shape/quick/partial/builds/" + "b" * 32 + ".json: "
     "not a saved build measurement (a <32 hex digits>.json with measured_at and timing)"),
    (["study", "quick", "--out", "{tmp}/resume-folder"],
     "cannot resume from {tmp}/resume-folder/quick/partial/builds/sub: not a saved build"),
    # external cores and peers
    (["study", "quick", "--peer", "{tmp}/missing.json"], "peer file {tmp}/missing.json: no such file"),
    (["study", "quick", "--peer", "{tmp}/bad.json"], "peer file {tmp}/bad.json is not JSON"),
    (["study", "quick", "--verilog", "{tmp}/missing.v", "--top", "t", "--cycles-per-block", "4"],
     "Verilog file {tmp}/missing.v: no such file"),
    (["study", "quick", "--peer", "/dev/zero"], "--peer /dev/zero: is a character device, not a regular file"),
    (["study", "quick", "--peer", "{tmp}/" + "x" * 300], "characters): cannot look it up (File name too long)"),
    (["study", "quick", "--peer", "{tmp}/empty"], "--peer {tmp}/empty: is a folder, not a file"),
    (["study", "quick", "--verilog", "/dev/zero", "--top", "t", "--cycles-per-block", "4"],
     "--verilog /dev/zero: is a character device, not a regular file"),
    (["study", "quick", "--verilog", "{tmp}/file", "--top", "t", "--cycles-per-block", "0"],
     "argument --cycles-per-block: must be >= 1, got 0"),
    # --check: a committed study built again and compared with its record
    (["study", "quick", "--sample", "2"], "--sample applies to --check"),
    (["study", "quick", "--sample-seed", "2"], "--sample-seed applies to --check"),
    (["study", "quick", "--results", "{tmp}/quick.json"], "--results applies to --check"),
    (["study", "quick", "--check", "--sample-seed", "2"], "--sample-seed needs --sample N"),
    (["study", "quick", "--check", "--sample", "0"], "argument --sample: must be >= 1, got 0"),
    (["study", "quick", "--check", "--sample", "-1"], "argument --sample: must be >= 1, got -1"),
    (["study", "quick", "--check", "--sample", "x"], "argument --sample: invalid integer 'x'"),
    (["study", "quick", "--check", "--sample", "7", "--results", "{tmp}/quick.json"],
     "--sample 7: the record has 6 points"),
    (["study", "quick", "--check", "--sample", "1", "--sample-seed", "-1"],
     "argument --sample-seed: must be >= 0, got -1"),
    (["study", "quick", "--check", "--sample", "1", "--sample-seed", "2147483648"],
     "argument --sample-seed: must be <= 2147483647"),
    (["study", "quick", "--check", "--no-cache"],
     "--no-cache contradicts --check: --check never uses the build cache"),
    (["study", "quick", "--check", "--update-readme"], "--update-readme contradicts --check: --check writes nothing"),
    (["study", "quick", "--check", "--out", "docs/results"], "--out contradicts --check: --check writes nothing"),
    (["study", "quick", "--check", "--seeds", "1"], "--seeds contradicts --check: --check builds with the record's"),
    (["study", "quick", "--check", "--device", "ecp5-25k"], "--device contradicts --check"),
    (["study", "quick", "--check", "--router", "router2"], "--router contradicts --check"),
    (["study", "quick", "--check", "--no-abc9"], "--no-abc9 contradicts --check"),
    (["study", "quick", "--check", "--flatten"], "--flatten contradicts --check"),
    (["study", "key-specific", "--check", "--keys", "5"], "--keys contradicts --check"),
    (["study", "quick", "--check", "-j", "2", "--scheduler", ADDR], "-j/--jobs and --scheduler exclude each other"),
    (["study", "quick", "--check", "--results", ""], "--results: empty path"),
    (["study", "quick", "--check", "--results", "{tmp}/missing.json"], "results file {tmp}/missing.json: no such file"),
    (["study", "quick", "--check", "--results", "/dev/zero"], "--results /dev/zero: not a file"),
    (["study", "quick", "--check", "--results", "{tmp}/empty"], "--results {tmp}/empty: not a file"),
    (["study", "quick", "--check", "--results", "{tmp}/bad.json"], "{tmp}/bad.json is not a study's results.json: Expecting"),
    (["study", "quick", "--check", "--results", "{tmp}/binary.json"], "results file {tmp}/binary.json: a binary file (NUL byte at offset 2)"),
    (["study", "quick", "--check", "--results", "{tmp}/list.json"], "{tmp}/list.json is not a study's results.json (no study)"),
    (["study", "finalists", "--check", "--results", "{tmp}/quick.json"],
     "{tmp}/quick.json is the record of study 'quick', not 'finalists'"),
    (["study", "quick", "--check", "--results", "{tmp}/interrupted.json"], "is an interrupted run's results"),
    (["study", "quick", "--check", "--results", "{tmp}/no-seeds.json"], "(no list of seeds)"),
    (["study", "quick", "--check", "--results", "{tmp}/no-record.json"],
     "(no record of aes-iterative-256-encrypt-rom seed 2)"),
    (["study", "quick", "--check", "--results", "{tmp}/lut-text.json"],
     "(LUT4 of aes-iterative-128-encrypt-lut seed 1 is 'many', not a number)"),
    (["study", "quick", "--check", "--results", "{tmp}/external.json"],
     "the record's external point 'aes-iterative-128-encrypt-lut' needs its sources: give the --peer"),
    (["study", "quick", "--check", "--results", "{tmp}/quick.json", "--peer", "{tmp}/peer.json"],
     "the record has no external point 'a peer'"),
    # the Dask hint of verify, which shares the study's client
    (["verify", "aes", "--scheduler", ADDR, NO_DASK], HINT),
]

PICK = [
    (["pick", "nosuch"], "unknown cipher 'nosuch'; known ciphers: aes"),
    (["pick", ""], "unknown cipher ''"),
    (["pick", "aes", "--min-gbps", "nan"], "argument --min-gbps: must be a finite number >= 0, got 'nan'"),
    (["pick", "aes", "--min-gbps", "inf"], "argument --min-gbps: must be a finite number >= 0, got 'inf'"),
    (["pick", "aes", "--min-gbps=-inf"], "argument --min-gbps: must be a finite number >= 0, got '-inf'"),
    (["pick", "aes", "--min-gbps=-1"], "argument --min-gbps: must be a finite number >= 0, got '-1'"),
    (["pick", "aes", "--min-gbps", "x"], "argument --min-gbps: invalid number 'x'"),
    (["pick", "aes", "--min-gbps", ""], "argument --min-gbps: invalid number ''"),
    (["pick", "aes", "--max-lut4=-1"], "argument --max-lut4: must be >= 0, got -1"),
    (["pick", "aes", "--max-lut4", "1.5"], "argument --max-lut4: invalid integer '1.5'"),
    (["pick", "aes", "--max-lut4", "nan"], "argument --max-lut4: invalid integer 'nan'"),
    (["pick", "aes", "--max-ebr=-1"], "argument --max-ebr: must be >= 0, got -1"),
    (["pick", "aes", "--max-ebr", "inf"], "argument --max-ebr: invalid integer 'inf'"),
    (["pick", "aes", "--device", ""], "unknown device ''"),
    (["pick", "aes", "--device", "nosuch"], "unknown device 'nosuch'"),
    (["pick", "aes", "--device", "anything"], "unknown device 'anything'"),
    (["pick", "aes", "--device", "xc7"], "pick knows the capacity of ecp5-25k"),
    (["pick", "aes", "--results", "{tmp}/missing.json"], "--results {tmp}/missing.json: no such file"),
    (["pick", "aes", "--results", "{tmp}/bad.json"], "{tmp}/bad.json is not a results.json"),
    (["pick", "aes", "--results", "{tmp}/binary.json"], "--results {tmp}/binary.json: a binary file (NUL byte at offset 2), not a JSON file"),
    (["pick", "aes", "--results", "{tmp}/list.json"], "is not a results.json (no list of aggregates)"),
    (["pick", "aes", "--results", "{tmp}/aggregates-int.json"], "(no list of aggregates)"),
    (["pick", "aes", "--results", "{tmp}/aggregate-int.json"], "aggregate 0 is malformed"),
    (["pick", "aes", "--results", "{tmp}/median-text.json"],
     "aggregate 0 (x) is malformed: the area.lut4 median is 'a', not a number >= 0"),
    (["pick", "aes", "--results", "{tmp}/median-nan.json"], "the area.lut4 median is nan"),
    (["pick", "aes", "--results", "{tmp}/median-negative.json"], "the area.ebr median is -1"),
    (["pick", "aes", "--results", "{tmp}/stats-list.json"], "stats is not an object"),
    (["pick", "aes", "--results", "/dev/zero"], "--results /dev/zero: is a character device, not a regular file"),
    (["pick", "aes", "--results", "/dev/null"], "--results /dev/null: is a character device, not a regular file"),
    (["pick", "aes", "--results", "{tmp}/empty"], "no results.json in {tmp}/empty"),
    (["pick", "aes", "--results", ""], "--results: empty path"),
    (["pick", "aes", "--results", "{tmp}/" + "x" * 300], "File name too long"),
    (["pick", "tdes", "--results", "{tmp}/quick-like.json"], "no measured tdes points in the study results"),
]

CASES = STUDY + PICK


def _aggregate(**stats):
    return {"label": "x", "params": {"cipher": "aes", "arch": "iterative"}, "ok_seeds": [1],
            "stats": {k.replace("_", "."): {"median": v} for k, v in stats.items()}}


@pytest.fixture
def files(tmp_path):
    """The files the cases name, in {tmp}."""
    (tmp_path / "file").write_text("not a folder")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "quick").write_text("a file where the study's folder would go")
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "aggregates-int.json").write_text('{"aggregates": 5}')
    (tmp_path / "aggregate-int.json").write_text('{"aggregates": [5]}')
    lut, thr = "area_lut4", "performance_throughput_ecb_mbps"
    for name, agg in {"median-text": _aggregate(**{lut: "a", thr: 5}),
                      "median-negative": _aggregate(**{lut: 10, "area_ebr": -1, thr: 5}),
                      "quick-like": _aggregate(**{lut: 10, thr: 5})}.items():
        (tmp_path / f"{name}.json").write_text(json.dumps({"aggregates": [agg]}))
    (tmp_path / "median-nan.json").write_text(
        '{"aggregates": [{"label": "x", "params": {"cipher": "aes"}, "ok_seeds": [1], '
        '"stats": {"area.lut4": {"median": NaN}}}]}')
    (tmp_path / "stats-list.json").write_text(
        '{"aggregates": [{"label": "x", "params": {"cipher": "aes"}, "ok_seeds": [1], "stats": []}]}')
    (tmp_path / "empty").mkdir()
    quick = json.loads((ROOT / "docs" / "results" / "quick" / "results.json").read_text())
    for name, change in [("quick", None), ("interrupted", lambda d: d.update(interrupted=True)),
                         ("no-seeds", lambda d: d.update(seeds=[])),
                         ("no-record", lambda d: d["records"].pop()),
                         ("lut-text", lambda d: d["records"][0]["area"].update(lut4="many")),
                         ("external", lambda d: d["points"][0].update(external=True))]:
        data = json.loads(json.dumps(quick))
        if change:
            change(data)
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    (tmp_path / "peer.v").write_text("module p(input clk); endmodule\n")
    (tmp_path / "peer.json").write_text(json.dumps({"label": "a peer", "top": "p", "verilog": ["peer.v"],
                                                     "cycles_per_block": 4}))
    good = json.dumps({"measured_at": "2026-01-01T00:00:00+00:00", "timing": {"fmax_mhz": 1}})
    for name, file, text in [("resume-json", "a" * 32 + ".json", "{not json"),
                             ("resume-name", "notakey.json", good),
                             ("resume-shape", "b" * 32 + ".json", '{"measured_at": "x"}'),
                             ("resume-folder", "sub", None)]:
        saved = tmp_path / name / "quick" / "partial" / "builds"
        saved.mkdir(parents=True)
        (saved / ("c" * 32 + ".json")).write_text(good)      # a good one beside: not imported
        if text is None:
            (saved / file).mkdir()
        else:
            (saved / file).write_text(text)
    return tmp_path


@pytest.fixture
def no_builds(monkeypatch):
    """Any attempt to start workers or a sweep fails the test: refusals come first."""
    def started(*args, **kwargs):
        pytest.fail("a build started before the refusal")
    monkeypatch.setattr(pool, "open_backend", started)
    monkeypatch.setattr(runner, "sweep", started)


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(a) or "''" for a, _ in CASES])
def test_bad_input_is_one_line_exit_2(argv, words, files, no_builds, monkeypatch, capsys):
    if NO_DASK in argv:
        argv = [a for a in argv if a != NO_DASK]
        monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed: ImportError
    argv = [a.replace("{tmp}", str(files)) for a in argv]
    if argv[0] == "study":
        argv.append("--quiet")
    rc = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert rc == 2, (rc, err)
    assert len(lines) == 1, err
    assert lines[0].startswith(f"cipherfab {argv[0]}: error: "), lines[0]
    assert words.replace("{tmp}", str(files)) in lines[0]
    assert out == "" and "Traceback" not in err


def test_check_without_committed_results(tmp_path, monkeypatch, no_builds, capsys):
    """--check on a study with no committed results.json: the repository root found from
    the current folder has none (or no root at all)."""
    monkeypatch.chdir(tmp_path)
    for root in (False, True):
        if root:
            (tmp_path / "pyproject.toml").write_text("")
        assert main(["study", "quick", "--check", "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        want = (f"no committed results for study 'quick' ({tmp_path.resolve()}/docs/results/quick/"
                "results.json is missing); give --results FILE" if root else
                "no repository root in")
        assert err == [err[0]] and err[0].startswith("cipherfab study: error: --check: ") and want in err[0]


def test_there_are_enough_cases():
    assert len(CASES) >= 50


@pytest.mark.parametrize("content, words", [
    (None, "results file {tmp}/results.json: no such file"),
    ("{", "{tmp}/results.json is not a study's results.json: Expecting"),
    ("[]", "{tmp}/results.json is not a study's results.json (no study and aggregates)"),
    ('{"study": {}, "aggregates": 5}', "(no study and aggregates)"),
])
def test_report_regeneration_refuses_a_bad_results_file(content, words, tmp_path, capsys):
    from cipherfab.study.report import main as report_main
    if content is not None:
        (tmp_path / "results.json").write_text(content)
    assert report_main([str(tmp_path / "results.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [err[0]] and words.replace("{tmp}", str(tmp_path)) in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == (["results.json"] if content else [])
