"""The simulated system's Verilog is kept in the cache (``systems/``): made once per point,
shape and source; a changed source, a damaged file or a core outside the package makes it
again, and a cache that cannot be written only costs time."""

import pytest

from cipherfab.host import system_cache
from cipherfab.registry import resolve

POINT = dict(arch="iterative", sbox="lut")


@pytest.fixture
def made(monkeypatch, tmp_path):
    """Counts elaborations (each gives a text naming its call)."""
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "cache"))
    calls = []

    def fake(params, width, depth, modes=None):
        calls.append((params.top, width, depth, modes))
        return f"// made {len(calls)}", f"top_{width}_{depth}", {"axis_width": width, "n": len(calls)}
    monkeypatch.setattr(system_cache, "make_system_verilog", fake)
    return calls


def test_made_once_then_read_back(made, tmp_path):
    p = resolve("aes", **POINT)
    first = system_cache.system_verilog(p, None, None)
    again = system_cache.system_verilog(p, None, None)
    assert again == first and len(made) == 1
    assert len(list((tmp_path / "cache" / "systems").glob("*.json"))) == 1


def test_shape_point_and_source_are_in_the_key(made, monkeypatch):
    p = resolve("aes", **POINT)
    system_cache.system_verilog(p, None, None)
    system_cache.system_verilog(p, 32, None)              # another width
    system_cache.system_verilog(p, None, 64)              # another depth
    system_cache.system_verilog(resolve("aes", arch="iterative", sbox="rom"), None, None)
    system_cache.system_verilog(p, None, None, ("ecb", "ctr"))   # another mode set
    system_cache.system_verilog(p, None, None, ("ecb", "ctr"))
    assert len(made) == 5 and made[-1][-1] == ("ecb", "ctr")
    real = system_cache.system_digest
    monkeypatch.setattr(system_cache, "system_digest", lambda params: real(params) + "changed")
    text, _, _ = system_cache.system_verilog(p, None, None)   # a source file changed
    assert len(made) == 6 and text == "// made 6"


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"verilog": "x"}', b"[1, 2]"])
def test_a_damaged_file_is_made_again(made, tmp_path, damage):
    p = resolve("aes", **POINT)
    system_cache.system_verilog(p, None, None)
    (kept,) = (tmp_path / "cache" / "systems").glob("*.json")
    kept.write_bytes(damage)
    text, _, _ = system_cache.system_verilog(p, None, None)
    assert text == "// made 2"
    assert system_cache.system_verilog(p, None, None)[0] == "// made 2"   # saved over it


def test_a_cache_that_cannot_be_written_costs_only_time(made, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("CIPHERFAB_CACHE", str(blocker))
    p = resolve("aes", **POINT)
    assert system_cache.system_verilog(p, None, None)[0] == "// made 1"
    assert system_cache.system_verilog(p, None, None)[0] == "// made 2"


def test_cores_outside_the_package_are_not_kept(made, toy_registry, tmp_path):
    p = resolve("toyxor", "pipe", stages=3)
    system_cache.system_verilog(p, None, None)
    system_cache.system_verilog(p, None, None)
    assert len(made) == 2 and not (tmp_path / "cache" / "systems").exists()
