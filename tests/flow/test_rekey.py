"""Re-keying (flow.rekey) of an in-context build (flow.incontext), and the block-RAM views
it rests on (flow.bram).

One real build per module: ``fixed_round_key_rom`` (round keys in a 128-bit ROM read
through both ports in 18-bit mode, S-boxes in 9-bit mode), built in context through the
CLI, then re-keyed through the CLI with its full check (read-back + gate-level
simulation).  The check itself must be able to fail: the gate-level simulation of the
netlist with another key's contents is refused, and so is a read-back that differs.
The module's tests share one cache, so the gate-level model compiles once for all.
"""

import json
import os
import random
import shutil

import pytest

from cipherfab.cli import main
from cipherfab.flow import bram, gatelevel
from cipherfab.flow.rekey import load_build
from cipherfab.generate import generate_verilog
from cipherfab.registry import resolve
from cipherfab.errors import CipherfabError

KEY = "2b7e151628aed2a6abf7158809cf4f3c"
ARGS = ["aes", "--arch", "key_specific", "--variant", "fixed_round_key_rom"]


@pytest.fixture(scope="module")
def module_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("rekey-cache")


@pytest.fixture
def cache_root(module_cache, monkeypatch):
    """One cache for the module (in place of tests/flow/conftest.py's per test)."""
    monkeypatch.setenv("CIPHERFAB_CACHE", str(module_cache))
    return module_cache


@pytest.fixture(scope="module")
def built(tmp_path_factory, module_cache):
    root = tmp_path_factory.mktemp("rekey")
    old = os.environ.get("CIPHERFAB_CACHE")
    os.environ["CIPHERFAB_CACHE"] = str(module_cache)
    try:
        # the 25k part: its read-back (ecpunpack, at build and at every rekey) is 3x quicker
        assert main(["build", *ARGS, "--key", KEY, "--device", "ecp5-25k",
                     "--bitstream", str(root / "b")]) == 0
        yield root / "b"
    finally:
        if old is None:
            os.environ.pop("CIPHERFAB_CACHE", None)
        else:
            os.environ["CIPHERFAB_CACHE"] = old


def snapshot(folder):
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


# --- block-RAM views -------------------------------------------------------------------------

def core_verilog(variant="fixed_round_key_rom", key=KEY):
    p = resolve("aes", "key_specific", variant=variant, key=key)
    return generate_verilog(p)[0], p.top


def test_memories_and_contents_round_trip():
    text, top = core_verilog()
    mems = {m.path: m for m in bram.memories(text, top)}
    rk = mems["core.key_schedule.round_key_rom"]
    assert (rk.width, rk.depth) == (128, 16) and rk.words[0] == int(KEY, 16)
    probe = bram.probe_contents(list(mems.values()))
    again = {m.path: m.words for m in bram.memories(bram.with_contents(text, top, probe), top)}
    assert again == probe
    assert bram.without_contents(bram.with_contents(text, top, probe)) == bram.without_contents(text)


def test_probe_columns_name_memory_bit_and_span():
    mems = [bram.LogicalMemory("a", 8, 2560, [0] * 2560), bram.LogicalMemory("b", 128, 16, [0] * 16)]
    probe, codes = bram.probe_contents(mems), bram.decode_codes(mems)
    for i, m in enumerate(mems):
        for j in (0, m.width - 1):
            for h in range(-(-m.depth // 32)):
                col = sum(((probe[m.path][h * 32 + a] >> j) & 1) << a for a in range(min(32, m.depth)))
                assert codes[col] == (i, j, h)
    with pytest.raises(CipherfabError, match="too shallow"):
        bram.decode_codes([bram.LogicalMemory("c", 128, 4, [0] * 4)])


def test_initval_and_config_words_round_trip():
    rng = random.Random(3)
    words = [rng.getrandbits(9) for _ in range(2048)]
    assert bram.initval_to_words(bram.words_to_initval(words)) == words
    text = ".device X\n.bram_init 7\n" + "".join(
        " ".join(f"{w:03x}" for w in words[k:k + 8]) + "\n" for k in range(0, 2048, 8)) + "\n.tile T\nbits\n"
    assert bram.read_config(text) == {7: words}
    other = [rng.getrandbits(9) for _ in range(2048)]
    new = bram.write_config(text, {7: other})
    assert bram.read_config(new) == {7: other} and new.endswith("\n.tile T\nbits\n")
    cell = {"width": 4, "base": 4096, "depth": 4096, "columns": {"0": 4, "3": 7}}
    contents = [rng.getrandbits(8) for _ in range(5000)]
    bram.fill(words, cell, contents)
    assert all(bram.get_bit(words, bram.flat(4, a, 3)) == (contents[4096 + a] >> 7) & 1 for a in range(904))
    assert all(bram.get_bit(words, bram.flat(4, a, 0)) == 0 for a in range(904, 4096))


# --- build and rekey --------------------------------------------------------------------------

def test_in_context_build_maps_every_rom_bit(built, capsys):
    m = json.loads((built / "build.json").read_text())
    assert m["key"] == KEY and (built / "design.bit").stat().st_size > 100_000
    widths = {c["memory"]: c["width"] for c in m["cells"]}
    assert widths["core.key_schedule.round_key_rom"] == 18 and widths["core.datapath.sub_bytes.rom0"] == 9
    assert sum(len(c["columns"]) for c in m["cells"] if "round_key_rom" in c["memory"]) == 128
    assert m["times"]["synthesize"] > 0 and m["times"]["place_route"] > 0 and m["times"]["pack"] > 0
    assert bram.read_config((built / "readback.config").read_text())   # the reference of every rekey
    assert not [p for p in built.parent.iterdir() if p.name.startswith(".")]   # no staging left


def test_rekey_writes_checks_and_times(built, tmp_path, capsys):
    key = "000102030405060708090a0b0c0d0e0f"
    out = tmp_path / "new"
    before = snapshot(built)
    assert main(["rekey", str(built), "--key", key.upper(), "--out", str(out), "--blocks", "200"]) == 0
    assert snapshot(built) == before      # nothing written into the build
    text = " ".join(capsys.readouterr().out.split())
    assert "block RAMs rewritten" in text and "total" in text and "full rebuild" in text
    assert "200 random blocks equal the reference" in text and "hold the expected words" in text
    r = json.loads((out / "rekey.json").read_text())
    assert r["key"] == key and r["times"]["total"] > 0 and r["check"]["simulation"]
    # round key 0 of the new key now sits where the build's probe found the ROM's word 0
    data = bram.read_config((out / "design.config").read_text())
    m = load_build(built)
    rk = [c for c in m["cells"] if c["memory"] == "core.key_schedule.round_key_rom"]
    word0 = 0
    for c in rk:
        for p, j in c["columns"].items():
            word0 |= bram.get_bit(data[c["wid"]], bram.flat(18, 0, int(p))) << j
    assert word0 == int(key, 16)


def test_the_check_fails_on_wrong_contents(built, tmp_path, capsys):
    m = load_build(built)
    words = bram.read_config((built / "design.config").read_text())   # the build's key, not this one
    with pytest.raises(CipherfabError, match="differs from the reference"):
        gatelevel.check(built, m, words, bytes(16), 50, 1)
    capsys.readouterr()
    # the same model with the right key's contents: loaded at run time, nothing compiled again
    assert gatelevel.check(built, m, words, bytes.fromhex(KEY), 50, 1) == "50 random blocks equal the reference"
    assert "compiling" not in capsys.readouterr().err
    # a read-back that differs outside the key ROMs is refused
    bad = tmp_path / "bad"
    shutil.copytree(built, bad)
    cfg = (bad / "readback.config")
    cfg.write_text(cfg.read_text().replace(".tile ", ".tile  ", 1) + "\n.tile X\nunknown\n")
    assert main(["rekey", str(bad), "--key", KEY, "--blocks", "1"]) == 2
    assert "differs from the build outside block RAM" in capsys.readouterr().err
    assert not (bad / f"rekey-{KEY}").exists()


def refusal(capsys, *args):
    assert main(["rekey", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_refusals(built, tmp_path, capsys):
    assert "no build at" in refusal(capsys, str(tmp_path / "missing"), "--key", KEY)
    assert "build.json missing" in refusal(capsys, str(tmp_path), "--key", KEY)
    assert "32 hex digits" in refusal(capsys, str(built), "--key", "abcd")
    assert "hex" in refusal(capsys, str(built), "--key", "zz" * 16)
    # a build whose key is in logic: no ROM, or a ROM and logic (partial keeps rounds 0 and 10 in logic)
    for variant, why in (("xor_collapse", "keeps part of its key in logic"),
                         ("xor_by_rom_partial", "keeps part of its key in logic")):
        fake = tmp_path / variant
        fake.mkdir()
        m = json.loads((built / "build.json").read_text())
        m["design"]["variant"] = variant
        (fake / "build.json").write_text(json.dumps(m))
        (fake / "core.v").write_text(core_verilog(variant)[0])
        for name in ("design.config", "netlist.json", "readback.config"):
            shutil.copyfile(built / name, fake / name)
        assert why in refusal(capsys, str(fake), "--key", "00" * 16)
    m["cells"] = []
    (fake / "build.json").write_text(json.dumps(m))
    assert "has no key ROM" in refusal(capsys, str(fake), "--key", "00" * 16)
