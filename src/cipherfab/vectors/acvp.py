"""NIST ACVP JSON test vectors (usnistgov/ACVP-Server, ``gen-val/json-files/<ALGO>/``) for AES,
read into the records the existing runs take: ECB and CBC as :class:`~.records.VectorRecord`
for the core (``sim --vectors``), OFB, CFB128, CFB8, CFB1 and CTR likewise for the system
(``sim --mode ofb|cfb|cfb8|cfb1|ctr``), GCM as :class:`~.gcm_record.GcmRecord` (``sim --mode
gcm``), XTS as :class:`~.xts.XtsRecord` (``sim --mode xts``), CCM as :class:`~.ccm.CcmRecord`
(``sim --mode ccm``).

Layout: a vector set ``{"vsId", "algorithm": "ACVP-AES-GCM", "revision", "testGroups": [...]}``,
or a JSON list whose element with ``testGroups`` is the vector set.  A group has ``tgId``,
``testType`` (AFT, MCT; CTR's counter tests CTR), ``direction`` (encrypt, decrypt),
``keyLen`` and for GCM ``ivGen``, ``ivLen``, ``payloadLen``, ``aadLen``, ``tagLen`` (bits);
each of its ``tests`` a ``tcId`` and hex ``key``, ``iv``, ``pt``, ``ct`` (for GCM also
``aad``, ``tag``).  CTR (1.0): ``iv`` is the initial counter block, ``payloadLen`` (bits) is
the test's; the group's ``incremental`` false counts down, ``ivGenMode`` internal lets the
implementation make the counter.  CFB8 and CFB1 (1.0): a test's ``pt`` and ``ct`` are one
message (one record, not cut into blocks); CFB1's ``payloadLen`` (the test's) is its bits,
the hex the bytes that hold them most significant bit first (``"C0"`` and 2 bits: 1, 1), bits
past the length ignored (ACVP writes them 0).  XTS (1.0, 2.0): ``key`` is K1 then K2 (twice
``keyLen``), the group's ``tweakMode`` hex (a 16-byte ``tweakValue``) or number
(``sequenceNumber``, the tweak its 16 little-endian bytes), ``payloadLen`` (the group's in
1.0, the test's in 2.0) and in 2.0 ``dataUnitLen``: a payload of several data units, their
tweaks counting up.  CCM (1.0): ``iv`` is the nonce, ``ct`` the ciphertext then the tag, the
group's ``ivLen``, ``payloadLen``, ``aadLen``, ``tagLen``.  Lengths are in bits; a value not
whole bytes is hex of the bytes that hold it.

Monte-Carlo tests (MCT) of ECB, CBC, OFB, CFB128, CFB8 and CFB1 follow AESAVS 6.4 (the ACVP
AES specification's "Monte Carlo Test - ECB", "- CBC", "- OFB" and "- CFB1/CFB8/CFB128"): a
test gives the first outer iteration's ``key``, ``iv`` (not ECB) and input (``pt``
encrypting, ``ct`` decrypting) and its ``resultsArray`` every outer iteration's ``key``,
``iv``, ``pt`` and ``ct`` (100 of them; in a prompt's pair only expectedResults.json has it).
Each iteration is a ``kind="mct"`` record of one segment (a block; CFB8 a byte; CFB1 a bit,
``bits`` 1), in order, ``count`` the tcId and the test's own ``section`` (``tgId 31 encrypt
tcId 2139``) so that each one's derived KEY, IV and input are checked against the next: ECB
and CBC on the core (:func:`~.checks.mct_check`, 1000 inner iterations, AESAVS's CBC
decrypt chaining), the others through the system (:mod:`cipherfab.host.monte_carlo`).

Two forms.  ``internalProjection.json`` holds inputs and answers together; a GCM or CCM
decrypt test whose ``testPassed`` is false has a tag that must be refused.  ``prompt.json``
holds the inputs and ``expectedResults.json``, in the same folder, the answers by tcId
(``ct`` and ``tag``, ``pt``, an implementation-made ``iv``, or ``testPassed`` false).  Name
the prompt and both are read; an answers file named alone, or a prompt without its answers
beside it, is refused.

Skipped with the reason, never passed: GCM groups whose IV the implementation makes (ivGen
internal: the vector has no IV to give), CTR counter tests (testType CTR) and CTR tests
without a counter block, multi-block CTR payloads whose counter counts down, empty CTR
payloads, payloads and lengths that are not whole bytes (the system takes bytes; CFB1's bits
are run), XTS data units under 16 bytes and keys of two equal halves.  Anything else wrong is
one line naming the file, the line of the tcId or tgId, and the problem.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from .ccm import CcmRecord
from .gcm_record import GcmRecord
from .records import VectorRecord, fail, read_lines
from .xts import XtsRecord

__all__ = ["parse_acvp", "acvp_algorithm", "acvp_cipher_named", "ACVP_MODES"]

#: the ACVP algorithms read, and the mode each one is
ACVP_MODES = {"ACVP-AES-ECB": "ECB", "ACVP-AES-CBC": "CBC", "ACVP-AES-OFB": "OFB",
              "ACVP-AES-CFB128": "CFB128", "ACVP-AES-CFB8": "CFB8", "ACVP-AES-CFB1": "CFB1",
              "ACVP-AES-CTR": "CTR", "ACVP-AES-GCM": "GCM", "ACVP-AES-XTS": "XTS",
              "ACVP-AES-CCM": "CCM"}
#: the command each mode's vector sets run with
_RUN_WITH = {"ECB": "sim --vectors", "CBC": "sim --vectors", "OFB": "sim --mode ofb",
             "CFB128": "sim --mode cfb", "CFB8": "sim --mode cfb8", "CFB1": "sim --mode cfb1",
             "CTR": "sim --mode ctr", "GCM": "sim --mode gcm", "XTS": "sim --mode xts",
             "CCM": "sim --mode ccm"}
#: the segment of each mode's Monte-Carlo tests read into records (AESAVS 6.4), in bits
_MCT_SEGMENT = {"ECB": 128, "CBC": 128, "OFB": 128, "CFB128": 128, "CFB8": 8, "CFB1": 1}
INTERNAL_IV_SKIP = "GCM tests whose IV the implementation makes (ivGen internal: no IV to give)"
BITS_SKIP = "GCM lengths that are not whole bytes (the system takes bytes)"
PAYLOAD_BITS_SKIP = "payloads that are not whole bytes (the system takes bytes)"
EMPTY_SKIP = "empty payloads (nothing to stream)"
CTR_COUNTER_SKIP = "CTR counter tests (testType CTR: the implementation makes the counters)"
CTR_NO_IV_SKIP = "CTR tests without a counter block (ivGenMode internal: no iv to give)"
CTR_DOWN_SKIP = ("multi-block CTR payloads whose counter counts down (incremental false: the "
                 "system counts up)")
XTS_UNIT_BITS_SKIP = "XTS data units that are not whole bytes (the system takes bytes)"
XTS_SHORT_SKIP = "XTS data units under 16 bytes"
XTS_KEY_SKIP = "XTS keys whose two halves are equal (IEEE 1619-2018 5.1 refuses them)"
CCM_BITS_SKIP = "CCM lengths that are not whole bytes (the system takes bytes)"
_BLOCK = 16
_HEX = re.compile(r"[0-9a-fA-F]*")
_IDS = re.compile(r'"(tcId|tgId)"\s*:\s*(\d+)')


@dataclass
class _File:
    """One ACVP JSON file: its vector set, and the line of each tcId and tgId in it."""

    path: str
    vs: dict
    lines: dict

    def line(self, kind: str, n) -> int:
        return self.lines.get((kind, n), 0)

    @property
    def algorithm(self) -> str:
        alg = self.vs.get("algorithm")
        if not isinstance(alg, str) or not alg:
            raise fail(self.path, None, "an ACVP vector set without an algorithm")
        return alg


@dataclass
class _Group:
    """One test group's fields."""

    path: str
    line: int
    tg: int
    raw: dict

    def bad(self, problem: str):
        return fail(self.path, self.line, f"tgId {self.tg}: {problem}")

    @property
    def direction(self) -> str:
        d = self.raw.get("direction")
        if d not in ("encrypt", "decrypt"):
            raise self.bad(f"direction {d!r} (expected encrypt or decrypt)")
        return d

    @property
    def test_type(self) -> str:
        t = self.raw.get("testType")
        if not isinstance(t, str):
            raise self.bad(f"testType {t!r} (a name such as AFT or MCT)")
        return t

    def bits(self, name: str) -> int | None:
        v = self.raw.get(name)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise self.bad(f"{name} is not a number of bits: {v!r}")
        return v


@dataclass
class _Test:
    """One test's fields, each with the file and line it came from (a prompt's answers come
    from expectedResults.json)."""

    tg: int
    tc: int
    values: dict
    origin: dict
    path: str
    line: int
    paired: bool
    item: str = ""                # ", resultsArray[3]": one outer iteration of an MCT test

    def bad(self, name: str | None, problem: str):
        path, line = self.origin.get(name, (self.path, self.line))
        return fail(path, line, f"tgId {self.tg}, tcId {self.tc}{self.item}: {problem}")

    def missing(self, name: str):
        return self.bad(None, f"no {name}" + (" (in the prompt or its expectedResults.json)"
                                              if self.paired else ""))

    def number(self, name: str) -> int:
        if name not in self.values:
            raise self.missing(name)
        v = self.values[name]
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise self.bad(name, f"{name} is not a number: {str(v)[:40]!r}")
        return v

    def hex(self, name: str, empty: bool = False) -> bytes:
        if name not in self.values:
            raise self.missing(name)
        v = self.values[name]
        if not isinstance(v, str) or not _HEX.fullmatch(v):
            raise self.bad(name, f"{name} is not hex: {str(v)[:40]!r}")
        if len(v) % 2:
            raise self.bad(name, f"{name} has an odd number of hex digits ({len(v)})")
        if not v and not empty:
            raise self.bad(name, f"{name} is empty")
        return bytes.fromhex(v)


def _looks_like_json(lines: list[str]) -> bool:
    head = "".join("\n".join(lines[:20]).split())
    return head.startswith(("{", "[{", "[]"))


def _vector_set(doc) -> dict | None:
    if isinstance(doc, list):
        doc = next((d for d in doc if isinstance(d, dict) and "testGroups" in d), None)
    return doc if isinstance(doc, dict) and "testGroups" in doc else None


def _load(path, lines: list[str]):
    try:
        return json.loads("\n".join(lines))
    except (ValueError, RecursionError) as e:
        problem = getattr(e, "msg", None) or type(e).__name__
        raise fail(path, getattr(e, "lineno", None), f"not valid JSON: {problem}") from None


def acvp_algorithm(path, lines: list[str] | None = None) -> str | None:
    """The algorithm an ACVP vector set names (``"ACVP-AES-GCM"``), or None for a file that
    is not one; a file that starts as JSON but does not parse is refused in one line."""
    lines = read_lines(path) if lines is None else lines
    if not _looks_like_json(lines):
        return None
    vs = _vector_set(_load(path, lines))
    if vs is None or not ("vsId" in vs or str(vs.get("algorithm", "")).startswith("ACVP-")):
        return None
    alg = vs.get("algorithm")
    return alg if isinstance(alg, str) and alg else "unnamed"


def acvp_cipher_named(lines: list[str]) -> str | None:
    """The cipher an ACVP vector set names: ``AES`` for ``ACVP-AES-ECB``, ``TDES`` for
    ``ACVP-TDES-CBC``; None if it names none."""
    try:
        vs = _vector_set(json.loads("\n".join(lines)))
    except (ValueError, RecursionError):
        return None
    m = re.match(r"ACVP-([A-Za-z0-9]+)", str((vs or {}).get("algorithm", "")))
    return m.group(1) if m else None


def _read(path) -> _File:
    lines = read_lines(path)
    if not _looks_like_json(lines):
        raise fail(path, None, "not an ACVP JSON file (it does not start with { or [)")
    vs = _vector_set(_load(path, lines))
    if vs is None:
        raise fail(path, None, "not an ACVP vector set (no testGroups)")
    if not isinstance(vs["testGroups"], list) or not vs["testGroups"]:
        raise fail(path, None, "no test groups (testGroups is empty or not a list)")
    ids = {}
    for n, line in enumerate(lines, 1):
        for m in _IDS.finditer(line):
            ids.setdefault((m.group(1), int(m.group(2))), n)
    return _File(str(path), vs, ids)


def _mode(f: _File, modes) -> str:
    """The mode of the vector set's algorithm; another algorithm, or a mode the caller does
    not run, is refused, naming the command that runs it."""
    alg = f.algorithm
    mode = ACVP_MODES.get(alg)
    if mode is None:
        raise fail(f.path, None, f"{alg} is not supported (ACVP-AES-ECB, -CBC, -OFB, -CFB128, "
                                 f"-CFB8, -CFB1, -CTR, -GCM, -XTS and -CCM are)")
    if modes is not None and mode not in modes:
        raise fail(f.path, None, f"an {alg} vector set, not {' or '.join(modes)}: run it with "
                                 f"{_RUN_WITH[mode]}")
    return mode


def _tests_of(g) -> list:
    """A group's tests, or none if the group or its tests are malformed (refused later)."""
    tests = g.get("tests") if isinstance(g, dict) else None
    return tests if isinstance(tests, list) else []


def _answered(g, t) -> bool:
    """Whether a test carries its answer (an internalProjection) or only its inputs."""
    if not isinstance(g, dict) or not isinstance(t, dict):
        return False
    if "resultsArray" in t or "testPassed" in t:
        return True
    return ("pt" if g.get("direction") == "decrypt" else "ct") in t


def _answers(f: _File) -> _File | None:
    """The expectedResults.json beside a prompt; None when the answers are inline (or no test
    has one to give: CTR counter tests, whose counters the implementation makes)."""
    groups = f.vs["testGroups"]
    if all(isinstance(g, dict) and "direction" not in g and "testType" not in g for g in groups):
        raise fail(f.path, None, "an ACVP expectedResults file (answers only): name its "
                                 "prompt.json (this file beside it as expectedResults.json) or "
                                 "an internalProjection.json")
    asked = [(g, t) for g in groups if not (isinstance(g, dict) and g.get("testType") == "CTR")
             for t in _tests_of(g)]
    if not asked or any(_answered(g, t) for g, t in asked):
        return None
    beside = os.path.join(os.path.dirname(f.path), "expectedResults.json")
    if not os.path.isfile(beside):
        raise fail(f.path, None, "an ACVP prompt (inputs only) without its answers: no "
                                 "expectedResults.json beside it")
    ans = _read(beside)
    if (ans.algorithm, ans.vs.get("vsId")) != (f.algorithm, f.vs.get("vsId")):
        raise fail(beside, None, f"the answers of {ans.algorithm} vsId {ans.vs.get('vsId')}, "
                                 f"but the prompt is {f.algorithm} vsId {f.vs.get('vsId')}")
    return ans


def _answer_index(ans: _File) -> dict:
    index = {}
    for g in ans.vs["testGroups"]:
        for t in _tests_of(g):
            if isinstance(t, dict) and isinstance(t.get("tcId"), int):
                index[t["tcId"]] = t
    return index


def _groups(f: _File):
    for raw in f.vs["testGroups"]:
        if not isinstance(raw, dict):
            raise fail(f.path, None, "a test group that is not a JSON object")
        tg = raw.get("tgId")
        if not isinstance(tg, int) or isinstance(tg, bool):
            raise fail(f.path, None, f"a test group without a tgId number ({str(tg)[:20]!r})")
        g = _Group(f.path, f.line("tgId", tg), tg, raw)
        if not isinstance(raw.get("tests"), list):
            raise g.bad("no tests list")
        yield g


def _tests(f: _File, g: _Group, ans: _File | None, index: dict):
    for raw in g.raw["tests"]:
        tc = raw.get("tcId") if isinstance(raw, dict) else None
        if not isinstance(tc, int) or isinstance(tc, bool):
            raise g.bad(f"a test without a tcId number ({str(tc)[:20]!r})")
        line = f.line("tcId", tc)
        values, origin = dict(raw), {k: (f.path, line) for k in raw}
        if ans is not None and tc in index:
            values.update(index[tc])
            origin.update({k: (ans.path, ans.line("tcId", tc)) for k in index[tc]})
        yield _Test(g.tg, tc, values, origin, f.path, line, ans is not None)


def _key(t: _Test, g: _Group) -> bytes:
    key, bits = t.hex("key"), g.bits("keyLen")
    if len(key) not in (16, 24, 32):
        raise t.bad("key", f"key is {len(key)} bytes; AES keys are 16, 24 or 32")
    if bits is not None and 8 * len(key) != bits:
        raise t.bad("key", f"key has {8 * len(key)} bits, its group's keyLen is {bits}")
    return key


def _blocks(t: _Test, name: str) -> list[bytes]:
    data = t.hex(name)
    if len(data) % _BLOCK:
        raise t.bad(name, f"{name} is {len(data)} bytes, not a whole number of "
                          f"{_BLOCK}-byte blocks")
    return [data[i:i + _BLOCK] for i in range(0, len(data), _BLOCK)]


def _iv(t: _Test) -> bytes:
    iv = t.hex("iv")
    if len(iv) != _BLOCK:
        raise t.bad("iv", f"iv is {len(iv)} bytes, not one {_BLOCK}-byte block")
    return iv


def _common(t: _Test, g: _Group, mode: str, key: bytes, section: str | None = None) -> dict:
    return dict(mode=mode, decrypt=g.direction == "decrypt", key=key, file=t.path, line=t.line,
                count=t.tc, section=section or f"tgId {g.tg} {g.direction}", format="acvp",
                cipher_named="AES")


def _block_record(t: _Test, g: _Group, mode: str) -> VectorRecord:
    """An ECB, CBC, OFB or CFB128 test (not a Monte-Carlo one: :func:`_mct_records`)."""
    common = _common(t, g, mode, _key(t, g))
    if g.test_type != "AFT":
        raise g.bad(f"testType {g.test_type!r} (expected AFT or MCT)")
    iv = None if mode == "ECB" else _iv(t)
    pt, ct = _blocks(t, "pt"), _blocks(t, "ct")
    if len(pt) != len(ct):
        raise t.bad("ct", f"pt has {len(pt)} blocks, ct {len(ct)}")
    kind = "mmt" if g.raw.get("internalTestType") == "MMT" or len(pt) > 1 else "kat"
    return VectorRecord(kind=kind, iv=iv, plaintext=pt, ciphertext=ct, **common)


def _bit_text(t: _Test, name: str, bits: int) -> bytes:
    """CFB1's ``name``: the bytes that hold ``bits`` bits, most significant first, the bits
    past them cleared (ACVP writes them 0)."""
    data = t.hex(name)
    if len(data) != -(-bits // 8):
        raise t.bad(name, f"{name} has {2 * len(data)} hex digits, but {bits} "
                          f"{'bit takes' if bits == 1 else 'bits take'} {2 * -(-bits // 8)}")
    return data[:-1] + bytes([data[-1] & (0xFF << (-bits % 8)) & 0xFF])


def _segment_record(t: _Test, g: _Group, mode: str) -> VectorRecord:
    """A CFB8 or CFB1 test: one message (CFB1: ``payloadLen`` bits, ``bits`` on the record);
    an MMT (``internalTestType``) or one of more than one segment is ``mmt``."""
    if g.test_type != "AFT":
        raise g.bad(f"testType {g.test_type!r} (expected AFT or MCT)")
    common, iv = _common(t, g, mode, _key(t, g)), _iv(t)
    bits = _length(t, g, "payloadLen")
    if mode == "CFB1":
        if bits is None:
            raise t.missing("payloadLen")
        if not bits:
            raise t.bad("payloadLen", "payloadLen is 0 (a CFB1 message has 1 bit or more)")
        pt, ct = _bit_text(t, "pt", bits), _bit_text(t, "ct", bits)
        segments = bits
    else:
        pt, ct = t.hex("pt"), t.hex("ct")
        if len(pt) != len(ct):
            raise t.bad("ct", f"pt is {len(pt)} bytes, ct {len(ct)}")
        if bits is not None and bits != 8 * len(pt):
            raise t.bad("pt", f"pt has {8 * len(pt)} bits, its payloadLen is {bits}")
        segments, bits = len(pt), None
    kind = "mmt" if g.raw.get("internalTestType") == "MMT" or segments > 1 else "kat"
    return VectorRecord(kind=kind, iv=iv, plaintext=[pt], ciphertext=[ct], bits=bits, **common)


def _iterations(t: _Test) -> list[_Test]:
    """An MCT test's ``resultsArray``: each outer iteration as a test of its own (its fields'
    file and line those of the resultsArray)."""
    if "resultsArray" not in t.values:
        raise t.missing("resultsArray")
    results = t.values["resultsArray"]
    if not isinstance(results, list) or not results:
        raise t.bad("resultsArray", "resultsArray is not a list of outer iterations")
    path, line = t.origin.get("resultsArray", (t.path, t.line))
    out = []
    for i, entry in enumerate(results):
        if not isinstance(entry, dict):
            raise t.bad("resultsArray", f"resultsArray[{i}] is not a JSON object")
        out.append(_Test(t.tg, t.tc, entry, {k: (path, line) for k in entry}, path, line,
                         False, f", resultsArray[{i}]"))
    return out


def _segment(it: _Test, name: str, mode: str) -> bytes:
    """One segment of an outer iteration: a block, CFB8's byte, CFB1's bit (in a byte)."""
    if mode == "CFB1":
        return _bit_text(it, name, 1)
    data, want = it.hex(name), _MCT_SEGMENT[mode] // 8
    if len(data) != want:
        raise it.bad(name, f"{name} is {len(data)} bytes, not one " +
                           ("byte (a CFB8 segment)" if want == 1 else f"{want}-byte block"))
    return data


def _mct_records(t: _Test, g: _Group, mode: str) -> list[VectorRecord]:
    """An ECB, CBC, OFB or CFB Monte-Carlo test: a record per outer iteration of its
    resultsArray (ECB's without an iv), all in the test's own section (AESAVS 6.4: each one's
    derived KEY, IV and first input are the next one's); a first iteration the test gives must
    be the resultsArray's."""
    decrypt, section = g.direction == "decrypt", f"tgId {g.tg} {g.direction} tcId {t.tc}"
    records = []
    for it in _iterations(t):
        key, iv = _key(it, g), None if mode == "ECB" else _iv(it)
        pt, ct = _segment(it, "pt", mode), _segment(it, "ct", mode)
        records.append(VectorRecord(kind="mct", iv=iv, plaintext=[pt], ciphertext=[ct],
                                    bits=1 if mode == "CFB1" else None,
                                    **_common(t, g, mode, key, section)))
    first, given = records[0], "ct" if decrypt else "pt"
    for name, have in (("key", first.key), ("iv", first.iv),
                       (given, (first.ciphertext if decrypt else first.plaintext)[0])):
        if have is None:                              # ECB: no iv
            continue
        if name in t.values and (_segment(t, name, mode) if name == given else t.hex(name)) != have:
            raise t.bad(name, f"{name} is not the {name} of resultsArray[0] (the first outer "
                              f"iteration)")
    return records


_GCM_LENGTHS = {"iv": "ivLen", "aad": "aadLen", "pt": "payloadLen", "ct": "payloadLen",
                "tag": "tagLen"}


def _gcm_record(t: _Test, g: _Group) -> GcmRecord:
    """A GCM test: encrypt (ciphertext and tag compared) or decrypt (the verdict and the
    plaintext); an internal-IV or bit-length one carries its skip reason."""
    encrypt = g.direction == "encrypt"
    if g.test_type != "AFT":
        raise g.bad(f"testType {g.test_type!r} (GCM groups are AFT)")
    key, where = _key(t, g), dict(file=t.path, line=t.line, count=t.tc, encrypt=encrypt,
                                  label=f"tgId {g.tg} {g.direction}, tcId {t.tc}")
    skip = (INTERNAL_IV_SKIP if g.raw.get("ivGen") == "internal" else
            BITS_SKIP if any((g.bits(n) or 0) % 8 for n in set(_GCM_LENGTHS.values())) else None)
    if skip:
        return GcmRecord(key, b"", b"", None, b"", b"", skip=skip, **where)
    refused = _refused(t) and not encrypt
    fields = {n: t.hex(n, empty=(n in ("aad", "pt", "ct"))) for n in ("iv", "aad", "ct", "tag")}
    fields["pt"] = None if refused else t.hex("pt", empty=True)
    for name, length in _GCM_LENGTHS.items():
        bits = g.bits(length)
        have = None if fields[name] is None else 8 * len(fields[name])
        if have is not None and bits is not None and have != bits:
            raise t.bad(name, f"{name} has {have} bits, its group's {length} is {bits}")
    return GcmRecord(key, fields["iv"], fields["aad"], fields["pt"], fields["ct"], fields["tag"],
                     **where)


def _refused(t: _Test) -> bool:
    """Whether the test's tag must be refused (``testPassed`` false)."""
    passed = t.values.get("testPassed", True)
    if not isinstance(passed, bool):
        raise t.bad("testPassed", f"testPassed is not true or false: {passed!r}")
    return not passed


def _length(t: _Test, g: _Group, name: str) -> int | None:
    """A length in bits the test gives, or else its group (None: neither)."""
    return t.number(name) if name in t.values else g.bits(name)


def _bit_data(t: _Test, name: str, bits: int | None) -> bytes:
    """``name``'s bytes, as many as hold ``bits`` (None: any number, none included)."""
    data = t.hex(name, empty=True)
    if bits is not None and len(data) != -(-bits // 8):
        raise t.bad(name, f"{name} is {len(data)} bytes, but {bits} bits take {-(-bits // 8)}")
    return data


def _payload(t: _Test, g: _Group) -> tuple[bytes, bytes, int]:
    """A CTR or XTS test's pt, ct and payloadLen (the bytes' bits if no length is given)."""
    bits = _length(t, g, "payloadLen")
    pt, ct = _bit_data(t, "pt", bits), _bit_data(t, "ct", bits)
    if len(pt) != len(ct):
        raise t.bad("ct", f"pt is {len(pt)} bytes, ct {len(ct)}")
    return pt, ct, 8 * len(pt) if bits is None else bits


def _ctr_skip(t: _Test, g: _Group, data: bytes, bits: int) -> str | None:
    if bits % 8:
        return PAYLOAD_BITS_SKIP
    if not data:
        return EMPTY_SKIP
    if "iv" not in t.values:
        return CTR_NO_IV_SKIP
    if g.raw.get("incremental") is False and len(data) > _BLOCK:
        return CTR_DOWN_SKIP
    return None


def _ctr_record(t: _Test, g: _Group) -> VectorRecord:
    """A CTR test: one message from its initial counter block (+1 a block, modulo 2^128, as
    ACVP's counter and the system's count); a test the system cannot run carries the reason."""
    common = dict(mode="CTR", decrypt=g.direction == "decrypt", key=_key(t, g), file=t.path,
                  line=t.line, count=t.tc, section=f"tgId {g.tg} {g.direction}", format="acvp",
                  cipher_named="AES")
    if g.test_type not in ("AFT", "CTR"):
        raise g.bad(f"testType {g.test_type!r} (CTR groups are AFT or CTR)")
    skip = CTR_COUNTER_SKIP if g.test_type == "CTR" else None
    pt, ct, bits = (b"", b"", 0) if skip else _payload(t, g)
    skip = skip or _ctr_skip(t, g, pt, bits)
    iv = None if skip else t.hex("iv")
    if iv is not None and len(iv) != _BLOCK:
        raise t.bad("iv", f"iv is {len(iv)} bytes, not one {_BLOCK}-byte counter block")
    cut = lambda data: [data[i:i + _BLOCK] for i in range(0, len(data), _BLOCK)]
    return VectorRecord(kind="mmt" if len(pt) > _BLOCK else "kat", iv=iv, plaintext=cut(pt),
                        ciphertext=cut(ct), skip=skip, **common)


def _xts_key(t: _Test, g: _Group) -> bytes:
    key, bits = t.hex("key"), g.bits("keyLen")
    if len(key) not in (32, 64):
        raise t.bad("key", f"key is {len(key)} bytes; an XTS-AES key is two AES keys, 32 or 64")
    if bits is not None and 4 * len(key) != bits:
        raise t.bad("key", f"key has {8 * len(key)} bits, not two of its group's keyLen {bits}")
    return key


def _xts_tweak(t: _Test, g: _Group) -> bytes:
    mode = g.raw.get("tweakMode")
    if mode == "hex":
        tweak = t.hex("tweakValue")
        if len(tweak) != 16:
            raise t.bad("tweakValue", f"tweakValue is {len(tweak)} bytes, not 16")
        return tweak
    if mode != "number":
        raise g.bad(f"tweakMode {mode!r} (expected hex or number)")
    number = t.number("sequenceNumber")
    if number >= 1 << 128:
        raise t.bad("sequenceNumber", "sequenceNumber is over 128 bits")
    return number.to_bytes(16, "little")


def _xts_skip(key: bytes, bits: int, unit: int) -> str | None:
    if bits % 8:
        return PAYLOAD_BITS_SKIP
    if unit % 8:
        return XTS_UNIT_BITS_SKIP
    if unit < 128 or (bits % unit or unit) < 128:
        return XTS_SHORT_SKIP
    return XTS_KEY_SKIP if key[:len(key) // 2] == key[len(key) // 2:] else None


def _xts_record(t: _Test, g: _Group) -> XtsRecord:
    """An XTS test: its payload one data unit, or (2.0's ``dataUnitLen`` under
    ``payloadLen``) several, each next unit's tweak the last one's plus 1 as a little-endian
    number (ACVP's XtsBlockCipher and the system's run_xts alike); one the system cannot run
    carries the reason."""
    if g.test_type != "AFT":
        raise g.bad(f"testType {g.test_type!r} (XTS groups are AFT)")
    decrypt, key, tweak = g.direction == "decrypt", _xts_key(t, g), _xts_tweak(t, g)
    pt, ct, bits = _payload(t, g)
    unit = _length(t, g, "dataUnitLen")
    unit = bits if unit is None or unit >= bits else unit
    return XtsRecord(key=key, tweak=tweak, plaintext=pt, ciphertext=ct, decrypt=decrypt,
                         file=t.path, line=t.line, label=f"tgId {g.tg} {g.direction}, tcId {t.tc}",
                         skip=_xts_skip(key, bits, unit),
                         unit_bytes=None if unit == bits else unit // 8)


_CCM_LENGTHS = ("ivLen", "payloadLen", "aadLen", "tagLen")


def _ccm_fields(t: _Test, g: _Group, decrypt: bool) -> dict:
    """A CCM test's nonce, AAD, payload (None: its tag must be refused), ciphertext and tag
    (``ct`` cut by the group's tagLen), each checked against its group's length."""
    tag_bits, bits = g.bits("tagLen"), g.bits("payloadLen")
    if tag_bits is None:
        raise g.bad("no tagLen (it cuts the tag from ct)")
    f = {"iv": t.hex("iv"), "aad": t.hex("aad", empty=True)}
    ct, cut = t.hex("ct", empty=True), tag_bits // 8
    if bits is not None and len(ct) != (bits + tag_bits) // 8:
        raise t.bad("ct", f"ct is {len(ct)} bytes; its group's payloadLen {bits} and tagLen "
                          f"{tag_bits} (bits) take {(bits + tag_bits) // 8}")
    if len(ct) < cut:
        raise t.bad("ct", f"ct is {len(ct)} bytes, under its group's tagLen of {tag_bits} bits")
    f["ct"], f["tag"] = ct[:len(ct) - cut], ct[len(ct) - cut:]
    for name, length in (("iv", "ivLen"), ("aad", "aadLen")):
        have, given = 8 * len(f[name]), g.bits(length)
        if given is not None and have != given:
            raise t.bad(name, f"{name} has {have} bits, its group's {length} is {given}")
    f["pt"] = None if decrypt and _refused(t) else t.hex("pt", empty=True)
    if f["pt"] is not None and len(f["pt"]) != len(f["ct"]):
        raise t.bad("pt", f"pt is {len(f['pt'])} bytes, the ciphertext in ct {len(f['ct'])}")
    return f


def _ccm_record(t: _Test, g: _Group) -> CcmRecord:
    """A CCM test: encrypt (ciphertext and tag compared, then decrypted back) or decrypt (the
    verdict, and a passing test's payload); bit lengths carry their skip reason."""
    if g.test_type != "AFT":
        raise g.bad(f"testType {g.test_type!r} (CCM groups are AFT)")
    decrypt, key = g.direction == "decrypt", _key(t, g)
    where = dict(file=t.path, line=t.line, label=f"tgId {g.tg} {g.direction}, tcId {t.tc}")
    if any((g.bits(n) or 0) % 8 for n in _CCM_LENGTHS):
        return CcmRecord(key, b"", b"", None, b"", b"", decrypt, False, skip=CCM_BITS_SKIP,
                         **where)
    f = _ccm_fields(t, g, decrypt)
    return CcmRecord(key, f["iv"], f["aad"], f["pt"], f["ct"], f["tag"], verify=decrypt,
                         valid=f["pt"] is not None, **where)


#: the record each mode's tests become (the others: _block_record)
_RECORDS = {"CTR": _ctr_record, "GCM": _gcm_record, "XTS": _xts_record, "CCM": _ccm_record,
            "CFB8": lambda t, g: _segment_record(t, g, "CFB8"),
            "CFB1": lambda t, g: _segment_record(t, g, "CFB1")}


def parse_acvp(path, modes=None) -> list:
    """Every test of an ACVP vector set (an internalProjection, or a prompt with its
    expectedResults.json beside it), in file order: :class:`VectorRecord` for ECB, CBC, OFB,
    CFB128, CFB8, CFB1 and CTR (a Monte-Carlo test one per outer iteration),
    :class:`GcmRecord` for GCM, :class:`~.xts.XtsRecord` for XTS,
    :class:`~.ccm.CcmRecord` for CCM.  ``modes``: the modes the caller runs (``("ECB", "CBC")``
    for a core, ``("OFB",)``, ``("GCM",)``, ``("XTS",)``); a set of another is refused,
    naming the command that runs it."""
    f = _read(path)
    mode = _mode(f, modes)
    ans = _answers(f)
    index = _answer_index(ans) if ans else {}
    records = []
    for g in _groups(f):
        for t in _tests(f, g, ans, index):
            build = _RECORDS.get(mode)
            if mode in _MCT_SEGMENT and g.test_type == "MCT":
                records.extend(_mct_records(t, g, mode))
            else:
                records.append(build(t, g) if build else _block_record(t, g, mode))
    if not records:
        raise fail(path, None, "no tests in its test groups")
    return records
