"""Generated core Verilog is kept in the cache (``cores/``): made once per point, waiver
setting and source; a changed source, a damaged file or a core outside the package makes it
again, and a cache that cannot be written only costs time.  ``generate`` always elaborates."""

import pytest

from cipherfab import generate
from cipherfab.registry import resolve
from cipherfab.sim import core_cache, ledger

POINT = dict(arch="byte", sbox="lut")


@pytest.fixture
def made(monkeypatch, tmp_path):
    """Counts elaborations (the real export, counted)."""
    monkeypatch.setenv("CIPHERFAB_CACHE", str(tmp_path / "cache"))
    calls = []
    real = generate.to_verilog

    def counted(core, top, header, waive=None):
        calls.append(top)
        return real(core, top, header, waive)
    monkeypatch.setattr(generate, "to_verilog", counted)
    return calls


def test_made_once_then_read_back_with_its_declaration_and_seconds(made, tmp_path):
    p = resolve("aes", **POINT)
    first = core_cache.core_verilog(p, waivers=False)
    again = core_cache.core_verilog(p, waivers=False)
    assert again == first and len(made) == 1 and first[2] > 0
    assert again[1] == generate.declaration(p)
    assert len(list((tmp_path / "cache" / "cores").glob("*.json"))) == 1


def test_point_waivers_and_source_are_in_the_key(made, monkeypatch):
    p = resolve("aes", **POINT)
    plain = core_cache.core_verilog(p, waivers=False)[0]
    waived = core_cache.core_verilog(p)[0]                       # the waivers placed
    core_cache.core_verilog(resolve("aes", arch="byte", sbox="rom"), waivers=False)
    assert len(made) == 3 and "lint_off" in waived and "lint_off" not in plain
    assert core_cache.core_verilog(p)[0] == waived and len(made) == 3
    real = ledger.generator_digest
    monkeypatch.setattr(ledger, "generator_digest", lambda params=None: real(params) + "changed")
    core_cache.core_verilog(p, waivers=False)                    # a source file changed
    assert len(made) == 4


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"verilog": "x"}', b"[1, 2]"])
def test_a_damaged_file_is_made_again(made, tmp_path, damage):
    p = resolve("aes", **POINT)
    text = core_cache.core_verilog(p, waivers=False)[0]
    (kept,) = (tmp_path / "cache" / "cores").glob("*.json")
    kept.write_bytes(damage)
    assert core_cache.core_verilog(p, waivers=False)[0] == text and len(made) == 2
    assert core_cache.core_verilog(p, waivers=False)[0] == text and len(made) == 2   # saved over it


def test_a_cache_that_cannot_be_written_costs_only_time(made, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("CIPHERFAB_CACHE", str(blocker))
    p = resolve("aes", **POINT)
    assert core_cache.core_verilog(p, waivers=False)[0] == core_cache.core_verilog(p, waivers=False)[0]
    assert len(made) == 2


def test_cores_outside_the_package_are_not_kept(made, toy_registry, tmp_path):
    p = resolve("toyxor", "pipe", stages=3)
    core_cache.core_verilog(p, waivers=False)
    core_cache.core_verilog(p, waivers=False)
    assert len(made) == 2 and not (tmp_path / "cache" / "cores").exists()


def test_generate_always_elaborates(made, tmp_path):
    from cipherfab.cli import main
    p = resolve("aes", **POINT)
    core_cache.core_verilog(p)
    assert main(["generate", "aes", "--arch", "byte", "--sbox", "lut", "-o", str(tmp_path / "c.v")]) == 0
    assert len(made) == 2 and (tmp_path / "c.v").read_text() == core_cache.core_verilog(p)[0]
