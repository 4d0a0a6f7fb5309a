"""Turn raw tool measurements into the SPEC section 5 record.

Rules stated once here:

* ECP5 area is the *placed* design (nextpnr ``--write`` JSON), so LUTs nextpnr
  inserts (pass-through LUT4s, carry-chain feed-ins) count.  ``lut4`` = LUT4s
  in logic mode; ``ccu2`` = CCU2C carry cells (each takes both LUTs of a
  slice); ``lut_positions`` = every LUT4 site used (logic + 2 per CCU2 +
  LUT-RAM), which is nextpnr's TRELLIS_COMB count.
* Slices (ECP5): ``ceil(max(lut_positions, FF) / 2)`` - a slice holds two LUT4
  (or one CCU2C) and two FFs; with no carries or LUT-RAM this is
  ``ceil(max(LUT4, FF) / 2)``.  iCE40: logic cells (LUT4+FF+carry each) as
  placed.  Xilinx estimates: Virtex/Virtex-E/Virtex-II slice = 2 LUT4 + 2 FF,
  7-series slice = 4 LUT6 + 8 FF.
* Per-part area comes from synthesis (Yosys ``stat`` of the kept part
  modules, see ``synth``), so it excludes nextpnr's inserted cells: the parts
  sum to at most the placed totals.
* Throughput = block_bits x Fmax / cycles per block, in Mbit/s, for ECB
  (non-feedback) and CBC (feedback) use; efficiency figures use the ECB
  throughput.  Unknown cycle counts give ``None``, never a guess.
* Key setup time: key_setup_cycles / Fmax; for a core with a key clock, its
  declared key_clock_cycles at the key clock's (``key_clk``) own Fmax and the rest
  at clk's (``CoreInfo.key_setup_ns``).
"""

from __future__ import annotations


from ..hw.info import CoreInfo
from .families import family as _family
from .parse import pick_clock
from .source import DesignSource


def _div(a, b, nd=6):
    return None if a is None or not b else round(a / b, nd)


def slices(family: str, area: dict, lut_inputs: int = 4) -> tuple[int | None, str]:
    """(slices, the rule that counted them): the family's (:mod:`cipherfab.flow.families`)."""
    return _family(family).slices(area, lut_inputs)


def area(family: str, synth: dict, pnr: dict | None, lut_inputs: int = 4) -> dict:
    """The ``area`` section: placed totals where placed, synthesized otherwise."""
    if pnr:
        a = _family(family).placed_area(pnr["placed"])
        source = "placed design (nextpnr)"
    else:
        t = synth["totals"]
        keys = ("lut", "ff", "carry", "bram", "dsp", "lutram")
        a = {k: t.get(k, 0) for k in keys}
        a["lut_inputs"] = lut_inputs
        source = "synthesis only (yosys), no place-and-route"
    a["slices"], a["slice_rule"] = slices(family, a, lut_inputs)
    luts = a.get("lut4", a.get("lut"))
    a["lut_ff_ratio"] = _div(luts, a["ff"], 3)
    a["source"] = source
    a["parts"] = synth["parts"]
    a["parts_source"] = "synthesis (yosys stat per kept part module), before placement"
    if pnr:
        a["synthesized"] = synth["totals"]
    return a


def timing(pnr: dict | None, clock: str | None) -> dict:
    if not pnr:
        return {"clock": None, "fmax_mhz": None, "fmax_pre_route_mhz": None, "wiring_ratio": None,
                "note": "synthesis only, no place-and-route"}
    post = pnr["fmax"].get(clock)
    pre = pnr["fmax_pre_route"].get(clock)
    cp = pnr["critical_path"].get(clock, {})
    out = {
        "clock": clock,
        "fmax_mhz": round(post, 3),
        "fmax_pre_route_mhz": round(pre, 3) if pre else None,
        "wiring_ratio": _div(post, pre, 4),
        "target_mhz": pnr.get("target_mhz"),
        "critical_path_logic_ns": cp.get("logic_ns"),
        "critical_path_routing_ns": cp.get("routing_ns"),
        "critical_path_logic_ratio": _div(cp.get("logic_ns"), (cp.get("logic_ns") or 0) + (cp.get("routing_ns") or 0), 4),
        "fmax_by_clock_mhz": {k: round(v, 3) for k, v in pnr["fmax"].items()},
        "note": "wiring_ratio = post-route Fmax / nextpnr's post-placement estimate, which already "
                "includes estimated wire delay (can exceed 1); critical_path_logic_ratio = logic delay / "
                "total delay of the routed critical path, the analogue of paper 004's with/without wiring ratio",
    }
    if "worst_paths" in pnr:
        out["worst_paths"] = pnr["worst_paths"]
    return out


def key_setup_ns(src: DesignSource, fmax: float | None, fmax_by_clock: dict | None) -> tuple:
    """(key setup in ns, the key clock's Fmax or None): a core with a key clock (declared
    ``key_clock_cycles``) spends those cycles at the key clock's Fmax, the rest at clk's."""
    ks = src.key_setup_cycles
    if ks is None or not fmax:
        return None, None
    info = CoreInfo.from_json(src.info) if src.info else None
    if not info or not info.key_clock_cycles:
        return _div(ks * 1000.0, fmax, 3), None
    net = pick_clock(fmax_by_clock or {}, "key_clk")
    f_key = (fmax_by_clock or {}).get(net) if net else None
    if not f_key:
        return None, None
    return round(info.key_setup_ns(fmax, {"key": f_key}), 3), round(f_key, 3)


def performance(src: DesignSource, fmax: float | None, a: dict, fmax_by_clock: dict | None = None) -> dict:
    lat, ecb, cbc, ks = src.latency, src.cycles_per_block_ecb, src.cycles_per_block_cbc, src.key_setup_cycles
    ks_ns, key_fmax = key_setup_ns(src, fmax, fmax_by_clock)
    bits = src.block_bits
    thr_ecb = _div(bits * fmax, ecb, 3) if fmax else None
    thr_cbc = _div(bits * fmax, cbc, 3) if fmax else None
    luts = a.get("lut4", a.get("lut"))
    ebr = a.get("ebr", a.get("bram", 0))
    return {
        "block_bits": bits,
        "latency_cycles": lat,
        "cycles_per_block_ecb": ecb,
        "cycles_per_block_cbc": cbc,
        "throughput_ecb_mbps": thr_ecb,
        "throughput_cbc_mbps": thr_cbc,
        "key_setup_cycles": ks,
        "key_setup_ns": ks_ns,
        **({"key_clock_fmax_mhz": key_fmax} if key_fmax else {}),
        "key_setup_fraction_of_block": _div(ks, lat, 4) if ks is not None and lat else None,
        "mbps_per_lut4": _div(thr_ecb, luts),
        "mbps_per_slice": _div(thr_ecb, a.get("slices")),
        "mbps_per_ebr": _div(thr_ecb, ebr) if ebr else None,
        "slices_per_gbps": _div(a.get("slices"), thr_ecb / 1000, 3) if thr_ecb else None,
    }
