"""Files the user names: every input read through one check, every output name checked before work.

An input (``--vectors``, ``--verilog`` and its includes, ``--info``, ``--peer``, ``--ledger``,
``--results``, ``--in``, ``--aad``, a KAT file of ``--vectors-dir``, a build's files) is
looked at with ``os.stat`` before it is opened, so a FIFO never blocks and ``/dev/zero``
is never read, and is refused in one line naming it and the problem: an empty name, a
name the system cannot look up (too long), no such file, a folder, anything that is not a
regular file (a device, a FIFO, a socket), a file over the limit of its kind
(:data:`LIMITS`), a file that cannot be read, and text that is binary or not UTF-8.

An output name (``-o``, ``--fusesoc``, ``--json``, ``--workdir``, ``--bitstream``, ``--out``,
``--ledger``) is checked by :func:`output_file` and :func:`check_name` before any work: every
error the system gives while looking it up (``ENAMETOOLONG`` included) is one line, and a
name too long to leave room for the temporary name the file is written under is refused
before the work, not after it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .errors import CipherfabError

MiB = 1 << 20
#: the largest file of each kind that is read (bytes): far above any real one, low enough
#: that holding it in memory (a few copies while parsing) does not exhaust a machine
LIMITS = {
    "vectors": 128 * MiB,    # the largest official file, gcmEncryptExtIV128.rsp, is 2.9 MB
    "verilog": 128 * MiB,    # room for the flat netlist of a large design
    "json": 64 * MiB,        # the verification ledger of 539 points is 0.9 MB, results.json 0.7 MB
    "data": 256 * MiB,       # encrypt/decrypt --in, --aad: simulated cycle by cycle (16 MiB measured)
    "build": 1024 * MiB,     # an in-context build's netlist, config and bitstream (rekey BUILD)
}
#: what a file of each kind is called in a message when no option names it
KINDS = {"vectors": "vector file", "verilog": "Verilog file", "json": "JSON file", "data": "data file",
         "build": "build file"}
_SPECIAL = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))
#: the longest temporary-name suffix a writer adds to an output's name (``.partial-1234abcd``,
#: ``.old-1234abcd``, mkstemp's ``.abcd1234``), plus the leading dot
TEMP_ROOM = 20
PATH_MAX_DEFAULT = 4096


def _path_max() -> int:
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        return PATH_MAX_DEFAULT


PATH_MAX = _path_max()


def shown(path) -> str:
    """``path`` for a message: a name of more than 100 characters is cut in the middle."""
    text = str(path)
    return text if len(text) <= 100 else f"{text[:40]}...{text[-40:]} ({len(text)} characters)"


def size_text(n: int) -> str:
    """``20 GiB``, ``128 MiB``, ``2.5 MiB``, ``100 bytes``."""
    if n >= MiB:
        value, unit = (n / (1 << 30), "GiB") if n >= 1 << 30 else (n / MiB, "MiB")
        return f"{round(value, 1):g} {unit}"
    return f"{n} bytes"


def _refuse(what: str, path, problem: str) -> CipherfabError:
    return CipherfabError(f"{what} {shown(path)}: {problem}")


def lookup(path, what: str) -> os.stat_result | None:
    """``os.stat(path)``, or None if nothing is there; any other error is one line."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise _refuse(what, path, f"cannot look it up ({e.strerror or e})") from None
    except ValueError as e:                     # an embedded NUL
        raise _refuse(what, path, str(e)) from None


def _not_regular(st: os.stat_result) -> str | None:
    if stat.S_ISDIR(st.st_mode):
        return "is a folder, not a file"
    for test, name in _SPECIAL:
        if test(st.st_mode):
            return f"is {name}, not a regular file"
    return None if stat.S_ISREG(st.st_mode) else "not a regular file"


def input_file(name, kind: str, what: str | None = None) -> Path:
    """``name`` checked as an input of ``kind`` (a key of :data:`LIMITS`) without opening it:
    it exists, is a regular file and is within the kind's limit.  ``what`` names it in a
    message (the option, e.g. ``--vectors``; default the kind's name)."""
    what = what or KINDS[kind]
    if name is None or not str(name).strip():
        raise CipherfabError(f"{what}: empty file name")
    st = lookup(name, what)
    if st is None:
        near = nearest_existing(Path(name).parent)
        raise _refuse(what, name, f"{shown(near)} is not a folder" if os.path.lexists(near)
                      and not os.path.isdir(near) else "no such file")
    _check_stat(st, name, kind, what)
    return Path(name)


def _check_stat(st: os.stat_result, name, kind: str, what: str) -> None:
    problem = _not_regular(st)
    if problem:
        raise _refuse(what, name, problem)
    if st.st_size > LIMITS[kind]:
        raise _refuse(what, name, f"{size_text(st.st_size)}, over the {size_text(LIMITS[kind])} "
                                  f"limit for a {KINDS[kind]}")


def read_bytes(name, kind: str, what: str | None = None) -> bytes:
    """The bytes of an input checked by :func:`input_file`; opened without blocking and
    checked again on the open file (it may have been swapped since), read up to the limit."""
    what = what or KINDS[kind]
    path = input_file(name, kind, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            _check_stat(os.fstat(f.fileno()), name, kind, what)
            data = f.read(LIMITS[kind] + 1)
    except OSError as e:
        raise _refuse(what, name, f"cannot read ({e.strerror or e})") from None
    if len(data) > LIMITS[kind]:
        raise _refuse(what, name, f"grew over the {size_text(LIMITS[kind])} limit while read")
    return data


def read_text(name, kind: str, what: str | None = None, encoding: str = "utf-8") -> str:
    """The text of an input (:func:`read_bytes`): a NUL byte is a binary file, and text that
    does not decode is refused naming the first bad byte's offset."""
    what = what or KINDS[kind]
    data = read_bytes(name, kind, what)
    if b"\0" in data:
        raise _refuse(what, name, f"a binary file (NUL byte at offset {data.index(0)}), not a {KINDS[kind]}")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise _refuse(what, name, f"not {encoding.upper()} text (byte 0x{data[e.start]:02x} at "
                                  f"offset {e.start})") from None


# ------------------------------------------------------------------------------ outputs

def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_name(path, what: str, room: int = TEMP_ROOM, file: bool = True) -> Path:
    """Refuse an output name the file system cannot take: a part longer than it allows (the
    last part with ``room`` to spare for the temporary name it is written under), a whole
    path longer than ``PATH_MAX``, and (``file``) a name that ends in no file name (``.``,
    ``..``, ``/``); nothing is created."""
    if path is None or not str(path).strip():
        raise CipherfabError(f"{what}: empty path")
    path = Path(path)
    if file and path.name in ("", ".", ".."):
        raise _refuse(what, path, "names a folder, not a file")
    try:
        whole = len(os.fsencode(os.path.abspath(path)))
    except (OSError, ValueError) as e:
        raise _refuse(what, path, str(e)) from None
    if whole + room >= PATH_MAX:
        raise _refuse(what, path, f"name too long ({whole} bytes; paths take up to {PATH_MAX})")
    parts, near = path.parts, Path(".")
    for i in range(len(parts)):
        if os.path.isdir(Path(*parts[:i + 1])):
            near = Path(*parts[:i + 1])
    limit = _name_max(near)
    for i, part in enumerate(parts):
        extra = room if i == len(parts) - 1 else 0
        if len(os.fsencode(part)) + extra > limit:
            spare = f" ({limit} per name, {extra} kept for the names made from it)" if extra else ""
            raise _refuse(what, path, f"name too long: a part of {len(os.fsencode(part))} bytes, at "
                                      f"most {limit - extra} here{spare}")
    return path


def writable_folder(folder, what: str, create: bool = True, source: str | None = None,
                    hint: str = "") -> Path:
    """Refuse unless files can be made in ``folder`` (made first if ``create``): tried with a
    temporary file made and removed, not asked (``os.access`` says yes to root everywhere).
    The message names ``what``, the folder, ``source`` (the variable it came from) and ``hint``."""
    folder = Path(folder)
    label = f"{what} {shown(folder)}" + (f" (from {source})" if source else "")

    def refuse(problem: str) -> CipherfabError:
        return CipherfabError(f"{label}: {problem}" + (f"; {hint}" if hint else ""))
    try:
        st = os.stat(folder)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as e:
        raise refuse(f"cannot look it up ({e.strerror or e})") from None
    if st is not None and not stat.S_ISDIR(st.st_mode):
        raise refuse("not a folder")
    try:
        if st is None:
            if not create:
                raise refuse("no such folder")
            folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".cipherfab-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise refuse(f"cannot write there ({e.strerror or e})") from None
    return folder


def nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (``.`` for a relative path at worst)."""
    while not os.path.lexists(path) and path != path.parent:
        path = path.parent
    return path


def output_file(name, what: str, devices: bool = False) -> Path:
    """A file the command will write, checked before the work: the name fits, it is not a
    folder, its folder exists and takes a file.  An existing device or FIFO (``/dev/null``)
    is refused unless ``devices`` (then it is written in place, the folder not tried)."""
    path = check_name(name, what)
    st = lookup(path, what)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _refuse(what, path, "is a folder, not a file name")
        if not stat.S_ISREG(st.st_mode):
            if devices:
                return path
            raise _refuse(what, path, _not_regular(st))
    folder = path.parent
    if lookup(folder, what) is None:
        near = nearest_existing(folder)
        if not os.path.isdir(near):
            raise _refuse(what, path, f"{shown(near)} is not a folder")
        raise _refuse(what, path, f"folder {shown(folder)} does not exist")
    if not os.path.isdir(folder):
        raise _refuse(what, path, f"{shown(folder)} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".cipherfab-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise _refuse(what, path, f"cannot write in {shown(folder)} ({e.strerror or e})") from None
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic(path, prefix: str | None = None, suffix: str = ""):
    """The one way cipherfab replaces a file: a temporary name beside ``path`` to write
    (yielded), renamed over ``path`` when the block ends, removed if it raises.  A reader, a
    racing writer of the same file or a stop never sees half a file.  The file gets the mode
    a plain ``open`` would give (``0o666`` less the umask), not ``mkstemp``'s ``0o600``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix or f".{path.name}.", suffix=suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path, data: str | bytes, prefix: str | None = None) -> None:
    """``data`` (text as UTF-8, or bytes) into ``path`` through :func:`atomic`."""
    with atomic(path, prefix) as tmp:
        tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
