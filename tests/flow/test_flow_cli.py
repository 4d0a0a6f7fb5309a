"""``cipherfab build`` through the subcommand parser (wired like cipherfab.cli does)."""

import json

import pytest

from cipherfab.cli import _Parser
from cipherfab.errors import CipherfabError
from cipherfab.flow import cli
from cipherfab.flow.devices import DEVICES
from flowhelpers import TINY_V


def run(argv):
    """Parse and run like ``cipherfab.cli.main``: (exit code, stderr line or None)."""
    parser = _Parser(prog="cipherfab")
    cli.register(parser.add_subparsers(dest="command", parser_class=_Parser))
    args = parser.parse_args(argv)
    try:
        return args.func(args), None
    except CipherfabError as e:
        return e.exit_code, str(e)


def test_external_core_builds(tmp_path, capsys):
    v = tmp_path / "tiny.v"
    v.write_text(TINY_V)
    out = tmp_path / "rec.json"
    code, err = run(["build", "--verilog", str(v), "--top", "tiny", "--cycles-per-block", "1",
                     "--latency", "2", "--block-bits", "8", "--device", "ecp5-25k", "--speed", "6",
                     "--json", str(out)])
    assert (code, err) == (0, None)
    rec = json.loads(out.read_text())
    assert rec["status"] == "ok" and rec["label"] == "tiny (external)"
    assert rec["design"] == {"external": True, "top": "tiny", "files": ["tiny.v"]}
    assert rec["device"]["full_part"] == "LFE5U-25F-6CABGA381"
    assert rec["performance"]["throughput_ecb_mbps"] == pytest.approx(8 * rec["timing"]["fmax_mhz"], rel=1e-4)
    assert rec["performance"]["throughput_cbc_mbps"] is None  # unknown, not guessed
    assert rec["area"]["parts"] == {"unassigned": rec["area"]["synthesized"]}
    captured = capsys.readouterr()
    text = captured.out
    notes = [line.split("]: ", 1)[1] for line in captured.err.splitlines()   # a note per stage, on stderr
             if line.startswith("build [")]     # (a first use of the tools adds its own note)
    assert notes == ["synthesis (Yosys, ecp5-25k)", "place and route (nextpnr-ecp5, seed 1)",
                     "timing: the worst routed paths (static timing analysis)"], captured.err
    assert "build [" not in text
    assert "Fmax" in text and "tiny (external)" in text
    assert "area by part" in text and "unassigned" in text
    assert "latency" in text and "2 cycles; cycles/block ECB 1, CBC -" in text
    assert "key setup" in text and "unknown" in text  # not stated for this external core
    code, _ = run(["build", "--verilog", str(v), "--top", "tiny", "--cycles-per-block", "1",
                   "--block-bits", "8", "--device", "ecp5-25k", "--speed", "6"])
    captured = capsys.readouterr()
    text = captured.out
    assert "]: seed 1: found in the build cache (measured " in captured.err
    assert code == 0 and "(cached)" in text and f"measured {rec['measured_at']}" in " ".join(text.split())


@pytest.mark.parametrize("argv,message", [
    (["build", "--verilog", "nope.v", "--top", "x", "--cycles-per-block", "1"],
     "Verilog file nope.v: no such file"),
    (["build", "--verilog", "nope.v", "--cycles-per-block", "1"], "--verilog needs --top NAME"),
    (["build", "--verilog", "nope.v", "--top", "x"], "--verilog needs --cycles-per-block N (N >= 1)"),
    (["build", "--verilog", "a.v", "--top", "x", "--cycles-per-block", "1", "--arch", "pipe"],
     "--arch applies to generated cores, not --verilog"),
    (["build", "aes", "--top", "x"], "--top applies to external cores (--verilog)"),
    (["build"], "nothing to build: give CIPHER (e.g. aes) or --verilog FILE... --top NAME"),
    (["build", "aes", "--device", "xc9"], f"unknown device 'xc9': known devices are {', '.join(DEVICES)}"),
    (["build", "aes", "--device", "ice40-hx8k", "--speed", "8"], "--speed applies to ECP5 devices only, not ice40-hx8k"),
])
def test_refusals_are_one_line(argv, message):
    assert run(argv) == (2, message)


def test_argparse_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        run(["build", "aes", "--router", "fast"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'fast'" in err


def test_generated_core_is_asked_for(monkeypatch):
    """CIPHER and its options go to cipherfab.flow.source.design_source unchanged."""

    seen = {}

    def design_source(cipher, **kw):
        seen.update(kw, cipher=cipher)
        raise CipherfabError("stop here")

    import cipherfab.flow.source
    monkeypatch.setattr(cipherfab.flow.source, "design_source", design_source)
    assert run(["build", "aes", "--arch", "iterative", "--key-bits", "192", "--sbox", "rom"]) == (2, "stop here")
    given = {"cipher": "aes", "arch": "iterative", "key_bits": 192, "sbox": "rom"}
    assert {k: seen.get(k) for k in given} == given  # options not given may come as defaults


@pytest.mark.parametrize("value,words", [("-5", "must be > 0 seconds, got -5"), ("0", "must be > 0 seconds, got 0"),
                                         ("nan", "must be > 0 seconds"), ("soon", "invalid number of seconds 'soon'")])
def test_timeout_must_be_positive(value, words, capsys):
    from cipherfab.cli import main
    assert main(["build", "--verilog", "x.v", "--top", "x", "--cycles-per-block", "1",
                 "--timeout", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --timeout" in err and words in err, err


def test_build_refuses_non_positive_timeout():
    from cipherfab.flow import build
    from flowhelpers import mini_source
    with pytest.raises(CipherfabError, match="timeout must be > 0 seconds, got 0"):
        build(mini_source(), timeout=0)
