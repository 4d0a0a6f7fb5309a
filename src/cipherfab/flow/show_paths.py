"""The worst routed paths of a build record as text: one summary line, then a block per path.

A block reads as the signal goes: where the time goes (total, logic and routing ns, LUT
levels), the register it leaves and the register (and input pin) it reaches with their
parts, the parts it crosses, the slowest net and the net with the most sinks (the usual
culprit when routing dominates: a select or enable driving hundreds of sinks).  Blocks rather than one
wide table, because nextpnr's cell and net names run to 100 characters and more.
"""

from __future__ import annotations


def _net(path: dict, key: str) -> str:
    """The path's net with the largest ``key`` (routing_ns or fanout), with both."""
    nets = [h for h in path.get("hops", []) if h.get("net") is not None]
    if not nets:
        return "-"
    h = max(nets, key=lambda h: h[key])
    return f"{h['net']}: {h['routing_ns']:.3f} ns, fanout {h['fanout']}"


def _levels(path: dict) -> str:
    carry = path.get("carry_cells") or 0
    return f"{path['lut_levels']}" + (f" + {carry} carry" if carry else "")


def _share(p: dict) -> int:
    return round(100 * p["routing_ns"] / p["delay_ns"]) if p["delay_ns"] else 0


def lines(paths: list[dict]) -> list[str]:
    """The block of each path, worst first."""
    out = []
    for i, p in enumerate(paths, 1):
        s, e = p["start"], p["end"]
        out += [f"#{i}  {p['delay_ns']:.3f} ns = {p['logic_ns']:.3f} logic + {p['routing_ns']:.3f} routing "
                f"({_share(p)}%), {_levels(p)} LUT levels",
                f"    from         {s['register']}  [{s['where']}]",
                f"    to           {e['register']}, pin {e['pin']}  [{e['where']}]",
                f"    crosses      {' > '.join(p['crosses'])}",
                f"    slowest net  {_net(p, 'routing_ns')}",
                f"    most sinks   {_net(p, 'fanout')}"]
    return out


def worst_line(timing: dict) -> str | None:
    """``10.686 ns, 8 LUT levels, 75% routing: key_schedule > control > key_schedule``, or
    None for a record without analysed paths (synthesis only, iCE40, or cached from before)."""
    paths = timing.get("worst_paths")
    if not paths:
        return None
    p = paths[0]
    return f"{p['delay_ns']:.3f} ns, {_levels(p)} LUT levels, {_share(p)}% routing: " + " > ".join(p["crosses"])


def check_line(timing: dict) -> str:
    """The analysis beside nextpnr's own figure for the same clock (1000 / Fmax)."""
    if not timing.get("worst_paths"):
        return f"no register-to-register path of clock {timing.get('clock')} was found"
    ours = timing["worst_paths"][0]["delay_ns"]
    theirs = 1000.0 / timing["fmax_mhz"] if timing.get("fmax_mhz") else None
    text = (f"worst {len(timing['worst_paths'])} register-to-register paths of clock {timing.get('clock')}, "
            f"one per end register (static timing analysis of the routed design); the worst, "
            f"{ours:.3f} ns, against nextpnr's critical path 1000/Fmax = ")
    return text + (f"{theirs:.3f} ns" if theirs else "unknown")
