"""The worst path of a family whose routed delays are not read (flow.log_path): nextpnr's
critical-path report of the measured clock, from its log, in the record's path shape."""

from cipherfab.flow import log_path

LOG = """Info: Critical path report for clock 'other' (posedge -> posedge):
Info:   clk-to-q  0.50  0.50 Source x.Q
Info: 0.50 ns logic, 0.00 ns routing
Info: Critical path report for clock 'clk$11' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-skew  1.72  1.72 Net clk$11 (146,54) -> (131,3)
Info:                          Sink core.ks.r_ff.CLK
Info:                          Defined in:
Info:                               design.v:20.8-20.15
Info:   clk-to-q  0.59  2.31 Source core.ks.r_ff.DOUT
Info:    routing  1.96  4.27 Net core.ks.r (146,54) -> (148,58)
Info:                          Sink $abc$8.D0_10
Info:      logic  0.61  4.88 Source $abc$8.OUT
Info:    routing  3.00  7.88 Net n9 (1,1) -> (2,2)
Info:                          Sink core.dp.s_ff.DIN
Info:      setup  0.10  7.98 Source core.dp.s_ff.DIN
Info: 1.30 ns logic, 4.96 ns routing
""".splitlines()


class FakeWhere:
    def __call__(self, cell):
        part = "key_schedule" if ".ks." in cell else "datapath" if ".dp." in cell else "control"
        return part, part

    def register(self, cell):
        return {"core.ks.r_ff": "core.ks.r[3]"}.get(cell)


def test_the_measured_clocks_report_becomes_one_path():
    entries = log_path.report(LOG, "clk$11")
    assert [e[0] for e in entries] == ["clk-skew", "sink", "clk-to-q", "routing", "sink", "logic", "routing",
                                       "sink", "setup"]
    p = log_path.describe(entries, FakeWhere(), {"core.ks.r": 7, "n9": 1}, {"$abc$8": "CPE_L2T4"})
    assert (p["delay_ns"], p["logic_ns"], p["routing_ns"], p["clock_skew_ns"]) == (7.98, 1.3, 4.96, 1.72)
    assert p["lut_levels"] == 1 and p["parts"] == ["key_schedule", "control", "datapath"]
    assert p["start"] == {"cell": "core.ks.r_ff", "register": "core.ks.r[3]", "part": "key_schedule",
                          "where": "key_schedule"}
    assert p["end"]["pin"] == "DIN" and p["end"]["register"] == "core.dp.s_ff"      # no register name: the cell
    assert [(h["from"], h["to"], h.get("fanout")) for h in p["hops"]] == \
        [("CLK", "DOUT", 7), ("D0_10", "OUT", 1), ("DIN", None, None)]
    assert p["source"] == log_path.SOURCE


def test_no_report_for_the_clock_is_no_path():
    assert log_path.report(LOG, "sys_clk") == [] and log_path.report([], "clk") == []
