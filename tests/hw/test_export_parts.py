"""A core's declared parts must name submodules of its exported hierarchy, matched exactly."""

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.hw.export import check_parts, part_matches

VERILOG = """module t(clk);
endmodule
module \\t.core (clk);
endmodule
module \\t.core.key_schedule (clk);
endmodule
module \\t.core.f$32 (clk);
endmodule
module \\t.core.f$32.s1 (x);
endmodule
module \\t.core.round12 (clk);
endmodule
"""


@pytest.mark.parametrize("prefix, module, belongs", [
    ("t.core.key_schedule", "t.core.key_schedule", True),
    ("t.core.f", "t.core.f$32", True),           # Amaranth's rename when a signal is also named f
    ("t.core.f", "t.core.f$32.s1", True),
    ("t.core.round", "t.core.round12", True),    # a pipeline's numbered rounds
    ("t.core.key", "t.core.key_schedule", False),  # a longer name is another submodule
    ("t.core.f", "t.core.feistel", False),
    ("t.core.round", "t.core.round1x", False),
])
def test_part_matches(prefix, module, belongs):
    assert part_matches(prefix, module) is belongs


def test_declared_parts_that_exist_pass():
    check_parts(VERILOG, "t", {"key_schedule": "key_schedule", "f": "datapath", "round": "datapath"})


def test_a_part_whose_name_starts_another_submodule_is_refused():
    text = VERILOG + "module \\t.core.key (clk);\nendmodule\n"
    with pytest.raises(CipherfabError, match="part 'key', whose name also starts submodule key_schedule"):
        check_parts(text, "t", {"key": "key_schedule"})


def test_a_part_naming_no_submodule_is_refused():
    with pytest.raises(CipherfabError, match="t declares the part 'key', but its hierarchy has no "
                                             "submodule key"):
        check_parts(VERILOG, "t", {"key": "key_schedule"})


def test_the_system_default_device_is_the_flows():
    """hw/ runs no tool and imports no flow: the system's FIFO check names the flow's default
    device and its block RAM by value, and this keeps them the family's declaration."""
    from cipherfab.flow.devices import DEFAULT, get_device
    from cipherfab.hw.system.fifo_budget import DEFAULT_BUDGET, depth_problem
    dev = get_device(DEFAULT)
    assert DEFAULT_BUDGET == dev.kind.ram_budget(dev.name)
    # another family's budget: a Gowin GW1NR-9 holds 26 BSRAM (18 kbit), so far shallower FIFOs
    gowin = get_device("gowin-9k")
    assert depth_problem(128, 2048, gowin.kind.ram_budget("gowin-9k")) == (
        "two FIFOs of 2048 134-bit entries need at least 30 block RAMs (BSRAM, 18 kbit); the device "
        "gowin-9k (GW1NR-LV9QN88PC6/I5) has 26: at most 1537 blocks")
    assert depth_problem(128, 2048) is None
