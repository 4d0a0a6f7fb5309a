"""Ctrl-C and SIGTERM: a study stops, cleans up and keeps what it has the same way for both."""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt, so that a study stops, cleans up
    and keeps what it has the same way for both."""

    signal_name = "SIGTERM"


def _raise_terminated(signum, frame):
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Within: SIGTERM raises :class:`Terminated` (the default would end the process at once,
    leaving its build folders and worker processes behind).  Main thread only; elsewhere a no-op."""
    try:
        before = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:      # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)


@contextlib.contextmanager
def signals_held():
    """Within: SIGINT and SIGTERM are ignored, so that stopping the workers and writing the
    results (a few seconds) is not itself cut short by a second Ctrl-C."""
    held = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            held[sig] = signal.signal(sig, signal.SIG_IGN)
    except ValueError:      # not the main thread: nothing to hold
        pass
    try:
        yield
    finally:
        for sig, before in held.items():
            signal.signal(sig, signal.SIG_DFL if before is None else before)


class StudyInterrupted(KeyboardInterrupt):
    """A study stopped by Ctrl-C or SIGTERM after it stopped its workers and kept what it had:
    ``results`` (with ``folder``: where the partial results went), ``kept`` (the earlier
    complete results left in place, or None) and ``signal_name``."""

    def __init__(self, results: dict, kept: Path | None, signal_name: str):
        super().__init__(signal_name)
        self.results, self.kept, self.signal_name = results, kept, signal_name

