"""``sim --vectors cryptography-vectors:PATH``: files named inside the installed package
(a fake one here: the package is not in the lock), globs, and every refusal in one line."""

from importlib.machinery import ModuleSpec

import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.vectors import installed


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "site" / "cryptography_vectors"
    (root / "CMAC").mkdir(parents=True)
    for name in ("a.txt", "b.txt"):
        (root / "CMAC" / name).write_text("x")
    (root / "CMAC" / "folder.txt").mkdir()
    (tmp_path / "outside.txt").write_text("x")
    spec = ModuleSpec("cryptography_vectors", None, is_package=True)
    spec.submodule_search_locations = [str(root)]
    monkeypatch.setattr(installed.importlib.util, "find_spec",
                        lambda name: spec if name == "cryptography_vectors" else None)
    return root


def test_names_inside_the_package_and_globs(package):
    assert installed.resolve(["cryptography-vectors:CMAC/a.txt"]) == [str(package / "CMAC" / "a.txt")]
    assert installed.resolve(["cryptography-vectors:CMAC/*.txt", "plain.rsp", "C:x.rsp"]) == [
        str(package / "CMAC" / "a.txt"), str(package / "CMAC" / "b.txt"), "plain.rsp", "C:x.rsp"]


@pytest.mark.parametrize("name, words", [
    ("cryptography-vectors:../outside.txt", "name a file inside cryptography-vectors"),
    ("cryptography-vectors:/etc/passwd", "name a file inside cryptography-vectors"),
    ("cryptography-vectors:", "name a file inside cryptography-vectors"),
    ("cryptography-vectors:CMAC/none.txt", "no file CMAC/none.txt in cryptography-vectors"),
    ("cryptography-vectors:CMAC/*.rsp", "no file CMAC/*.rsp in cryptography-vectors"),
    ("cryptography-vectors:CMAC/folder.txt", "no file CMAC/folder.txt in cryptography-vectors"),
])
def test_a_name_outside_or_missing_is_one_line(package, capsys, name, words):
    assert main(["sim", "aes", "--mode", "cmac", "--vectors", name]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--vectors {name}: {words}" in err[0], err


def test_the_package_not_installed_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(installed.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CipherfabError, match="the cryptography-vectors package is not installed "
                                             r"\(pip install cryptography-vectors\)"):
        installed.resolve(["cryptography-vectors:CMAC/a.txt"])
    assert main(["sim", "aes", "--mode", "ofb", "--vectors", "cryptography-vectors:x.rsp"]) == 2
    assert "pip install cryptography-vectors" in capsys.readouterr().err
