"""Bad input to ``cipherfab encrypt|decrypt`` and ``generate --system``: every case is one
line on stderr naming the problem, exit 2, nothing on stdout and no output file left
behind, and all of it before anything is elaborated or compiled (each case runs
in-process in well under a second).  Then the fixes that make valid input work: the
default stream width, a decrypting core for decrypt, the summary's sizes, the key's help,
the system's name and the driver API's own checks."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from cipherfab.cli import build_parser, main
from cipherfab.errors import CipherfabError

K = "000102030405060708090a0b0c0d0e0f"
IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
K192 = K + "1011121314151617"


def encrypt(*extra, cipher="aes", command="encrypt", mode="cbc", iv=IV, key=K, src="{in}", out="{out}"):
    """An encrypt (or decrypt) command line with one thing changed."""
    argv = [command, *([cipher] if cipher else []), "--mode", mode]
    argv += [*(["--key", key] if key is not None else []), *(["--iv", iv] if iv is not None else [])]
    return argv + [*(["--in", src] if src is not None else []), *(["--out", out] if out is not None else []),
                   *extra]


def decrypt(*extra, **kw):
    return encrypt(*extra, command="decrypt", **{"src": "{blocks}", **kw})


def mac(*extra, cipher="aes", key=K, src="{in}", out="{out}"):
    """A ``cipherfab mac`` command line with one thing changed."""
    return ["mac", *([cipher] if cipher else []), *(["--key", key] if key is not None else []),
            *(["--in", src] if src is not None else []), *(["--out", out] if out is not None else []),
            *extra]


KX = K + "101112131415161718191a1b1c1d1e1f"     #: an XTS-AES-128 key: K1 then K2


def xts(*extra, key=KX, **kw):
    """An XTS command line (``--iv`` is the caller's to give or drop)."""
    return encrypt(*extra, mode="xts", key=key, **kw)


def system(*extra, cipher="aes"):
    return ["generate", cipher, "--system", *extra]


CASES = [
    # --fmax: every float option refuses nan, inf and values out of range in one line
    (encrypt("--fmax", "inf"), "argument --fmax: must be a finite number, got 'inf'"),
    (encrypt("--fmax", "nan"), "argument --fmax: must be a finite number, got 'nan'"),
    (encrypt("--fmax=-inf"), "must be a finite number, got '-inf'"),
    (encrypt("--fmax", "1e400"), "must be a finite number, got '1e400'"),
    (encrypt("--fmax", "0"), "argument --fmax: must lie in 0.001 to 10000 MHz, got 0"),
    (encrypt("--fmax", "-5"), "must lie in 0.001 to 10000 MHz, got -5"),
    (encrypt("--fmax", "1e-9"), "must lie in 0.001 to 10000 MHz, got 1e-09"),
    (encrypt("--fmax", "20000"), "must lie in 0.001 to 10000 MHz, got 20000"),
    (encrypt("--fmax", ""), "argument --fmax: invalid number ''"),
    (encrypt("--fmax", "fast"), "argument --fmax: invalid number 'fast'"),
    # --depth: what the device's block RAM holds, before anything is elaborated
    (encrypt("--depth", "100000000"), "--depth 100000000: two FIFOs of 100000000 134-bit entries need "
                                      "at least 1464870 block RAMs"),
    (encrypt("--depth", "1000000"), "the device ecp5-85k (LFE5U-85F) has 208: at most 13313 blocks"),
    (encrypt("--depth", "13314"), "--depth 13314: two FIFOs of 13314 134-bit entries need at least 210"),
    (encrypt("--depth", "26626", cipher="tdes", key=K192, iv=IV[:16]), "69-bit entries need at least 212"),
    (encrypt("--depth", "2"), "--depth 2: a FIFO holds at least 3 blocks, not 2"),
    (encrypt("--depth", "0"), "--depth 0: a FIFO holds at least 3 blocks"),
    (encrypt("--depth", "-1"), "--depth -1: a FIFO holds at least 3 blocks"),
    (encrypt("--depth", "many"), "argument --depth: invalid integer 'many'"),
    (encrypt("--depth", ""), "argument --depth: invalid integer ''"),
    # --width: a width that divides the block
    (encrypt("--width", "48"), "argument --width: invalid choice: 48"),
    (encrypt("--width", "0"), "argument --width: invalid choice: 0"),
    (encrypt("--width", "wide"), "argument --width: invalid integer 'wide'"),
    (encrypt("--width", "128", cipher="tdes", key=K192, iv=IV[:16]),
     "--width 128 does not divide the 64-bit block of tdes: choose 32 or 64"),
    # --iv: named as the IV (or counter), with its length
    (encrypt(iv="f0f1"), "--iv 'f0f1': 4 hex digits; the IV is one 128-bit aes block, 32 hex digits"),
    (encrypt(iv=IV + "00", mode="ctr"), "the initial counter is one 128-bit aes block, 32 hex digits"),
    (encrypt(iv="0x" + IV[2:]), "--iv '0x" + IV[2:] + "': 'x' is not a hex digit"),
    (encrypt(iv=IV[:-1]), "an odd number of hex digits; the IV is one 128-bit aes block"),
    (encrypt(iv=""), "--iv '': empty; the IV is one 128-bit aes block"),
    (encrypt(iv=IV, cipher="tdes", key=K192), "the IV is one 64-bit tdes block, 16 hex digits"),
    (encrypt(iv=IV, mode="ecb"), "--iv does not apply to ecb"),
    (encrypt(iv=None), "--iv HEX is required for cbc: the IV, one 128-bit block (32 hex digits)"),
    (encrypt(iv=None, mode="ctr"), "--iv HEX is required for ctr: the initial counter"),
    (encrypt(iv=None, mode="ofb"), "--iv HEX is required for ofb: the IV, one 128-bit block (32 hex digits)"),
    (decrypt(iv=None, mode="cfb"), "--iv HEX is required for cfb: the IV, one 128-bit block"),
    (encrypt(iv=IV[:30], mode="cfb"), "the IV is one 128-bit aes block, 32 hex digits"),
    # --key
    (encrypt(key=""), "--key '': empty; a 128-bit key is 32 hex digits"),
    (encrypt(key="000"), "--key '000': an odd number of hex digits"),
    (encrypt(key="zz" * 16), "'z' is not a hex digit; a 128-bit key is 32 hex digits"),
    (encrypt(key="00 11"), "' ' is not a hex digit"),
    # --seed-hex: only for a core with a seed port (SEED_CASES below: one that has one)
    (encrypt("--seed-hex", "00" * 20), "--seed-hex: aes_iterative_128_encrypt_lut has no seed port (it takes no seed)"),
    (encrypt(key=K + K), "--key has 64 hex digits, a 256-bit key; aes_iterative_128_encrypt_lut takes "
                         "128-bit keys (32 digits): add --key-bits 256"),
    (encrypt(key=K[:16], cipher="tdes", iv=IV[:16]), "takes 192-bit keys (48 digits): add --key-bits 64"),
    (encrypt(key=K + K, cipher="tdes", iv=IV[:16]), "tdes_iterative_192_encrypt takes 192-bit keys (48 digits)"),
    (encrypt(key=None), "--key HEX is required"),
    # --in
    (encrypt(src="{tmp}/missing.bin"), "--in {tmp}/missing.bin: no such file"),
    (encrypt(src="{tmp}"), "--in {tmp}: is a folder, not a file"),
    (encrypt(src="/dev/zero"), "--in /dev/zero: is a character device, not a regular file"),
    (encrypt(src=""), "--in: empty file name"),
    (encrypt(src="{in}/x"), "--in {in}/x: {in} is not a folder"),
    (encrypt(src="{empty}", mode="ctr"), "--in {empty}: the file is empty, nothing to encrypt"),
    (encrypt(src="{empty}", mode="ofb"), "--in {empty}: the file is empty, nothing to encrypt"),
    (decrypt(src="{empty}", mode="cfb"), "--in {empty}: the file is empty, nothing to decrypt"),
    (decrypt(src="{empty}"), "--in {empty}: the file is empty, nothing to decrypt"),
    (decrypt(src="{in}"), "--in {in}: 5 bytes of cbc ciphertext are not a whole number of 16-byte blocks"),
    # --out: refused before the simulation, never left behind
    (encrypt(out="{tmp}/no/such/dir/out.bin"), "--out {tmp}/no/such/dir/out.bin: folder {tmp}/no/such/dir does not exist"),
    (encrypt(out="/dev/null/x"), "--out /dev/null/x: /dev/null is not a folder"),
    (encrypt(out="/proc/x"), "--out /proc/x: cannot write in /proc"),
    (encrypt(out="{tmp}"), "--out {tmp}: is a folder, not a file name"),
    (encrypt(out=""), "--out: empty path"),
    (encrypt(out="{in}/x"), "--out {in}/x: {in} is not a folder"),
    # link, mode, cipher, core
    (encrypt("--link", "modem"), "unknown link 'modem'; one of pilchard-uncached"),
    (encrypt("--link", ""), "unknown link ''"),
    (encrypt(mode="cfb2"), "argument --mode: invalid choice: 'cfb2'"),
    # CFB8 and CFB1: an IV of a block, some input, the encrypting core
    (encrypt(iv=None, mode="cfb8"), "--iv HEX is required for cfb8: the IV, one 128-bit block"),
    (decrypt(iv=IV[:30], mode="cfb1"), "the IV is one 128-bit aes block, 32 hex digits"),
    (encrypt(src="{empty}", mode="cfb1"), "--in {empty}: the file is empty, nothing to encrypt"),
    (decrypt(src="{empty}", mode="cfb8"), "--in {empty}: the file is empty, nothing to decrypt"),
    (decrypt("--direction", "decrypt", mode="cfb8"), "only decrypts: cfb8 decryption needs --direction encrypt"),
    (encrypt("--direction", "decrypt", mode="cfb1"), "only decrypts: cfb1 encryption needs --direction encrypt"),
    (encrypt("--tag-bits", "96", mode="cfb8"), "--tag-bits applies to --mode gcm or ccm, not cfb8"),
    (encrypt("--data-unit", "3", mode="cfb1"), "--data-unit applies to --mode xts, not cfb1"),
    (encrypt(cipher=None), "give the cipher: CIPHER or --cipher CIPHER"),
    (encrypt("--cipher", "tdes"), "two ciphers given: aes and --cipher tdes"),
    (encrypt(cipher="rot13"), "unknown cipher 'rot13'"),
    (encrypt("--cipher", "", cipher=None), "give the cipher"),
    (encrypt("--key-bits", "100"), "--key-bits 100 is not supported"),
    (encrypt("--arch", "systolic"), "--arch 'systolic' is not supported"),
    # GCM: its options, its IV, a 128-bit block
    (encrypt("--aad", "{in}"), "--aad applies to --mode gcm or ccm, not cbc"),
    (encrypt("--tag-bits", "96", mode="ctr"), "--tag-bits applies to --mode gcm or ccm, not ctr"),
    (encrypt("--tag-bits", "100", mode="gcm", iv=IV[:24]), "argument --tag-bits: invalid choice: 100"),
    (encrypt("--tag-bits", "0", mode="gcm", iv=IV[:24]), "argument --tag-bits: invalid choice: 0"),
    (encrypt("--tag-bits", "x", mode="gcm", iv=IV[:24]), "argument --tag-bits: invalid integer 'x'"),
    (encrypt(mode="gcm", iv=None), "--iv HEX is required for gcm: the IV, 12 bytes (24 hex digits)"),
    (encrypt(mode="gcm", iv=""), "--iv '': empty; the GCM IV is bytes in hex"),
    (encrypt(mode="gcm", iv="0g"), "--iv '0g': 'g' is not a hex digit; the GCM IV is bytes in hex"),
    (encrypt(mode="gcm", iv="abc"), "--iv 'abc': an odd number of hex digits"),
    (encrypt("--aad", "{tmp}/missing.bin", mode="gcm", iv=IV[:24]), "--aad {tmp}/missing.bin: no such file"),
    (encrypt("--aad", "{tmp}", mode="gcm", iv=IV[:24]), "--aad {tmp}: is a folder, not a file"),
    (encrypt("--aad", "/dev/zero", mode="gcm", iv=IV[:24]), "--aad /dev/zero: is a character device, not a regular file"),
    (encrypt("--aad", "", mode="gcm", iv=IV[:24]), "--aad: empty file name"),
    (encrypt(mode="gcm", cipher="tdes", key=K192, iv=IV[:24]),
     "gcm needs a 128-bit block cipher; tdes has 64-bit blocks"),
    # a core that cannot run the mode's direction: say what would
    (decrypt("--direction", "encrypt"), "aes_iterative_128_encrypt_lut only encrypts: cbc decryption "
                                        "needs --direction decrypt (or both)"),
    (decrypt("--direction", "decrypt", mode="ctr"), "only decrypts: ctr decryption needs --direction encrypt"),
    (decrypt("--direction", "decrypt", mode="cfb"), "only decrypts: cfb decryption needs --direction encrypt"),
    (encrypt("--direction", "decrypt", mode="ofb"), "only decrypts: ofb encryption needs --direction encrypt"),
    (encrypt("--tag-bits", "96", mode="ofb"), "--tag-bits applies to --mode gcm or ccm, not ofb"),
    # CCM: the nonce 7 to 13 bytes, the tag 4 to 16 bytes and even, the payload within its length field
    (encrypt(mode="ccm", iv=None), "--iv HEX is required for ccm: the nonce, 7 to 13 bytes"),
    (encrypt(mode="ccm", iv=IV[:12]), "--iv '" + IV[:12] + "': 6 bytes; the CCM nonce is 7 to 13 bytes in hex"),
    (encrypt(mode="ccm", iv=IV[:28]), "--iv '" + IV[:28] + "': 14 bytes; the CCM nonce is 7 to 13 bytes in hex"),
    (encrypt(mode="ccm", iv="0g" * 7), "'g' is not a hex digit; the CCM nonce is 7 to 13 bytes in hex"),
    (encrypt(mode="ccm", iv=""), "--iv '': empty; the CCM nonce is 7 to 13 bytes"),
    (encrypt("--tag-bits", "104", mode="ccm", iv=IV[:24]),
     "--tag-bits 104: a CCM tag is 128, 112, 96, 80, 64, 48 or 32 bits"),
    (encrypt("--tag-bits", "40", mode="ccm", iv=IV[:24]), "argument --tag-bits: invalid choice: 40"),
    (encrypt("--tag-bits", "48", mode="gcm", iv=IV[:24]), "--tag-bits 48: a GCM tag is 128, 120, 112, 104, 96, 64 or 32 bits"),
    (encrypt(mode="ccm", iv=IV[:26], src="{big}"),
     "a CCM payload with a 13-byte nonce (a 2-byte length field) is at most 65535 bytes, not 65536"),
    (decrypt(mode="ccm", iv=IV[:26], src="{big2}"),
     "a CCM payload with a 13-byte nonce (a 2-byte length field) is at most 65535 bytes, not 65536"),
    (encrypt(mode="ccm", cipher="tdes", key=K192, iv=IV[:24]), "ccm needs a 128-bit block cipher; tdes has 64-bit blocks"),
    (encrypt("--aad", "{tmp}/missing.bin", mode="ccm", iv=IV[:24]), "--aad {tmp}/missing.bin: no such file"),
    # XTS: two different keys, a tweak or a data unit number, data units of 16 bytes or more
    (xts(iv=None), "xts takes the first data unit's tweak: give --tweak HEX (16 bytes) or --data-unit N"),
    (xts("--data-unit", "1", "--tweak", IV, iv=None), "give --tweak HEX (16 bytes) or --data-unit N, one of them"),
    (xts("--data-unit", "1"), "--iv does not apply to xts: give --tweak HEX or --data-unit N"),
    (xts("--tweak", "zz" * 16, iv=None), "--tweak '" + "zz" * 16 + "': 'z' is not a hex digit; the XTS tweak is 16 bytes"),
    (xts("--tweak", IV[:30], iv=None), "--tweak '" + IV[:30] + "': 30 hex digits; the XTS tweak is 16 bytes, 32 hex digits"),
    (xts("--tweak", "", iv=None), "--tweak '': empty; the XTS tweak is 16 bytes"),
    (xts("--data-unit=-1", iv=None), "--data-unit -1: a data unit number is 0 to 2^128 - 1"),
    (xts("--data-unit", str(1 << 128), iv=None), "a data unit number is 0 to 2^128 - 1"),
    (xts("--data-unit", "first", iv=None), "argument --data-unit: invalid integer 'first'"),
    (xts("--data-unit", "0", "--data-unit-bytes", "15", iv=None),
     "--data-unit-bytes 15: a data unit is 16 to 16777216 bytes (2^20 blocks)"),
    (xts("--data-unit", "0", "--data-unit-bytes", "16777217", iv=None), "--data-unit-bytes 16777217: a data unit is 16 to"),
    (xts("--data-unit", "0", iv=None, key=K + K), "--key: the XTS key's two halves are equal (IEEE 1619-2018 5.1"),
    (xts("--data-unit", "0", iv=None, key=K), "--key has 32 hex digits; XTS with aes_iterative_128_encrypt_lut "
                                               "takes two 128-bit keys, 64 digits"),
    (xts("--data-unit", "0", iv=None, key=KX + K), "--key has 96 hex digits; XTS with aes_iterative_128_encrypt_lut "
                                                    "takes two 128-bit keys, 64 digits: add --key-bits 192"),
    (xts("--data-unit", "0", iv=None, key=KX[:63]), "--key '" + KX[:63] + "': an odd number of hex digits; an XTS key"),
    (xts("--data-unit", "0", iv=None), "an XTS data unit is at least 16 bytes; the input has 5"),
    (xts("--data-unit", "0", "--data-unit-bytes", "24", iv=None, src="{blocks}"),
     "the last XTS data unit would be 8 bytes (32 bytes in units of 24); a unit is at least 16"),
    (xts("--data-unit", "0", iv=None, cipher="tdes", key=K192 + K192[::-1]),
     "xts needs a 128-bit block cipher; tdes has 64-bit blocks"),
    (xts("--data-unit", "0", "--arch", "key_specific", iv=None, src="{blocks}", key=K),
     "xts needs a core with a key port (two keys): aes_key_specific_"),
    (xts("--data-unit", "0", "--direction", "decrypt", iv=None, command="decrypt", src="{blocks}"),
     "only decrypts: xts decryption needs --direction both (its tweaks are encrypted)"),
    (xts("--data-unit", "0", "--direction", "encrypt", iv=None, command="decrypt", src="{blocks}"),
     "only encrypts: xts decryption needs --direction both (its tweaks are encrypted)"),
    (xts("--data-unit", "0", "--arch", "pipeline", iv=None, command="decrypt", src="{blocks}"),
     "aes pipeline only encrypts: xts decryption needs --arch iterative or interleaved (with --direction both)"),
    (encrypt("--tweak", IV), "--tweak applies to --mode xts, not cbc"),
    (encrypt("--data-unit", "3", mode="ctr"), "--data-unit applies to --mode xts, not ctr"),
    (encrypt("--data-unit-bytes", "512", mode="ofb"), "--data-unit-bytes applies to --mode xts, not ofb"),
    (encrypt("--direction", "decrypt"), "only decrypts: cbc encryption needs --direction encrypt (or both)"),
    (decrypt("--arch", "pipeline", mode="ecb", iv=None),
     "aes pipeline only encrypts: ecb decryption needs --arch iterative or interleaved (with --direction "
     "decrypt); or use --mode ctr, ofb or cfb"),
    (decrypt(cipher="serpent"), "no serpent architecture decrypts: cbc decryption is not available; "
                                "--mode ctr, ofb or cfb decrypts with the encrypting core"),
    # mac (CMAC): tag lengths, the tag to verify, a cipher the GCM layer cannot take
    (mac("--tag-bits", "24"), "argument --tag-bits: invalid choice: 24"),
    (mac("--tag-bits", "136"), "argument --tag-bits: invalid choice: 136"),
    (mac("--tag-bits", "many"), "argument --tag-bits: invalid integer 'many'"),
    (mac("--verify", "{short_tag}", out=None), "--verify {short_tag}: a CMAC tag is 4 to 16 bytes, not 3"),
    (mac("--verify", "{blocks}", out=None), "--verify {blocks}: a CMAC tag is 4 to 16 bytes, not 32"),
    (mac("--verify", "{empty}", out=None), "--verify {empty}: a CMAC tag is 4 to 16 bytes, not 0"),
    (mac("--verify", "{tag8}", "--tag-bits", "128", out=None),
     "--tag-bits 128, but --verify {tag8} holds a 64-bit tag"),
    (mac("--verify", "{tmp}/none.bin", out=None), "--verify {tmp}/none.bin"),
    (mac("--verify", "{tag8}"), "argument --verify: not allowed with argument --out"),
    (mac(out=None), "one of the arguments --out --verify is required"),
    (mac(cipher="tdes", key=K192), "cmac runs in the system's GCM layer, for 128-bit block ciphers; "
                                   "tdes has 64-bit blocks"),
    (mac(key=K[:30]), "--key has 30 hex digits, a 120-bit key"),
    (mac(key=None), "--key HEX is required"),
    (mac(cipher=None), "give the cipher: CIPHER or --cipher CIPHER"),
    (mac(src="{tmp}/none.bin"), "--in {tmp}/none.bin"),
    (mac(out="{tmp}/no/such/dir/tag.bin"), "--out {tmp}/no/such/dir/tag.bin"),
    (mac("--direction", "decrypt"), "only decrypts: cmac encryption needs --direction encrypt"),
    # generate --system
    (system("--fifo-depth", "100000000"), "--fifo-depth 100000000: two FIFOs of 100000000 134-bit entries"),
    (system("--fifo-depth", "1000000"), "(LFE5U-85F) has 208: at most 13313 blocks"),
    (system("--fifo-depth", "26626", cipher="tdes"), "at least 212 block RAMs (EBR, 18 kbit)"),
    (system("--fifo-depth", "2"), "--fifo-depth 2: a FIFO holds at least 3 blocks, not 2"),
    (system("--fifo-depth", "1"), "--fifo-depth 1: a FIFO holds at least 3 blocks, not 1"),
    (system("--fifo-depth", "0"), "--fifo-depth 0: a FIFO holds at least 3 blocks"),
    (system("--fifo-depth", "-5"), "--fifo-depth -5: a FIFO holds at least 3 blocks"),
    (system("--fifo-depth", "deep"), "argument --fifo-depth: invalid integer 'deep'"),
    (system("--fifo-depth", ""), "argument --fifo-depth: invalid integer ''"),
    (system("--axis-width", "48"), "argument --axis-width: invalid choice: 48"),
    (system("--axis-width", "wide"), "argument --axis-width: invalid integer 'wide'"),
    (system("--axis-width", "128", cipher="tdes"), "--axis-width 128 does not divide the 64-bit block of tdes"),
    (["generate", "aes", "--axis-width", "32"], "--axis-width, --fifo-depth and --modes go with --system"),
    (["generate", "aes", "--fifo-depth", "16"], "--axis-width, --fifo-depth and --modes go with --system"),
    (["generate", "aes", "--modes", "ctr"], "--axis-width, --fifo-depth and --modes go with --system"),
    (system("--modes", "ctr,ccm"), "--modes: unknown mode 'ccm'; choose from ecb, cbc, ctr, ofb, cfb, cfb8, cfb1, xts, gcm"),
    (system("--modes", ""), "--modes '': name the modes, comma-separated"),
    (system("--modes", "ctr,,gcm"), "--modes 'ctr,,gcm': name the modes, comma-separated"),
    (system("--modes", "gcm", cipher="tdes"), "cannot run gcm: GCM and CMAC need a 128-bit block cipher that encrypts"),
    (system("--modes", "xts", "--arch", "key_specific"), "cannot run xts: XTS needs a 128-bit block cipher with a key port"),
    (system("--modes", "ctr", "--direction", "decrypt"),
     "--modes: aes_iterative_128_decrypt_lut cannot run ctr: it needs the encrypt direction"),
    (system("--arch", "interleaved", "--key-clock", "separate"),
     "also has key_clk: the accelerator system drives single-clock cores"),
    (system("-o", "{tmp}/no/such/dir/s.v"), "cannot write {tmp}/no/such/dir/s.v: no directory"),
    (system("-o", "/dev/null/s.v"), "cannot write /dev/null/s.v: /dev/null is not a directory"),
    (system("-o", "/proc/s.v"), "cannot write /proc/s.v"),
    (system("-o", "{tmp}"), "cannot write {tmp}: it is a directory"),
    (system("-o", "{tmp}/s.json"), "-o {tmp}/s.json: name the Verilog file; the facts go beside it as .json"),
    (system("-o", "/dev/null"), "cannot write /dev/null: not a regular file"),
    (system("--fusesoc", "{in}"), "--fusesoc {in}: not a directory"),
    (system("--fusesoc", "{in}/cores"), "{in} is not a directory"),
    (system("--fusesoc", "{tmp}/cores", "-o", "{tmp}/s.v"), "--fusesoc DIR names the files itself; drop -o"),
]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "in.bin").write_bytes(b"hello")
    (tmp_path / "blocks.bin").write_bytes(bytes(32))
    (tmp_path / "empty.bin").write_bytes(b"")
    (tmp_path / "short_tag.bin").write_bytes(b"abc")
    (tmp_path / "tag8.bin").write_bytes(bytes(8))
    (tmp_path / "big.bin").write_bytes(bytes(65536))
    (tmp_path / "big2.bin").write_bytes(bytes(65536 + 16))        # 65536 bytes and a 16-byte tag
    return {"tmp": str(tmp_path), "in": str(tmp_path / "in.bin"), "blocks": str(tmp_path / "blocks.bin"),
            "empty": str(tmp_path / "empty.bin"), "out": str(tmp_path / "out.bin"),
            "short_tag": str(tmp_path / "short_tag.bin"), "tag8": str(tmp_path / "tag8.bin"),
            "big": str(tmp_path / "big.bin"), "big2": str(tmp_path / "big2.bin")}


@pytest.mark.parametrize("argv,needle", CASES, ids=[n[:60] for _, n in CASES])
def test_bad_input_is_one_line(files, capsys, argv, needle):
    before = sorted(p.name for p in Path(files["tmp"]).iterdir())
    rc = main([a.format(**files) for a in argv])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert rc == 2 and captured.out == ""
    assert len(lines) == 1, captured.err
    assert needle.format(**files) in lines[0]
    after = sorted(p.name for p in Path(files["tmp"]).iterdir())
    assert after == before                        # no output, no temporary file left


SEED = ["--cipher", "toyseed", "--depth", "16"]
SEED_CASES = [    # toyseed (tests/registry/seedtoys) takes a 160-bit seed
    (encrypt("--seed-hex", "00" * 19, *SEED, cipher=None, key="00" * 8, mode="ecb", iv=None),
     "--seed-hex '" + "00" * 19 + "': 38 hex digits; toyseed_masked_3_right_nothing takes a 160-bit seed, 40 hex digits"),
    (encrypt("--seed-hex", "00" * 21, *SEED, cipher=None, key="00" * 8, mode="ecb", iv=None), "42 hex digits; "),
    (encrypt("--seed-hex", "zz" * 20, *SEED, cipher=None, key="00" * 8, mode="ecb", iv=None),
     "'z' is not a hex digit; toyseed_masked_3_right_nothing takes a 160-bit seed"),
    (encrypt("--seed-hex", "0" * 39, *SEED, cipher=None, key="00" * 8, mode="ecb", iv=None), "an odd number of hex digits"),
    (encrypt("--seed-hex", "", *SEED, cipher=None, key="00" * 8, mode="ecb", iv=None), "--seed-hex '': empty;"),
    (encrypt("--seed-hex", "0x" + "00" * 19, *SEED, cipher=None, key="00" * 8, mode="ecb", iv=None),
     "'x' is not a hex digit"),
]


@pytest.mark.usefixtures("seed_registry")
@pytest.mark.parametrize("argv,needle", SEED_CASES, ids=[n[:60] for _, n in SEED_CASES])
def test_bad_seeds_are_one_line(files, capsys, argv, needle):
    test_bad_input_is_one_line(files, capsys, argv, needle)


def test_the_table_is_large_enough():
    assert len(CASES) >= 60


# --- valid input that used to fail, checked without compiling a system ---

def _parsed(*argv):
    return build_parser().parse_args(list(argv))


def test_decrypt_builds_a_decrypting_core_unless_told():
    """The registry's default core encrypts only; decrypt in ECB/CBC asks for one that
    decrypts, CTR keeps the encrypting core, an explicit --direction is kept."""
    from cipherfab.host.cli import _params
    cbc = _parsed(*decrypt(mode="cbc"))
    assert _params(cbc)[0].top == "aes_iterative_128_decrypt_lut"
    ctr = _parsed(*decrypt(mode="ctr"))
    assert _params(ctr)[0].top == "aes_iterative_128_encrypt_lut"
    both = _parsed(*decrypt("--direction", "both", cipher="tdes"))
    assert _params(both)[0].top == "tdes_iterative_192_both"
    assert _params(_parsed(*encrypt()))[0].top == "aes_iterative_128_encrypt_lut"


def test_the_stream_width_follows_the_block_unless_given():
    from cipherfab.generate import system_shape
    from cipherfab.registry import resolve
    assert system_shape(resolve("tdes"), None, None) == (64, 512)
    assert system_shape(resolve("aes"), None, None) == (128, 512)
    assert system_shape(resolve("tdes"), 32, 16) == (32, 16)


def test_the_system_name_carries_width_and_depth():
    from cipherfab.hw.system.system import system_top
    assert system_top("aes_iterative_128_encrypt_rom", 32, 16) == \
        "cf_system_aes_iterative_128_encrypt_rom_axis32_fifo16"


def test_the_key_help_is_the_data_key(capsys):
    assert main(["encrypt", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--key HEX the key in hex, key bits / 4 digits (--key-bits)" in text
    assert "the built-in AES-128 key" not in text


@pytest.mark.parametrize("decrypt_,n_in,padding,line", [
    (False, 1048576, 16, "encrypted 1048576 bytes (65537 blocks, 16 bytes of PKCS#7 padding added)"),
    (True, 1048592, 16, "decrypted 1048592 bytes (65537 blocks; 16 bytes of PKCS#7 padding removed, "
                        "1048576 written)"),
    (False, 32, 0, "encrypted 32 bytes (2 blocks) with"),
])
def test_the_summary_gives_the_input_size_and_the_padding_apart(capsys, decrypt_, n_in, padding, line):
    from cipherfab.host.cli import _summary
    run = SimpleNamespace(blocks=-(-(n_in + (0 if decrypt_ else padding)) // 16), core_cycles_per_block=10,
                          cycles=100, fmax_mhz=100.0, fmax_source="x", core_mbps=1280.0, system_mbps=640.0,
                          in_link_wait=0, out_link_wait=0, counters={"starved": 0, "blocked": 0},
                          link=SimpleNamespace(name="axi-dma"))
    args = SimpleNamespace(decrypt=decrypt_, mode="cbc")
    _summary(args, SimpleNamespace(top="aes_iterative_128_encrypt_rom"), run, n_in, padding)
    assert capsys.readouterr().out.startswith(line)


def test_the_driver_api_checks_before_compiling():
    from cipherfab.host.driver import Accelerator
    from cipherfab.registry import resolve
    for fmax in (float("nan"), float("inf"), 0.0, -1.0):
        with pytest.raises(CipherfabError, match="give a number from 0.001 to 10000"):
            Accelerator(resolve("aes"), fmax_mhz=fmax)
    with pytest.raises(CipherfabError, match="depth 13314: two FIFOs"):
        Accelerator(resolve("aes"), depth=13314)
    with pytest.raises(CipherfabError, match="width 128 does not divide the 64-bit block"):
        Accelerator(resolve("tdes"), width=128)


# --- valid input through the system (the core and system test_encrypt_cli.py compiles) ---

CORE = ["aes", "--sbox", "rom", "--direction", "both"]


def test_outputs_that_exist_are_replaced_or_written_through(tmp_path, capsys):
    """An existing file is replaced and keeps its permissions, ``--out`` may be ``--in``,
    /dev/null is written (never replaced by a file), and the summary gives the input's
    size with the padding apart."""
    import os
    import stat

    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    src, out = tmp_path / "a.bin", tmp_path / "a.cbc"
    src.write_bytes(b"five!")
    out.write_bytes(b"old")
    out.chmod(0o600)

    def run(*argv):
        rc = main([argv[0], *CORE, "--key", K, "--iv", IV, "--mode", "cbc", *argv[1:], "--quiet"])
        return rc, capsys.readouterr().out

    rc, printed = run("encrypt", "--in", str(src), "--out", str(out))
    assert rc == 0 and printed.startswith("encrypted 5 bytes (1 block, 11 bytes of PKCS#7 padding added)")
    padder = padding.PKCS7(128).padder()
    want = Cipher(algorithms.AES(bytes.fromhex(K)), modes.CBC(bytes.fromhex(IV))).encryptor().update(
        padder.update(b"five!") + padder.finalize())
    assert out.read_bytes() == want and stat.S_IMODE(out.stat().st_mode) == 0o600
    rc, printed = run("decrypt", "--in", str(out), "--out", str(out))
    assert rc == 0 and out.read_bytes() == b"five!"
    assert printed.startswith("decrypted 16 bytes (1 block; 11 bytes of PKCS#7 padding removed, 5 written)")
    rc, _ = run("encrypt", "--in", str(src), "--out", os.devnull)
    assert rc == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "a.cbc"]


def test_tdes_decrypts_with_the_default_options(tmp_path, capsys):
    """The defaults that failed: a 128-bit stream on a 64-bit block, and decrypt on the
    encrypt-only default core.  Now the width follows the block and decrypt builds a
    decrypting core: one compile of tdes_iterative_192_decrypt on a 64-bit stream."""
    from cipherfab.host.cli import reference
    key, iv = bytes.fromhex(K192), bytes.fromhex(IV[:16])
    plain = b"DES blocks are 8 bytes"
    padded = plain + bytes([2]) * 2
    src, out = tmp_path / "t.cbc", tmp_path / "t.out"
    src.write_bytes(reference("tdes", 192, key, "cbc", iv, padded, False))
    assert main(decrypt("--quiet", cipher="tdes", key=K192, iv=IV[:16], src=str(src), out=str(out))) == 0
    assert out.read_bytes() == plain
    assert "with tdes_iterative_192_decrypt, cbc" in capsys.readouterr().out
