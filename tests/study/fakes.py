"""Test stand-ins for ``cipherfab.flow.source.design_source`` and ``cipherfab.flow.build``.

They produce records of the same shape as the real flow, with deterministic,
invented numbers, in milliseconds, to test the sweep/report machinery without
synthesis tools.  They are test code only: workers (process pool, Dask) import
them as ``"fakes:fake_build"`` / ``"fakes:fake_design_source"``, which works
because tests/study/conftest.py puts this folder on ``PYTHONPATH`` and
``sys.path`` before any pool starts.

Failure injection, for tests: a design point with ``fail="generate"`` makes
:func:`fake_design_source` raise; ``fail_seeds=[2]`` makes :func:`fake_build`
raise for those seeds; ``fail="build"`` makes every seed fail.  ``cached=True`` makes
:func:`fake_build` return records marked as cached, measured at ``FAKE_CACHED_AT``.
``child_sleep=S`` makes :func:`fake_build` do what the real flow does while a tool runs: hold
a ``cipherfab-build-*`` temporary folder and wait for a child process (``sleep S``), whose pid
it writes into ``$FAKE_CHILD_PIDS/`` (for the tests that interrupt a study).  Flow options
(``router="router2"``, ``widelut=False``) lower Fmax / add LUT4 and are named in ``flow``.
"""

from __future__ import annotations

import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

from cipherfab.errors import CipherfabError
from cipherfab.flow.source import DesignSource

_ROUNDS = {128: 10, 192: 12, 256: 14}

FAKE_CACHED_AT = "2025-01-02T03:04:05+00:00"

#: keyword arguments of ``sweep``/``run_study`` that select the fakes (by name, for workers)
FAKE = {"build": "fakes:fake_build", "source_fn": "fakes:fake_design_source"}


def fake_design_source(cipher: str = "aes", *, arch: str = "iterative", key_bits: int = 128,
                       direction: str = "encrypt", sbox: str = "lut", **more) -> DesignSource:
    if more.get("fail") == "generate":
        raise CipherfabError(f"fake generator refuses {cipher}-{arch}-{key_bits}-{sbox}")
    if key_bits not in _ROUNDS:
        raise CipherfabError(f"AES key size must be 128, 192 or 256, not {key_bits}")
    design = {"cipher": cipher, "arch": arch, "key_bits": key_bits, "direction": direction,
              "sbox": sbox, **more}
    cycles = _ROUNDS[key_bits] + 1
    return DesignSource(
        verilog=f"module fake_{key_bits}_{sbox}(input clk); endmodule\n",
        top=f"fake_{key_bits}_{sbox}", design=design,
        cycles_per_block_ecb=cycles, cycles_per_block_cbc=cycles, latency=cycles,
        key_setup_cycles=1, parts={"ks": "key_schedule", "dp": "datapath", "ctl": "control"},
        elaborate_seconds=0.01)


def fake_build(source: DesignSource, *, device: str = "ecp5-85k", seed: int = 1,
               use_cache: bool = True, placer: str | None = None, router: str | None = None,
               abc9: bool | None = None, widelut: bool | None = None,
               flatten: bool | None = None, share_placement: str | None = None,
               ebr_outreg: bool | None = None) -> dict:
    d = source.design
    if d.get("fail") == "build" or seed in d.get("fail_seeds", ()):
        raise CipherfabError(f"nextpnr failed to route {source.top} (seed {seed})")
    if d.get("sleep"):
        time.sleep(float(d["sleep"]))
    if d.get("child_sleep"):
        _like_a_tool(float(d["child_sleep"]), seed)
    kb = int(d.get("key_bits", 128))
    rom = d.get("sbox") == "rom"
    ks = 300 + kb * 2 + (0 if rom else 400)
    dp = 900 + (0 if rom else 3200)
    ctl = 60
    lut4 = ks + dp + ctl + int(d.get("extra_luts", 0))
    ff = 420 + kb * 2
    ebr = 10 if rom else 0
    jitter = 1.0 + 0.03 * math.sin(seed * 1.7 + kb / 64)
    fmax = (92.0 if rom else 78.0) * jitter * (1.0 - (kb - 128) / 2000)
    if router == "router2":     # the flow options move the fakes' numbers, as the real ones do
        fmax *= 0.8
    if widelut is False:
        lut4 += 500
    pre = fmax / (0.62 if rom else 0.48)
    cyc = source.cycles_per_block_ecb
    cbc = source.cycles_per_block_cbc or cyc
    bits = source.block_bits
    thr = bits * fmax / cyc
    thr_cbc = bits * fmax / cbc
    slices = math.ceil(max(lut4, ff) / 2)
    ks_cycles = source.key_setup_cycles or 0
    syn = 13.0 + lut4 / 400
    return {
        "status": "ok", "label": source.label(), "design": dict(d), "top": source.top,
        "verilog_sha256": source.verilog_sha256,
        "device": {"name": device, "family": "ecp5", "part": "LFE5U-85F", "speed": 8},
        "seed": seed, "tools": {"yosys": "fake 0.0", "packages": {"fake-yosys": "0.0"},
                                "nextpnr": "fake 0.0"},
        "area": {"lut4": lut4, "ff": ff, "ccu2": 12, "ebr": ebr, "dsp": 0, "slices": slices,
                 "slice_rule": "ceil(max(LUT4, FF) / 2)", "lut_ff_ratio": round(lut4 / ff, 3),
                 "parts": {"key_schedule": {"lut4": ks, "ff": 2 * kb, "ebr": 2 if rom else 0},
                           "datapath": {"lut4": dp, "ff": 400, "ebr": 8 if rom else 0},
                           "control": {"lut4": ctl, "ff": 20, "ebr": 0}}},
        "timing": {"clock": "clk", "fmax_mhz": round(fmax, 2), "fmax_pre_route_mhz": round(pre, 2),
                   "wiring_ratio": round(fmax / pre, 3), "worst_paths": _worst_paths(fmax, rom, seed)},
        "performance": {
            "block_bits": bits,
            "latency_cycles": source.latency or cyc, "cycles_per_block_ecb": cyc,
            "cycles_per_block_cbc": cbc, "throughput_ecb_mbps": round(thr, 2),
            "throughput_cbc_mbps": round(thr_cbc, 2), "key_setup_cycles": ks_cycles,
            "key_setup_ns": round(ks_cycles * 1000 / fmax, 2),
            "key_setup_fraction_of_block": round(ks_cycles / cyc, 3),
            "mbps_per_lut4": round(thr / lut4, 4),
            "mbps_per_slice": round(thr / slices, 4),
            "mbps_per_ebr": round(thr / ebr, 3) if ebr else None,
            "slices_per_gbps": round(slices / (thr / 1000), 1)},
        "times": {"elaborate": source.elaborate_seconds, "synthesize": round(syn, 2),
                  "place": 20.0 + seed, "route": 8.0, "pack": 1.0,
                  "total": round(source.elaborate_seconds + syn + 29.0 + seed, 2)},
        "flow": {"placer": placer or "heap", "router": router or "router1",
                 "abc9": abc9 is not False, "widelut": widelut is not False,
                 "flatten": flatten is True, "retime": False,
                 "seed": seed},
        "cached": bool(d.get("cached")),
        "measured_at": FAKE_CACHED_AT if d.get("cached") else "2025-06-01T12:00:00+00:00",
        "times_source": f"cache (measured {FAKE_CACHED_AT})" if d.get("cached") else "this run",
    }


def fake_cached_build(source: DesignSource, *, device: str = "ecp5-85k", seed: int = 1,
                      use_cache: bool = True, **flow) -> dict:
    """:func:`fake_build` through the real build cache (``$CIPHERFAB_CACHE``), keyed and
    marked as the real flow does (``build_key``, ``cached``), for the resume tests."""
    from cipherfab.flow import cache
    k = cache.key(fake=True, sha=source.verilog_sha256, seed=seed, device=device, **flow)
    raw = cache.load(k) if use_cache else None
    if raw is None:
        raw = fake_build(source, device=device, seed=seed, **flow)
        cache.store(k, raw)
        return {**raw, "build_key": k}
    return {**raw, "cached": True, "times_source": f"cache (measured {raw['measured_at']})",
            "build_key": k}


def _worst_paths(fmax: float, rom: bool, seed: int) -> list[dict]:
    """Three paths as the flow records them: a ROM core limited by its datapath, a LUT core
    by its key schedule and control (seed 2 of a ROM core: by its control alone)."""
    parts = (["control"] if seed == 2 else ["datapath", "control"]) if rom else \
        ["key_schedule", "control", "key_schedule"]
    hop = {"cell": "c", "type": "TRELLIS_COMB", "from": "A", "to": "F", "logic_ns": 0.2, "where": parts[0],
           "net": "n", "routing_ns": 0.5, "fanout": 3}
    return [{"delay_ns": round(1000 / fmax - i / 10, 3), "logic_ns": 3.0, "routing_ns": round(1000 / fmax - 3 - i / 10, 3),
             "lut_levels": 6 + (seed if not rom else 0), "carry_cells": 0,
             "start": {"cell": "a", "register": "a", "part": parts[0], "where": parts[0]},
             "end": {"cell": "b", "pin": "DI", "register": "b", "part": parts[-1], "where": parts[-1]},
             "parts": parts, "crosses": parts, "hops": [hop]} for i in range(3)]


def _like_a_tool(seconds: float, seed: int) -> None:
    """A build folder in the temporary directory and a child process waited for, as
    ``cipherfab.flow.build`` holds while yosys or nextpnr runs."""
    with tempfile.TemporaryDirectory(prefix="cipherfab-build-") as work:
        (Path(work) / "netlist.json").write_text("{}")
        child = subprocess.Popen(["sleep", str(seconds)], cwd=work)
        pids = os.environ.get("FAKE_CHILD_PIDS")
        if pids:
            (Path(pids) / f"{os.getpid()}-{child.pid}-seed{seed}").write_text(work)
        child.wait()


def temp_dir_build(source: DesignSource, **kwargs) -> dict:
    """:func:`fake_build`, its record saying where temporary folders go in the worker."""
    return {**fake_build(source, **kwargs), "temp_dir": tempfile.gettempdir()}
