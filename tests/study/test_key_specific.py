"""The key-specific study's own tables mark rows that hold builds from the build cache (†)."""

from cipherfab.study import key_specific
from cipherfab.study.report import Doc, render_md

GENERIC = {"cipher": "aes", **key_specific.FAMILIES[0][1]}
VARIANT = {"cipher": "aes", "arch": "key_specific", "sbox": "rom", "variant": "fixed_key", "key": "00" * 16}


def _record(design: dict, cached: bool) -> dict:
    return {"status": "ok", "design": design, "cached": cached,
            "area": {"lut4": 1000, "ff": 300, "ebr": 10}, "timing": {"fmax_mhz": 100.0},
            "performance": {"throughput_ecb_mbps": 1000.0},
            "times": {s: 1.0 for s in key_specific.STAGES}}


def test_cached_rows_are_marked():
    results = {"keys": ["00" * 16], "records": [_record(GENERIC, True), _record(VARIANT, False)]}
    _, body = key_specific.headline(results)
    names = {row[1] for row in body}
    assert names == {"original †", "fixed_key"}
    doc = Doc()
    key_specific.section(doc, results)
    text = render_md(doc)
    assert "| aes | original † |" in text
    assert "† Includes builds reused from the build cache" in text


def test_no_mark_without_cached_builds():
    results = {"keys": ["00" * 16], "records": [_record(GENERIC, False)]}
    doc = Doc()
    key_specific.section(doc, results)
    assert "†" not in render_md(doc)
