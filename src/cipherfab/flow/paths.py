"""Where the flow writes: every output path checked before any work, results written whole.

``build --json FILE``, ``build --workdir DIR``, ``build --bitstream DIR`` and
``rekey --out DIR`` are checked before elaboration, synthesis or packing, so a
path that cannot be written costs nothing: an empty name, a path under something
that is not a folder (``/dev/null/x``), a place where nothing can be created
(``/proc/x``), a file where a folder is wanted and the reverse, an output folder
that already holds something else.  Writability is tried, not asked
(``os.access`` says yes to root everywhere, and ``/proc`` refuses even root).

A folder of results (an in-context build, a re-keyed design) is written into a
hidden staging folder beside it and renamed into place at the end (:func:`staged`),
so a refusal or a failure half-way leaves nothing where the user looks; the staged
files of a failure go to the cache's ``failed/`` folder, named in the message.
A single file (``--json``) is written to a temporary name and renamed.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path

from .. import cache as cache_layout
from ..errors import CipherfabError
from ..userfiles import TEMP_ROOM, check_name, nearest_existing, output_file, write_atomic


def _named(text, option: str) -> Path:
    if text is None or not str(text).strip():
        raise CipherfabError(f"{option}: empty path")
    return Path(text)


def _try_write_in(folder: Path, option: str, path: Path) -> None:
    """Refuse unless something can be created in ``folder`` (tried with a folder made and removed)."""
    if not folder.is_dir():
        raise CipherfabError(f"{option} {path}: {folder} is not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".cipherfab-probe-", dir=folder))
    except OSError as e:
        raise CipherfabError(f"{option} {path}: cannot write in {folder} ({e.strerror or e})") from None


def file_target(text, option: str) -> Path:
    """A file the command will write: its name fits, its folder exists and is writable; not a
    folder itself (:func:`cipherfab.userfiles.output_file`; a device is written in place)."""
    return output_file(_named(text, option), option, devices=True)


def write_file(path: Path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` whole: a temporary file beside it, then renamed over it.
    An existing non-regular file (``/dev/stdout``, a pipe) is written in place instead:
    renaming over it would replace the device."""
    try:
        if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
            with open(path, "w") as f:
                f.write(text)
            return
        write_atomic(path, text)
    except OSError as e:
        raise CipherfabError(f"{option} {path}: cannot write ({e.strerror or e})") from None


def dir_target(text, option: str, *, new: bool = False, replaceable: str | None = None) -> Path:
    """A folder the command will write into.

    ``new``: the folder must not hold anything yet, except (``replaceable``) a previous
    output of the same command, recognised by that file in it, which is replaced whole.
    Otherwise an existing folder is used as it is (a work folder)."""
    path = check_name(_named(text, option), option, room=TEMP_ROOM if new else 0, file=False)
    if new and (path.name in ("", ".", "..") or path.resolve() == Path.cwd().resolve()):
        raise CipherfabError(f"{option} {path}: give the folder by its name (the current folder, its "
                             "parent or the root cannot be written whole)")
    if os.path.lexists(path) and not path.is_dir():
        raise CipherfabError(f"{option} {path}: exists and is not a folder")
    if path.is_dir():
        if new and any(path.iterdir()) and not (replaceable and (path / replaceable).is_file()):
            raise CipherfabError(f"{option} {path}: folder exists and is not empty; give a new folder "
                                 "(nothing is written over other files)")
        _try_write_in(path.parent if new else path, option, path)
        return path
    _try_write_in(nearest_existing(path), option, path)
    return path


def _make_folders(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; return those made, outermost first."""
    missing = []
    p = folder
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        os.mkdir(p)
    return list(reversed(missing))


def _remove(made: list[Path]) -> None:
    """Remove the (empty) folders :func:`_make_folders` made, innermost first."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _keep_failed(stage: Path, kind: str, name: str) -> Path | None:
    """Move a failed run's staged files under the cache's ``failed/``; None if that fails."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    label = name if name.startswith(kind) else f"{kind}-{name}"
    kept = cache_layout.failed() / f"{label}-{stamp}-{secrets.token_hex(2)}"
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(stage), str(kept))
        return kept
    except OSError:
        return None


def _publish(stage: Path, out: Path) -> None:
    """Rename ``stage`` to ``out``; an existing ``out`` (empty, or a previous output that
    :func:`dir_target` let through) is replaced."""
    if not out.is_dir():
        os.rename(stage, out)
        return
    old = out.with_name(f".{out.name}.old-{secrets.token_hex(4)}")
    os.rename(out, old)
    try:
        os.rename(stage, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def staged(out: Path, kind: str):
    """Yield a fresh staging folder beside ``out``; rename it to ``out`` when the block ends
    without error.  On a refusal or failure the staged files move to the cache's
    ``failed/`` (named in the message) and folders made for ``out`` are removed; on any
    other exception (an interrupt) they are deleted."""
    out, made = Path(out), []
    stage = out.with_name(f".{out.name}.partial-{secrets.token_hex(4)}")
    try:
        made = _make_folders(out.parent)
        os.mkdir(stage)
    except OSError as e:
        _remove(made)
        raise CipherfabError(f"cannot write {out}: {e.strerror or e}") from None
    try:
        yield stage
        _publish(stage, out)
    except BaseException as e:
        if isinstance(e, OSError):
            e = CipherfabError(f"cannot write {out}: {e.strerror or e}")
        kept = _keep_failed(stage, kind, out.name) if isinstance(e, CipherfabError) else None
        shutil.rmtree(stage, ignore_errors=True)
        _remove(made)
        if isinstance(e, CipherfabError):
            where = f" (its files: {kept})" if kept else ""
            raise CipherfabError(f"{e}{where}", e.exit_code) from None
        raise
