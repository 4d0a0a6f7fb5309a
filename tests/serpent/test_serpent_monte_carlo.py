"""Serpent's AES-submission Monte-Carlo files (400 x 10000 per key size, values printed
byte-reversed) on the hardware: the inner loops run in the compiled harness, as AESAVS's do."""

from pathlib import Path

import pytest

from cipherfab.registry import resolve
from cipherfab.sim import engine as engine_module
from cipherfab.sim.engine import HardwareEngine
from cipherfab.vectors import ReferenceEngine, parse_file, run_files, runner
from cipherfab.vectors.checks import Chain, mct_inner, run_chains_by_blocks

MCT = Path(__file__).parents[1] / "vectors" / "serpent" / "aes_submission_mct"


@pytest.fixture(scope="module")
def serpent128():
    return HardwareEngine(resolve("serpent", "iterative", key_bits=128))


def test_submission_monte_carlo_runs_in_the_harness(serpent128, monkeypatch):
    """The first records of the encrypt files (ECB and CBC): every inner loop is one harness
    call's chain, never the block-by-block fallback nor a block job, and each record passes,
    its derived KEY/IV/text the next record's."""
    calls = []
    run_chains = HardwareEngine.run_chains

    def counted(self, chains):
        calls.append([(c.rule, c.inner) for c in chains])
        return run_chains(self, chains)

    def refuse(*args, **kwargs):
        raise AssertionError("a Monte-Carlo block went through Python")

    monkeypatch.setattr(HardwareEngine, "run_chains", counted)
    monkeypatch.setattr(runner, "run_chains_by_blocks", refuse)
    monkeypatch.setattr(serpent128, "run", refuse)
    reports = run_files([MCT / "ecb_e_m.txt", MCT / "cbc_e_m.txt"], serpent128, limit=3,
                        byte_reversed=True, other_key_sizes="skip")
    assert [(r.passed, r.failed, r.skipped) for r in reports] == [(3, 0, 0), (3, 0, 0)]
    assert calls == [[("ecb", 10000)] * 3 + [("cbc-encrypt", 10000)] * 3]


def test_harness_chains_equal_the_reference_block_by_block(serpent128, monkeypatch):
    """A record's chains (ECB and CBC, from the byte-reversed file) in the harness, split
    across two threads, equal the reference model's block by block, bit for bit (shortened
    to 300 blocks: the pure-Python model takes about a second per thousand)."""
    chains = []
    for name in ("ecb_e_m.txt", "cbc_e_m.txt"):
        rec = parse_file(MCT / name, 16, byte_reversed=True)[1]
        chains.append(mct_inner(rec.key, rec.iv, rec.plaintext[0], False, rec.mode, 300, True).send(None))
    chains += [Chain(bytes(16), False, "cbc-encrypt", bytes(16), bytes(range(16)), 301)]
    assert all(isinstance(c, Chain) for c in chains)
    monkeypatch.setattr(engine_module, "CHAIN_SPLIT_BLOCKS", 1)
    monkeypatch.setattr(engine_module, "_cpus", lambda: 2)
    reference = run_chains_by_blocks(ReferenceEngine(128, "encrypt", cipher="serpent"), chains)
    assert serpent128.run_chains(chains) == reference


def test_a_wrong_record_fails(serpent128, tmp_path):
    """Record 1's output changed (as printed, byte-reversed): that record alone fails."""
    text = (MCT / "ecb_e_m.txt").read_text()
    old = "CT=5d0c5da998aaa940d493738892579447"
    assert text.count(old) == 1
    (tmp_path / "ecb_e_m.txt").write_text(text.replace(old, old[:-1] + "6"))
    (report,) = run_files([tmp_path / "ecb_e_m.txt"], serpent128, limit=3, byte_reversed=True,
                          other_key_sizes="skip")
    assert (report.passed, report.failed) == (2, 1)
    assert "(after 10000 iterations)" in report.first_failure


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ecb_d_m.txt", "cbc_d_m.txt"])
def test_decrypt_files_on_the_reference(name):
    """The decrypt files (the iterative core encrypts only) on the reference model, block by
    block: the submission rules' CBC-decrypt chaining on byte-reversed values (13 s a record)."""
    (report,) = run_files([MCT / name], ReferenceEngine(128, "decrypt", cipher="serpent"), limit=2,
                          byte_reversed=True, other_key_sizes="skip")
    assert (report.passed, report.failed) == (2, 0)
