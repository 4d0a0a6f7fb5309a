"""A Dask cluster as the place where jobs run (``--scheduler`` of ``study`` and ``verify``).

Dask comes with the optional ``cluster`` extra; :func:`require_distributed` names the extra in
one line when it is missing, before any work starts.
"""

from __future__ import annotations

from .errors import CipherfabError

#: the Python package ``--scheduler`` needs, and the extra that installs it
CLUSTER_HINT = ("--scheduler needs Dask (dask[distributed]), an optional extra: "
                "pip install 'cipherfab[cluster]'")
#: how long a client waits for the scheduler before giving up
DASK_CONNECT_TIMEOUT = "20s"


def require_distributed():
    """``distributed``, which only ``--scheduler`` needs: it comes with the ``cluster`` extra,
    so without it the refusal says which extra to install (before any build)."""
    try:
        import distributed
    except ImportError:
        raise CipherfabError(CLUSTER_HINT) from None
    return distributed


class DaskCluster:
    """A distributed.Client connected to an existing scheduler."""

    def __init__(self, address: str):
        distributed = require_distributed()
        self._distributed = distributed
        try:
            self.client = distributed.Client(address, timeout=DASK_CONNECT_TIMEOUT)
        except Exception as e:  # noqa: BLE001
            first = (str(e).strip().splitlines() or [""])[0]
            raise CipherfabError(f"cannot connect to Dask scheduler {address}: "
                                 f"{type(e).__name__}{': ' + first if first else ''}") from e
        nthreads = self.client.nthreads()
        self.slots = max(1, sum(nthreads.values()))
        self.describe = {"kind": "dask", "scheduler": address, "workers": len(nthreads),
                         "threads": self.slots,
                         "dask_version": getattr(distributed, "__version__", None)}

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures):
        return self._distributed.as_completed(futures)

    def close(self, cancel: bool = False):
        try:
            self.client.close()
        except Exception:  # noqa: BLE001
            pass
