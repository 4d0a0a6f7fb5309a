"""Progress notes of long commands, on stderr: each stage as it starts, with the time since
the command started, so that no command is silent for long (results go to stdout).

A command turns the notes on around its work (``with stages("build"): ...``); the code that
runs the stages calls :func:`stage` as each one starts, and says nothing where no command
turned them on (a study's workers, the tests, library use).  :func:`after` is for one long
step that cannot report from inside: a note when it has run ``delay`` seconds, then one
every ``every`` seconds until it ends (nothing if it ends sooner, so a refusal stays one
line).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
import time

_active: contextvars.ContextVar = contextvars.ContextVar("cipherfab_progress", default=None)


def _say(text: str, stream=None) -> None:
    print(text, file=stream or sys.stderr, flush=True)


def elapsed_text(seconds: float) -> str:
    return f"{seconds:.1f} s"


@contextlib.contextmanager
def stages(command: str, stream=None):
    """Within: :func:`stage` notes go to ``stream`` (stderr) as ``COMMAND [T s]: TEXT``."""
    token = _active.set((command, time.monotonic(), stream))
    try:
        yield
    finally:
        _active.reset(token)


def stage(text: str) -> None:
    """A stage starts: one note, if a command turned them on (else nothing)."""
    active = _active.get()
    if active is not None:
        command, t0, stream = active
        _say(f"{command} [{elapsed_text(time.monotonic() - t0)}]: {text}", stream)


@contextlib.contextmanager
def after(delay: float, text, every: float = 15.0, stream=None, restart=None):
    """Within: if the block still runs after ``delay`` seconds, the note ``text`` (a string,
    or a callable that gives one) on stderr, then ``TEXT (still running, T s)`` every
    ``every`` seconds.  ``restart``, a callable: whenever its value changes (the caller said
    something itself), the wait for the next note starts again."""
    done = threading.Event()
    t0 = time.monotonic()

    def watch():
        wait, last, mark, first = delay, restart() if restart else None, time.monotonic(), True
        while not done.wait(min(1.0, max(0.0, mark + wait - time.monotonic()))):
            now = restart() if restart else None
            if now != last:
                last, mark = now, time.monotonic()
                continue
            if time.monotonic() < mark + wait:
                continue
            line = text() if callable(text) else text
            _say(line if first else f"{line} (still running, {time.monotonic() - t0:.0f} s)", stream)
            first, wait, mark = False, every, time.monotonic()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
