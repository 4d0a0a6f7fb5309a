"""`cipherfab sim` and `cipherfab verify`: bad input is one line and exit 2, before any compile."""

import pytest

from cipherfab.cli import main

KAT = "aes/KAT_AES/ECBGFSbox128.rsp"


@pytest.fixture
def places(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.txt").write_text("hello\n")
    (tmp_path / "rc6.rsp").write_text("")
    return tmp_path


CASES = [
    # sim: what to run
    (["sim", "aes", "--random", "1e23"], "must lie in 1 to 1e+12, got 1e23"),
    (["sim", "aes", "--random", "17000000000000"], "must lie in 1 to 1e+12"),
    (["sim", "aes", "--random", "0"], "must lie in 1 to"),
    (["sim", "aes", "--random", "-5"], "must lie in 1 to"),
    (["sim", "aes", "--random", "nan"], "invalid integer 'nan'"),
    (["sim", "aes", "--random", "inf"], "invalid integer 'inf'"),
    (["sim", "aes", "--random", "1.5"], "invalid integer '1.5'"),
    (["sim", "aes", "--random", ""], "invalid integer ''"),
    (["sim", "aes"], "one of the arguments --vectors --random is required"),
    (["sim", "aes", "--random", "5", "--vectors", "x.rsp"], "not allowed with argument"),
    (["sim", "aes", "--vectors", "{tmp}/missing.rsp"], "missing.rsp"),
    (["sim", "aes", "--vectors", "{tmp}/empty"], "cannot read: Is a directory"),
    (["sim", "aes", "--vectors", "{tmp}/file.txt"], "file.txt"),
    # sim: how to run it
    (["sim", "aes", "--random", "5", "--limit", "0"], "must be >= 1"),
    (["sim", "aes", "--random", "5", "--seed", "x"], "invalid int value"),
    (["sim", "aes", "--random", "5", "--valid-prob", "0"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--valid-prob", "1.5"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--valid-prob", "nan"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--ready-prob", "-1"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--ready-prob", "inf"], "must be in (0, 1]"),
    (["sim", "aes", "--random", "5", "--blocks-per-key", "0"], "must be >= 1"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "0"], "must lie in 0.05 to 20"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "nan"], "must lie in 0.05 to 20"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "100"], "must lie in 0.05 to 20"),
    (["sim", "aes", "--random", "5", "--key-bits", "100"], "--key-bits 100 is not supported"),
    (["sim", "aes", "--random", "5", "--arch", "nope"], "--arch 'nope' is not supported"),
    (["sim", "rot13", "--random", "5"], "rot13"),
    (["sim", "aes", "--random", "5", "--key-clock-period", "2"], "no key clock"),
    # generate (a core; the system's cases are in tests/host/test_bad_input_host.py)
    (["generate", "aes", "-o", "/dev/null/x.v"], "cannot write /dev/null/x.v: /dev/null is not a directory"),
    (["generate", "aes", "-o", "/proc/x.v"], "cannot write /proc/x.v"),
    (["generate", "aes", "-o", "{tmp}/empty"], "it is a directory"),
    (["generate", "aes", "-o", "{tmp}/nowhere/x.v"], "no directory"),
    (["generate", "aes", "-o", "{tmp}/x.json"], "name the Verilog file"),
    (["generate", "aes", "--fusesoc", "{tmp}/file.txt"], "not a directory"),
    (["generate", "aes", "--fusesoc", "{tmp}/f", "-o", "x.v"], "drop -o"),
    (["generate", "aes", "--axis-width", "32"], "go with --system"),
    # verify
    (["verify"], "nothing to verify"),
    (["verify", "aes", "--vectors-dir", "{tmp}/empty"], "lacks aes/KAT_AES/"),
    (["verify", "aes", "--vectors-dir", "{tmp}/missing"], "does not exist"),
    (["verify", "aes", "--vectors-dir", "{tmp}/file.txt"], "does not exist"),
    (["verify", "aes", "--random", "0"], "must be >= 1"),
    (["verify", "aes", "-j", "0"], "must be >= 1"),
    (["verify", "aes", "--seed", "1.5"], "invalid int value"),
    (["verify", "--changed"], "--changed goes with --all"),
    (["verify", "--status", "--all"], "--status only reads the ledger"),
    (["verify", "--all", "-j", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
    (["verify", "--all", "--key-bits", "128"], "--all checks every point; --key-bits"),
    (["verify", "--all", "--scheduler", ""], "empty address"),
    (["verify", "--all", "--scheduler", "localhost"], "invalid scheduler address"),
    (["verify", "--all", "--scheduler", "http://h:1"], "unsupported scheme"),
    (["verify", "--all", "--scheduler", "tcp://h:99999"], "port must be 1..65535"),
    (["verify", "--all", "--update-readme"], "--update-readme goes with --status"),
    (["verify", "aes", "--arch", "pipelined-9"], "--arch 'pipelined-9' is not supported"),
]


@pytest.mark.parametrize("argv, needle", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_refused_in_one_line(argv, needle, places, capsys, monkeypatch):
    monkeypatch.delenv("CIPHERFAB_VECTORS", raising=False)
    argv = [a.replace("{tmp}", str(places)) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert needle in err, err
