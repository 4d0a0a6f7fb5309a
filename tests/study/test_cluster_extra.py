"""Dask is the optional ``cluster`` extra: only ``--scheduler`` needs it, and without it the
refusal names the extra.  (These run whether or not Dask is installed.)"""

import subprocess
import sys

import pytest

from cipherfab import cluster

from cipherfab.errors import CipherfabError
from cipherfab.study import runner
from fakes import FAKE


def test_without_the_cluster_extra_scheduler_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed: ImportError
    with pytest.raises(CipherfabError) as err:
        runner.sweep(runner.make_points([{"key_bits": 128}]), [1], scheduler="tcp://127.0.0.1:1",
                     show_progress=False, **FAKE)
    assert str(err.value) == cluster.CLUSTER_HINT
    assert "pip install 'cipherfab[cluster]'" in cluster.CLUSTER_HINT


def test_nothing_imports_dask_without_scheduler():
    """The commands load and a study runs on the local pool with Dask unimportable."""
    code = ("import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None\n"
            "import cipherfab.cli, cipherfab.study.runner, cipherfab.study.report, cipherfab.sim.verify\n"
            "cipherfab.cli.build_parser()\n"
            "from cipherfab.study import runner\n"
            "recs = runner.sweep(runner.make_points([{'key_bits': 128}]), [1], inline=True,\n"
            "                    show_progress=False, build='fakes:fake_build',\n"
            "                    source_fn='fakes:fake_design_source')\n"
            "assert recs[0]['status'] == 'ok', recs\n"
            "assert 'distributed' not in [m for m in sys.modules if sys.modules[m] is not None]\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
