"""Share-separated placement (issue 34): no ECP5 PLC tile (PFU), so no slice, holds cells of
more than one share domain (two shares, or up to four: d groups).

nextpnr places a masked core like any other design, and its placer fills a slice's two LUTs
and two flip-flops with whatever logic sits nearby: in the masked AES core 2538 slices (2007
PLC tiles) held a share-0 cell beside a share-1 cell (:mod:`.shares` counts them).  This
nextpnr has no placement regions without Python, so the flow separates the shares itself,
between placement and routing (:func:`.pnr.place_and_route`'s ``between``):

1. nextpnr packs and places (``--no-route``) and writes the placed design;
2. :func:`separate` reads each cell's domain (:func:`.shares.cell_domains`: the generator's
   share tags, through the combinational cones), and in every tile (or, ``level="slice"``,
   slice) that holds several domains keeps one (the one with the most cells among those
   whose departure is possible) and moves the cells of every other to free sites nearby;
3. nextpnr routes the placed design as given (``--no-pack --no-place``).

What moves is a *unit*: cells that must stay together.  A LUT and the flip-flop it feeds
through the slice's direct path (``DI``) stay in one logic cell (LC); the two LUTs of a
wide-function mux (PFUMX) and the flip-flops they feed stay in one slice, and the slices of
an L6MUX21 (its ``FXA``/``FXB`` from the other slice's ``OFX``) move together into empty
slices; a flip-flop fed through routing (``M``) moves alone.  Carry chains and LUT-RAM do
not move (the other domains' units move instead).  A unit keeps its LC indices and site
names, so its cells' order inside the slice (PFUMX in LC 0) still holds.  A unit that holds
several domains itself (a LUT that merges shares) is left where it is and reported.

A destination is a slice of a tile the first placement used (so it is a logic tile) whose
tile (or slice) holds the unit's domain or none, with the unit's sites free, and which keeps
nextpnr's rules for a slice (both flip-flops on one clock enable; no carry or RAM logic) and
for a tile (every flip-flop on one clock and one set/reset, with the same inversions; no
LUT-RAM).  The nearest one to the unit's place is taken.  nextpnr checks every bel again when
it reads the design: a move it would not accept fails the build, it is not ignored.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CipherfabError
from .shares import COMB, FF, _load, cell_domains, several, synthesized_tags

_BEL = re.compile(r"^X(\d+)/Y(\d+)/SLICE([A-D])\.(\w*?)([01])$")
LETTERS = "ABCD"
#: ports of a combinational cell that tie it to its slice's other LC or to another slice
_WIDE = ("F1", "FXA", "FXB", "M", "OFX")


def _connected(cell: dict, port: str) -> bool:
    return any(isinstance(b, int) for b in cell.get("connections", {}).get(port, []))


def _param(cell: dict, name: str, default: str) -> str:
    return str(cell.get("parameters", {}).get(name, default)).strip()


def _net(cell: dict, port: str):
    bits = cell.get("connections", {}).get(port, [])
    return bits[0] if bits and isinstance(bits[0], int) else None


def tile_control(ff: dict) -> tuple:
    """What every flip-flop of a tile shares (nextpnr-ecp5's tile check)."""
    return (_net(ff, "CLK"), _net(ff, "LSR"), _param(ff, "CLKMUX", "CLK") in ("INV", "0"),
            _param(ff, "LSRMUX", "LSR") == "INV", _param(ff, "SRMODE", "LSR_OVER_CE") == "ASYNC")


def slice_control(ff: dict) -> tuple:
    """What both flip-flops of a slice share (nextpnr-ecp5's slice check)."""
    cemux = _param(ff, "CEMUX", "CE")
    return (_net(ff, "CE"), _param(ff, "GSR", "ENABLED") == "ENABLED", cemux in ("INV", "0"), cemux in ("0", "1"))


@dataclass
class Unit:
    """Cells that move together: (cell, slice offset, LC index, kind) each (the offset from
    the unit's first slice: 0 but for a mux over two slices); their domain."""
    members: list = field(default_factory=list)
    domain: int = 0
    movable: bool = True
    multi: bool = False              # part of a mux over several slices (joined by the tile)

    @property
    def span(self) -> int:
        return 1 + max(o for _, o, _, _ in self.members)


@dataclass
class Slice:
    cells: dict = field(default_factory=dict)     # (lc, kind) -> cell name
    fixed: bool = False                            # carry, RAM or a wide mux: stays as it is


def _slices(cells: dict) -> tuple[dict, dict, set]:
    """(slice (x, y, letter) -> Slice, cell -> (slice, lc, kind, site prefix), the tiles with
    LUT-RAM) of the placed logic cells; other bels are not slices."""
    slices, where = {}, {}
    for name, cell in cells.items():
        m = _BEL.match(str(cell.get("attributes", {}).get("NEXTPNR_BEL", "")))
        kind = cell.get("type")
        if not m or kind not in (COMB, FF):
            continue
        key = (int(m.group(1)), int(m.group(2)), m.group(3))
        lc = int(m.group(5))
        s = slices.setdefault(key, Slice())
        s.cells[(lc, kind)] = name
        where[name] = (key, lc, kind, m.group(4))
    ram = set()
    for name, cell in cells.items():         # carry and RAM logic stays; no cell moves into a RAM tile
        mode = _param(cell, "MODE", "LOGIC")
        if cell.get("type") == COMB and mode != "LOGIC" and name in where:
            key = where[name][0]
            slices[key].fixed = True
            if mode != "CCU2":
                ram.add(key[:2])
    return slices, where, ram


def _wide(cell: dict) -> bool:
    return cell.get("type") == COMB and any(_connected(cell, p) for p in _WIDE)


def _fx_sinks(cells: dict) -> set:
    """The nets that feed an L6MUX21 (an ``FXA``/``FXB`` input): their drivers' slices and the
    mux's slice are one unit."""
    return {_net(c, p) for c in cells.values() if c.get("type") == COMB for p in ("FXA", "FXB")} - {None}


def _units(s: Slice, cells: dict, dom: dict, fx: set = frozenset()) -> list[Unit]:
    """A slice's cells as units (see the module's description); ``fx``: :func:`_fx_sinks`."""
    comb = {lc: s.cells.get((lc, COMB)) for lc in (0, 1)}
    ff = {lc: s.cells.get((lc, FF)) for lc in (0, 1)}
    paired = {lc: ff[lc] is not None and comb[lc] is not None and _connected(cells[ff[lc]], "DI")
              for lc in (0, 1)}
    multi = any(c and (_connected(cells[c], "FXA") or _connected(cells[c], "FXB") or _net(cells[c], "OFX") in fx)
                for c in comb.values())
    wide = any(c and _wide(cells[c]) for c in comb.values())
    groups: list[list[tuple[int, str]]] = []
    if wide:
        groups.append([(lc, k) for lc in (0, 1) for k in (COMB, FF)
                       if (lc, k) in s.cells and (k == COMB or paired[lc])])
    else:
        for lc in (0, 1):
            g = [(lc, k) for k in (COMB, FF) if (lc, k) in s.cells and (k == COMB or paired[lc])]
            if g:
                groups.append(g)
    for lc in (0, 1):
        if ff[lc] is not None and not paired[lc]:
            groups.append([(lc, FF)])
    out = []
    for g in groups:
        names = [s.cells[x] for x in g]
        d = 0
        for n in names:
            d |= dom.get(n, 0)
        combs = any(k == COMB for _, k in g)                 # a lone flip-flop can always go
        out.append(Unit([(n, 0, lc, k) for n, (lc, k) in zip(names, g)], d, not (s.fixed and combs),
                        multi and combs))
    return out


def _tile_units(tile, slices: dict, cells: dict, dom: dict, fx: set) -> list[tuple[int, Unit]]:
    """(first slice's letter index, unit) of a tile's slices; the wide-mux units of slices
    joined by an L6MUX21 (``FXA``/``FXB`` from another slice's ``OFX``) as one unit."""
    out, joined = [], {}
    for i, letter in enumerate(LETTERS):
        s = slices.get((*tile, letter))
        for u in _units(s, cells, dom, fx) if s else []:
            if u.multi:
                joined[i] = u
            else:
                out.append((i, u))
    ofx = {}                                   # an OFX output's net -> the slice that drives it
    for i, u in joined.items():
        for n, _, _, _ in u.members:
            b = _net(cells[n], "OFX")
            if b is not None:
                ofx[b] = i
    group = {i: i for i in joined}
    for i, u in joined.items():                # slices joined through FXA/FXB, each to the lowest
        for n, _, _, _ in u.members:
            for port in ("FXA", "FXB"):
                j = ofx.get(_net(cells[n], port))
                if j is not None:
                    a, b = sorted((group[i], group[j]))
                    group = {k: (a if g == b else g) for k, g in group.items()}
    for base in sorted(set(group.values())):
        parts = [i for i in joined if group[i] == base]
        members, d, fixed = [], 0, False
        for i in parts:
            members += [(n, i - base, lc, k) for n, _, lc, k in joined[i].members]
            d |= joined[i].domain
            fixed |= not joined[i].movable
        span = 1 + max(parts) - base
        movable = not fixed and (span == 4 and base == 0 or span <= 2 and base in (0, 2))
        out.append((base, Unit(members, d, movable, True)))
    return out


#: the units that must not hold more than one domain: ``slice`` (SLICEA-D) or ``tile`` (the PFU)
LEVELS = ("slice", "tile")


class _Count:
    """Cells of each domain mask per slice and per tile, kept as cells move."""

    def __init__(self, slices: dict, dom: dict):
        self.n: dict = {}
        for key, s in slices.items():
            for c in s.cells.values():
                self.add(key, dom.get(c, 0), 1)

    def add(self, key, d: int, k: int) -> None:
        for region in (key, key[:2]):
            if d:
                counts = self.n.setdefault(region, {})
                counts[d] = counts.get(d, 0) + k

    def domain(self, region) -> int:
        """The union of the domain masks of the cells in ``region`` (0: none)."""
        out = 0
        for d, k in self.n.get(region, {}).items():
            out |= d if k else 0
        return out


def separate(placed: dict, tags: dict[str, int], level: str = "tile") -> dict:
    """Move cells of ``placed`` (nextpnr's ``--write`` JSON, changed in place: bels, and no
    routing) so that no slice, or no tile (``level``), holds more than one domain; what was done."""
    if level not in LEVELS:
        raise CipherfabError(f"share separation is by slice or by tile, not {level!r}")
    mods = placed.get("modules") if isinstance(placed, dict) else None
    if not isinstance(mods, dict) or not mods:
        raise CipherfabError("the placed netlist has no module")
    mod = next(iter(mods.values()))
    cells = mod.get("cells", {})
    dom = {c: d for c, d in cell_domains(placed, tags).items() if d}
    slices, where, ram = _slices(cells)
    tiles = sorted({(x, y) for x, y, _ in slices})
    count = _Count(slices, dom)
    fx = _fx_sinks(cells)
    region = (lambda key: key) if level == "slice" else (lambda key: key[:2])
    mixed = sorted({region(k) for k in slices if several(count.domain(region(k)))})
    done = {"level": level, "mixed_before": len(mixed), "moved_units": 0, "moved_cells": 0, "unresolved": [],
            "used_before": _used(slices)}
    if not mixed:
        done["used_after"] = done["used_before"]
        return done
    xy = np.array(tiles)
    tile_ctrl: dict = {}
    for key, s in slices.items():
        for (lc, kind), n in s.cells.items():
            if kind == FF:
                tile_ctrl.setdefault(key[:2], tile_control(cells[n]))
    for r in mixed:
        if level == "slice":
            units = [(r, u) for u in _units(slices[r], cells, dom, fx)]
            for _, u in units:
                u.movable &= not u.multi              # a mux over two slices moves with its tile's units
        else:
            units = [((*r, LETTERS[i]), u) for i, u in _tile_units(r, slices, cells, dom, fx)]
        name = _slice_name(r) if level == "slice" else f"X{r[0]}/Y{r[1]}"
        if any(several(u.domain) for _, u in units):
            done["unresolved"].append({level: name, "why": "one unit holds more than one domain"})
            continue
        sides = {d: [(k, u) for k, u in units if u.domain == d] for d in sorted({u.domain for _, u in units} - {0})}
        # keep one domain; every other one's units move: a choice whose movers can all move
        options = [d for d in sides if all(u.movable for e in sides if e != d for _, u in sides[e])]
        if not options:
            done["unresolved"].append({level: name, "why": "the cells of all domains but one cannot move"})
            continue
        keep = max(options, key=lambda d: (sum(len(u.members) for _, u in sides[d]), d))
        movers = [(k, u) for d in sides if d != keep for k, u in sides[d]]
        for key, u in movers:
            dest = _destination(u, r, region, slices, cells, count, tile_ctrl, tiles, xy, ram)
            if dest is None:
                done["unresolved"].append({level: name, "why": "no free place found for a unit"})
                break
            for n, offset, lc, kind in u.members:
                old = where[n]
                to = (dest[0], dest[1], LETTERS[LETTERS.index(dest[2]) + offset])
                del slices[old[0]].cells[(lc, kind)]
                count.add(old[0], dom.get(n, 0), -1)
                slices.setdefault(to, Slice()).cells[(lc, kind)] = n
                count.add(to, dom.get(n, 0), 1)
                where[n] = (to, lc, kind, old[3])
                cells[n].setdefault("attributes", {})["NEXTPNR_BEL"] = \
                    f"X{to[0]}/Y{to[1]}/SLICE{to[2]}.{old[3]}{lc}"
                if kind == FF:
                    tile_ctrl.setdefault(to[:2], tile_control(cells[n]))
            done["moved_units"] += 1
            done["moved_cells"] += len(u.members)
    for net in mod.get("netnames", {}).values():     # routed again, from the new placement
        net.get("attributes", {}).pop("ROUTING", None)
    done["used_after"] = _used(slices)
    return done


def _used(slices: dict) -> dict:
    """Slices and tiles (PFUs) holding at least one logic cell."""
    held = [k for k, s in slices.items() if s.cells]
    return {"slices": len(held), "tiles": len({k[:2] for k in held})}


def _slice_name(key) -> str:
    return f"X{key[0]}/Y{key[1]}/SLICE{key[2]}"


def _fits(u: Unit, key, slices: dict, cells: dict, tile_ctrl: dict) -> bool:
    """Whether ``u``'s sites are free from slice ``key`` on and nextpnr's slice and tile
    rules hold (a unit over several slices: into empty slices only)."""
    first = LETTERS.index(key[2])
    if u.span > 1 and not (u.span <= 2 and first in (0, 2) or first == 0):
        return False
    mine = [cells[n] for n, _, _, k in u.members if k == FF]
    if mine:
        want = tile_control(mine[0])
        if any(tile_control(f) != want for f in mine) or tile_ctrl.get(key[:2], want) != want:
            return False
    for offset in range(u.span):
        s = slices.get((key[0], key[1], LETTERS[first + offset]))
        here = [(n, lc, k) for n, o, lc, k in u.members if o == offset]
        ffs = []
        if s is not None and s.cells:
            if s.fixed or u.span > 1 or any((lc, k) in s.cells for _, lc, k in here):
                return False
            if any(_wide(cells[n]) for n in s.cells.values()) or any(_wide(cells[n]) for n, _, _ in here):
                return False                           # wide muxes only in slices of their own
            ffs = [cells[n] for (lc, k), n in s.cells.items() if k == FF]
        elif s is not None and s.fixed:
            return False
        if len({slice_control(cells[n]) for n, _, k in here if k == FF} | {slice_control(f) for f in ffs}) > 1:
            return False
    return True


def _destination(u: Unit, source, region, slices, cells, count, tile_ctrl, tiles, xy, ram):
    """The nearest slice outside region ``source`` that takes ``u`` without holding another
    domain (tiles the first placement used), or None."""
    sx, sy = source[0], source[1]
    order = np.argsort(np.abs(xy[:, 0] - sx) + np.abs(xy[:, 1] - sy), kind="stable")
    for i in order:
        x, y = tiles[i]
        if (x, y) in ram:
            continue
        for letter in LETTERS[:5 - u.span]:
            key = (x, y, letter)
            if any(region((x, y, LETTERS[LETTERS.index(letter) + o])) == source
                   or count.domain(region((x, y, LETTERS[LETTERS.index(letter) + o]))) not in (0, u.domain)
                   for o in range(u.span)):
                continue
            if _fits(u, key, slices, cells, tile_ctrl):
                return key
    return None


def run(workdir: Path, top: str, level: str = "tile") -> dict:
    """Read ``netlist.json`` (the tags) and ``placed.json`` in ``workdir``, separate, write
    ``placed-changed.json``; what :func:`separate` did, and its seconds."""
    start = time.monotonic()
    tags, _ = synthesized_tags(_load(workdir / "netlist.json", "synthesized netlist"), top)
    placed = _load(workdir / "placed.json", "placed netlist")
    done = separate(placed, tags, level)
    (workdir / "placed-changed.json").write_text(json.dumps(placed))
    done["seconds"] = round(time.monotonic() - start, 3)
    return done
