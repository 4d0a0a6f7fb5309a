"""`sim --mode gcm` on the Crypto++ and NIST example GCM files, through the simulated system
around a small core (the system compiled once, shared with tests/sim/test_verify_gcm.py)."""

from pathlib import Path

from cipherfab.cli import main

AES = Path(__file__).parent.parent / "vectors" / "aes"


def test_cryptopp_and_example_files_pass_through_the_system(capsys):
    code = main(["sim", "aes", "--arch", "column", "--mode", "gcm", "--vectors",
                 str(AES / "cryptopp" / "gcm.txt"), str(AES / "sp800-38a_examples" / "AES_GCM.txt")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "gcm.txt: 10 passed, 0 failed, 12 skipped" in out
    assert "AES_GCM.txt: 6 passed, 0 failed, 12 skipped" in out
    assert "16 passed, 0 failed, 24 skipped" in out
