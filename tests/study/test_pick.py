"""`cipherfab pick` answers from committed study results."""

from pathlib import Path

import pytest

from cipherfab.cli import main

QUICK = str(Path(__file__).parents[2] / "docs" / "results" / "quick" / "results.json")


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
    assert rc == 0 and "fastest" in out.out and "aes-iterative-128-encrypt-rom" in out.out
    rc, out = pick(capsys, "--max-lut4", "1741")     # the smallest measured point has 1742
    assert rc == 1
    rc, out = pick(capsys, "--device", "ecp5-25k", "--min-gbps", "0.85", "--max-ebr", "0")
    assert rc == 0 and "smallest of 2 fitting" in out.out and "aes-iterative-128-encrypt-lut" in out.out


def test_nothing_fits_exits_1(capsys):
    rc, out = pick(capsys, "--min-gbps", "50")
    assert rc == 1 and "no measured aes point meets the budget" in out.out
    rc, out = pick(capsys, "--key-agile")        # the quick study has no key-agile core
    assert rc == 1


@pytest.mark.parametrize("argv, message", [
    (["--device", "ice40-hx8k"], "pick knows the capacity of"),
    (["--device", "nosuch"], "unknown device 'nosuch'"),
    (["--min-gbps", "-1"], "--min-gbps must be >= 0"),
])
def test_bad_input_one_line(capsys, argv, message):
    rc, out = pick(capsys, *argv)
    assert rc == 2 and message in out.err and out.err.count("\n") == 1


def test_bad_results_file(tmp_path, capsys):
    bad = tmp_path / "results.json"
    bad.write_text("{not json")
    assert main(["pick", "aes", "--results", str(bad)]) == 2
    assert "is not a results.json" in capsys.readouterr().err
