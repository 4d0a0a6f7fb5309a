"""The interactive chart of a study's report (study.chart): its points from a committed
study's results, and the page in a real headless browser (Chromium, Debian's ``chromium``):
it renders a mark and a list entry for every point, and the URL's filters hide the others."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cipherfab.study import chart
from cipherfab.study.report import _ok_aggs, write_report

QUICK = Path(__file__).parents[2] / "docs" / "results" / "quick" / "results.json"
CHROMIUM = shutil.which("chromium")
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")


def _results() -> dict:
    return json.loads(QUICK.read_text())


def test_the_points_are_ours_and_the_papers():
    results = _results()
    data = chart.chart_data(results, _ok_aggs(results))
    ours = [p for p in data["points"] if p["kind"] == "ours"]
    assert len(ours) == len(results["aggregates"]) and all(p["command"].startswith("cipherfab generate aes ") for p in ours)
    papers = [p for p in data["points"] if p["kind"] == "paper"]
    assert papers and all(p["slices"] > 0 and p["mbps"] > 0 for p in papers)
    assert "</" not in chart.data_json({"points": [{"label": "</script><b>"}]})


def _dom(page: Path, fragment: str = "") -> str:
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
                          "--dump-dom", page.as_uri() + fragment], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    return out.stdout


@needs_browser
def test_the_report_chart_renders_every_point_and_filters(tmp_path):
    results = _results()
    write_report(results, tmp_path)
    points = chart.chart_data(results, _ok_aggs(results))["points"]
    dom = _dom(tmp_path / "report.html")
    assert f'data-rendered="{len(points)}"' in dom
    marks = re.findall(r'<(?:circle|rect|path)[^>]*data-point="([^"]+)"', dom)
    items = re.findall(r'<li data-point="([^"]+)"', dom)
    assert sorted(marks) == sorted(items) == sorted(p["label"] for p in points)
    rom = [p for p in points if p["sbox"] == "rom"]
    assert rom and f'data-shown="{len(rom)}"' in _dom(tmp_path / "report.html", "#sbox=rom")


@needs_browser
def test_a_screenshot_of_the_chart(tmp_path):
    results = _results()
    write_report(results, tmp_path)
    shot = tmp_path / "chart.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--virtual-time-budget=3000", "--window-size=940,640", f"--screenshot={shot}",
                    (tmp_path / "chart.html").as_uri()], capture_output=True, timeout=120, check=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
