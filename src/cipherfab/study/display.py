"""A sweep's progress: rich progress bars and a live status table on a terminal, one whole
line per finished build elsewhere (with a heartbeat while none finishes)."""

from __future__ import annotations

import contextlib
import sys
from typing import Sequence

from .aggregate import get_path
from .points import Point


def _fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


#: a piped study's log says how far it is when no build has finished for this long
HEARTBEAT_SECONDS = 30.0

#: marks a build whose record came from the build cache (as in the reports)
CACHED_MARK = "†"


def _cached_note(rec: dict) -> str:
    """`` † cached (measured ...)`` for a record taken from the build cache, else nothing."""
    if not rec.get("cached"):
        return ""
    return f" {CACHED_MARK} cached (measured {rec.get('measured_at') or 'at an unknown time'})"


class Display:
    """On a terminal: rich progress bars and a live status table under a log of finished builds.
    Elsewhere (a pipe, a file): the log alone, one whole line per build; a live display there
    would end on its table's last row without a newline, and the next output would run into it."""

    def __init__(self, points: list[Point], seeds: Sequence[int], slots: int, console, enabled: bool):
        self.enabled = enabled
        self.total = len(points) * len(seeds)
        self.slots = slots
        self.done = self.failed = 0
        self.last: dict | None = None
        self.live = None
        if not enabled:
            return
        from rich.console import Console, Group
        from rich.live import Live
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)
        self.console = console or Console(stderr=True)
        if not self.console.is_terminal:
            return
        self.progress = Progress(TextColumn("{task.description}", style="bold"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=self.console)
        self.overall = self.progress.add_task("all builds", total=self.total)
        self.per_point = {}
        if len(points) <= 16:
            for p in points:
                self.per_point[p.label] = self.progress.add_task(f"  {p.label}", total=len(seeds))
        self._Group = Group
        self.live = Live(self._render(), console=self.console, refresh_per_second=4,
                         transient=False)

    def say(self, text: str, always: bool = False):
        """One line before the builds start: on the display's console, or stderr if ``always``."""
        if self.enabled:
            self.console.print(text, highlight=False, soft_wrap=True)
        elif always:
            print(text, file=sys.stderr, flush=True)

    def heartbeat(self, title: str):
        """Piped (no live display): a line every HEARTBEAT_SECONDS while no build finishes,
        so the log is never silent for long (a build takes minutes)."""
        if not self.enabled or self.live is not None:
            return contextlib.nullcontext()
        from ..progress import after
        return after(HEARTBEAT_SECONDS, lambda: f"{title}: {self.done}/{self.total} builds done, "
                                                f"{min(self.slots, self.total - self.done)} running",
                     every=HEARTBEAT_SECONDS, stream=self.console.file, restart=lambda: self.done)

    def _table(self):
        from rich.table import Table
        t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for h in ("done", "running", "failed", "last result", "seed", "LUT4", "Fmax MHz",
                  "Mbit/s ECB"):
            t.add_column(h, justify="right" if h not in ("last result",) else "left")
        running = min(self.slots, self.total - self.done)
        r = self.last or {}
        ok = r.get("status") == "ok"
        mark = f" {CACHED_MARK}" if ok and r.get("cached") else ""
        t.add_row(f"{self.done}/{self.total}", str(running), str(self.failed),
                  str(r.get("study_point", "-")) + mark + ("" if ok or not r else "  [red]failed[/]"),
                  str(r.get("seed", "-")),
                  _fmt(get_path(r, "area.lut4", "area.lut")) if ok else "-",
                  _fmt(get_path(r, "timing.fmax_mhz")) if ok else "-",
                  _fmt(get_path(r, "performance.throughput_ecb_mbps")) if ok else "-")
        return t

    def _render(self):
        return self._Group(self.progress, self._table())

    def __enter__(self):
        if self.live is not None:
            self.live.__enter__()
        return self

    def __exit__(self, *exc):
        if self.live is not None:
            self.live.update(self._render())
            self.live.__exit__(*exc)

    def update(self, rec: dict):
        self.done += 1
        self.last = rec
        if rec.get("status") != "ok":
            self.failed += 1
        if not self.enabled:
            return
        word, text = self._outcome(rec)
        if self.live is None:
            self.console.print(f"[{self.done}/{self.total}] {word:6} {text}", markup=False,
                               highlight=False, soft_wrap=True)
            return
        self.progress.advance(self.overall)
        task = self.per_point.get(rec.get("study_point"))
        if task is not None:
            self.progress.advance(task)
        from rich.markup import escape
        colour = "green" if word == "ok" else "red"
        self.live.console.print(f"[{colour}]{word}[/]{' ' * (7 - len(word))}{escape(text)}",
                                highlight=False, soft_wrap=True)
        self.live.update(self._render())

    @staticmethod
    def _outcome(rec: dict) -> tuple[str, str]:
        """("ok", "POINT seed S: LUT4 ...") or ("failed", "POINT seed S: ERROR"); a build taken
        from the cache is marked † with the date it was measured."""
        where = f"{rec.get('study_point')} seed {rec.get('seed')}"
        if rec.get("status") != "ok":
            return "failed", f"{where}: {rec.get('error')}"
        return "ok", (f"{where}: LUT4 {_fmt(get_path(rec, 'area.lut4', 'area.lut'))}, "
                      f"Fmax {_fmt(get_path(rec, 'timing.fmax_mhz'))} MHz, "
                      f"{_fmt(get_path(rec, 'performance.throughput_ecb_mbps'))} Mbit/s "
                      f"({_fmt(rec.get('worker_seconds'))} s){_cached_note(rec)}")

