"""`cipherfab pick` answers from committed study results."""

import json
import re
from pathlib import Path

import pytest

from cipherfab.cli import main
from cipherfab.study import pick as P

RESULTS = Path(__file__).parents[2] / "docs" / "results"
QUICK = str(RESULTS / "quick" / "results.json")


def pick(capsys, *argv):
    rc = main(["pick", "aes", "--results", QUICK, *argv])
    return rc, capsys.readouterr()


def test_smallest_point_within_budget(capsys):
    rc, out = pick(capsys, "--min-gbps", "1.2")
    assert rc == 0
    assert "aes-iterative-128-encrypt-rom" in out.out
    assert "cipherfab generate aes --arch iterative --key-bits 128 --direction encrypt --sbox rom" in out.out
    assert "measured on ecp5-85k" in out.out


def test_limits_and_fastest(capsys):
    rc, out = pick(capsys, "--min-gbps", "1.1", "--max-ebr", "0")
    assert rc == 0 and "aes-iterative-128-encrypt-lut" in out.out
    rc, out = pick(capsys, "--fastest")
    assert rc == 0 and "fastest" in out.out and "aes-iterative-128-encrypt-lut" in out.out
    smallest = min(r["area"]["lut4"] for r in json.loads(Path(QUICK).read_text())["records"]
                   if r["status"] == "ok")
    rc, out = pick(capsys, "--max-lut4", str(smallest - 1))     # below every measured point
    assert rc == 1
    rc, out = pick(capsys, "--max-lut4", str(smallest))
    assert rc == 0
    rc, out = pick(capsys, "--device", "ecp5-25k", "--min-gbps", "1.0", "--max-ebr", "0")
    assert rc == 0 and re.search(r"smallest of \d+ fitting points: aes-iterative-128-encrypt-lut\n",
                                 out.out)


def test_nothing_fits_exits_1(capsys):
    rc, out = pick(capsys, "--min-gbps", "50")
    assert rc == 1 and "no measured aes point meets the budget" in out.out
    rc, out = pick(capsys, "--key-agile")        # the quick study has no key-agile core
    assert rc == 1


@pytest.mark.parametrize("argv, message", [
    (["--device", "xc7"], "pick knows the capacity of"),
    (["--device", "nosuch"], "unknown device 'nosuch'"),
    (["--min-gbps", "-1"], "argument --min-gbps: must be a finite number >= 0"),
])
def test_bad_input_one_line(capsys, argv, message):
    rc, out = pick(capsys, *argv)
    assert rc == 2 and message in out.err and out.err.count("\n") == 1


def test_bad_results_file(tmp_path, capsys):
    bad = tmp_path / "results.json"
    bad.write_text("{not json")
    assert main(["pick", "aes", "--results", str(bad)]) == 2
    assert "is not a results.json" in capsys.readouterr().err


def test_shipped_copies_match_the_committed_results():
    """The package ships what pick reads of docs/results/*/results.json; after a study rewrites
    those, refresh the copies: python -m cipherfab.study.pick --refresh"""
    committed = sorted(RESULTS.glob("*/results.json"))
    shipped = P.shipped_files()
    assert [f.stem for f in shipped] == [f.parent.name for f in committed]
    for c, s in zip(committed, shipped):
        assert s.read_text() == P.shipped_text(c), f"{s} is stale: python -m cipherfab.study.pick --refresh"


def test_answers_from_any_folder_with_the_shipped_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["pick", "aes", "--min-gbps", "1.2"]) == 0
    out = capsys.readouterr().out
    assert "from study " in out and "shipped with cipherfab, measured 20" in out
    assert "cipherfab generate aes " in out


def test_key_specific_circuits_are_never_the_answer(capsys):
    """Their random study key is built in: no use to anyone else."""
    ks = str(RESULTS / "key-specific")
    for argv in (["aes"], ["aes", "--results", ks], ["tdes", "--results", ks], ["aes", "--fastest"]):
        assert main(["pick", *argv]) == 0
        out = capsys.readouterr().out
        assert "key_specific" not in out and "--key " not in out, out
    rows = P.candidates(P.shipped_files(), "aes")
    assert rows and not any("key" in r["params"] for r in rows)


def test_results_may_name_a_folder(capsys):
    assert main(["pick", "aes", "--results", str(RESULTS / "quick"), "--min-gbps", "1.2"]) == 0
    first = capsys.readouterr().out
    assert main(["pick", "aes", "--results", QUICK, "--min-gbps", "1.2"]) == 0
    assert capsys.readouterr().out == first
    assert main(["pick", "aes", "--results", str(RESULTS), "--fastest"]) == 0   # */results.json
    assert "aes-pipeline" in capsys.readouterr().out
