"""External cores that use `include: inlined when read, so the DesignSource text is self-contained."""

import argparse
import json

import pytest

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.flow.external import add_external_arguments, external_source, read_verilog

CORE = """`include "timescale.v"
module inc_core(input clk, input [3:0] a, output reg [7:0] q);
  `include "width.vh" // the accumulator width
  reg [W-1:0] acc;
  always @(posedge clk) begin acc <= acc + {4'd0, a}; q <= acc ^ {a, a}; end
endmodule
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "rtl").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "rtl" / "core.v").write_text(CORE)
    (tmp_path / "rtl" / "timescale.v").write_text("`timescale 1ns / 10ps\n")
    (tmp_path / "inc" / "width.vh").write_text("localparam W = 8;")  # no final newline
    return tmp_path


def _source(tmp_path, *argv):
    p = argparse.ArgumentParser()
    add_external_arguments(p)
    return external_source(p.parse_args(list(argv)))


def test_includes_are_inlined_from_the_file_folder_and_include_dirs(files):
    text, used = read_verilog([files / "rtl" / "core.v"], [files / "inc"])
    assert used == ["timescale.v", "width.vh"]
    assert "`include" not in text
    assert "`timescale 1ns / 10ps\n" in text and "localparam W = 8;\n" in text
    assert text.index("localparam W") < text.index("reg [W-1:0] acc")
    assert "// the accumulator width" in text  # what followed the include is kept
    src = _source(files, "--verilog", str(files / "rtl" / "core.v"), "--top", "inc_core",
                  "--cycles-per-block", "1", "--include-dir", str(files / "inc"))
    assert src.verilog == text and src.design["includes"] == ["timescale.v", "width.vh"]
    # the cache key covers the included text
    (files / "inc" / "width.vh").write_text("localparam W = 9;")
    assert read_verilog([files / "rtl" / "core.v"], [files / "inc"])[0] != text


def test_include_found_in_another_given_files_folder(files):
    (files / "inc" / "other.v").write_text("module other(input clk); endmodule\n")
    text, used = read_verilog([files / "rtl" / "core.v", files / "inc" / "other.v"])
    assert used == ["timescale.v", "width.vh"] and "module other" in text


def test_the_including_files_folder_comes_first(files):
    (files / "inc" / "timescale.v").write_text("`timescale 1ps / 1ps\n")
    text, _ = read_verilog([files / "rtl" / "core.v"], [files / "inc"])
    assert "1ns / 10ps" in text and "1ps / 1ps" not in text


def test_missing_include_is_one_line_naming_it(files, capsys):
    with pytest.raises(CipherfabError) as e:
        read_verilog([files / "rtl" / "core.v"])
    msg = str(e.value)
    assert msg.startswith('cannot find `include "width.vh" (core.v line 3): not in ') and "\n" not in msg
    assert "--include-dir" in msg
    assert main(["build", "--verilog", str(files / "rtl" / "core.v"), "--top", "inc_core",
                 "--cycles-per-block", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'cannot find `include "width.vh"' in err


def test_nested_includes_and_cycles(tmp_path):
    (tmp_path / "a.vh").write_text('`include "b.vh"\n')
    (tmp_path / "b.vh").write_text("localparam B = 1;\n")
    (tmp_path / "top.v").write_text('module t(input clk);\n`include "a.vh"\nendmodule\n')
    text, used = read_verilog([tmp_path / "top.v"])
    assert used == ["a.vh", "b.vh"] and "localparam B = 1;" in text
    (tmp_path / "b.vh").write_text('`include "a.vh"\n')
    with pytest.raises(CipherfabError, match=r"^`include cycle: top.v -> a.vh -> b.vh -> a.vh$"):
        read_verilog([tmp_path / "top.v"])


def test_bad_include_dir_and_include_dir_needs_verilog(files, capsys):
    with pytest.raises(CipherfabError, match="--include-dir .*nope: not a folder"):
        read_verilog([files / "rtl" / "core.v"], [files / "nope"])
    with pytest.raises(CipherfabError, match="--include-dir needs --verilog FILE"):
        _source(files, "--include-dir", str(files / "inc"))


def test_build_a_core_with_includes(files, tmp_path):
    out = tmp_path / "rec.json"
    assert main(["build", "--verilog", str(files / "rtl" / "core.v"), "--top", "inc_core",
                 "--cycles-per-block", "1", "--block-bits", "8", "--include-dir", str(files / "inc"),
                 "--device", "ecp5-25k", "--json", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["status"] == "ok" and rec["area"]["ff"] >= 16 and rec["timing"]["fmax_mhz"] > 0
    assert rec["design"]["includes"] == ["timescale.v", "width.vh"]
