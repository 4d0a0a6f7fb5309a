"""Where a sweep's jobs run: a local process pool, this process (inline), or a Dask cluster
(:class:`cipherfab.cluster.DaskCluster`).  Each has ``slots``, ``describe``, ``submit``,
``as_completed`` and ``close(cancel)``.

On Dask, every worker must have cipherfab (and the tools) installed; start workers with one
thread each (``dask worker ADDR --nthreads 1 --nworkers N``), since one build saturates a core.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import shutil
import signal
import tempfile

from ..cluster import DaskCluster


def _worker_start(work: str) -> None:
    """Set up a pool worker: its own process group, so that stopping the study stops the worker
    together with the yosys/nextpnr it runs (and a terminal's Ctrl-C reaches only the study,
    which decides what to keep); its temporary folders (``cipherfab-build-*``, YoWASP's) inside
    the study's work folder, which the study removes whatever happens to the worker."""
    with contextlib.suppress(OSError):
        os.setpgrp()
    os.environ["TMPDIR"] = work
    tempfile.tempdir = work


class _Local:
    """concurrent.futures process pool; stopping it kills the workers and their tools at once."""

    def __init__(self, jobs: int):
        self.slots = max(1, jobs)
        # the forkserver listens on a socket in the temporary folder: a long $TMPDIR overflows
        # AF_UNIX's 107 bytes ("path too long"), so then the workers are spawned instead
        method = "forkserver" if len(tempfile.gettempdir()) <= 60 else "spawn"
        try:
            ctx = multiprocessing.get_context(method)
        except ValueError:
            ctx = None
        self.work = tempfile.mkdtemp(prefix="cipherfab-study-")
        self.pool = cf.ProcessPoolExecutor(max_workers=self.slots, mp_context=ctx,
                                           initializer=_worker_start, initargs=(self.work,))
        self.describe = {"kind": "local", "workers": self.slots}

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def as_completed(self, futures):
        return cf.as_completed(futures)

    def close(self, cancel: bool = False):
        """Wait for the workers; with ``cancel``, kill them (running builds included) instead."""
        try:
            if cancel:
                self._kill_workers()
            self.pool.shutdown(wait=not cancel, cancel_futures=cancel)
        finally:
            shutil.rmtree(self.work, ignore_errors=True)

    def _kill_workers(self) -> None:
        """SIGKILL each worker's process group (the worker and the tools it started), then wait
        for the workers: a build in flight would otherwise hold the study for minutes."""
        procs = dict(getattr(self.pool, "_processes", None) or {})
        for pid in procs:
            for kill in (os.killpg, os.kill):   # kill alone: a worker not yet in its own group
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
        for proc in procs.values():
            with contextlib.suppress(Exception):
                proc.join(timeout=5)


class _Inline:
    """Run jobs in this process, one after another (debugging, unpicklable functions)."""

    def __init__(self):
        self.slots = 1
        self.describe = {"kind": "inline", "workers": 1}

    def submit(self, fn, *args):
        f: cf.Future = cf.Future()
        f._job = (fn, args)  # run lazily in as_completed, so progress shows while running
        return f

    def as_completed(self, futures):
        for f in futures:
            fn, args = f._job
            try:
                f.set_result(fn(*args))
            except BaseException as e:  # noqa: BLE001
                f.set_exception(e)
            yield f

    def close(self, cancel: bool = False):
        pass


def open_backend(jobs: int | None, scheduler: str | None, inline: bool, builds: int | None = None):
    """Where jobs run; a local pool has no more workers than there are ``builds``."""
    if scheduler:
        return DaskCluster(scheduler)
    if inline:
        return _Inline()
    workers = jobs or os.cpu_count() or 1
    return _Local(min(workers, builds) if builds else workers)


def where(describe: dict) -> str:
    if describe.get("kind") == "dask":
        return (f"on Dask cluster {describe.get('scheduler')} ({describe.get('workers')} workers, "
                f"{describe.get('threads')} threads)")
    if describe.get("kind") == "inline":
        return "in this process, one at a time"
    n = describe.get("workers")
    return f"on {n} local worker process" + ("" if n == 1 else "es")

