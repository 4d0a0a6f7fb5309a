"""The classes-and-goals table of a study report (issue 18's table): the best point per class,
each goal met or not with the number, and the open peer of the same run."""

from cipherfab.study import report
from cipherfab.study.document import render_md
from cipherfab.study.studies import AES_SPACE, Goal


def _agg(label: str, params: dict, external: bool = False, **stats) -> dict:
    return {"label": label, "params": params, "external": external, "seeds": [1, 2],
            "ok_seeds": [1, 2], "cached_seeds": [],
            "stats": {k.replace("__", "."): {"min": v, "median": v, "max": v, "n": 2}
                      for k, v in stats.items()}}


def _results(goals: list[Goal], aggs: list[dict]) -> dict:
    study = AES_SPACE.as_dict() | {"goals": [g.__dict__ for g in goals], "ratios": [],
                                   "published": [], "rankings": []}
    return {"study": study, "seeds": [1, 2], "aggregates": aggs, "records": []}


def _rows(results: dict) -> list[str]:
    md = render_md(report.build_doc(results, []))
    table = md.split("**Classes and their goals")[1].split("\n\n")[1]
    return table.splitlines()[2:]


ITER = {"arch": "iterative", "sbox": "lut"}


def test_the_best_point_of_a_class_is_marked_against_each_goal_and_the_peer():
    goals = [Goal("default", ({"arch": "iterative"},), "performance.mbps_per_lut4",
                  (("performance.mbps_per_lut4", ">=", 0.40), ("timing.fmax_mhz", ">=", 150)),
                  peer="peer core"),
             Goal("compact", ({"arch": "byte"},), "area.lut4", (("area.lut4", "<=", 450),),
                  lowest=True, peer="peer core")]
    aggs = [_agg("iter-a", ITER, performance__mbps_per_lut4=0.404, timing__fmax_mhz=134.8,
                 area__lut4=4275),
            _agg("iter-b", {"arch": "iterative", "sbox": "rom"}, performance__mbps_per_lut4=0.2,
                 timing__fmax_mhz=160.0, area__lut4=1400),
            _agg("byte-a", {"arch": "byte"}, area__lut4=539, timing__fmax_mhz=156.4),
            _agg("byte-b", {"arch": "byte", "sbox": "lut"}, area__lut4=729),
            _agg("peer core", {"external": True}, external=True, performance__mbps_per_lut4=0.290,
                 area__lut4=600)]
    default, compact = _rows(_results(goals, aggs))
    assert "| iter-a |" in default                      # best by Mbit/s per LUT4, not by Fmax
    assert "≥ 0.400 Mbit/s per LUT4: **met** (0.404)" in default
    assert "≥ 150 MHz: not met (134.8)" in default
    assert "peer core 0.290 Mbit/s per LUT4: ours ahead by 39%" in default
    assert "| byte-a |" in compact                      # the lowest LUT4
    assert "≤ 450 LUT4: not met (539)" in compact
    assert "peer core 600 LUT4: ours ahead by 11%" in compact


def test_a_peer_ahead_or_missing_and_a_class_with_no_point_say_so():
    goals = [Goal("fast", ({"arch": "pipeline"},), "timing.fmax_mhz",
                  (("timing.fmax_mhz", ">=", 250),), peer="tiny"),
             Goal("absent peer", ({"arch": "pipeline"},), "timing.fmax_mhz", (), peer="nobody"),
             Goal("empty", ({"arch": "unrolled"},), "timing.fmax_mhz", ())]
    aggs = [_agg("pipe", {"arch": "pipeline"}, timing__fmax_mhz=190.6),
            _agg("tiny", {}, external=True, timing__fmax_mhz=193.0)]
    fast, absent, empty = _rows(_results(goals, aggs))
    assert "tiny 193.0 MHz: ours behind by 1%" in fast
    assert "nobody: not in this run" in absent
    assert "| empty | not in this run |" in empty


def test_aes_space_declares_issue_18s_classes():
    names = [g.name for g in AES_SPACE.goals]
    assert names == ["default iterative, logic S-box", "iterative class, logic only",
                     "iterative class, block-RAM S-box", "full pipeline, key-agile, logic only",
                     "full pipeline, key-agile, block RAM", "compact"]
    peers = {g.peer for g in AES_SPACE.goals} - {None}
    assert peers <= {"Usselmann aes_core (OpenCores)", "tiny_aes (OpenCores)",
                     "secworks/aes (encrypt, 128-bit key)"}
