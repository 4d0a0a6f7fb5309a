"""Merged shares in the placed design (issue 34): the LUTs and slices of a placed ECP5 design
whose inputs include both shares of a masked value.

Share tracking comes from the generator: every signal holding one share of a secret-dependent
value carries the attribute ``cipherfab_share`` = ``"0"`` to ``"3"`` (fresh randomness, control
and the ciphertext share registers are untagged).  Amaranth writes it on the wire; Yosys keeps
a wire's attributes on its netnames through ``synth_ecp5`` (kept part modules included), so the
synthesized netlist names every tagged bit that survives.  nextpnr flattens the hierarchy and
keeps one name per net, and where several tagged names alias one net it keeps the attributes
of the last one only: so the tags are read from the synthesized netlist (every alias, its
hierarchy prefix as nextpnr spells it) and found in the placed netlist by name, together with
the tags nextpnr kept.

Domains: a net's domains are its tags (a bit mask: share ``i`` is ``1 << i``), or, for a net driven by a combinational cell, the union
of the domains of the input nets its output depends on (its cone, back to the flip-flops and
ports).  A flip-flop is the boundary: its output carries its own tag only, so an untagged
register (a ciphertext share, randomness) ends a cone.  A memory or other hard block passes the
union of its inputs to its outputs (conservative).  A cell *merges* shares when the inputs of
one of its outputs together carry more than one domain (0 and 1; with more shares, any two);
a net tagged with two shares (synthesis merged two share registers into one) merges at its
flip-flop.

Placement units: nextpnr's ``--write`` JSON gives each cell its bel (``NEXTPNR_BEL``,
``X2/Y3/SLICEA.K0``: tile, slice, LUT or FF site).  Each TRELLIS_COMB is one LUT4 site (a LUT,
its slice's wide-function mux PFUMX/L6MUX21 on the ``OFX`` output, or half a CCU2C carry cell,
or LUT-RAM).  The unit counted is the **slice** (SLICEA-D: 2 LUT4 + 2 FF, one PFUMX, one carry
chain step, shared clock/enable/reset): the smallest unit the packer fills from unrelated
logic, and the ECP5 counterpart of a Xilinx slice.  Its PLC tile (the PFU: 4 slices) is counted
too, as a coarser neighbourhood.  A slice *mixes* when its cells carry more than one domain:
a combinational cell the shares of its inputs, a flip-flop its tag.  ``packing_only`` counts
those in which no single cell merges (the packer put cells of two shares side by side).  A *relabelled* flip-flop, tagged with one share while its data input carries only the
other (HPC2's ``Reg[b_j ^ r]`` in share ``i``'s gadget: ``b_j`` masked by fresh ``r``, which
the generator hands to domain ``i``), holds neither share in a slice: it holds a freshly
masked value, and either tag would call the slice of its own input LUT, or of the LUT that
takes it, mixed.  Their number is in the record (``relabelled_ffs``); for the LUT count they
keep their tag.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from ..errors import CipherfabError
from ..sim.robust import SHARE_ATTRIBUTE as ATTRIBUTE, SHARE_INDICES, tag_value

#: the counting rules' version: a cached count of another version is counted again (a rebuild);
#: 2: masked cores are placed share-separated by default (:mod:`.share_place`)
VERSION = 2
#: a domain set as a bit mask: share i = 1 << i (0 to 3); both of two shares = 3
BOTH = 3
OFFENDERS = 20          # cells and slices the record lists (the counts are complete)
FF = "TRELLIS_FF"
FF_DATA = ("DI", "M")         # a flip-flop's data inputs (the LUT in front, or the slice's M)
COMB = "TRELLIS_COMB"


def tagged(verilog: str) -> bool:
    """Whether a design's Verilog carries share tags (no tag: no analysis, nothing changes)."""
    return ATTRIBUTE in verilog


_IN_VERILOG = re.compile(ATTRIBUTE + r"\b(\s*=\s*(\"[^\"]*\"|[^\s,*)]*))?")


def check_source(verilog: str) -> None:
    """Every ``cipherfab_share`` attribute of a design's Verilog is "0" to "3" (one line if not),
    before any tool runs."""
    for m in _IN_VERILOG.finditer(verilog):
        value = (m.group(2) or "").strip('"')
        if value not in SHARE_INDICES:
            line = verilog.count("\n", 0, m.start()) + 1
            shown = f"{ATTRIBUTE} = {m.group(2)}" if m.group(1) else f"{ATTRIBUTE} without a value"
            raise CipherfabError(f"Verilog line {line}: {shown}: a share index is 0 to 3")


def _bit_name(base: str, i: int, width: int, offset: int, upto: bool) -> str:
    """A net bit's name as nextpnr spells it (``x0[3]``; a 1-bit net plain)."""
    if width == 1 and offset == 0:
        return base
    return f"{base}[{offset + width - i - 1 if upto else offset + i}]"


def _is_box(mod: dict) -> bool:
    attrs = mod.get("attributes", {})
    return any(str(attrs.get(a, "0")).strip("0 ") for a in ("blackbox", "whitebox"))


class _Union:
    def __init__(self):
        self.parent: list[int] = []

    def new(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, a: int) -> int:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def join(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


def synthesized_tags(netlist: dict, top: str) -> tuple[dict[str, int], dict]:
    """(every alias name of a tagged bit, nextpnr's flattened spelling -> its domain mask; counts)
    from a synthesized Yosys JSON netlist, hierarchy flattened as nextpnr flattens it."""
    mods = netlist.get("modules") if isinstance(netlist, dict) else None
    if not isinstance(mods, dict) or not isinstance(mods.get(top), dict):
        raise CipherfabError(f"the synthesized netlist has no module {top}")
    uf = _Union()
    names: list[tuple[int, str, int]] = []       # (global bit, full name, its own tag mask)

    def walk(mod: dict, prefix: str, bound: dict[int, int], depth: int) -> None:
        if depth > 64:
            raise CipherfabError(f"the synthesized netlist's hierarchy below {top} is deeper than 64")
        local = dict(bound)

        def gid(b) -> int | None:
            if not isinstance(b, int):
                return None                       # a constant
            if b not in local:
                local[b] = uf.new()
            return local[b]
        for name, net in mod.get("netnames", {}).items():
            bits = net.get("bits", [])
            raw = net.get("attributes", {}).get(ATTRIBUTE)
            mask = tag_value(prefix + name, raw) if raw is not None else 0
            offset, upto = int(net.get("offset", 0)), bool(net.get("upto", 0))
            for i, b in enumerate(bits):
                g = gid(b)
                if g is not None:
                    names.append((g, prefix + _bit_name(name, i, len(bits), offset, upto), mask))
        for cname, cell in mod.get("cells", {}).items():
            sub = mods.get(cell.get("type"))
            if not isinstance(sub, dict) or _is_box(sub):
                continue
            inner: dict[int, int] = {}
            for port, bits in cell.get("connections", {}).items():
                sub_bits = sub.get("ports", {}).get(port, {}).get("bits", [])
                for ob, ib in zip(bits, sub_bits):
                    g = gid(ob)
                    if g is None or not isinstance(ib, int):
                        continue
                    if ib in inner:
                        uf.join(inner[ib], g)
                    else:
                        inner[ib] = g
            walk(sub, f"{prefix}{cname}.", inner, depth + 1)
    walk(mods[top], "", {}, 0)
    by_bit: dict[int, int] = {}
    for g, _, mask in names:
        r = uf.find(g)
        by_bit[r] = by_bit.get(r, 0) | mask
    out = {name: by_bit[uf.find(g)] for g, name, _ in names if by_bit[uf.find(g)]}
    masks = [m for m in by_bit.values() if m]
    return out, {"tagged_bits": len(masks), "both_tags": sum(several(m) for m in masks)}


def _deps(cell: dict) -> dict[str, list[str]]:
    """Output port -> the input ports it depends on (connected ones)."""
    conns = {p: b for p, b in cell.get("connections", {}).items() if b}
    dirs = cell.get("port_directions", {})
    ins = [p for p in conns if dirs.get(p) == "input"]
    outs = [p for p in conns if dirs.get(p) == "output"]
    if cell.get("type") == FF:
        return {}                                           # the boundary: its tag only
    if cell.get("type") != COMB or cell.get("parameters", {}).get("MODE", "LOGIC") not in ("LOGIC", "CCU2"):
        return {o: ins for o in outs}                       # memory, hard block: everything
    lut = [p for p in ("A", "B", "C", "D") if p in conns]
    carry = lut + (["FCI"] if "FCI" in conns else [])
    ccu2 = cell.get("parameters", {}).get("MODE") == "CCU2"
    rule = {"F": carry if ccu2 else lut, "FCO": carry,
            "OFX": lut + [p for p in ("F1", "M", "FXA", "FXB") if p in conns]}
    return {o: rule.get(o, ins) for o in outs}


def _kind(cell: dict, port: str) -> str:
    if cell.get("type") == FF:
        return "FF"
    if cell.get("type") != COMB:
        return str(cell.get("type"))
    mode = cell.get("parameters", {}).get("MODE", "LOGIC")
    if mode == "CCU2":
        return "carry"
    if mode != "LOGIC":
        return "LUT-RAM"
    return "wide mux" if port == "OFX" else "LUT"


def several(mask: int) -> bool:
    """Whether a domain mask holds more than one share."""
    return bool(mask & (mask - 1))


def _domain_text(mask: int) -> str:
    """``"0"``, ``"0+1"``, ``"0+2+3"``: the shares of a domain mask."""
    return "+".join(i for i in SHARE_INDICES if mask >> int(i) & 1)


def placed_merges(placed: dict, tags: dict[str, int]) -> dict:
    """The merged-shares section from nextpnr's ``--write`` JSON and the synthesized tags."""
    return _count(*_propagate(placed, tags))


def cell_domains(placed: dict, tags: dict[str, int]) -> dict[str, int]:
    """Each placed cell's domain mask as the slice count sees it (0: neither share)."""
    cells, deps, dom, _, _ = _propagate(placed, tags)
    of = _of(dom)
    return {c: _own(cells[c], deps[c], of)[0] for c in cells}


def _propagate(placed: dict, tags: dict[str, int]):
    """(cells, each cell's output -> inputs, each net bit's domain mask, net names, tags)."""
    mods = placed.get("modules") if isinstance(placed, dict) else None
    if not isinstance(mods, dict) or not mods:
        raise CipherfabError("the placed netlist has no module")
    mod = next(iter(mods.values()))
    seed: dict[int, int] = {}
    net_name: dict[int, str] = {}
    for name, net in mod.get("netnames", {}).items():
        bits = [b for b in net.get("bits", []) if isinstance(b, int)]
        raw = net.get("attributes", {}).get(ATTRIBUTE)
        mask = tags.get(name.split("__unique__")[0], 0) | (tag_value(name, raw) if raw is not None else 0)
        for b in bits:
            net_name.setdefault(b, name)
            if mask:
                seed[b] = seed.get(b, 0) | mask
    cells = mod.get("cells", {})
    dom = dict(seed)
    sinks: dict[int, list[tuple[str, str]]] = {}
    deps = {c: _deps(cell) for c, cell in cells.items()}
    for c, d in deps.items():
        conns = cells[c]["connections"]
        for out, ins in d.items():
            for p in ins:
                for b in conns[p]:
                    if isinstance(b, int):
                        sinks.setdefault(b, []).append((c, out))
    work = [(c, o) for c, d in deps.items() for o in d]
    while work:                                    # monotone masks: each net changes at most twice
        c, out = work.pop()
        conns = cells[c]["connections"]
        m = 0
        for p in deps[c][out]:
            for b in conns[p]:
                m |= dom.get(b, 0) if isinstance(b, int) else 0
        for b in conns[out]:
            if isinstance(b, int) and dom.get(b, 0) | m != dom.get(b, 0):
                dom[b] = dom.get(b, 0) | m
                work.extend(sinks.get(b, []))
    return cells, deps, dom, net_name, seed


def _of(dom):
    def of(bits) -> int:
        m = 0
        for b in bits:
            m |= dom.get(b, 0) if isinstance(b, int) else 0
        return m
    return of


def _own(cell: dict, deps: dict, of) -> tuple[int, list, bool]:
    """(the cell's domain mask in its slice, its outputs whose inputs carry several, relabelled?)"""
    conns = cell.get("connections", {})
    if cell.get("type") == FF:
        own = of(conns.get("Q", []))
        hit = [("Q", own)] if several(own) else []
        data = of(b for p in FF_DATA for b in conns.get(p, []))
        if own and not several(own) and data and not data & own:
            return 0, hit, True                 # HPC2's Reg[b_j ^ r], tagged i: neither share
        return own, hit, False
    own = of(b for ins in deps.values() for p in ins for b in conns[p])
    hit = [(o, of(b for p in ins for b in conns[p])) for o, ins in deps.items()]
    return own, [(o, m) for o, m in hit if several(m)], False


def _count(cells, deps, dom, net_name, seed) -> dict:
    of = _of(dom)
    merged, cell_dom, slices, relabelled = [], {}, {}, 0
    for c in sorted(cells):
        cell = cells[c]
        conns = cell.get("connections", {})
        own, hit, again = _own(cell, deps[c], of)
        relabelled += again
        bel = str(cell.get("attributes", {}).get("NEXTPNR_BEL", ""))
        if own:
            cell_dom[c] = own
            if "." in bel:
                slices.setdefault(bel.split(".")[0], []).append(c)
        if hit:
            port = hit[0][0]
            pins = [p for p in (deps[c].get(port) or ["Q"]) if of(conns.get(p, []))]
            first = not any(several(of(conns[p])) for p in pins) and port != "Q"
            merged.append({"cell": c, "bel": bel or None, "kind": _kind(cell, port), "first": first,
                           "inputs": [{"pin": p, "net": net_name.get(conns[p][0], str(conns[p][0])),
                                       "shares": _domain_text(of(conns[p]))} for p in pins]})
    merged_cells = {m["cell"] for m in merged}
    mixed = sorted(s for s, cs in slices.items() if several(_or(cell_dom[c] for c in cs)))
    tiles: dict[str, int] = {}
    for s, cs in slices.items():
        t = s.rsplit("/", 1)[0]
        tiles[t] = tiles.get(t, 0) | _or(cell_dom[c] for c in cs)
    packing = [s for s in mixed if not merged_cells & set(slices[s])]
    luts = [m for m in merged if m["kind"] != "FF"]
    merged.sort(key=lambda m: (not m["first"], m["cell"]))
    return {
        "version": VERSION,
        "attribute": ATTRIBUTE,
        "tagged_nets_placed": sum(1 for m in seed.values() if m),
        "tagged_cells": len(cell_dom),
        "merged_luts": len(luts),
        "merged_luts_first": sum(m["first"] for m in luts),
        "merged_by_kind": {k: sum(m["kind"] == k for m in merged) for k in sorted({m["kind"] for m in merged})},
        "merged_ffs": len(merged) - len(luts),
        "relabelled_ffs": relabelled,
        "merged_slices": len(mixed),
        "merged_slices_packing_only": len(packing),
        "merged_tiles": sum(several(m) for m in tiles.values()),
        "offenders": merged[:OFFENDERS],
        "slice_offenders": [{"slice": s, "cells": {c: _domain_text(cell_dom[c]) for c in sorted(slices[s])}}
                            for s in (packing + [s for s in mixed if s not in packing])[:OFFENDERS]],
        "unit": "slice: SLICEA-D of a PLC tile (2 LUT4 + 2 FF, one PFUMX, one carry step); "
                "merged_tiles counts the PLC tile (PFU: 4 slices)",
    }


def _or(masks) -> int:
    m = 0
    for x in masks:
        m |= x
    return m


def _load(path: Path, what: str) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CipherfabError(f"{what} {path}: not readable as JSON ({e})") from None


def measure(workdir: Path, top: str) -> dict:
    """The ``shares`` section of a tagged design's build: ``netlist.json`` (Yosys) and
    ``placed.json`` (nextpnr ``--write``) in ``workdir``."""
    start = time.monotonic()
    tags, counts = synthesized_tags(_load(workdir / "netlist.json", "synthesized netlist"), top)
    out = placed_merges(_load(workdir / "placed.json", "placed netlist"), tags)
    out = {"tagged_bits_synthesized": counts["tagged_bits"],
           "synthesized_bits_with_both_tags": counts["both_tags"], **out}
    out["seconds"] = round(time.monotonic() - start, 3)
    return out


def summary(s: dict) -> str:
    """``merged shares: 0 LUTs, 0 slices (of N tagged cells)``, the line ``build`` prints."""
    extra = []
    if s["merged_luts"]:
        extra.append(f"{s['merged_luts_first']} where the shares first meet")
    if s["merged_ffs"]:
        extra.append(f"{s['merged_ffs']} FFs holding several shares")
    if s["merged_slices"]:
        extra.append(f"{s['merged_slices_packing_only']} slices by packing alone, {s['merged_tiles']} PLC tiles")
    sep = s.get("separation")
    if sep:
        extra.append(f"{s['merged_tiles']} PLC tiles" if not s["merged_slices"] else "")
        extra = [e for e in extra if e]
        extra.append(f"placed share-separated: {sep['moved_cells']} cells moved out of the "
                     f"{sep['mixed_before']} PLC tiles holding several shares")
    return (f"merged shares: {s['merged_luts']} LUTs, {s['merged_slices']} slices (of {s['tagged_cells']} "
            f"tagged cells)" + (f"; {', '.join(extra)}" if extra else ""))


def offender_lines(s: dict, n: int = 5) -> list[str]:
    """The first ``n`` merging cells and mixed slices, one line each."""
    out = []
    for m in s["offenders"][:n]:
        ins = ", ".join(f"{i['pin']}={i['net']} ({i['shares']})" for i in m["inputs"])
        out.append(f"  {m['kind']} {m['cell']} at {m['bel']}: {ins}")
    shown = {m["bel"].split(".")[0] for m in s["offenders"][:n] if m["bel"]}
    for sl in [x for x in s["slice_offenders"] if x["slice"] not in shown][:n]:
        out.append(f"  slice {sl['slice']}: " + ", ".join(f"{c} ({d})" for c, d in sl["cells"].items()))
    return out
