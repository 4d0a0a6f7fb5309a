"""The built wheel: it ships every KAT file the ciphers declare (and their SOURCES.md), and
``cipherfab verify`` run from it (in a fresh venv, outside any checkout) finds and passes them."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from cipherfab.registry import ciphers

REPO = Path(__file__).resolve().parent.parent
KAT = "cipherfab/vectors/kat/"
ROW = re.compile(r"^\| `([^`]+)` \| \d+ \| [^|]+ \| `([0-9a-f]{64})` \|", re.M)


def declared() -> set[str]:
    """Every KAT file of every cipher and key size, and the GCM file verify runs, as paths
    under the vector folder."""
    from cipherfab.host.verify_gcm import GCM_FILE
    return {f for c in ciphers().values() for k in c.key_bits for f in c.kat_files(k)} | {GCM_FILE}


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built (offline, with the installed setuptools) from a copy of the sources: a
    build in the checkout would leave build/ there, and stale files in it could reach the wheel."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src-copy"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(REPO / "src", src / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", tmp / "dist", src])
    (built,) = (tmp / "dist").glob("cipherfab-*.whl")
    return built


def test_wheel_ships_exactly_the_declared_kat_files_and_their_sources(wheel):
    files = declared()
    assert len(files) > 20
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert {n[len(KAT):] for n in names if n.startswith(KAT)} == files | {"SOURCES.md"}
        sources = z.read(KAT + "SOURCES.md").decode()
        rows = dict(ROW.findall(sources))
        assert set(rows) == files            # one provenance row per shipped file, no other
        for f, sha in rows.items():          # byte-identical to the row's sha256 (CRLF kept)
            assert hashlib.sha256(z.read(KAT + f)).hexdigest() == sha, f


def test_verify_from_the_wheel_in_a_fresh_venv(wheel, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CIPHERFAB_VECTORS", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    venv = tmp_path / "venv"
    # the dependencies this test runs with are reused: a .pth line adds this environment's
    # site folders (whether it is a venv or the system's; `venv --system-site-packages` would
    # see the base interpreter's, not an active venv's) after the new venv's own, so the
    # wheel's cipherfab comes first and the editable one is never activated (its .pth is not read)
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    env=env).stdout.strip())
    ours = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    (site / "_cipherfab_test_parent.pth").write_text("".join(f"{p}\n" for p in ours))
    run([python, "-m", "pip", "install", "--no-deps", "--force-reinstall", "--no-index", wheel],
        env=env)
    empty = tmp_path / "empty"
    empty.mkdir()
    p = run([python, "-c", "import cipherfab, sysconfig; from cipherfab.sim.verify import vector_root;"
             "print(cipherfab.__file__); print(sysconfig.get_paths()['purelib']); print(vector_root(None))"],
            cwd=empty, env=env)
    module, site, root = (Path(line) for line in p.stdout.splitlines())
    assert site.is_relative_to(venv) and module.is_relative_to(site), p.stdout
    assert not module.is_relative_to(REPO), p.stdout
    assert root == site / "cipherfab" / "vectors" / "kat"

    p = run([venv / "bin" / "cipherfab", "verify", "aes"], cwd=empty, env=env)
    lines = p.stdout.strip().splitlines()
    assert lines[-1].startswith("1 passed, 0 failed"), p.stdout
    kat = re.search(r"KAT (\d+) passed, (\d+) failed", p.stdout)
    assert kat and int(kat.group(1)) > 0 and kat.group(2) == "0", p.stdout
    assert lines[0].startswith("ok ") and "no KAT files declared" not in p.stdout, p.stdout
    assert list(empty.iterdir()) == []
