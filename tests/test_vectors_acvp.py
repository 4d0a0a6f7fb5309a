"""NIST ACVP JSON vector sets (cipherfab.vectors.acvp), built here with ``cryptography`` as the
reference: AES ECB, CBC, OFB, CFB128, CFB8, CFB1, CTR, GCM, XTS and CCM read from an
internalProjection and from a prompt with its expectedResults.json (also in the server's list
wrapper), Monte-Carlo tests a record per outer iteration that chain (ECB and CBC, AESAVS's
rules, through the runner's mct_check; OFB and CFB through monte_carlo.check_record),
internal-IV GCM groups and the CTR, XTS and CCM tests the system cannot run skipped with their
reasons, every malformed file one line; then ``cipherfab sim`` on the core (ECB, CBC) and
through the system (GCM, OFB, CFB128, CFB8, CFB1, CTR, XTS, CCM), where one changed byte
fails the run with exit 1 naming the record."""

import copy
import json

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.decrepit.ciphers.modes import CFB, CFB8, OFB
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from cipherfab.cli import main
from cipherfab.errors import CipherfabError
from cipherfab.host.monte_carlo import check_record
from cipherfab.vectors import ReferenceEngine, exit_code, run_files
from cipherfab.vectors.acvp import BITS_SKIP, INTERNAL_IV_SKIP, parse_acvp
from cipherfab.vectors.gcm import read_gcm, run_gcm_files
from cipherfab.vectors.parsers import cipher_named, detect_format

CORE = ["aes", "--sbox", "rom", "--direction", "both"]      # the core and system other tests build
MODES = {"ECB": lambda iv: modes.ECB(), "CBC": modes.CBC, "OFB": OFB, "CFB128": CFB}


def _bytes(seed: int, n: int) -> bytes:
    return bytes((seed * 29 + 7 * i) % 256 for i in range(n))


def _hex(data: bytes) -> str:
    return data.hex().upper()


def _aes(key, mode, data, decrypt=False):
    c = Cipher(algorithms.AES(key), mode)
    op = c.decryptor() if decrypt else c.encryptor()
    return op.update(data) + op.finalize()


#: the segment bits of each mode's Monte-Carlo tests
SEGMENT = {"OFB": 128, "CFB128": 128, "CFB8": 8, "CFB1": 1}


def stepper(mode: str):
    """A Monte-Carlo inner loop in software over ``cryptography``'s AES-ECB, as
    ``monte_carlo.check_record`` calls it: chain = IV; for each input x, o = E(chain); OFB:
    chain = o, y = x ^ o; CFB-s: y = x ^ (o's top s bits), chain shifted s with the
    ciphertext segment in."""
    s = SEGMENT[mode]

    def run(key, decrypt, iv, first, count, next_input):
        ecb = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        chain, x, outputs = int.from_bytes(iv, "big"), first, []
        for j in range(count):
            o = int.from_bytes(ecb.update(chain.to_bytes(16, "big")), "big")
            y = x ^ (o >> (128 - s))
            chain = o if mode == "OFB" else ((chain << s) | (x if decrypt else y)) % (1 << 128)
            outputs.append(y)
            if j < count - 1:
                x = next_input(j, outputs)
        return outputs
    return run


def _segment_hex(v: int, s: int) -> str:
    return _hex(bytes([v << 7]) if s == 1 else v.to_bytes(s // 8, "big"))


def mct_results(mode: str, decrypt: bool, key: bytes, iv: bytes, x: int, n: int) -> list:
    """``n`` outer iterations of AESAVS 6.4 in software, as ACVP's resultsArray: 1000 inner
    ones from (key, iv, first input x), input j + 1 the IV's segment j while there is one, then
    output j - 128/s; the next key XORs the last key bits of the outputs, the next IV their last
    128 bits, the next first input output 999 - 128/s."""
    s, out = SEGMENT[mode], []
    for _ in range(n):
        per, v = 128 // s, int.from_bytes(iv, "big")
        ys = stepper(mode)(key, decrypt, iv, x, 1000, lambda j, ys: (
            v >> (128 - s * (j + 1)) & ((1 << s) - 1) if j < per else ys[j - per]))
        given, answer = _segment_hex(x, s), _segment_hex(ys[-1], s)
        out.append({"key": _hex(key), "iv": _hex(iv), "pt": answer if decrypt else given,
                    "ct": given if decrypt else answer})
        tail = 0
        for y in ys:
            tail = tail << s | y
        k = 8 * len(key)
        key = (int.from_bytes(key, "big") ^ tail % (1 << k)).to_bytes(len(key), "big")
        iv, x = (tail % (1 << 128)).to_bytes(16, "big"), ys[-1 - per]
    return out


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def block_mct_results(mode: str, decrypt: bool, key: bytes, iv: bytes, x: bytes, n: int) -> list:
    """``n`` outer iterations of AESAVS's ECB or CBC Monte-Carlo test (the ACVP AES spec's
    "Monte Carlo Test - ECB/CBC") over ``cryptography``'s AES-ECB, as ACVP's resultsArray:
    1000 inner ones from (key, iv, first input x); ECB: input j + 1 is output j; CBC (each
    block chained to the ciphertext before it, the IV first): input 1 is the IV, input j + 1
    output j - 1; the next key XORs the last key bits of outputs 998 and 999, the next first
    input is output 999 (ECB) or output 998 with the IV output 999 (CBC)."""
    out = []
    for _ in range(n):
        c = Cipher(algorithms.AES(key), modes.ECB())
        op, given, chain, ys = c.decryptor() if decrypt else c.encryptor(), x, iv, []
        for j in range(1000):
            if mode == "ECB":
                y = op.update(x)
            elif decrypt:                             # P = D(C) ^ C before; chain = C
                y, chain = _xor(op.update(x), chain), x
            else:                                     # C = E(P ^ C before); chain = C
                y = chain = op.update(_xor(x, chain))
            ys.append(y)
            x = y if mode == "ECB" else iv if j == 0 else ys[j - 1]
        entry = {"key": _hex(key), "pt": _hex(ys[-1] if decrypt else given),
                 "ct": _hex(given if decrypt else ys[-1])}
        out.append(entry if mode == "ECB" else {"key": entry["key"], "iv": _hex(iv), **entry})
        key = _xor(key, (ys[-2] + ys[-1])[-len(key):])
        iv, x = ys[-1], ys[-1] if mode == "ECB" else ys[-2]
    return out


def mct_test(mode: str, tc: int, decrypt: bool, key: bytes, n: int = 3) -> dict:
    """An MCT test as the internalProjection has it: the first iteration's key, iv (not ECB)
    and input, and the resultsArray of ``n`` iterations."""
    if mode in ("ECB", "CBC"):
        results = block_mct_results(mode, decrypt, key, _bytes(tc, 16), _bytes(tc + 1, 16), n)
    else:
        first = int.from_bytes(_bytes(tc + 1, 16), "big") >> (128 - SEGMENT[mode])
        results = mct_results(mode, decrypt, key, _bytes(tc, 16), first, n)
    given = "ct" if decrypt else "pt"
    iv = {"iv": results[0]["iv"]} if mode != "ECB" else {}
    return {"tcId": tc, "key": results[0]["key"], **iv, given: results[0][given],
            "resultsArray": results}


def vector_set(alg: str, groups: list) -> dict:
    return {"vsId": 7, "algorithm": alg, "revision": "1.0", "isSample": False, "testGroups": groups}


def block_set(mode: str) -> dict:
    """An internalProjection of ``mode``: two encrypt tests (AES-128), two 3-block decrypt
    tests (AES-128), two AES-256 tests (another key size on a 128-bit core), one encrypt MCT
    test of two outer iterations."""
    groups, tc = [], 0
    for tg, (direction, bits, blocks) in enumerate(
            [("encrypt", 128, 1), ("decrypt", 128, 3), ("encrypt", 256, 2)], 1):
        tests = []
        for _ in range(2):
            tc += 1
            key, iv, pt = _bytes(tc, bits // 8), _bytes(100 + tc, 16), _bytes(200 + tc, 16 * blocks)
            ct = _aes(key, MODES[mode](iv), pt)
            t = {"tcId": tc, "key": _hex(key), "pt": _hex(pt), "ct": _hex(ct)}
            if mode != "ECB":
                t["iv"] = _hex(iv)
            tests.append(t)
        groups.append({"tgId": tg, "testType": "AFT", "internalTestType": "AFT",
                       "direction": direction, "keyLen": bits, "tests": tests})
    mct = mct_test(mode, tc + 1, False, _bytes(1, 16), 2)
    groups.append({"tgId": 4, "testType": "MCT", "direction": "encrypt", "keyLen": 128,
                   "tests": [mct]})
    return vector_set(f"ACVP-AES-{mode}", groups)


def _gcm(key, iv, aad, pt, tag_bytes):
    e = Cipher(algorithms.AES(key), modes.GCM(iv, min_tag_length=4)).encryptor()
    e.authenticate_additional_data(aad)
    ct = e.update(pt) + e.finalize()
    return ct, e.tag[:tag_bytes]


def gcm_set() -> dict:
    """Two encrypt tests; a decrypt group (96-bit IVs, 32-bit tags) with one tag that must be
    refused; an internal-IV group; an AES-256 group."""
    shapes = [("encrypt", 128, 96, 128, 120, 128, "external", 2),
              ("decrypt", 128, 120, 120, 0, 32, "external", 3),
              ("encrypt", 128, 96, 128, 0, 128, "internal", 2),
              ("encrypt", 256, 96, 0, 128, 128, "external", 1)]
    groups, tc = [], 0
    for tg, (direction, bits, iv_len, pt_len, aad_len, tag_len, iv_gen, n) in enumerate(shapes, 1):
        tests = []
        for i in range(n):
            tc += 1
            key, iv = _bytes(tc, bits // 8), _bytes(50 + tc, iv_len // 8)
            aad, pt = _bytes(60 + tc, aad_len // 8), _bytes(70 + tc, pt_len // 8)
            ct, tag = _gcm(key, iv, aad, pt, tag_len // 8)
            passed = not (direction == "decrypt" and i == 1)
            if not passed:
                tag = bytes([tag[0] ^ 0x80]) + tag[1:]
            tests.append({"tcId": tc, "testPassed": passed, "deferred": False, "pt": _hex(pt),
                          "key": _hex(key), "aad": _hex(aad), "iv": _hex(iv), "ct": _hex(ct),
                          "tag": _hex(tag)})
        groups.append({"tgId": tg, "testType": "AFT", "direction": direction, "keyLen": bits,
                       "ivLen": iv_len, "ivGen": iv_gen, "ivGenMode": "8.2.2", "payloadLen": pt_len,
                       "aadLen": aad_len, "tagLen": tag_len, "tests": tests})
    return vector_set("ACVP-AES-GCM", groups)


def split(vs: dict) -> tuple[dict, dict]:
    """(prompt, expectedResults) of an internalProjection, as the server writes them."""
    prompt = copy.deepcopy(vs)
    answers = {k: v for k, v in vs.items() if k != "testGroups"}
    answers["testGroups"] = []
    for g in prompt["testGroups"]:
        encrypt, out = g["direction"] == "encrypt", []
        for t in g["tests"]:
            a, passed = {"tcId": t["tcId"]}, t.pop("testPassed", True)
            t.pop("deferred", None)
            for name in (("ct", "tag") if encrypt else ("pt",)) + ("resultsArray",):
                if name in t:
                    a[name] = t.pop(name)
            if not passed:
                a = {"tcId": t["tcId"], "testPassed": False}
            out.append(a)
        answers["testGroups"].append({"tgId": g["tgId"], "tests": out})
    return prompt, answers


def write(folder, name: str, doc, wrap: bool = False):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps([{"acvVersion": "1.0"}, doc] if wrap else doc, indent=2))
    return path


def both_forms(tmp_path, vs: dict, wrap: bool = False):
    """The internalProjection and the prompt (with expectedResults.json beside it)."""
    prompt, answers = split(vs)
    write(tmp_path / "pair", "expectedResults.json", answers, wrap)
    return (write(tmp_path / "projection", "internalProjection.json", vs, wrap),
            write(tmp_path / "pair", "prompt.json", prompt, wrap))


def line_of(path, tc: int) -> int:
    lines = path.read_text().splitlines()
    return next(n for n, ln in enumerate(lines, 1) if f'"tcId": {tc},' in ln)


def unplaced(records) -> list[dict]:
    """The records' fields but the file and line (the two forms place them differently)."""
    return [{k: v for k, v in r.__dict__.items() if k not in ("file", "line")} for r in records]


@pytest.mark.parametrize("mode", ["ECB", "CBC", "OFB", "CFB128"])
@pytest.mark.parametrize("wrap", [False, True])
def test_block_modes_read_alike_from_both_forms(tmp_path, mode, wrap):
    projection, prompt = both_forms(tmp_path, block_set(mode), wrap)
    records = parse_acvp(projection)
    assert unplaced(records) == unplaced(parse_acvp(prompt))
    r = records[2]                                   # tcId 3: the decrypt group's first test
    assert (r.mode, r.decrypt, r.kind, r.count, r.format) == (mode, True, "mmt", 3, "acvp")
    assert r.label == "tcId 3, tgId 2 decrypt"
    assert r.where == f"{projection} line {line_of(projection, 3)}"
    assert len(r.plaintext) == 3 and b"".join(r.ciphertext) == \
        _aes(r.key, MODES[mode](r.iv), b"".join(r.plaintext))
    assert (r.iv is None) == (mode == "ECB")
    assert [(x.kind, x.skip, x.label, x.count, x.section) for x in records[-3:]] == \
        [("mmt", None, "tcId 6, tgId 3 encrypt", 6, "tgId 3 encrypt")] + \
        [("mct", None, "tcId 7, tgId 4 encrypt tcId 7", 7, "tgId 4 encrypt tcId 7")] * 2
    assert all((x.iv is None) == (mode == "ECB") and len(x.plaintext[0]) == 16
               for x in records[-2:])
    assert sum(x.skip is None for x in records) == 8


def test_ecb_and_cbc_pass_on_the_reference_with_their_monte_carlo_tests(tmp_path):
    files = [write(tmp_path / m, "internalProjection.json", block_set(m)) for m in ("ECB", "CBC")]
    assert [detect_format(f) for f in files] == ["acvp", "acvp"]
    assert cipher_named(files[0]) == "AES"
    reports = run_files(files, ReferenceEngine(128, "both"), other_key_sizes="skip")
    for rep in reports:                               # 4 tests, 2 Monte-Carlo iterations
        assert (rep.passed, rep.failed, rep.skipped) == (6, 0, 2), rep.summary
        assert rep.skip_reasons == ["2 x 256-bit keys, the core takes 128-bit keys"]
    bad = block_set("ECB")
    t = bad["testGroups"][0]["tests"][1]
    t["ct"] = ("0" if t["ct"][0] != "0" else "1") + t["ct"][1:]
    (rep,) = run_files([write(tmp_path, "bad.json", bad)], ReferenceEngine(128, "both"),
                       other_key_sizes="skip")
    assert (rep.passed, rep.failed) == (5, 1) and "tcId 2, tgId 1 encrypt" in rep.first_failure


def monte_carlo_set(mode: str) -> dict:
    """ACVP-AES-ECB or -CBC with an encrypt and a decrypt MCT group (AES-128, 3 outer
    iterations each) and an AES-256 decrypt one (tgIds 1, 2, 3; tcIds 1, 2, 3)."""
    groups = []
    shapes = [("encrypt", 128), ("decrypt", 128), ("decrypt", 256)]
    for tc, (direction, bits) in enumerate(shapes, 1):
        t = mct_test(mode, tc, direction == "decrypt", _bytes(10 + tc, bits // 8))
        groups.append({"tgId": tc, "testType": "MCT", "internalTestType": "MCT",
                       "direction": direction, "keyLen": bits, "tests": [t]})
    return vector_set(f"ACVP-AES-{mode}", groups)


def _run_reference(path, bits: int = 128):
    (rep,) = run_files([path], ReferenceEngine(bits, "both"), other_key_sizes="skip")
    return rep


@pytest.mark.parametrize("mode", ["ECB", "CBC"])
def test_ecb_and_cbc_monte_carlo_iterations_chain_on_the_reference(tmp_path, mode):
    projection, prompt = both_forms(tmp_path, monte_carlo_set(mode))
    records = parse_acvp(projection)
    assert unplaced(records) == unplaced(parse_acvp(prompt))
    assert [(r.kind, r.mode, r.decrypt, r.count, r.section) for r in records] == \
        [("mct", mode, False, 1, "tgId 1 encrypt tcId 1")] * 3 + \
        [("mct", mode, True, 2, "tgId 2 decrypt tcId 2")] * 3 + \
        [("mct", mode, True, 3, "tgId 3 decrypt tcId 3")] * 3
    assert all((r.iv is None) == (mode == "ECB") and len(r.ciphertext) == 1 for r in records)
    for f in (projection, prompt):
        rep = _run_reference(f)
        assert (rep.passed, rep.failed, rep.skipped) == (6, 0, 3), rep.summary
        rep = _run_reference(f, 256)
        assert (rep.passed, rep.failed, rep.skipped) == (3, 0, 6), rep.summary
    for tg in (0, 1):                                 # the encrypt test, then the decrypt one
        vs = monte_carlo_set(mode)
        results = vs["testGroups"][tg]["tests"][0]["resultsArray"]
        answer = "pt" if tg else "ct"
        results[1][answer] = _flip(results[1][answer])   # the middle one's answer: it fails
        rep = _run_reference(write(tmp_path, f"answer{tg}.json", vs))
        assert (rep.passed, rep.failed) == (5, 1), rep.summary
        assert "(after 1000 iterations)" in rep.first_failure and \
            f"tcId {tg + 1}, tgId {tg + 1} " in rep.first_failure
        vs = monte_carlo_set(mode)
        results = vs["testGroups"][tg]["tests"][0]["resultsArray"]
        field = "key" if mode == "ECB" else "iv"
        results[1][field] = _flip(results[1][field])     # what the first one derives: both fail
        rep = _run_reference(write(tmp_path, f"{field}{tg}.json", vs))
        assert (rep.passed, rep.failed) == (4, 2), rep.summary
        derived = "KEY, input" if mode == "ECB" else "KEY, IV, input"
        assert f"({derived} derived for the next record (line " in rep.first_failure, \
            rep.first_failure


def reference(key, decrypt, iv, aad, data, tag, tag_bytes):
    """GCM by ``cryptography``, in the form run_gcm_files calls."""
    if not decrypt:
        ct, t = _gcm(key, iv, aad, data, tag_bytes)
        return ct, t, None
    d = Cipher(algorithms.AES(key), modes.GCM(iv, tag, min_tag_length=len(tag))).decryptor()
    d.authenticate_additional_data(aad)
    try:
        return d.update(data) + d.finalize(), None, True
    except InvalidTag:
        return b"", None, False


def test_gcm_both_forms_pass_on_the_reference_and_internal_ivs_are_skipped(tmp_path):
    projection, prompt = both_forms(tmp_path, gcm_set())
    a, b = read_gcm(projection), read_gcm(prompt)
    assert unplaced(a) == unplaced(b) and len(a) == 8
    refused = a[3]                                    # tcId 4: the decrypt group's second test
    assert refused.plaintext is None and not refused.encrypt and len(refused.tag) == 4
    assert refused.where == f"{projection} line {line_of(projection, 4)} (tgId 2 decrypt, tcId 4)"
    assert [r.skip for r in a[5:7]] == [INTERNAL_IV_SKIP] * 2
    for rep in run_gcm_files([projection, prompt], reference, 128):
        assert (rep.passed, rep.failed, rep.skipped) == (5, 0, 3), rep.summary
        assert rep.skip_reasons == [INTERNAL_IV_SKIP, "256-bit keys (the core takes 128)"]

    def accepts_all(*args):
        out, tag, ok = reference(*args)
        return out, tag, True if args[1] else ok
    (rep,) = run_gcm_files([projection], accepts_all, 128)
    assert rep.failed == 5 and "tgId 1 encrypt, tcId 1" in rep.first_failure


def test_a_set_of_internal_ivs_only_is_never_passed(tmp_path):
    vs = gcm_set()
    vs["testGroups"] = vs["testGroups"][2:3]
    reports = run_gcm_files([write(tmp_path, "internalProjection.json", vs)], reference, 128)
    assert (reports[0].passed, reports[0].skipped) == (0, 2)
    with pytest.raises(CipherfabError, match="ivGen internal"):
        exit_code(reports)


def test_gcm_lengths_that_are_not_whole_bytes_are_skipped(tmp_path):
    vs = gcm_set()
    vs["testGroups"][0]["payloadLen"] = 121
    records = parse_acvp(write(tmp_path, "internalProjection.json", vs))
    assert [r.skip for r in records[:2]] == [BITS_SKIP] * 2 and records[2].skip is None


def _ecb():
    return block_set("ECB")


MALFORMED = [
    ("truncated", lambda: json.dumps(_ecb(), indent=2)[:200], "not valid JSON"),
    ("kw", lambda: {**_ecb(), "algorithm": "ACVP-AES-KW"},
     "ACVP-AES-KW is not supported (ACVP-AES-ECB, -CBC, -OFB, -CFB128, -CFB8, -CFB1, -CTR, -GCM, "
     "-XTS and -CCM are)"),
    ("no algorithm", lambda: {k: v for k, v in _ecb().items() if k != "algorithm"},
     "without an algorithm"),
    ("no groups", lambda: {**_ecb(), "testGroups": []}, "no test groups"),
    ("list without a set", lambda: [{"acvVersion": "1.0"}], "not an ACVP vector set"),
    ("nested too deep", lambda: '[{"a": ' + "[" * 100000 + "]" * 100000 + "}]", "not valid JSON"),
]


def _mutate(path: str, value, mode="ECB"):
    """A one-field change to test 1 (or its group, ``g.`` paths) of a ``mode`` set."""
    vs = block_set(mode)
    where = vs["testGroups"][0] if path.startswith("g.") else vs["testGroups"][0]["tests"][0]
    name = path.removeprefix("g.")
    if value is None:
        del where[name]
    else:
        where[name] = value
    return vs


FIELD_CASES = [
    ("key", "ZZ" * 16, "tcId 1: key is not hex: 'ZZZZ", "ECB"),
    ("key", "0" * 31, "odd number of hex digits (31)", "ECB"),
    ("key", "00" * 24, "key has 192 bits, its group's keyLen is 128", "ECB"),
    ("key", "00" * 20, "key is 20 bytes; AES keys are 16, 24 or 32", "ECB"),
    ("pt", "00" * 15, "pt is 15 bytes, not a whole number of 16-byte blocks", "ECB"),
    ("pt", "00" * 32, "pt has 2 blocks, ct 1", "ECB"),
    ("ct", None, "tgId 1, tcId 1: no ct", "ECB"),
    ("iv", "00" * 8, "iv is 8 bytes, not one 16-byte block", "CBC"),
    ("tcId", "one", "a test without a tcId number", "ECB"),
    ("g.direction", "sideways", "direction 'sideways' (expected encrypt or decrypt)", "ECB"),
    ("g.testType", "LOL", "testType 'LOL' (expected AFT or MCT)", "ECB"),
    ("g.keyLen", "128", "keyLen is not a number of bits: '128'", "ECB"),
    ("g.tests", {}, "tgId 1: no tests list", "ECB"),
    ("g.tests", 5, "tgId 1: no tests list", "ECB"),
    ("g.tgId", None, "a test group without a tgId number", "ECB"),
]


def _one_line_error(path, modes=None) -> str:
    with pytest.raises(CipherfabError) as e:
        parse_acvp(path, modes)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path)), text
    return text


@pytest.mark.parametrize("name, doc, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_set_is_one_line(tmp_path, name, doc, words):
    f = tmp_path / "set.json"
    made = doc()
    f.write_text(made if isinstance(made, str) else json.dumps(made, indent=2))
    assert words in _one_line_error(f)


@pytest.mark.parametrize("field, value, words, mode", FIELD_CASES)
def test_a_bad_field_is_one_line_naming_its_test(tmp_path, field, value, words, mode):
    f = write(tmp_path, "internalProjection.json", _mutate(field, value, mode))
    text = _one_line_error(f)
    assert words in text, text
    if not field.startswith(("g.", "tcId")):
        assert text.startswith(f"{f} line {line_of(f, 1)}: tgId 1, tcId 1: ")


GCM_CASES = [
    ("iv", "00" * 11, "iv has 88 bits, its group's ivLen is 96"),
    ("tag", "00" * 15, "tag has 120 bits, its group's tagLen is 128"),
    ("testPassed", "no", "testPassed is not true or false: 'no'"),
    ("aad", "XY", "aad is not hex"),
]


@pytest.mark.parametrize("field, value, words", GCM_CASES)
def test_a_bad_gcm_field_is_one_line(tmp_path, field, value, words):
    vs = gcm_set()
    vs["testGroups"][0]["tests"][0][field] = value
    f = write(tmp_path, "internalProjection.json", vs)
    assert words in _one_line_error(f)


def test_the_pair_is_refused_when_it_is_not_whole(tmp_path):
    prompt, answers = split(block_set("ECB"))
    lone = write(tmp_path / "lone", "prompt.json", prompt)
    assert "an ACVP prompt (inputs only) without its answers: no expectedResults.json" in \
        _one_line_error(lone)
    exp = write(tmp_path / "pair", "expectedResults.json", answers)
    assert "an ACVP expectedResults file (answers only): name its prompt.json" in \
        _one_line_error(exp)
    write(tmp_path / "pair", "expectedResults.json", {**answers, "vsId": 8})
    with pytest.raises(CipherfabError) as e:
        parse_acvp(write(tmp_path / "pair", "prompt.json", prompt))
    assert str(e.value) == \
        f"{exp}: the answers of ACVP-AES-ECB vsId 8, but the prompt is ACVP-AES-ECB vsId 7"
    del answers["testGroups"][0]["tests"][1]["ct"]                   # a missing answer
    write(tmp_path / "pair", "expectedResults.json", answers)
    assert "tgId 1, tcId 2: no ct (in the prompt or its expectedResults.json)" in \
        _one_line_error(tmp_path / "pair" / "prompt.json")
    answers["testGroups"][0]["tests"][0]["ct"] = "QQ"    # a bad answer: its own file's line
    write(tmp_path / "pair", "expectedResults.json", answers)
    with pytest.raises(CipherfabError) as e:
        parse_acvp(tmp_path / "pair" / "prompt.json")
    assert str(e.value).startswith(f"{exp} line {line_of(exp, 1)}: tgId 1, tcId 1: ct is not hex")


def test_a_set_for_another_run_names_the_command(tmp_path, capsys):
    gcm = write(tmp_path / "g", "internalProjection.json", gcm_set())
    cfb = write(tmp_path / "c", "internalProjection.json", block_set("CFB128"))
    ecb = write(tmp_path / "e", "internalProjection.json", block_set("ECB"))
    tdes = write(tmp_path / "t", "internalProjection.json",
                 {**block_set("ECB"), "algorithm": "ACVP-TDES-ECB"})
    ctr = write(tmp_path / "ctr", "internalProjection.json", ctr_set())
    xts = write(tmp_path / "xts", "internalProjection.json", xts_set())
    ccm = write(tmp_path / "ccm", "internalProjection.json", ccm_set())
    cfb8 = write(tmp_path / "cfb8", "internalProjection.json", segment_set("CFB8"))
    cfb1 = write(tmp_path / "cfb1", "internalProjection.json", segment_set("CFB1"))
    for args, words in (
            (["--vectors", gcm], "ACVP-AES-GCM vector set, not ECB or CBC: run it with sim --mode gcm"),
            (["--mode", "ofb", "--vectors", cfb], "not OFB: run it with sim --mode cfb"),
            (["--mode", "gcm", "--vectors", ecb], "not GCM: run it with sim --vectors"),
            (["--vectors", tdes], "this is a TDES vector file; the engine runs aes"),
            (["--mode", "ofb", "--vectors", ctr], "ACVP-AES-CTR vector set, not OFB: run it with sim --mode ctr"),
            (["--vectors", xts], "ACVP-AES-XTS vector set, not ECB or CBC: run it with sim --mode xts"),
            (["--mode", "ctr", "--vectors", ccm], "ACVP-AES-CCM vector set, not CTR: run it with sim --mode ccm"),
            (["--mode", "xts", "--vectors", ctr], "not XTS: run it with sim --mode ctr"),
            (["--mode", "ccm", "--vectors", xts], "not CCM: run it with sim --mode xts"),
            (["--mode", "gcm", "--vectors", ccm], "not GCM: run it with sim --mode ccm"),
            (["--mode", "cfb", "--vectors", cfb8], "ACVP-AES-CFB8 vector set, not CFB128: run it with "
                                                   "sim --mode cfb8"),
            (["--mode", "cfb8", "--vectors", cfb1], "not CFB8: run it with sim --mode cfb1"),
            (["--vectors", cfb1], "not ECB or CBC: run it with sim --mode cfb1")):
        assert main(["sim", *CORE, *map(str, args)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err


def _change_byte(path, tc: int, name: str):
    vs = json.loads(path.read_text())
    for g in vs["testGroups"]:
        for t in g["tests"]:
            if t["tcId"] == tc:
                t[name] = ("0" if t[name][0] != "0" else "1") + t[name][1:]
    path.write_text(json.dumps(vs, indent=2))


def test_sim_runs_ecb_and_cbc_on_the_core(tmp_path, capsys):
    ecb = write(tmp_path / "e", "internalProjection.json", block_set("ECB"))
    cbc = both_forms(tmp_path / "c", block_set("CBC"))[1]
    assert main(["sim", *CORE, "--vectors", str(ecb), str(cbc)]) == 0
    out = capsys.readouterr().out
    for f in (ecb, cbc):
        assert f"{f}: 6 passed, 0 failed, 2 skipped (2 x 256-bit keys, the core takes " \
               f"128-bit keys)\n" in out, out
    _change_byte(ecb, 3, "ct")
    assert main(["sim", *CORE, "--vectors", str(ecb)]) == 1
    out = capsys.readouterr().out
    assert "5 passed, 1 failed" in out
    assert f"FAILED {ecb} line {line_of(ecb, 3)}: tcId 3, tgId 2 decrypt" in out
    vs = block_set("CBC")
    results = vs["testGroups"][3]["tests"][0]["resultsArray"]
    results[1]["ct"] = _flip(results[1]["ct"])        # the last outer iteration's answer
    f = write(tmp_path, "mct.json", vs)
    assert main(["sim", *CORE, "--vectors", str(f)]) == 1
    out = capsys.readouterr().out
    assert "5 passed, 1 failed" in out
    assert f"FAILED {f} line {line_of(f, 7)}: tcId 7, tgId 4 encrypt tcId 7, encrypt (MCT CBC) " \
           f"(after 1000 iterations)" in out, out


def test_sim_runs_gcm_through_the_system(tmp_path, capsys):
    projection, prompt = both_forms(tmp_path, gcm_set())
    assert main(["sim", *CORE, "--mode", "gcm", "--vectors", str(projection), str(prompt)]) == 0
    out = capsys.readouterr().out
    for f in (projection, prompt):
        assert f"{f}: 5 passed, 0 failed, 3 skipped ({INTERNAL_IV_SKIP}; 256-bit keys" in out
    _change_byte(projection, 2, "tag")
    assert main(["sim", *CORE, "--mode", "gcm", "--vectors", str(projection)]) == 1
    out = capsys.readouterr().out
    assert "4 passed, 1 failed" in out
    at = f"{projection} line {line_of(projection, 2)}"
    assert f"first failure: {at} (tgId 1 encrypt, tcId 2): tag" in out


@pytest.mark.parametrize("mode, flag, passed, skipped", [
    ("OFB", "ofb", 6, 2), ("CFB128", "cfb", 6, 2),             # 4 tests, 2 Monte-Carlo iterations
    ("CFB8", "cfb8", 10, 1), ("CFB1", "cfb1", 10, 1)])          # 4 tests, 6 Monte-Carlo iterations
def test_sim_runs_ofb_and_the_cfbs_through_the_system(tmp_path, capsys, mode, flag, passed, skipped):
    vs = (segment_set if mode in ("CFB8", "CFB1") else block_set)(mode)
    projection, prompt = both_forms(tmp_path, vs)
    assert main(["sim", *CORE, "--mode", flag, "--vectors", str(projection), str(prompt)]) == 0
    out = capsys.readouterr().out
    for f in (projection, prompt):
        assert f"{f}: {passed} passed, 0 failed, {skipped} skipped (256-bit keys (the core takes 128))\n" in out
    _change_byte(projection, 4, "pt")                 # a decrypt test's answer
    assert main(["sim", *CORE, "--mode", flag, "--vectors", str(projection)]) == 1
    out = capsys.readouterr().out
    assert f"{passed - 1} passed, 1 failed" in out
    assert f"first failure: {projection} line {line_of(projection, 4)} (tcId 4, tgId 2 decrypt)" in out


# --- CTR, XTS and CCM (through the system: sim --mode ctr|xts|ccm) ---------------------------

from cryptography.hazmat.primitives.ciphers.aead import AESCCM  # noqa: E402

from cipherfab.vectors.acvp import (CCM_BITS_SKIP, CTR_COUNTER_SKIP, CTR_DOWN_SKIP,  # noqa: E402
                                    CTR_NO_IV_SKIP, PAYLOAD_BITS_SKIP, XTS_KEY_SKIP,
                                    XTS_SHORT_SKIP, XTS_UNIT_BITS_SKIP)


def _masked(data: bytes, bits: int) -> bytes:
    """``data`` cut to the bytes that hold ``bits``, the unused low bits of the last zero (as
    ACVP writes a payload that is not whole bytes)."""
    data = data[:-(-bits // 8)]
    if bits % 8:
        data = data[:-1] + bytes([data[-1] & (0xFF << (8 - bits % 8)) & 0xFF])
    return data


def _ctr(key: bytes, iv: bytes, data: bytes, down: bool = False) -> bytes:
    """AES-CTR by ``cryptography``: its CTR mode (+1 a block, modulo 2^128), or a counter
    counting down (each counter block encrypted by its ECB)."""
    if not down:
        return _aes(key, modes.CTR(iv), data)
    n = int.from_bytes(iv, "big")
    stream = b"".join(_aes(key, modes.ECB(), ((n - i) % (1 << 128)).to_bytes(16, "big"))
                      for i in range(-(-len(data) // 16)))
    return bytes(a ^ b for a, b in zip(data, stream))


def ctr_set() -> dict:
    """ACVP-AES-CTR 1.0 as the server writes it: an encrypt group (3 blocks; 9 bits: skipped),
    a decrypt group (1 block; 33 bytes), an overflow group whose counter wraps past 2^128, a
    counting-down group (1 block: run; 2 blocks: skipped), an internal-IV test without its iv
    (skipped), an AES-256 group, and a counter-test group (testType CTR: skipped)."""
    shapes = [("encrypt", 128, {}, [(384, _bytes(1, 16)), (9, _bytes(2, 16))]),
              ("decrypt", 128, {}, [(128, _bytes(3, 16)), (264, _bytes(4, 16))]),
              ("encrypt", 128, {"overflow": True}, [(384, b"\xff" * 15 + b"\xfe")]),
              ("encrypt", 128, {"incremental": False}, [(128, _bytes(5, 16)), (256, _bytes(6, 16))]),
              ("encrypt", 128, {"ivGenMode": "internal"}, [(128, None)]),
              ("encrypt", 256, {}, [(256, _bytes(7, 16))])]
    groups, tc = [], 0
    for tg, (direction, key_bits, extra, cases) in enumerate(shapes, 1):
        group = {"tgId": tg, "testType": "AFT", "internalTestType": "AFT", "direction": direction,
                 "keyLen": key_bits, "incremental": True, "overflow": False, "ivGenMode": "external",
                 "rfcTestMode": False, **extra, "tests": []}
        for bits, iv in cases:
            tc += 1
            key, pt = _bytes(tc, key_bits // 8), _masked(_bytes(50 + tc, 64), bits)
            ct = _masked(_ctr(key, iv or bytes(16), pt, not group["incremental"]), bits)
            t = {"tcId": tc, "deferred": False, "pt": _hex(pt), "payloadLen": bits, "ct": _hex(ct),
                 "iv": _hex(iv or b""), "key": _hex(key)}
            if iv is None:
                del t["iv"]
            group["tests"].append(t)
        groups.append(group)
    counter = {"tcId": tc + 1, "pt": _hex(_bytes(9, 64)), "payloadLen": 512, "key": _hex(_bytes(9, 16))}
    groups.append({"tgId": 7, "testType": "CTR", "direction": "encrypt", "keyLen": 128,
                   "incremental": True, "overflow": False, "tests": [counter]})
    return vector_set("ACVP-AES-CTR", groups)


CTR_SKIPS = [PAYLOAD_BITS_SKIP, CTR_DOWN_SKIP, CTR_NO_IV_SKIP, "256-bit keys (the core takes 128)",
             CTR_COUNTER_SKIP]


def _xts(key: bytes, tweak: bytes, data: bytes, decrypt: bool = False, unit: int = 0) -> bytes:
    """XTS-AES by ``cryptography``, data units of ``unit`` bytes (0: one), each next unit's
    tweak the last one's plus 1 as a little-endian number."""
    unit, n, out = unit or len(data), int.from_bytes(tweak, "little"), b""
    for i in range(0, len(data), unit):
        out += _aes(key, modes.XTS(((n + i // unit) % (1 << 128)).to_bytes(16, "little")),
                    data[i:i + unit], decrypt)
    return out


def _xts_key(seed: int, half: int) -> bytes:
    return _bytes(seed, half) + _bytes(seed + 100, half)


def _xts_answer(key: bytes, tweak: bytes, pt: bytes, bits: int, unit, equal: bool) -> bytes:
    """The ciphertext, by ``cryptography``, of a test the system runs; the plaintext again for
    one it skips (not whole bytes, a data unit under 16 bytes, a key of equal halves)."""
    u = (unit or bits) // 8
    if bits % 8 or (unit or 0) % 8 or equal or (len(pt) % u or u) < 16:
        return pt
    return _xts(key, tweak, pt, unit=u)


def xts_set() -> dict:
    """ACVP-AES-XTS 2.0: an encrypt group of hex tweaks (40 bytes, stealing; 237 bits:
    skipped), a decrypt group of sequence numbers, a group of several data units (4 units, the
    last 4 bytes: skipped; 2 units of 40 bytes; 3 of 25 bytes, the last 20; a 201-bit data
    unit: skipped), an AES-256 group (512-bit keys) and a key of two equal halves (skipped)."""
    shapes = [("encrypt", 128, "hex", [(320, None), (237, None)]),
              ("decrypt", 128, "number", [(512, None), (384, None)]),
              ("encrypt", 128, "hex", [(800, 256), (640, 320), (560, 200), (560, 201)]),
              ("encrypt", 256, "hex", [(256, None)]),
              ("encrypt", 128, "hex", [(256, None)])]
    groups, tc = [], 0
    for tg, (direction, key_bits, tweak_mode, cases) in enumerate(shapes, 1):
        group = {"tgId": tg, "testType": "AFT", "internalTestType": "SingleDataUnit",
                 "direction": direction, "keyLen": key_bits, "tweakMode": tweak_mode, "tests": []}
        for bits, unit in cases:
            tc += 1
            key = _xts_key(tc, key_bits // 8) if tg != 5 else _bytes(tc, 16) * 2
            number = tc if tc != 4 else (1 << 64) + 3
            tweak = _bytes(30 + tc, 16) if tweak_mode == "hex" else number.to_bytes(16, "little")
            pt = _masked(_bytes(60 + tc, 100), bits)
            ct = _xts_answer(key, tweak, pt, bits, unit, tg == 5)
            group["tests"].append({"tcId": tc, "key": _hex(key), "dataUnitLen": unit or bits,
                                   "payloadLen": bits, "pt": _hex(pt), "ct": _hex(ct),
                                   "tweakValue": _hex(tweak), "sequenceNumber": number})
        groups.append(group)
    return {**vector_set("ACVP-AES-XTS", groups), "revision": "2.0"}


XTS_SKIPS = [PAYLOAD_BITS_SKIP, XTS_SHORT_SKIP, XTS_UNIT_BITS_SKIP,
             "512-bit keys (the core takes 256)", XTS_KEY_SKIP]


def xts_v1_set() -> dict:
    """ACVP-AES-XTS 1.0: the payload length is the group's, no dataUnitLen."""
    groups = []
    for tg, (direction, mode, bits) in enumerate([("encrypt", "hex", 256), ("decrypt", "number", 136)], 1):
        tests = []
        for tc in (2 * tg - 1, 2 * tg):
            key, pt = _xts_key(tc, 16), _bytes(70 + tc, bits // 8)
            tweak = _bytes(tc, 16) if mode == "hex" else (tc * 1000).to_bytes(16, "little")
            t = {"tcId": tc, "key": _hex(key), "pt": _hex(pt), "ct": _hex(_xts(key, tweak, pt))}
            t.update({"tweakValue": _hex(tweak)} if mode == "hex" else {"sequenceNumber": tc * 1000})
            tests.append(t)
        groups.append({"tgId": tg, "testType": "AFT", "direction": direction, "keyLen": 128,
                       "payloadLen": bits, "tweakMode": mode, "tests": tests})
    return vector_set("ACVP-AES-XTS", groups)


def ccm_set() -> dict:
    """ACVP-AES-CCM 1.0: encrypt groups (no payload nor AAD, 7-byte nonce, 4-byte tag; 32-byte
    payload, 8-byte AAD, 16-byte tag), a decrypt group whose second tag must be refused, an
    AES-256 group, and an AAD length that is not whole bytes (skipped)."""
    shapes = [("encrypt", 128, 56, 0, 0, 32, 1), ("encrypt", 128, 104, 256, 64, 128, 2),
              ("decrypt", 128, 96, 120, 16, 64, 3), ("encrypt", 256, 104, 128, 0, 128, 1),
              ("encrypt", 128, 104, 128, 12, 128, 1)]
    groups, tc = [], 0
    for tg, (direction, key_bits, iv_len, pt_len, aad_len, tag_len, n) in enumerate(shapes, 1):
        tests = []
        for i in range(n):
            tc += 1
            key, iv = _bytes(tc, key_bits // 8), _bytes(40 + tc, iv_len // 8)
            aad, pt = _bytes(80 + tc, -(-aad_len // 8)), _bytes(90 + tc, pt_len // 8)
            ct = AESCCM(key, tag_length=tag_len // 8).encrypt(iv, pt, aad)
            passed = not (direction == "decrypt" and i == 1)
            if not passed:
                ct = ct[:-1] + bytes([ct[-1] ^ 1])
            tests.append({"tcId": tc, "testPassed": passed, "pt": _hex(pt), "key": _hex(key),
                          "aad": _hex(aad), "iv": _hex(iv), "ct": _hex(ct)})
        groups.append({"tgId": tg, "testType": "AFT", "internalTestType": "AFT",
                       "direction": direction, "keyLen": key_bits, "ivLen": iv_len,
                       "payloadLen": pt_len, "aadLen": aad_len, "tagLen": tag_len, "tests": tests})
    return vector_set("ACVP-AES-CCM", groups)


CCM_SKIPS = ["256-bit keys (the core takes 128)", CCM_BITS_SKIP]


@pytest.mark.parametrize("build", [ctr_set, xts_set, xts_v1_set, ccm_set])
def test_ctr_xts_and_ccm_read_alike_from_both_forms(tmp_path, build):
    projection, prompt = both_forms(tmp_path, build())
    records = parse_acvp(projection)
    assert unplaced(records) == unplaced(parse_acvp(prompt))
    assert len(records) == sum(len(g["tests"]) for g in build()["testGroups"])


def test_ctr_records_and_their_skips():
    """Every CTR record the system runs agrees with ``cryptography`` (read back from the
    set); the others carry their reasons."""
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as folder:
        records = parse_acvp(write(Path(folder), "internalProjection.json", ctr_set()))
    assert [r.skip for r in records] == [None, PAYLOAD_BITS_SKIP, None, None, None, None,
                                         CTR_DOWN_SKIP, CTR_NO_IV_SKIP, None, CTR_COUNTER_SKIP]
    for r in records:
        if r.skip is None:
            src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
            down = r.count == 6
            assert _ctr(r.key, r.iv, b"".join(src), down) == b"".join(want), r.label
    wrap = records[4]                                  # tcId 5: the counter passes 2^128
    assert wrap.iv == b"\xff" * 15 + b"\xfe" and len(wrap.plaintext) == 3
    assert [r.label for r in records[2:4]] == ["tcId 3, tgId 2 decrypt", "tcId 4, tgId 2 decrypt"]


def test_xts_records_run_a_data_unit_or_several():
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as folder:
        records = parse_acvp(write(Path(folder), "internalProjection.json", xts_set()))
    assert [(r.skip, r.unit_bytes) for r in records] == [
        (None, None), (PAYLOAD_BITS_SKIP, None), (None, None), (None, None),
        (XTS_SHORT_SKIP, 32), (None, 40), (None, 25), (XTS_UNIT_BITS_SKIP, 25),
        (None, None), (XTS_KEY_SKIP, None)]
    assert records[3].tweak == ((1 << 64) + 3).to_bytes(16, "little") and records[3].decrypt
    assert records[2].label == "tgId 2 decrypt, tcId 3"


@pytest.mark.parametrize("build, flag, passed, skips", [
    (ctr_set, "ctr", 5, CTR_SKIPS), (xts_set, "xts", 5, XTS_SKIPS), (xts_v1_set, "xts", 4, []),
    (ccm_set, "ccm", 6, CCM_SKIPS)], ids=["ctr", "xts", "xts-1.0", "ccm"])
def test_sim_runs_ctr_xts_and_ccm_through_the_system(tmp_path, capsys, build, flag, passed, skips):
    projection, prompt = both_forms(tmp_path, build())
    assert main(["sim", *CORE, "--mode", flag, "--vectors", str(projection), str(prompt)]) == 0
    out = capsys.readouterr().out
    for f in (projection, prompt):
        skipped = f", {len(skips)} skipped ({'; '.join(skips)})" if skips else ""
        assert f"{f}: {passed} passed, 0 failed{skipped}\n" in out, out


@pytest.mark.parametrize("build, flag, tc, name, label", [
    (ctr_set, "ctr", 4, "pt", "tcId 4, tgId 2 decrypt"),
    (xts_set, "xts", 7, "ct", "tgId 3 encrypt, tcId 7"),
    (ccm_set, "ccm", 6, "pt", "tgId 3 decrypt, tcId 6")], ids=["ctr", "xts", "ccm"])
def test_a_changed_byte_fails_naming_the_test(tmp_path, capsys, build, flag, tc, name, label):
    f = write(tmp_path, "internalProjection.json", build())
    _change_byte(f, tc, name)
    assert main(["sim", *CORE, "--mode", flag, "--vectors", str(f)]) == 1
    out = capsys.readouterr().out
    assert f"first failure: {f} line {line_of(f, tc)} ({label}): " in out, out
    assert " 1 failed" in out


def test_a_set_of_counter_tests_only_is_never_passed(tmp_path, capsys):
    vs = ctr_set()
    vs["testGroups"] = vs["testGroups"][-1:]
    f = write(tmp_path, "internalProjection.json", vs)
    assert main(["sim", *CORE, "--mode", "ctr", "--vectors", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"cipherfab sim: error: no record in the vector files ran on this core: "
                   f"{CTR_COUNTER_SKIP}"], err


def _set_field(vs: dict, where: tuple, name: str, value) -> dict:
    """``vs`` with one field of group ``where[0]`` (``where[1]`` None) or of its test
    ``where[1]`` set (None: removed)."""
    g = vs["testGroups"][where[0]]
    target = g if where[1] is None else g["tests"][where[1]]
    if value is None:
        target.pop(name, None)
    else:
        target[name] = value
    return vs


SYSTEM_CASES = [   # (set, mode, (group, test), field, value, words, tcId of the line or None)
    (ctr_set, "ctr", (0, 0), "iv", "00" * 8, "iv is 8 bytes, not one 16-byte counter block", 1),
    (ctr_set, "ctr", (0, 0), "payloadLen", 100, "pt is 48 bytes, but 100 bits take 13", 1),
    (ctr_set, "ctr", (0, 0), "payloadLen", "384", "payloadLen is not a number: '384'", 1),
    (ctr_set, "ctr", (0, 0), "ct", "00" * 47, "ct is 47 bytes, but 384 bits take 48", 1),
    (ctr_set, "ctr", (1, 0), "pt", None, "tgId 2, tcId 3: no pt", 3),
    (ctr_set, "ctr", (0, 0), "key", "00" * 20, "key is 20 bytes; AES keys are 16, 24 or 32", 1),
    (ctr_set, "ctr", (0, None), "testType", "MCT", "tgId 1: testType 'MCT' (CTR groups are AFT or CTR)",
     None),
    (xts_set, "xts", (0, None), "tweakMode", "text", "tgId 1: tweakMode 'text' (expected hex or number)",
     None),
    (xts_set, "xts", (0, 0), "tweakValue", "00" * 8, "tweakValue is 8 bytes, not 16", 1),
    (xts_set, "xts", (1, 0), "sequenceNumber", -1, "sequenceNumber is not a number: '-1'", 3),
    (xts_set, "xts", (1, 0), "sequenceNumber", 1 << 128, "sequenceNumber is over 128 bits", 3),
    (xts_set, "xts", (1, 0), "sequenceNumber", None, "tgId 2, tcId 3: no sequenceNumber", 3),
    (xts_set, "xts", (0, 0), "key", "00" * 48, "key is 48 bytes; an XTS-AES key is two AES keys, "
                                               "32 or 64", 1),
    (xts_set, "xts", (0, None), "keyLen", 256, "key has 256 bits, not two of its group's keyLen 256", 1),
    (xts_set, "xts", (0, 0), "dataUnitLen", "x", "dataUnitLen is not a number: 'x'", 1),
    (xts_set, "xts", (0, 0), "ct", "00" * 39, "ct is 39 bytes, but 320 bits take 40", 1),
    (xts_set, "xts", (0, None), "testType", "MCT", "tgId 1: testType 'MCT' (XTS groups are AFT)", None),
    (ccm_set, "ccm", (1, 0), "ct", "00" * 47, "ct is 47 bytes; its group's payloadLen 256 and "
                                              "tagLen 128 (bits) take 48", 2),
    (ccm_set, "ccm", (1, 0), "iv", "00" * 12, "iv has 96 bits, its group's ivLen is 104", 2),
    (ccm_set, "ccm", (1, 0), "aad", "00" * 7, "aad has 56 bits, its group's aadLen is 64", 2),
    (ccm_set, "ccm", (1, None), "tagLen", None, "tgId 2: no tagLen (it cuts the tag from ct)", None),
    (ccm_set, "ccm", (2, 0), "testPassed", "yes", "testPassed is not true or false: 'yes'", 4),
    (ccm_set, "ccm", (1, 0), "pt", "00" * 31, "pt is 31 bytes, the ciphertext in ct 32", 2),
    (ccm_set, "ccm", (1, 0), "iv", "XY", "iv is not hex: 'XY'", 2),
    (ccm_set, "ccm", (1, None), "testType", "MCT", "tgId 2: testType 'MCT' (CCM groups are AFT)", None),
]


@pytest.mark.parametrize("build, mode, where, name, value, words, tc", SYSTEM_CASES,
                         ids=[f"{c[1]}-{c[3]}-{i}" for i, c in enumerate(SYSTEM_CASES)])
def test_a_malformed_ctr_xts_or_ccm_set_is_one_line(tmp_path, capsys, build, mode, where, name,
                                                     value, words, tc):
    f = write(tmp_path, "internalProjection.json", _set_field(build(), where, name, value))
    assert main(["sim", *CORE, "--mode", mode, "--vectors", str(f)]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in err, err
    if tc is not None:
        assert f"{f} line {line_of(f, tc)}: " in lines[0], lines[0]


# --- CFB8, CFB1 and the Monte-Carlo tests (through the system: sim --mode cfb8|cfb1|ofb|cfb) ---

def _cfb_segments(mode: str, key: bytes, iv: bytes, data: bytes, bits: int,
                  decrypt: bool = False) -> bytes:
    """CFB8 by ``cryptography``; CFB1 by the stepper, a bit at a time (``bits`` of ``data``,
    most significant first, packed the same way)."""
    if mode == "CFB8":
        return _aes(key, CFB8(iv), data, decrypt)
    xs = [data[i // 8] >> (7 - i % 8) & 1 for i in range(bits)]
    ys = stepper("CFB1")(key, decrypt, iv, xs[0], bits, lambda j, ys: xs[j + 1])
    return (int("".join(map(str, ys)), 2) << (-bits % 8)).to_bytes(-(-bits // 8), "big")


def segment_set(mode: str) -> dict:
    """ACVP-AES-CFB8 or -CFB1 1.0 as the server writes it: an encrypt group (one segment; 16
    bytes, 13 bits), a decrypt MMT group (3 and 32 bytes; 7 and 20 bits), an AES-256 group, and
    an encrypt and a decrypt MCT group of 3 outer iterations each (CFB1's tests carry their
    payloadLen in bits)."""
    cfb1 = mode == "CFB1"
    shapes = [("encrypt", 128, "GFSBox", [1, 13] if cfb1 else [8, 128]),
              ("decrypt", 128, "MMT", [7, 20] if cfb1 else [24, 256]),
              ("encrypt", 256, "MMT", [9] if cfb1 else [40])]
    groups, tc = [], 0
    for tg, (direction, key_bits, kind, sizes) in enumerate(shapes, 1):
        tests = []
        for bits in sizes:
            tc += 1
            key, iv, pt = _bytes(tc, key_bits // 8), _bytes(100 + tc, 16), _masked(_bytes(200 + tc, 64), bits)
            t = {"tcId": tc, "payloadLen": bits, "iv": _hex(iv), "pt": _hex(pt), "key": _hex(key),
                 "ct": _hex(_cfb_segments(mode, key, iv, pt, bits))}
            tests.append(t if cfb1 else {k: v for k, v in t.items() if k != "payloadLen"})
        groups.append({"tgId": tg, "internalTestType": kind, "testType": "AFT", "direction": direction,
                       "keyLen": key_bits, "tests": tests})
    for tg, direction in ((4, "encrypt"), (5, "decrypt")):
        tc += 1
        t = mct_test(mode, tc, direction == "decrypt", _bytes(tc, 16))
        groups.append({"tgId": tg, "internalTestType": "MCT", "testType": "MCT", "direction": direction,
                       "keyLen": 128, "tests": [{**t, "payloadLen": 1} if cfb1 else t]})
    return vector_set(f"ACVP-AES-{mode}", groups)


@pytest.mark.parametrize("mode", ["CFB8", "CFB1"])
def test_cfb8_and_cfb1_read_alike_from_both_forms(tmp_path, mode):
    projection, prompt = both_forms(tmp_path, segment_set(mode))
    records = parse_acvp(projection)
    assert unplaced(records) == unplaced(parse_acvp(prompt))
    bits = [1, 13, 7, 20, 9] if mode == "CFB1" else [None] * 5
    assert [(r.kind, r.count, r.bits, r.decrypt) for r in records[:5]] == [
        ("kat", 1, bits[0], False), ("mmt", 2, bits[1], False), ("mmt", 3, bits[2], True),
        ("mmt", 4, bits[3], True), ("mmt", 5, bits[4], False)]
    for r in records[:5]:                            # one message each, as the CAVP reader's
        assert r.mode == mode and len(r.plaintext) == len(r.ciphertext) == 1, r.label
        src, want = (r.ciphertext, r.plaintext) if r.decrypt else (r.plaintext, r.ciphertext)
        assert _cfb_segments(mode, r.key, r.iv, src[0], r.bits or 8 * len(src[0]), r.decrypt) == want[0]
    r = records[1]
    assert len(r.plaintext[0]) == (2 if mode == "CFB1" else 16) and r.label == "tcId 2, tgId 1 encrypt"
    if mode == "CFB1":                               # 13 bits in 2 bytes, the last 3 bits 0
        assert r.plaintext[0][-1] & 7 == 0 and r.ciphertext[0][-1] & 7 == 0
    mct = records[5:]
    assert [(r.kind, r.section, r.count, r.bits) for r in mct] == \
        [("mct", "tgId 4 encrypt tcId 6", 6, bits[0])] * 3 + [("mct", "tgId 5 decrypt tcId 7", 7, bits[0])] * 3
    assert {r.where for r in mct[:3]} == {f"{projection} line {line_of(projection, 6)}"}
    assert all(len(r.plaintext[0]) == len(r.ciphertext[0]) == 1 and r.iv and r.skip is None for r in mct)


def _mct_checks(records, mode: str) -> list:
    """``monte_carlo.check_record`` of every Monte-Carlo record, each with the one after it,
    through the software stepper."""
    return [check_record(r, nxt, stepper(mode), SEGMENT[mode], 128)
            for r, nxt in zip(records, records[1:] + [None]) if r.kind == "mct"]


def _flip(text: str) -> str:
    """Hex with its first bit changed (CFB1's one bit too)."""
    return f"{int(text[0], 16) ^ 8:X}{text[1:]}"


@pytest.mark.parametrize("mode", ["OFB", "CFB128", "CFB8", "CFB1"])
def test_monte_carlo_iterations_chain_through_check_record(tmp_path, mode):
    vs = segment_set(mode) if mode in ("CFB8", "CFB1") else block_set(mode)
    n = sum(len(t["resultsArray"]) for g in vs["testGroups"] if g["testType"] == "MCT" for t in g["tests"])
    for f in both_forms(tmp_path, vs):
        assert _mct_checks(parse_acvp(f), mode) == [(True, "")] * n
    results = vs["testGroups"][3]["tests"][0]["resultsArray"]       # the encrypt MCT test
    results[1]["ct"] = _flip(results[1]["ct"])                      # its answer: that one fails
    checks = _mct_checks(parse_acvp(write(tmp_path, "ct.json", vs)), mode)
    assert [ok for ok, _ in checks] == [True, False] + [True] * (n - 2)
    assert checks[1][1].startswith("output 1000: ")
    results[1]["ct"] = _flip(results[1]["ct"])
    results[1]["iv"] = _flip(results[1]["iv"])       # the IV the first one derives: both fail
    checks = _mct_checks(parse_acvp(write(tmp_path, "iv.json", vs)), mode)
    assert [ok for ok, _ in checks] == [False, False] + [True] * (n - 2)
    assert checks[0][1].startswith("KEY, IV and input derived for the next record (line ")


def _set_path(vs: dict, where: tuple, name: str, value) -> dict:
    """``_set_field``, or (``resultsArray[i].name``) a field of an outer iteration."""
    if name.startswith("resultsArray["):
        i, name = name.removeprefix("resultsArray[").split("].")
        where = where + (int(i),)
    if len(where) == 3:
        target = vs["testGroups"][where[0]]["tests"][where[1]]["resultsArray"][where[2]]
        if value is None:
            del target[name]
        else:
            target[name] = value
        return vs
    return _set_field(vs, where, name, value)


SEGMENT_CASES = [   # (mode, (group, test), field, value, words, tcId of the line or None)
    ("CFB1", (0, 1), "pt", "00", "tgId 1, tcId 2: pt has 2 hex digits, but 13 bits take 4", 2),
    ("CFB1", (1, 0), "ct", "0000", "tgId 2, tcId 3: ct has 4 hex digits, but 7 bits take 2", 3),
    ("CFB1", (0, 1), "payloadLen", None, "tgId 1, tcId 2: no payloadLen", 2),
    ("CFB1", (0, 1), "payloadLen", 0, "payloadLen is 0 (a CFB1 message has 1 bit or more)", 2),
    ("CFB1", (3, 0), "resultsArray[1].pt", "8000", "tgId 4, tcId 6, resultsArray[1]: pt has 4 hex "
                                                  "digits, but 1 bit takes 2", 6),
    ("CFB1", (4, 0), "resultsArray[2].key", "00" * 24, "resultsArray[2]: key has 192 bits, its "
                                                      "group's keyLen is 128", 7),
    ("CFB1", (3, 0), "iv", "00" * 16, "tgId 4, tcId 6: iv is not the iv of resultsArray[0] (the first "
                                      "outer iteration)", 6),
    ("CFB8", (0, 1), "ct", "00" * 15, "tgId 1, tcId 2: pt is 16 bytes, ct 15", 2),
    ("CFB8", (0, 0), "iv", "00" * 8, "iv is 8 bytes, not one 16-byte block", 1),
    ("CFB8", (0, 0), "pt", "", "tgId 1, tcId 1: pt is empty", 1),
    ("CFB8", (3, 0), "resultsArray", None, "tgId 4, tcId 6: no resultsArray", 6),
    ("CFB8", (3, 0), "resultsArray", [], "resultsArray is not a list of outer iterations", 6),
    ("CFB8", (3, 0), "resultsArray", [5], "resultsArray[0] is not a JSON object", 6),
    ("CFB8", (4, 0), "resultsArray[1].iv", None, "tgId 5, tcId 7, resultsArray[1]: no iv", 7),
    ("CFB8", (3, 0), "resultsArray[0].ct", "0000", "resultsArray[0]: ct is 2 bytes, not one byte "
                                                  "(a CFB8 segment)", 6),
    ("CFB8", (4, 0), "ct", "00", "tgId 5, tcId 7: ct is not the ct of resultsArray[0]", 7),
    ("CFB8", (3, None), "testType", "KAT", "tgId 4: testType 'KAT' (expected AFT or MCT)", None),
    ("OFB", (3, 0), "resultsArray[1].pt", "00" * 8, "tgId 4, tcId 7, resultsArray[1]: pt is 8 bytes, "
                                                   "not one 16-byte block", 7),
    ("CFB128", (3, 0), "resultsArray[0].iv", None, "tgId 4, tcId 7, resultsArray[0]: no iv", 7),
    ("CBC", (3, 0), "resultsArray[1].iv", None, "tgId 4, tcId 7, resultsArray[1]: no iv", 7),
    ("CBC", (3, 0), "iv", "00" * 16, "tgId 4, tcId 7: iv is not the iv of resultsArray[0]", 7),
    ("ECB", (3, 0), "resultsArray[1].ct", "00" * 8, "tgId 4, tcId 7, resultsArray[1]: ct is 8 bytes, "
                                                   "not one 16-byte block", 7),
    ("ECB", (3, 0), "resultsArray[0].key", "00" * 24, "resultsArray[0]: key has 192 bits, its "
                                                     "group's keyLen is 128", 7),
    ("ECB", (3, 0), "pt", "00" * 16, "tgId 4, tcId 7: pt is not the pt of resultsArray[0]", 7),
    ("ECB", (3, 0), "resultsArray", None, "tgId 4, tcId 7: no resultsArray", 7),
]


@pytest.mark.parametrize("mode, where, name, value, words, tc", SEGMENT_CASES,
                         ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(SEGMENT_CASES)])
def test_a_malformed_cfb_or_monte_carlo_test_is_one_line(tmp_path, mode, where, name, value, words, tc):
    vs = segment_set(mode) if mode in ("CFB8", "CFB1") else block_set(mode)
    f = write(tmp_path, "internalProjection.json", _set_path(vs, where, name, value))
    text = _one_line_error(f)
    assert words in text, text
    if tc is not None:
        assert text.startswith(f"{f} line {line_of(f, tc)}: "), text


def test_a_monte_carlo_answer_missing_from_the_pair_names_expected_results(tmp_path):
    prompt, answers = split(segment_set("CFB8"))
    exp = write(tmp_path, "expectedResults.json", answers)
    answers["testGroups"][4]["tests"][0]["resultsArray"][2].pop("iv")
    write(tmp_path, "expectedResults.json", answers)
    with pytest.raises(CipherfabError) as e:          # the answers' file and line
        parse_acvp(write(tmp_path, "prompt.json", prompt))
    assert str(e.value) == f"{exp} line {line_of(exp, 7)}: tgId 5, tcId 7, resultsArray[2]: no iv"
    del answers["testGroups"][3]["tests"][0]["resultsArray"]
    write(tmp_path, "expectedResults.json", answers)
    assert "tgId 4, tcId 6: no resultsArray (in the prompt or its expectedResults.json)" in \
        _one_line_error(tmp_path / "prompt.json")


@pytest.mark.parametrize("mode, flag", [("CFB8", "cfb8"), ("CFB1", "cfb1")])
def test_a_changed_monte_carlo_answer_fails_through_the_system(tmp_path, capsys, mode, flag):
    vs = segment_set(mode)
    results = vs["testGroups"][3]["tests"][0]["resultsArray"]
    results[2]["ct"] = _flip(results[2]["ct"])        # the last outer iteration's answer
    f = write(tmp_path, "mct.json", vs)
    assert main(["sim", *CORE, "--mode", flag, "--vectors", str(f)]) == 1
    out = capsys.readouterr().out
    assert "9 passed, 1 failed" in out
    assert f"first failure: {f} line {line_of(f, 6)} (tcId 6, tgId 4 encrypt tcId 6): output 1000: " in out
