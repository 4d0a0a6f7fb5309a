"""`cipherfab sim` runs an external core from its Verilog and a declaration (--info JSON)."""

import json
from pathlib import Path

import pytest

import cipherfab
from cipherfab.cli import main

TOP = "aes_iterative_128_encrypt_rom"
VEC = str(Path(cipherfab.__file__).parent / "vectors" / "kat" / "aes" / "KAT_AES" / "ECBGFSbox128.rsp")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A generated core written out as a stranger would receive it: Verilog + JSON."""
    d = tmp_path_factory.mktemp("ext")
    assert main(["generate", "aes", "--key-bits", "128", "--sbox", "rom", "-o", str(d / "core.v")]) == 0
    info = json.loads((d / "core.json").read_text())
    # a hand-written declaration needs no generator fields
    for k in ("arch", "params", "top", "generator", "verilog_sha256", "notes", "direction_input"):
        info.pop(k, None)
    (d / "info.json").write_text(json.dumps(info))
    return d


def sim(d, *more, info="info.json"):
    return main(["sim", "--verilog", str(d / "core.v"), "--top", TOP, "--info", str(d / info), *more])


def test_external_core_runs_vectors_and_random(written, capsys):
    assert sim(written, "--vectors", VEC) == 0
    assert sim(written, "--random", "3000", "--valid-prob", "0.6", "--ready-prob", "0.5") == 0
    out = capsys.readouterr().out
    assert "3000 passed, 0 failed" in out and TOP in out


def test_external_core_declaration_is_checked(written, capsys):
    info = json.loads((written / "info.json").read_text())
    (written / "late.json").write_text(json.dumps({**info, "latency": info["latency"] + 1}))
    assert sim(written, "--random", "500", info="late.json") == 1
    assert "differs from the stated" in capsys.readouterr().err
    (written / "bad.json").write_text(json.dumps({**info, "key_interface": "sideways"}))
    assert sim(written, "--random", "5", info="bad.json") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cipherfab sim: error: core info") and "key_interface" in err and "\n" not in err
    (written / "short.json").write_text(json.dumps({k: v for k, v in info.items() if k != "latency"}))
    assert sim(written, "--random", "5", info="short.json") == 2
    assert "'latency' is a required property" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["sim", "--random", "5"], "nothing to simulate"),
    (["sim", "--verilog", "x.v", "--random", "5"], "missing --top, --info"),
    (["sim", "aes", "--verilog", "x.v", "--top", "t", "--info", "i", "--random", "5"],
     "aes names a generated core"),
])
def test_external_options_refused_in_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_long_random_run_goes_in_chunks(written, monkeypatch):
    """Runs of any length: simulated a chunk at a time (bounded memory; Ctrl-C and progress act
    between chunks), the counts summed and a mismatch's block numbered from the run's start."""
    import json as _json

    from cipherfab.hw.info import load_info
    from cipherfab.sim import engine as eng
    monkeypatch.setattr(eng, "RANDOM_CHUNK", (300, 700))
    core = eng.ExternalCore((written / "core.v").read_text(), TOP, load_info(str(written / "info.json")))
    seen = []
    r = eng.random_run(eng.HardwareEngine(core), 2500, seed=5, mean_blocks_per_key=50,
                       progress=lambda run: seen.append(run.blocks))
    assert r.blocks == 2500 and r.mismatches == 0 and r.first_mismatch is None
    assert seen[0] == 300 and seen[-1] == 2500 and len(seen) >= 4 and max(b - a for a, b in zip(seen, seen[1:])) <= 700
    assert r.latencies == {_json.loads((written / "info.json").read_text())["latency"]}
    right, calls = eng.HardwareEngine.expected, []

    def wrong_after_first_chunk(self, key, data, decrypt):   # one key per chunk at 10^6 blocks per key
        calls.append(len(data))
        return right(self, key, data, decrypt) if len(calls) == 1 else bytes(len(data))
    monkeypatch.setattr(eng.HardwareEngine, "expected", wrong_after_first_chunk)
    bad = eng.random_run(eng.HardwareEngine(core), 1000, seed=5, mean_blocks_per_key=10 ** 6)
    assert calls[0] == 300 * 16 and bad.mismatches == 700 and bad.first_mismatch.startswith("block 300:")


@pytest.mark.parametrize("what", [["--random", "5"], ["--vectors", VEC]])
def test_a_core_that_hangs_fails_the_check(written, what, capsys):
    """No output is a failed check of the core (exit 1), not bad input."""
    mute = str(Path(__file__).with_name("xorcore.v"))
    assert main(["sim", "--verilog", mute, "--top", "xorcore_mute", "--info", str(written / "info.json"),
                 *what]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert "xorcore_mute: simulation stopped: hang: no progress" in err[-1], err
