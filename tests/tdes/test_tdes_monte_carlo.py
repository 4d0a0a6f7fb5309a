"""TDES Monte-Carlo (NIST TDESVS: 400 outer x 10000 inner, keys updated by keying option with
odd parity) on the hardware, through the feedback chains of the compiled harness."""

from pathlib import Path

import pytest

from cipherfab.cli import main
from cipherfab.registry import resolve
from cipherfab.sim.engine import HardwareEngine
from cipherfab.vectors import ReferenceEngine, run_files
from cipherfab.vectors.checks import Chain, run_chains_by_blocks, tdes_next_key

MCT = Path(__file__).parents[1] / "vectors" / "tdes" / "tdesmct"


@pytest.mark.parametrize("arch, names, limit", [
    ("iterative", ("TECBMonte1.rsp", "TCBCMonte1.rsp"), 3),
    # each chain waits out the pipeline, ~7 s a record: -m slow (the chains themselves are
    # test_chains_in_the_harness_equal_chains_block_by_block[pipeline]'s, the files verify --all's)
    pytest.param("pipeline", ("TCBCMonte1.rsp",), 2, marks=pytest.mark.slow),
])
def test_monte_carlo_records_and_the_chain_between_them(arch, names, limit, capsys):
    """The first records of each file: every record's own 10000-block loop, and the
    KEY/IV/text it derives must be the next record's (the full files: docs/verification.md)."""
    for name in names:
        argv = ["sim", "tdes", "--arch", arch, "--key-bits", "192", "--direction", "both",
                "--vectors", str(MCT / name), "--limit", str(limit)]
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert out.strip().splitlines()[-1] == f"{limit} passed, 0 failed", out


@pytest.mark.parametrize("old, new, verdict", [
    # COUNT 1's output alone is wrong
    ("CIPHERTEXT = ed66f33d32f2ab76", "CIPHERTEXT = ed66f33d32f2ab77", "2 passed, 1 failed"),
    # COUNT 1's input no longer follows from COUNT 0: both records fail
    ("PLAINTEXT = 91fc75e5b3e81754", "PLAINTEXT = 91fc75e5b3e81755", "1 passed, 2 failed"),
])
def test_a_wrong_record_fails(tmp_path, capsys, old, new, verdict):
    text = (MCT / "TECBMonte1.rsp").read_text()
    assert text.count(old) == 1
    (tmp_path / "TECBMonte1.rsp").write_text(text.replace(old, new))
    assert main(["sim", "tdes", "--key-bits", "192", "--direction", "encrypt",
                 "--vectors", str(tmp_path / "TECBMonte1.rsp"), "--limit", "3"]) == 1
    out = capsys.readouterr().out
    assert verdict in out


def test_no_record_ran_or_every_record_failed(tmp_path, capsys):
    """Only records the encrypt-only core cannot run (Monte-Carlo decryption): one line saying
    why, exit 2; every record failed: the report and exit 1."""
    text = (MCT / "TECBMonte1.rsp").read_text()
    head, _, rest = text.partition("[ENCRYPT]")
    (tmp_path / "TECBMonte1.rsp").write_text(head + "[DECRYPT]" + rest.partition("[DECRYPT]")[2])
    argv = ["sim", "tdes", "--key-bits", "192", "--direction", "encrypt", "--limit", "2", "--vectors"]
    assert main(argv + [str(tmp_path / "TECBMonte1.rsp")]) == 2
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if not ln.startswith("note: ")]
    assert err == ["cipherfab sim: error: no record in the vector files ran on this core: 2 x "
                   "[DECRYPT] Monte-Carlo needs the decrypt direction, the core has encrypt only"], err
    assert text.count("CIPHERTEXT = 91fc75e5b3e81754") == 1                  # COUNT 0's output
    (tmp_path / "bad.rsp").write_text(text.replace("CIPHERTEXT = 91fc75e5b3e81754",
                                                   "CIPHERTEXT = 91fc75e5b3e81755"))
    assert main(argv[:-2] + ["1", "--vectors", str(tmp_path / "bad.rsp")]) == 1
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 passed, 1 failed"


def test_keying_options():
    """Option 3 (K1 = K2 = K3) stays one key; option 2 keeps K3 = K1; option 1 updates the
    three keys from the last three outputs; each byte: the high 7 bits XORed, odd parity."""
    k1, k2, k3 = (bytes.fromhex(h) for h in ("0123456789abcdef", "23456789abcdef01", "456789abcdef0123"))
    t = [bytes.fromhex(h) for h in ("1111111111111111", "2222222222222222", "4444444444444444")]

    one = tdes_next_key(k1 * 3, t)
    assert one[:8] == one[8:16] == one[16:]
    two = tdes_next_key(k1 + k2 + k1, t)
    assert two[16:] == two[:8] and two[8:16] != two[:8]
    three = tdes_next_key(k1 + k2 + k3, t)
    for old, out, new in ((k1, t[0], one[:8]), (k1, t[0], two[:8]), (k2, t[1], two[8:16]),
                          (k1, t[0], three[:8]), (k2, t[1], three[8:16]), (k3, t[2], three[16:])):
        assert all((a ^ b) >> 1 == c >> 1 and bin(c).count("1") % 2 == 1
                   for a, b, c in zip(old, out, new)), (old.hex(), out.hex(), new.hex())


def test_reference_agrees_with_the_first_records():
    """The reference engine (block by block, no harness) gives the same verdicts."""
    (report,) = run_files([MCT / "TCBCMonte1.rsp"], ReferenceEngine(192, "both", cipher="TDES"), limit=2)
    assert (report.passed, report.failed) == (2, 0)


@pytest.mark.parametrize("arch", ["iterative", "pipeline"])
def test_chains_in_the_harness_equal_chains_block_by_block(arch):
    """Every rule, both directions, several lengths, many chains at once: cf_chain against
    the same chains one block per call."""
    import random
    rng = random.Random(5)
    # the pipeline as single DES (16 rounds, a third of TDES's 48 to build): the chains' rules
    # are about the harness, the same for every key size
    bits = 192 if arch == "iterative" else 64
    engine = HardwareEngine(resolve("tdes", arch, key_bits=bits, direction="both"))
    chains = [Chain(rng.randbytes(bits // 8), decrypt, rule, rng.randbytes(8), rng.randbytes(8), n)
              for rule, decrypt in (("ecb", False), ("ecb", True), ("cbc-encrypt", False),
                                    ("cbc-decrypt-prev", True), ("cbc-decrypt-out", True))
              for n in (1, 2, 9)]
    assert engine.run_chains(chains) == run_chains_by_blocks(engine, chains)
