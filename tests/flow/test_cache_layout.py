"""One cache root with one layout: builds/, verilated/, failed/, tools.json."""

from pathlib import Path

from cipherfab import cache
from cipherfab.flow import cache as flow_cache
from cipherfab.sim.verilated import cache_dir_default


def test_layout_under_cipherfab_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "c"))
    assert cache.root() == tmp_path / "c"
    assert cache.builds() == tmp_path / "c" / "builds"
    assert cache.failed() == tmp_path / "c" / "failed"
    assert cache.tools_file() == tmp_path / "c" / "tools.json"
    assert cache_dir_default() == tmp_path / "c" / "verilated"


def test_default_root_is_user_cache(monkeypatch):
    monkeypatch.delenv("CIPHERFAB_CACHE")
    assert cache.root() == Path.home() / ".cache" / "cipherfab"
    assert cache_dir_default() == Path.home() / ".cache" / "cipherfab" / "verilated"


def test_store_and_load_need_measured_at(tmp_path, monkeypatch):
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path))
    flow_cache.store("k1", {"area": {}, "measured_at": "2025-01-01T00:00:00+00:00"})
    assert (tmp_path / "builds" / "k1.json").is_file()
    assert flow_cache.load("k1")["measured_at"].startswith("2025")
    flow_cache.store("old", {"area": {}})  # an entry from before measured_at: a miss
    assert flow_cache.load("old") is None
