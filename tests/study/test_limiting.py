"""The limiting part per study point, from the worst path of each seed's record."""

from cipherfab.study import limiting


def test_a_study_shows_the_parts_of_each_seeds_worst_path():
    def rec(point, parts, levels, routing=3.0):
        return {"status": "ok", "study_point": point, "timing": {"worst_paths": [
            {"parts": parts, "lut_levels": levels, "routing_ns": routing, "delay_ns": 4.0}]}}
    results = {"records": [rec("a", ["key_schedule", "control", "key_schedule"], 8),
                           rec("a", ["key_schedule", "control"], 9, 2.0),
                           rec("b", ["datapath"], 3), rec("b", ["control", "datapath"], 4),
                           {"status": "ok", "study_point": "c", "timing": {}},
                           {"status": "ok", "study_point": "c", "timing": {"worst_paths": [{}]}},
                           {"status": "ok", "study_point": "c", "timing": {"worst_paths": "x"}},
                           {"status": "ok", "study_point": "c", "timing": {"worst_paths": [
                               {"parts": ["datapath"], "lut_levels": "7", "routing_ns": 1, "delay_ns": 2}]}},
                           {"status": "failed", "study_point": "d"}]}
    worst = limiting.worst_paths(results)
    assert set(worst) == {"a", "b"}
    assert limiting.parts_cell(worst["a"]) == "key_schedule > control"
    assert limiting.parts_cell(worst["b"]) == "datapath (1/2); control > datapath (1/2)"
    assert limiting.levels_cell(worst["a"]) == "8–9" and limiting.routing_cell(worst["a"]) == "50–75"
    assert limiting.parts_cell([]) == limiting.levels_cell([]) == limiting.routing_cell([]) == "–"
