"""The one cache root of cipherfab, and its layout; the tools' caches, checked with it.

``root()`` is ``$CIPHERFAB_CACHE`` if set (a relative one taken from the current folder),
else ``~/.cache/cipherfab``.  Under it:

* ``builds/``     - build measurements, one JSON per cache key (:mod:`cipherfab.flow.cache`)
* ``verilated/``  - compiled Verilator harness libraries (:mod:`cipherfab.sim.verilated`)
* ``failed/``     - tool files and logs of failed builds, one folder per cache key
* ``cores/``      - generated core Verilog, one JSON per key over the point, its lint waivers
  and every source file it came from (:mod:`cipherfab.sim.core_cache`)
* ``systems/``    - accelerator-system Verilog the simulated system was made from, one JSON per
  key over the point, the shape and every source file it came from (:mod:`cipherfab.host.system_cache`)
* ``tools.json``  - the tools' own version lines, per installed package version

Everything here can be deleted at any time; it only costs time to rebuild.

The tools keep caches of their own, compiled WebAssembly (minutes to make): wasmtime's for
the Yosys that Amaranth runs (``$XDG_CACHE_HOME/wasmtime``, else ``~/.cache/wasmtime``)
and yowasp_runtime's for the YoWASP tools (``$YOWASP_CACHE_DIR``, else
``$XDG_CACHE_HOME/YoWASP``, else ``~/.cache/YoWASP``).  :func:`check` tries every root
a command will write (made, and a file made in it and removed) before the work, so an
unusable one is one line naming the variable it came from, not a traceback from inside
a compile or a tool.
"""

from __future__ import annotations

import os
from pathlib import Path

from .userfiles import writable_folder, write_atomic

ENV = "CIPHERFAB_CACHE"
#: variables naming a tool's cache folder that a relative value would break (a tool runs
#: in a work folder, so a relative cache would be a new, empty one in each)
TOOL_ENV = ("XDG_CACHE_HOME", "YOWASP_CACHE_DIR")


def _absolute(text: str) -> Path:
    return Path(os.path.abspath(os.path.expanduser(text)))


def root() -> Path:
    """The cache root: ``$CIPHERFAB_CACHE`` or ``~/.cache/cipherfab``, always absolute (the
    Verilator and tool runs work in other folders)."""
    env = os.environ.get(ENV)
    return _absolute(env) if env else _absolute(str(Path.home() / ".cache" / "cipherfab"))


def _user_cache() -> tuple[Path, str]:
    """The user's cache folder and where it came from: an absolute ``$XDG_CACHE_HOME``, else
    ``$HOME/.cache`` (what wasmtime's and platformdirs' lookups agree on)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg), f"XDG_CACHE_HOME={xdg}"
    home = os.environ.get("HOME")
    return Path(home or Path.home()) / ".cache", f"HOME={home}" if home else "the home folder"


def tool_caches() -> list[tuple[Path, str]]:
    """(folder, where it came from) of the tools' caches: wasmtime's (Amaranth's Yosys) and
    yowasp_runtime's (``cipherfab build``'s Yosys and nextpnr)."""
    user, source = _user_cache()
    yowasp = os.environ.get("YOWASP_CACHE_DIR")
    if yowasp:
        return [(user / "wasmtime", source), (Path(yowasp), f"YOWASP_CACHE_DIR={yowasp}")]
    try:                      # the very call yowasp_runtime makes (another folder off Linux)
        import platformdirs
        folder = Path(platformdirs.user_cache_dir("YoWASP", appauthor=False))
    except ImportError:       # pragma: no cover - platformdirs comes with yowasp_runtime
        folder = user / "YoWASP"
    return [(user / "wasmtime", source), (folder, source)]


def check(own: bool = True, tools: bool = True) -> None:
    """Before a command's work: the caches it writes can be made and written, else one line
    naming the folder, the variable it came from and the problem.  A relative
    ``XDG_CACHE_HOME`` or ``YOWASP_CACHE_DIR`` is made absolute here (in ``os.environ``, so the
    tools see it): the tools run in work folders, where a relative one would be a new cache."""
    for name in TOOL_ENV:
        value = os.environ.get(name, "")
        if value.strip() and not os.path.isabs(value):
            os.environ[name] = str(_absolute(value))
    if own:
        env = os.environ.get(ENV)
        writable_folder(root(), "cache root", hint=f"set {ENV} to a writable folder",
                        source=f"{ENV}={env}" if env else None)
    if tools:
        for folder, source in tool_caches():
            var = "YOWASP_CACHE_DIR" if source.startswith("YOWASP") else "XDG_CACHE_HOME"
            writable_folder(folder, "tools' cache", source=source,
                            hint=f"set {var} to a writable folder")


def builds() -> Path:
    return root() / "builds"


def verilated() -> Path:
    return root() / "verilated"


def failed() -> Path:
    return root() / "failed"


def systems() -> Path:
    return root() / "systems"


def cores() -> Path:
    return root() / "cores"


def write_kept(path: Path, text: str) -> None:
    """Keep ``text`` at ``path`` (atomically: a racing writer writes the same text); a cache
    that cannot be written costs only time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text, prefix=".tmp-")
    except OSError:
        pass


def tools_file() -> Path:
    return root() / "tools.json"
