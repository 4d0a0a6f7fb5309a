"""GCM in the verification ledger (host.verify_gcm): the classes it covers, one real check of
a small core class through the system (on a cut of the CAVP file), a broken system failing
it (its GCM, OFB/CFB or CMAC), and the ledger states (fresh, stale when the system's Verilog,
its driver, the file or Verilator change)."""

from pathlib import Path

import pytest

from cipherfab.hw.modes import Mode
from cipherfab.registry import resolve
from cipherfab.host import verify_gcm
from cipherfab.sim import ledger

RSP = Path(__file__).parent.parent / "vectors" / "aes" / "gcmtestvectors" / "gcmEncryptExtIV128.rsp"


def test_every_class_that_encrypts_is_covered():
    tops = {(p.cipher, p.arch) for p in verify_gcm.gcm_points()}
    assert {("aes", a) for a in ("iterative", "interleaved", "pipeline", "unrolled", "column", "byte",
                                 "key_specific", "key_specific_pipeline")} <= tops
    assert {("serpent", "iterative"), ("twofish", "iterative"), ("rc6", "iterative"),
            ("mars", "iterative")} <= tops
    assert {("tdes", a) for a in ("iterative", "pipeline", "key_specific", "key_specific_pipeline")} <= tops
    assert not any(p.arch == "interleaved" and p.as_dict().get("key_clock") == "separate"
                   for p in verify_gcm.gcm_points())        # two clocks: no system


@pytest.fixture(scope="module")
def cut_root(tmp_path_factory):
    """A vector root whose GCM file is two sections of the real one (no text, then text)."""
    root = tmp_path_factory.mktemp("vectors")
    lines = RSP.read_bytes().decode().splitlines(keepends=True)
    head = lines[:lines.index("[Keylen = 128]\r\n")]
    def section(ptlen):
        at = lines.index(f"[PTlen = {ptlen}]\r\n") - 2
        end = next(i for i in range(at + 5, len(lines)) if lines[i].startswith("[Taglen = 120]"))
        return lines[at:end - 4]
    f = root / verify_gcm.GCM_FILE
    f.parent.mkdir(parents=True)
    f.write_bytes("".join(head + section(0) + section(128)).encode())
    return root


def accepting_every_tag(real):
    """``real`` (a GCM, CMAC or CCM run), with every tag it refused reported as accepted: a
    broken system for the class check to catch."""
    def run(*a, **k):
        r = real(*a, **k)
        if r.authentic is False:
            r.authentic = True
        return r
    return run


def test_a_class_passes_and_a_broken_system_fails(cut_root, monkeypatch):
    p = resolve("aes", "column")
    good = verify_gcm.verify(p, cut_root, messages=12)
    assert good["ok"], good["line"]
    assert "CAVP GCM 30 passed, 0 failed; random 12 passed, 0 failed" in good["line"]
    assert "OFB/CFB/CFB8/CFB1 random 13 passed, 0 failed" in good["line"]     # 3 each, CFB8/CFB1 1
    e = good["entry"]
    assert e["ofb_cfb"] == {"messages": 13, "failed": 0, "seed": 1}
    assert "CMAC random 3 passed, 0 failed" in good["line"]
    assert e["cmac"] == {"messages": 3, "failed": 0, "seed": 1}
    assert "XTS random 3 passed, 0 failed" in good["line"]     # encrypt only: the core encrypts
    assert e["xts"] == {"messages": 3, "failed": 0, "seed": 1}
    assert "CCM random 3 passed, 0 failed" in good["line"]
    assert e["ccm"] == {"messages": 3, "failed": 0, "seed": 1}
    assert e["generator_digest"] == verify_gcm.digest(p) and e["cavp"]["passed"] == 30
    assert verify_gcm.state(p, e, cut_root) == "fresh"
    # another digest: the system is generated again and compared (the same: fresh, restamped)
    moved = {**e, "generator_digest": "old"}
    assert verify_gcm.state(p, moved, cut_root) == "fresh" and moved["generator_digest"] == e["generator_digest"]
    assert verify_gcm.state(p, {**e, "generator_digest": "old", "verilog_sha256": "0" * 64},
                            cut_root) == "stale: Verilog changed"
    assert verify_gcm.state(p, {**e, "generator_digest": "old", "driver_sha256": "0" * 64},
                            cut_root) == "stale: the host driver changed"
    assert verify_gcm.state(p, {**e, "generator_digest": "old", "verilog_sha256": None},
                            cut_root) == "stale: the core or the system changed"
    assert verify_gcm.state(p, {**e, "tools": {**e["tools"], "verilator": "4.0"}},
                            cut_root).startswith("stale: verilator changed")
    assert verify_gcm.state(p, {**e, "vectors": {verify_gcm.GCM_FILE: "0" * 64}}, cut_root) == \
        "stale: KAT files changed"
    assert verify_gcm.state(p, None, cut_root) == "never"
    # from the ledger alone (the README's line): another digest is stale, nothing generated
    assert verify_gcm.recorded_state(p, e, cut_root) == "fresh"
    old = {**e, "generator_digest": "old"}
    assert verify_gcm.recorded_state(p, old, cut_root) == "stale: generator changed, system not compared yet"
    assert old["generator_digest"] == "old"
    assert verify_gcm.recorded_state(p, {**old, "verdict": "fail"}, cut_root) == "failed"
    assert verify_gcm.recorded_state(p, None, cut_root) == "never"

    from cipherfab.host import driver
    real = driver.Accelerator.run_gcm
    monkeypatch.setattr(driver.Accelerator, "run_gcm", accepting_every_tag(real))
    bad = verify_gcm.verify(p, cut_root, messages=6)
    assert not bad["ok"] and bad["entry"]["verdict"] == "fail"
    assert "a tag with one bit flipped was accepted" in bad["line"]
    assert verify_gcm.state(p, bad["entry"], cut_root) == "failed"

    # OFB run where CFB decrypt was asked: the OFB/CFB part of the check fails
    real_run = driver.Accelerator.run
    monkeypatch.setattr(driver.Accelerator, "run_gcm", real)
    monkeypatch.setattr(driver.Accelerator, "run", lambda self, key, mode, *a, **k: real_run(
        self, key, Mode.OFB if mode == Mode.CFB_DECRYPT else mode, *a, **k))
    bad = verify_gcm.verify(p, cut_root, messages=4)
    assert not bad["ok"] and "OFB/CFB/CFB8/CFB1 random 6 passed, 1 failed" in bad["line"]
    assert "random CFB_DECRYPT message 0" in bad["line"]

    # a CMAC that accepts every tag: the CMAC part of the check fails
    monkeypatch.setattr(driver.Accelerator, "run", real_run)
    real_cmac = driver.Accelerator.run_cmac
    monkeypatch.setattr(driver.Accelerator, "run_cmac", accepting_every_tag(real_cmac))
    bad = verify_gcm.verify(p, cut_root, messages=4)
    assert not bad["ok"] and "CMAC random 0 passed, 1 failed" in bad["line"]
    assert "random CMAC message 0 (" in bad["line"] and "a forged message was accepted" in bad["line"]

    # an XTS data unit run from a neighbouring tweak: the XTS part of the check fails
    monkeypatch.setattr(driver.Accelerator, "run_cmac", real_cmac)
    real_xts = driver.Accelerator.run_xts
    monkeypatch.setattr(driver.Accelerator, "run_xts", lambda self, key, decrypt, tweak, *a, **k: real_xts(
        self, key, decrypt, bytes([tweak[0] ^ 1]) + tweak[1:], *a, **k))
    bad = verify_gcm.verify(p, cut_root, messages=4)
    assert not bad["ok"] and "XTS random 0 passed, 1 failed" in bad["line"]
    assert "random XTS encrypt message 0 (" in bad["line"]

    # a CCM whose verdict is always "authentic": the CCM part of the check fails
    monkeypatch.setattr(driver.Accelerator, "run_xts", real_xts)
    from cipherfab.host import ccm
    monkeypatch.setattr(ccm, "run", accepting_every_tag(ccm.run))
    bad = verify_gcm.verify(p, cut_root, messages=4)
    assert not bad["ok"] and "CCM random 0 passed, 1 failed" in bad["line"]
    assert "random CCM message 0 (7-byte nonce" in bad["line"] and "a forged message was accepted" in bad["line"]


def test_the_ledger_keeps_gcm_entries(tmp_path):
    book = ledger.Ledger(tmp_path / "ledger.json")
    book.gcm["gcm:x"] = {"verdict": "pass", "line": "ok"}
    book.save()
    assert ledger.Ledger(tmp_path / "ledger.json").gcm == {"gcm:x": {"verdict": "pass", "line": "ok"}}
    (tmp_path / "bad.json").write_text('{"schema": %d, "points": {}, "gcm": [1]}' % ledger.SCHEMA)
    with pytest.raises(Exception, match="its gcm entries are malformed"):
        ledger.Ledger(tmp_path / "bad.json")


def test_a_64_bit_class_runs_ofb_and_cfb_only(cut_root, monkeypatch):
    """TDES (64-bit blocks: no GCM, no CMAC in the system): its class check is OFB, CFB
    encrypt and CFB decrypt (CFB64), CFB8 and CFB1 against TDES's reference, and fails on a
    system that runs OFB where CFB decrypt was asked, or CFB1 encrypt where CFB1 decrypt was."""
    p = resolve("tdes", "iterative")
    good = verify_gcm.verify(p, cut_root, messages=8)
    assert good["ok"], good["line"]
    assert "(no GCM or CMAC: 64-bit blocks): OFB/CFB/CFB8/CFB1 random 10 passed, 0 failed" in good["line"]
    e = good["entry"]
    assert e["random"]["messages"] == 0 and e["cmac"]["messages"] == 0 and e["ghash"] is None
    assert e["xts"]["messages"] == 0 and "XTS" not in good["line"]
    assert e["ccm"]["messages"] == 0 and "CCM" not in good["line"]
    assert verify_gcm.state(p, e, cut_root) == "fresh"
    from cipherfab.host import driver
    real_run = driver.Accelerator.run
    monkeypatch.setattr(driver.Accelerator, "run", lambda self, key, mode, *a, **k: real_run(
        self, key, Mode.OFB if mode == Mode.CFB_DECRYPT else mode, *a, **k))
    bad = verify_gcm.verify(p, cut_root, messages=4)
    assert not bad["ok"] and "OFB/CFB/CFB8/CFB1 random 6 passed, 1 failed" in bad["line"]
    # CFB1 decrypt run as CFB1 encrypt (the chain takes the output bit, not the input's)
    monkeypatch.setattr(driver.Accelerator, "run", lambda self, key, mode, *a, **k: real_run(
        self, key, Mode.CFB1_ENCRYPT if mode == Mode.CFB1_DECRYPT else mode, *a, **k))
    bad = verify_gcm.verify(p, cut_root, messages=4)
    assert not bad["ok"] and "OFB/CFB/CFB8/CFB1 random 6 passed, 1 failed" in bad["line"]
    assert "random CFB1_DECRYPT message 0" in bad["line"]
