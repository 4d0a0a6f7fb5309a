"""Two points through the runner on a local Dask cluster (separate worker processes)."""

import pytest

from cipherfab import cluster

distributed = pytest.importorskip("distributed")

from cipherfab.study import runner  # noqa: E402

# The test fakes (tests/study/fakes.py), by name: the Dask worker processes import them
# through PYTHONPATH, set by the autouse fixture in tests/study/conftest.py before the
# cluster starts.
BUILD = "fakes:fake_build"
SOURCE = "fakes:fake_design_source"
POINTS = [dict(cipher="aes", arch="iterative", key_bits=128, direction="encrypt", sbox="rom"),
          dict(cipher="aes", arch="iterative", key_bits=128, direction="encrypt", sbox="lut",
               fail_seeds=[2])]


def test_dask_local_cluster_two_points(tmp_path):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        from cipherfab.study.studies import Study
        study = Study(name="dask", title="dask smoke test", description="", points=POINTS,
                      seeds=(1, 2))
        res = runner.run_study(study, out=tmp_path, scheduler=cluster.scheduler_address,
                               build=BUILD, source_fn=SOURCE, show_progress=False)
    assert res["summary"] == {"builds": 4, "finished": 4, "ok": 3, "failed": 1}
    env = res["environment"]
    assert env["backend"]["kind"] == "dask" and env["backend"]["workers"] == 2
    recs = res["records"]
    assert [(r["design"]["sbox"], r["seed"], r["status"]) for r in recs] == [
        ("rom", 1, "ok"), ("rom", 2, "ok"), ("lut", 1, "ok"), ("lut", 2, "failed")]
    assert "seed 2" in recs[3]["error"] and recs[3]["worker_host"]
    assert (tmp_path / "dask" / "report.html").is_file()


def test_unreachable_scheduler_is_one_line_error(monkeypatch):
    from cipherfab.errors import CipherfabError
    monkeypatch.setattr(cluster, "DASK_CONNECT_TIMEOUT", "1s")
    with pytest.raises(CipherfabError, match="cannot connect to Dask scheduler"):
        runner.sweep(runner.make_points(POINTS[:1]), [1], scheduler="tcp://127.0.0.1:1",
                     build=BUILD, source_fn=SOURCE, show_progress=False)


@pytest.mark.slow
def test_dask_local_cluster_builds_two_real_designs(tmp_path):
    """The real flow (yosys + nextpnr) on two small external cores, on 2 Dask worker processes
    (-m slow: the default run has the real flow in test_e2e_study and Dask on fakes above)."""
    from pathlib import Path

    from cipherfab.flow.source import DesignSource
    from cipherfab.study.studies import Study

    here = Path(__file__).parent.parent
    mini = DesignSource((here / "flow" / "data" / "mini_core.v").read_text(), "mini_core",
                        {"external": True, "top": "mini_core"}, 21, latency=21, block_bits=32)
    xor = DesignSource((here / "sim" / "xorcore.v").read_text(), "xorcore",
                       {"external": True, "top": "xorcore"}, 11, latency=11)
    study = Study(name="dask-real", title="two real builds", description="", points=[], seeds=(1,))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        res = runner.run_study(study, out=tmp_path, scheduler=cluster.scheduler_address,
                               externals=[mini, xor], use_cache=False, show_progress=False)
    assert res["summary"]["ok"] == 2, res.get("failures")
    for rec in res["records"]:
        assert rec["status"] == "ok" and rec["cached"] is False
        assert rec["timing"]["fmax_mhz"] > 10 and rec["area"]["lut4"] > 0
    assert (tmp_path / "dask-real" / "report.md").is_file()


def test_key_specific_study_on_dask_with_keys(tmp_path):
    """The key-specific study's points (variants x --keys random keys, beside the generic
    cores) go through a Dask cluster like any study; its own tables reach the report."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        res = runner.run_study("key-specific", out=tmp_path, scheduler=cluster.scheduler_address,
                               build=BUILD, source_fn=SOURCE, show_progress=False, keys=2)
    assert len(res["keys"]) == 2 and res["rekey"] is None
    designs = [r["design"] for r in res["records"]]
    assert len(designs) == 4 + 2 * 13          # 4 generic cores, 13 variants x 2 keys
    aes = [d for d in designs if d["cipher"] == "aes" and d["arch"] == "key_specific"]
    assert {d["key"] for d in aes} == set(res["keys"])
    text = (tmp_path / "key-specific" / "report.md").read_text()
    assert "Key-specific variants over 2 random keys" in text and "xor_by_rom_all" in text
    assert "Re-keying without synthesis" in text and "Table 4" in text


def test_keys_only_for_key_studies(tmp_path):
    from cipherfab.errors import CipherfabError
    with pytest.raises(CipherfabError, match="--keys applies to key studies"):
        runner.run_study("quick", out=tmp_path, build=BUILD, source_fn=SOURCE, keys=3,
                         show_progress=False, inline=True)
