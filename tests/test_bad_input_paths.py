"""Bad paths, every command that takes one: one line, exit 2, before any compile or tool run,
nothing left behind.

Inputs (:mod:`cipherfab.userfiles`): /dev/zero, a FIFO (it would block an open), a folder, a
sparse file over the kind's size limit, binary junk, a name too long to look up, a missing
file.  Outputs: a name too long for the file system, a folder where nothing can be created
(/proc), a read-only folder.  Caches (:mod:`cipherfab.cache`): the cipherfab cache root
and the tools' caches (wasmtime's, YoWASP's) unusable, from each variable they come from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import cipherfab
from cipherfab import cache, userfiles
from cipherfab.cli import main
from cipherfab.errors import CipherfabError

KEY = "000102030405060708090a0b0c0d0e0f"
KAT = Path(cipherfab.__file__).parent / "vectors" / "kat"
INFO = {"cipher": "aes", "block_bits": 128, "key_bits": 128, "key_interface": "stream", "directions": ["encrypt"],
        "latency": 11, "cycles_per_block": 10, "cycles_per_block_feedback": 11, "blocks_in_flight": 1,
        "key_setup_cycles": 2, "parts": {"key_schedule": "key_schedule", "datapath": "datapath"}}


def _read_only(tmp: Path) -> Path | None:
    """A folder where this user cannot create a file (root writes everywhere but in /sys)."""
    folder = tmp / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys")):
        try:
            userfiles.writable_folder(candidate, "probe", create=False)
        except CipherfabError:
            return candidate
    return None


@pytest.fixture(scope="module")
def imported():
    """Every module of the commands imported before the guard patches anything: a module first
    imported under the guard would keep the patched name (``from ..generate import ...``)."""
    import importlib
    import pkgutil
    for m in pkgutil.walk_packages(cipherfab.__path__, "cipherfab."):
        if not m.name.endswith("__main__"):
            try:
                importlib.import_module(m.name)
            except ImportError:           # an optional extra (the cluster's Dask)
                pass


@pytest.fixture
def ws(tmp_path, monkeypatch, imported):
    """The kinds of bad path, and a guard: any compile, elaboration or tool run fails the test."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    with open(tmp_path / "huge", "wb") as f:
        f.truncate(2 * 1024 ** 3)                       # sparse: over every kind's limit
    (tmp_path / "junk").write_bytes(bytes(range(256)) * 16)
    (tmp_path / "afile").write_text("a file\n")
    (tmp_path / "core.v").write_text("module t(input clk); endmodule\n")
    (tmp_path / "info.json").write_text(json.dumps(INFO))
    (tmp_path / "in.bin").write_bytes(b"x" * 16)
    def forbidden(what):
        return lambda *a, **k: pytest.fail(f"{what} ran before the refusal")
    monkeypatch.setattr("cipherfab.flow.tools.run", forbidden("a tool"))
    monkeypatch.setattr("cipherfab.generate.generate_verilog", forbidden("the generator"))
    monkeypatch.setattr("cipherfab.generate.system_verilog", forbidden("the system generator"))
    monkeypatch.setattr("cipherfab.sim.verilated.VerilatedCore", forbidden("Verilator"))
    monkeypatch.setattr("cipherfab.sim.verilated.build_library", forbidden("Verilator"))
    monkeypatch.delenv("CIPHERFAB_VECTORS", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


#: kind of bad input -> (path, the words the refusal must hold)
INPUT_KINDS = {
    "zero": ("/dev/zero", "is a character device, not a regular file"),
    "fifo": ("{tmp}/fifo", "is a FIFO (named pipe), not a regular file"),
    "folder": ("{tmp}/folder", "is a folder, not a file"),
    "huge": ("{tmp}/huge", "2 GiB, over the"),
    "junk": ("{tmp}/junk", "binary file"),
    "long": ("{tmp}/" + "n" * 300, "File name too long"),
    "missing": ("{tmp}/missing", "no such file"),
}
ENC = ["encrypt", "aes", "--key", KEY, "--mode", "ecb", "--out", "{tmp}/o.bin"]
GCM = ["encrypt", "aes", "--key", KEY, "--iv", "00" * 12, "--mode", "gcm", "--out", "{tmp}/o.bin"]
#: commands with an input path ({p}), and the kinds they are tried with
INPUT_COMMANDS = {
    "sim --vectors": (["sim", "aes", "--vectors", "{p}"], set(INPUT_KINDS)),
    "sim --mode gcm --vectors": (["sim", "aes", "--mode", "gcm", "--vectors", "{p}"], set(INPUT_KINDS)),
    "sim --verilog": (["sim", "--verilog", "{p}", "--top", "t", "--info", "{tmp}/info.json", "--random", "1"],
                      set(INPUT_KINDS)),
    "sim --info": (["sim", "--verilog", "{tmp}/core.v", "--top", "t", "--info", "{p}", "--random", "1"],
                   set(INPUT_KINDS) - {"junk", "missing", "long"}),
    "build --verilog": (["build", "--verilog", "{p}", "--top", "t", "--cycles-per-block", "1"], set(INPUT_KINDS)),
    "study --verilog": (["study", "quick", "--verilog", "{p}", "--top", "t", "--cycles-per-block", "1"],
                        set(INPUT_KINDS) - {"junk", "missing", "long"}),
    "study --peer": (["study", "quick", "--peer", "{p}"], set(INPUT_KINDS) - {"missing", "long"}),
    "leakage --verilog": (["leakage", "--traces", "10", "--verilog", "{p}", "--top", "t", "--info",
                           "{tmp}/info.json"], set(INPUT_KINDS) - {"junk"}),
    "leakage --info": (["leakage", "--traces", "10", "--verilog", "{tmp}/core.v", "--top", "t", "--info", "{p}"],
                       set(INPUT_KINDS) - {"junk", "missing", "long"}),
    "verify --ledger": (["verify", "--status", "--ledger", "{p}"], set(INPUT_KINDS) - {"missing"}),
    "encrypt --in": ([*ENC, "--in", "{p}"], set(INPUT_KINDS) - {"junk"}),
    "encrypt --aad": ([*GCM, "--in", "{tmp}/in.bin", "--aad", "{p}"], set(INPUT_KINDS) - {"junk"}),
    "pick --results": (["pick", "aes", "--results", "{p}"], set(INPUT_KINDS) - {"folder"}),
    "rekey BUILD/build.json": (["rekey", "{tmp}/b", "--key", KEY], set(INPUT_KINDS) - {"long", "missing"}),
    "verify --vectors-dir": (["verify", "aes", "--vectors-dir", "{tmp}/kat"], {"zero", "fifo", "folder", "huge"}),
    "env --lock": (["env", "--lock", "{p}"], set(INPUT_KINDS)),
}
INPUT_CASES = [(c, k) for c, (_, kinds) in INPUT_COMMANDS.items() for k in INPUT_KINDS if k in kinds]


def _place(ws: Path, command: str, path: str) -> None:
    """Commands that read the bad path from inside a folder: put it there (a symlink)."""
    if command.startswith("rekey"):
        (ws / "b").mkdir()
        target = ws / "b" / "build.json"
    elif command == "verify --vectors-dir":
        from cipherfab.registry import get_cipher
        names = get_cipher("aes").kat_files(128)
        for n in names:
            (ws / "kat" / n).parent.mkdir(parents=True, exist_ok=True)
            (ws / "kat" / n).symlink_to(KAT / n)
        target = ws / "kat" / names[-1]
        target.unlink()
    else:
        return
    target.symlink_to(path)


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _refused(argv, ws, capsys) -> str:
    before = _listing(ws)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert _listing(ws) == before, "a refusal left something behind"
    return err


@pytest.mark.parametrize("command, kind", INPUT_CASES, ids=[f"{c} {k}" for c, k in INPUT_CASES])
def test_bad_input_path_refused_in_one_line(command, kind, ws, capsys):
    path, needle = INPUT_KINDS[kind]
    path = path.replace("{tmp}", str(ws))
    _place(ws, command, path)
    argv = [a.replace("{p}", path).replace("{tmp}", str(ws)) for a in INPUT_COMMANDS[command][0]]
    err = _refused(argv, ws, capsys)
    assert needle in err, err
    assert len(err) < 400, err                          # a long name is shortened


#: commands with an output path ({p})
OUTPUT_COMMANDS = {
    "generate -o": ["generate", "aes", "-o", "{p}"],
    "generate --fusesoc": ["generate", "aes", "--fusesoc", "{p}"],
    "build --json": ["build", "aes", "--json", "{p}"],
    "build --workdir": ["build", "aes", "--workdir", "{p}"],
    "build --bitstream": ["build", "aes", "--bitstream", "{p}"],
    "encrypt --out": ["encrypt", "aes", "--key", KEY, "--mode", "ecb", "--in", "{tmp}/in.bin", "--out", "{p}"],
    "verify --ledger": ["verify", "aes", "--ledger", "{p}"],
}
OUTPUT_KINDS = {
    "long": ("{tmp}/" + "n" * 300, "name too long"),
    "just under the limit": ("{tmp}/" + "n" * 252, "name too long"),    # no room for the names made from it
    "proc": ("/proc/x/y", "/proc/x"),
    "under a file": ("{tmp}/afile/y", "afile"),
    "read-only folder": ("{ro}/y", "cannot write"),
}
#: a folder made whole (no temporary name beside it) may be 250 bytes long
OUTPUT_CASES = [(c, k) for c in OUTPUT_COMMANDS for k in OUTPUT_KINDS
                if not (k == "just under the limit" and c in ("generate --fusesoc", "build --workdir"))]


@pytest.mark.parametrize("command, kind", OUTPUT_CASES, ids=[f"{c} {k}" for c, k in OUTPUT_CASES])
def test_bad_output_path_refused_before_the_work(command, kind, ws, capsys):
    path, needle = OUTPUT_KINDS[kind]
    if "{ro}" in path:
        ro = _read_only(ws)
        if ro is None:
            pytest.skip("no folder here that this user cannot write")
        path = path.replace("{ro}", str(ro))
    path = path.replace("{tmp}", str(ws))
    if command == "build --workdir" and kind == "read-only folder":
        path += "/z"                                     # a work folder is made; its parent is tried
    argv = [a.replace("{p}", path).replace("{tmp}", str(ws)) for a in OUTPUT_COMMANDS[command]]
    err = _refused(argv, ws, capsys)
    assert needle in err, err


#: cache variables -> (value, the words the refusal must hold); {tmp} and {ro} as above
CACHE_KINDS = {
    "CIPHERFAB_CACHE in /proc": ({"CIPHERFAB_CACHE": "/proc/x"}, "cache root /proc/x (from CIPHERFAB_CACHE"),
    "CIPHERFAB_CACHE a file": ({"CIPHERFAB_CACHE": "{tmp}/afile"}, "not a folder; set CIPHERFAB_CACHE"),
    "CIPHERFAB_CACHE under a file": ({"CIPHERFAB_CACHE": "afile/c"}, "/afile/c (from CIPHERFAB_CACHE=afile/c)"),
    "CIPHERFAB_CACHE read-only": ({"CIPHERFAB_CACHE": "{ro}/c"}, "cannot write there"),
    "HOME unusable": ({"HOME": "/proc/x", "XDG_CACHE_HOME": None},
                      "tools' cache /proc/x/.cache/wasmtime (from HOME=/proc/x)"),
    "XDG_CACHE_HOME unusable": ({"XDG_CACHE_HOME": "{tmp}/afile"}, "(from XDG_CACHE_HOME="),
    "YOWASP_CACHE_DIR unusable": ({"YOWASP_CACHE_DIR": "/proc/x"}, "set YOWASP_CACHE_DIR to a writable folder"),
}
CACHE_COMMANDS = {
    "generate": ["generate", "aes", "-o", "{tmp}/g.v"],
    "sim": ["sim", "aes", "--random", "1"],
    "verify": ["verify", "aes"],
    "build": ["build", "aes"],
    "encrypt": ["encrypt", "aes", "--key", KEY, "--mode", "ecb", "--in", "{tmp}/in.bin", "--out", "{tmp}/o.bin"],
    "leakage": ["leakage", "aes", "--traces", "10"],
    "study": ["study", "quick"],
    "rekey": ["rekey", "{tmp}/b", "--key", KEY],
}
CACHE_CASES = [(c, k) for c in CACHE_COMMANDS for k in CACHE_KINDS
               if not (c == "generate" and k.startswith("CIPHERFAB_CACHE"))]


@pytest.mark.parametrize("command, kind", CACHE_CASES, ids=[f"{c} {k}" for c, k in CACHE_CASES])
def test_unusable_cache_refused_before_the_work(command, kind, ws, capsys, monkeypatch):
    env, needle = CACHE_KINDS[kind]
    ro = _read_only(ws) if any("{ro}" in (v or "") for v in env.values()) else None
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
            continue
        if "{ro}" in value:
            if ro is None:
                pytest.skip("no folder here that this user cannot write")
            value = value.replace("{ro}", str(ro))
        monkeypatch.setenv(name, value.replace("{tmp}", str(ws)))
    argv = [a.replace("{tmp}", str(ws)) for a in CACHE_COMMANDS[command]]
    err = _refused(argv, ws, capsys)
    assert needle in err, err


def test_pick_needs_no_cipherfab_cache(ws, monkeypatch):
    """A command that writes no cipherfab cache is not refused for it."""
    monkeypatch.setenv("CIPHERFAB_CACHE", "/proc/x")
    assert main(["pick", "aes"]) == 0


def test_a_relative_cache_root_is_absolute(ws, monkeypatch):
    monkeypatch.setenv("CIPHERFAB_CACHE", "rel/c")
    assert cache.root() == ws / "rel" / "c" and cache.verilated().is_absolute()
    monkeypatch.setenv("XDG_CACHE_HOME", "relx")
    cache.check(own=False)
    assert os.environ["XDG_CACHE_HOME"] == str(ws / "relx")
    assert cache.tool_caches()[0][0] == ws / "relx" / "wasmtime"


def test_rekey_build_files_are_checked_before_they_are_read(ws):
    from cipherfab.flow.rekey import _check_files
    b = ws / "b"
    b.mkdir()
    for name in ("core.v", "design.config", "netlist.json", "design.bit"):
        (b / name).write_text("x\n")
    os.unlink(b / "core.v")
    os.mkfifo(b / "core.v")
    with pytest.raises(CipherfabError, match=r"core\.v: is a FIFO"):
        _check_files(b, True)


@pytest.mark.parametrize("data, needle", [
    (b"\xff\xfe text", "not UTF-8 text (byte 0xff at offset 0)"),
    (b"text\0", "a binary file (NUL byte at offset 4)"),
])
def test_text_that_does_not_decode_is_named(data, needle, tmp_path):
    (tmp_path / "f").write_bytes(data)
    with pytest.raises(CipherfabError, match=r"--x .*/f: " + needle.replace("(", r"\(").replace(")", r"\)")):
        userfiles.read_text(tmp_path / "f", "json", "--x")


def test_limits_have_headroom_over_the_largest_real_file():
    biggest = max(f.stat().st_size for f in KAT.rglob("*") if f.is_file())
    assert userfiles.LIMITS["vectors"] >= 20 * biggest
    ledger = Path(__file__).resolve().parents[1] / "docs" / "results" / "verify" / "ledger.json"
    if ledger.is_file():
        assert userfiles.LIMITS["json"] >= 20 * ledger.stat().st_size


@pytest.mark.parametrize("kind", ["zero", "fifo", "folder", "huge", "junk", "long", "missing"])
def test_report_module_refuses_a_bad_results_file(kind, ws, capsys):
    """``python -m cipherfab.study.report RESULTS.json`` reads its file through the same helper."""
    from cipherfab.study.report import main as report_main
    path, needle = INPUT_KINDS[kind]
    assert report_main([path.replace("{tmp}", str(ws))]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and needle in err, err
