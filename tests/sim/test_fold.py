"""Folding identical modules before Verilator builds (cipherfab.sim.fold)."""

from cipherfab.sim.fold import fold, unfold_warnings

TOP = r"""/* header */
(* top =  1  *)
module top (a, b, y, z);
  input [3:0] a;
  input [3:0] b;
  output [3:0] y;
  output [3:0] z;
  \top.u0  u0 (.a(a), .b(b), .y(y));
  \top.u1  u1 (.a(a), .b(b), .y(z));
endmodule
"""

UNIT = r"""
(* generator = "Amaranth" *)
module {name} (a, b, y);
  input [3:0] a;
  input [3:0] b;
  output [3:0] y;
  wire [3:0] {w1} ;
  wire [3:0] {w2} ;
  assign {w1}  = a {op} b;
  assign {w2}  = {w1}  ^ 4'h5;
  assign y = {w3} ;
endmodule
"""


def design(*units):
    return TOP + "".join(UNIT.format(**u) for u in units)


def unit(name, w1=r"\$1", w2=r"\$2", op="&", w3=None):
    return dict(name=name, w1=w1, w2=w2, op=op, w3=w3 or w2)


def test_modules_equal_but_for_internal_names_fold():
    text = design(unit(r"\top.u0", r"\$auto$rtlil.cc:1:Not$14", r"\$7"),
                  unit(r"\top.u1", r"\$auto$rtlil.cc:1:Not$99", r"\$8"))
    folded, where = fold(text)
    assert folded.count("\nmodule ") == 2
    assert r"\top.u1 " not in folded
    assert folded.count(r"\top.u0  u") == 2          # both instances of the kept module
    lines = text.split("\n")
    header = folded.split("\n").index(r"module \top.u0 (a, b, y);")
    assert where[header] == [lines.index(r"module \top.u0 (a, b, y);") + 1,
                             lines.index(r"module \top.u1 (a, b, y);") + 1]
    body = folded.split("\n").index(r"  assign \$7  = \$auto$rtlil.cc:1:Not$14  ^ 4'h5;")
    assert [lines[k - 1] for k in where[body]] == [r"  assign \$7  = \$auto$rtlil.cc:1:Not$14  ^ 4'h5;",
                                                  r"  assign \$8  = \$auto$rtlil.cc:1:Not$99  ^ 4'h5;"]
    assert all(len(w) == 1 for w in where[:header - 1])     # the top: one line each


def test_different_logic_or_ports_or_naming_does_not_fold():
    for other in (unit(r"\top.u1", op="|"),                              # other logic
                  unit(r"\top.u1", w1=r"\$1", w2=r"\$1", w3=r"\$1"),    # two names made one
                  unit(r"\top.u1", w3=r"\$1")):                         # other output
        text = design(unit(r"\top.u0"), other)
        assert fold(text) == (text, [[n + 1] for n in range(len(text.split("\n")))])


def test_nested_copies_fold_after_their_children():
    parent = r"""
module {name} (a, b, y);
  input [3:0] a;
  input [3:0] b;
  output [3:0] y;
  {child}  c (.a(a), .b(b), .y(y));
endmodule
"""
    text = (TOP + parent.format(name=r"\top.u0", child=r"\top.u0.c")
            + parent.format(name=r"\top.u1", child=r"\top.u1.c")
            + "".join(UNIT.format(**unit(n, w2=w)) for n, w in ((r"\top.u0.c", r"\$2"), (r"\top.u1.c", r"\$3"))))
    folded, _ = fold(text)
    assert folded.count("\nmodule ") == 3 and r"\top.u1" not in folded


def test_warnings_on_a_kept_module_are_placed_on_every_copy():
    text = design(unit(r"\top.u0"), unit(r"\top.u1", r"\$5", r"\$6"))
    folded, where = fold(text)
    n = folded.split("\n").index(r"  assign \$2  = \$1  ^ 4'h5;") + 1
    got = unfold_warnings(f"%Warning-UNUSEDSIGNAL: /tmp/x/core.v:{n}:3: no\n%Warning-X: other", where)
    lines = text.split("\n")
    hits = [int(ln.split(":")[2]) for ln in got.splitlines() if "core.v" in ln]
    assert [lines[k - 1].split()[1] for k in hits] == [r"\$2", r"\$6"]
    assert got.splitlines()[-1] == "%Warning-X: other"


def test_text_without_modules_in_yosys_layout_is_left_alone():
    text = "module m(input a); endmodule\n"
    assert fold(text)[0] == text
