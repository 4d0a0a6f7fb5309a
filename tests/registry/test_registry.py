"""The core contract: a cipher package declares itself once and every tool takes it.

The toy cipher (tests/registry/toyciphers/toyxor) is unknown to every tool module;
these tests drive it through the registry, generate, the harness, verify and the
flow's DesignSource, and break its declaration on purpose to see the checks fail.
"""

import json

import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.flow.source import design_source
from cipherfab.generate import generate_verilog
from cipherfab.hw.info import CoreAnnotation
from cipherfab.registry import all_points, resolve


def test_aes_declaration_and_defaults():
    p = resolve("aes")
    assert p.as_dict() == {"cipher": "aes", "arch": "iterative", "key_bits": 128,
                           "direction": "encrypt", "sbox": "lut", "key_add": "load"}
    assert p.as_dict(quiet=True) == {"cipher": "aes", "arch": "iterative", "key_bits": 128,
                                     "direction": "encrypt", "sbox": "lut"}
    assert p.top == "aes_iterative_128_encrypt_lut"
    assert resolve("aes", direction="both", sbox="rom").top == "aes_iterative_128_both_rom"
    # iterative 3x3x3 + 3 tbox, folded (3x2x3 + 3 tbox), interleaved (3x3x3 + 3 tbox)x4 stages x2 key clocks, pipeline 3x4x4x2 keys
    # and 3x4x3x2 with --sbox-input registered (2 stages or more),
    # unrolled (4+6+4 k values)x2, column 3, byte 3; key_specific 3 sbox x 6 variants less
    # the two ROM variants' 2 logic S-boxes, key_specific_pipeline 4 sbox x 4 stages x 3 variants,
    # masked: 20, 4 and 1 S-boxes, each gadget (HPC2, DOM) with prng on and off and two glitch
    # test modes (prng on only: its own and refresh-recombined) on 2 shares, and on 3 and 4
    # shares (prng on, no test mode)
    assert len(all_points("aes")) == 30 + 21 + 240 + 96 + 72 + 28 + 3 + 3 + (18 - 4) + 48 + 2 * 3 * (4 + 2)


def test_an_option_added_later_keeps_the_default_points_names():
    # --keys came after the key-agile pipeline: its default stays out of top names
    assert resolve("aes", "pipeline", stages=2).top == "aes_pipeline_128_encrypt_lut_2"
    assert resolve("aes", "pipeline", keys="fixed").top == "aes_pipeline_128_encrypt_lut_1_fixed"
    # --sbox-input came later still
    assert resolve("aes", "pipeline", stages=3, sbox_input="registered").top == \
        "aes_pipeline_128_encrypt_lut_3_registered"
    # --glitch-test came after the masked core; its dashes become underscores in names
    assert resolve("aes", "masked").top == "aes_masked_128_encrypt_on"
    assert resolve("aes", "masked", glitch_test="hpc2-unregistered").top == "aes_masked_128_encrypt_on_hpc2_unregistered"
    # --gadget came after them: hpc2 stays out of names
    assert resolve("aes", "masked", sboxes=4, gadget="hpc2").top == "aes_masked_128_encrypt_on_sboxes4"
    assert resolve("aes", "masked", sboxes=4, gadget="dom").top == "aes_masked_128_encrypt_on_sboxes4_dom"


@pytest.mark.parametrize("given, needle", [
    ({"cipher": "rot13"}, "unknown cipher 'rot13'"),
    ({"arch": "pipelined-9"}, "--arch 'pipelined-9' is not supported; choose from iterative"),
    ({"key_bits": 100}, "--key-bits 100 is not supported; choose from 128, 192, 256"),
    ({"stages": 2}, "--stages does not apply"),
    ({"arch": "pipeline", "stages": 1, "sbox_input": "registered"},
     "--sbox-input registered needs --stages 2 or more"),
    ({"arch": "pipeline", "stages": 3, "sbox_input": "wire"},
     "--sbox-input 'wire' is not supported; choose from direct, registered"),
    ({"arch": "interleaved", "sbox_input": "registered"}, "--sbox-input does not apply"),
    ({"arch": "masked", "prng": "off", "glitch_test": "refresh-recombined"}, "aes masked: --glitch-test needs --prng on"),
    ({"arch": "masked", "glitch_test": "glitchy"}, "--glitch-test 'glitchy' is not supported; choose from none, "),
])
def test_refusals_name_the_problem(given, needle):
    kw = {"cipher": "aes", **given}
    with pytest.raises(CipherfabError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        resolve(kw.pop("cipher"), **kw)


def test_info_json_matches_schema_and_sidecar(tmp_path, capsys):
    text, info, _ = generate_verilog(resolve("aes", key_bits=192, direction="decrypt", sbox="rom"))
    CoreAnnotation.validate(CoreAnnotation(info).as_json())
    assert (info.latency, info.cycles_per_block, info.key_setup_cycles) == (13, 12, 13)
    out = tmp_path / "core.v"
    assert main(["generate", "aes", "--key-bits", "192", "--direction", "decrypt", "--sbox", "rom",
                 "-o", str(out)]) == 0
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["latency"] == 13 and side["key_interface"] == "stream" and side["parts"]
    assert side["top"] == "aes_iterative_192_decrypt_rom"
    assert "1 cycles" not in out.read_text()


def test_toy_cipher_is_found_and_generated(toy_registry, tmp_path):
    assert "toyxor" in toy_registry
    assert [p.top for p in all_points("toyxor")][-2:] == ["toyxor_pipe_5_encrypt", "toyxor_fixed_0123456789abcdef"]
    assert "toyxor_pipe_5_both" not in [p.top for p in all_points("toyxor")]  # the rule
    out = tmp_path / "pipe.v"
    assert main(["generate", "toyxor", "--stages", "4", "--direction", "both", "-o", str(out)]) == 0
    text = out.read_text()
    assert "block_in_key[63:0]" in text and "block_in_decrypt" in text
    src = design_source("toyxor", arch="pipe", stages=2)
    assert (src.latency, src.cycles_per_block_ecb, src.cycles_per_block_cbc) == (2, 1, 2)
    assert src.label() == "toyxor-pipe-2-encrypt" and src.info["key_interface"] == "per_block"


@pytest.mark.parametrize("argv, needle", [
    (["--arch", "pipe", "--stages", "5", "--direction", "both"], "5 stages cannot decrypt"),
    (["--arch", "fixed", "--key", "zz"], "must be 16 hex digits"),
    (["--arch", "pipe", "--sbox", "rom"], "--sbox does not apply"),
])
def test_toy_refusals_are_one_line(toy_registry, tmp_path, capsys, argv, needle):
    assert main(["generate", "toyxor", *argv, "-o", str(tmp_path / "x.v")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not (tmp_path / "x.v").exists()


def test_toy_cores_pass_verify(toy_registry, capsys):
    """Key with every block (4 blocks in flight, stalls) and no key at all, through verify."""
    assert main(["verify", "toyxor", "--arch", "pipe", "--stages", "4", "--direction", "both",
                 "--random", "3000"]) == 0
    assert main(["verify", "toyxor", "--arch", "fixed", "--key", "00112233445566ff"]) == 0
    lines = capsys.readouterr().out.splitlines()
    oks = [line for line in lines if line.startswith("ok")]
    assert len(oks) == 2 and "random 3000 passed, 0 failed" in oks[0] and "timing exact" in oks[0]


def test_wrong_declaration_is_caught(toy_registry, monkeypatch):
    """A core that declares one cycle less latency than it has fails the timing check."""
    import toyxor.hw as hw
    from cipherfab.sim.engine import HardwareEngine, check_timing
    real = hw._info
    monkeypatch.setattr(hw, "_info", lambda *a, **k: real(*a[:4], a[4] - 1, **k))
    problems = check_timing(HardwareEngine(resolve("toyxor", "pipe", stages=3)))
    assert any("latency [3], declared 2" in p for p in problems), problems
    assert any("feedback: cycles per block 3, declared 2" in p for p in problems), problems


def test_key_specific_core_refuses_other_keys(toy_registry):
    from cipherfab.sim.engine import HardwareEngine
    e = HardwareEngine(resolve("toyxor", "fixed", key="0011223344556677"))
    assert e.run([(bytes.fromhex("0011223344556677"), False, [bytes(8)])]) == [[bytes.fromhex("0011223344556677")]]
    with pytest.raises(CipherfabError, match="built for key 0011223344556677"):
        e.run([(bytes(8), False, [bytes(8)])])


def test_verify_all_in_worker_processes_records_every_point(toy_registry, capsys, tmp_path):
    points = [p.top for p in all_points("toyxor") if p.arch == "pipe"]
    book = tmp_path / "ledger.json"
    assert main(["verify", "toyxor", "--all", "--arch", "pipe", "-j", "2", "--random", "200",
                 "--ledger", str(book)]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("[")]
    from cipherfab.host import verify_gcm          # and the system's modes around the class
    classes = [verify_gcm.key(c) for c in verify_gcm.gcm_points("toyxor", "pipe")]
    assert classes and sorted(line.split()[2].rstrip(":") for line in lines) == sorted(points + classes)
    assert all(line.split()[1] == "ok" for line in lines)
    import json
    recorded = json.loads(book.read_text())["points"]
    assert sorted(recorded) == sorted(points)
    assert all(e["verdict"] == "pass" for e in recorded.values())
