"""Robust (glitch-extended) probing on a synthesized ECP5 netlist: the first step of issue 34.

The ``hd`` and ``toggle`` models of :mod:`.leakage` are zero-delay: a LUT whose inputs come
from both shares of a value settles to a masked value, but on its way there it may show their
combination (a glitch).  The robust probing model (PROLEAD, coco-alma's transient mode,
SILVER's robust model) covers that: a probe on a cell output observes every *stable* signal
at the boundary of its combinational cone (the flip-flop outputs and primary inputs reaching
it through combinational cells only: its glitch-extended set), and with ``transitions`` also
their values in the previous clock.  Here each probe's extended set is found on the Yosys
JSON netlist of ``synth_ecp5`` (LUT4, PFUMX, L6MUX21, CCU2C, TRELLIS_FF), the netlist is
simulated clock by clock with numpy (one array element per simulation), and each probe's
joint observation is tested fixed-vs-random with PROLEAD's G-test: ``-log10(p) > 5`` fails.

This is a foundation for small netlists (gadgets); :func:`assess` tests sets of up to three
probes at one clock (``order``, :mod:`.robust_order`); see docs/guide/leakage-robust.md for
what it does not do yet.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import CipherfabError

#: PROLEAD's threshold on -log10(p) of the G-test
THRESHOLD = 5.0
#: combinational cells: their output pins and, for each, the input pins its value depends on
COMB = {"LUT4": {"Z": ("A", "B", "C", "D")},
        "PFUMX": {"Z": ("ALUT", "BLUT", "C0")},
        "L6MUX21": {"Z": ("D0", "D1", "SD")},
        "CCU2C": {"S0": ("A0", "B0", "C0", "D0", "CIN"),
                  "S1": ("A0", "B0", "C0", "D0", "A1", "B1", "C1", "D1", "CIN"),
                  "COUT": ("A0", "B0", "C0", "D0", "A1", "B1", "C1", "D1", "CIN")},
        # distributed RAM: its read port is combinational in RAD and the 64 memory cells
        # (stable signals of their own, ``<cell>.mem[word][bit]``); writes at the clock edge
        "TRELLIS_DPR16X4": {"DO": ("RAD",)}}
FF = "TRELLIS_FF"
RAM = "TRELLIS_DPR16X4"
_AUTONAME = re.compile(r"_(?:TRELLIS_FF|TRELLIS_DPR16X4|LUT4|PFUMX|L6MUX21|CCU2C)_")
#: the attribute a generator puts on a signal holding one share ("0" to "3"; masked cores)
SHARE_ATTRIBUTE = "cipherfab_share"
#: the share indices a tag may give (masked circuits have 2 to 4 shares)
SHARE_INDICES = ("0", "1", "2", "3")


@dataclass(frozen=True)
class Probe:
    """One cell output and its glitch-extended set (indices into ``Netlist.stable``)."""
    cell: str
    pin: str
    net: str
    part: str
    extended: tuple[int, ...]
    bit: int


@dataclass
class Leak:
    """A probe's test at one clock."""
    probe: Probe
    clock: int
    signals: tuple[str, ...]        # the observed stable signals (``@-1``: the previous clock)
    g: float
    df: int
    mlog10p: float
    probes: tuple = ()              # every probe of the set (order t: one per part), the first ``probe``


def tag_value(name: str, raw) -> int:
    """The domain mask (share ``i`` = ``1 << i``) of one netname's ``cipherfab_share`` attribute
    as Yosys JSON writes it (a string ``"0"`` to ``"3"`` padded with a space, or an integer as
    32 binary digits)."""
    text = raw if isinstance(raw, str) else None
    if text is not None and text.endswith(" ") and text.strip() in SHARE_INDICES:
        return 1 << int(text.strip())
    if text is not None and len(text) > 1 and set(text) <= {"0", "1"} and int(text, 2) < len(SHARE_INDICES):
        return 1 << int(text, 2)                  # an integer attribute: 0 to 3
    if text in SHARE_INDICES:
        return 1 << int(text)
    raise CipherfabError(f"net {name}: {SHARE_ATTRIBUTE} is {str(raw).strip()!r}: a share index is 0 to 3")


def domains_text(mask: int) -> str:
    """The share indices of a domain mask, lowest first (``0b101`` -> ``"02"``)."""
    return "".join(i for i in SHARE_INDICES if mask >> int(i) & 1)


class Netlist:
    """A flattened ``synth_ecp5`` netlist (Yosys ``write_json``) ready to probe and simulate."""

    def __init__(self, data: dict, top: str):
        mod = data.get("modules", {}).get(top) if isinstance(data, dict) else None
        if not isinstance(mod, dict):
            raise CipherfabError(f"the netlist has no module {top}")
        self.top = top
        try:
            self._parse(mod)
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as e:
            raise CipherfabError(f"module {top}: not a Yosys JSON netlist ({type(e).__name__}: {e})") from None

    def _parse(self, mod: dict):
        names: dict[int, str] = {}
        self.scopes: dict[int, set[str]] = {}      # bit -> the hierarchy prefixes of its public names
        self.share: dict[int, str] = {}            # bit -> the share its net is tagged with
        # a net's name: a public one, one the design gave before Yosys' autoname made one up
        # after its cells (``core.ct0_TRELLIS_FF_Q_123_DI_LUT4_Z_D``), the shallowest
        for name, net in sorted(mod.get("netnames", {}).items(),
                                 key=lambda kv: (kv[1].get("hide_name", 0), bool(_AUTONAME.search(kv[0])),
                                                 kv[0].count("."), kv[0])):
            for i, b in enumerate(net["bits"]):
                if isinstance(b, int) and b not in names:
                    names[b] = name if len(net["bits"]) == 1 else f"{name}[{i}]"
                raw = net.get("attributes", {}).get(SHARE_ATTRIBUTE)
                if isinstance(b, int) and raw is not None:
                    mask = tag_value(name, raw)
                    self.share[b] = domains_text(mask)
                if isinstance(b, int) and not net.get("hide_name", 0):
                    parts = name.split(".")[:-1]
                    self.scopes.setdefault(b, {""}).update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
        self.inputs = {p: [b for b in v["bits"] if isinstance(b, int)]
                       for p, v in mod["ports"].items() if v["direction"] == "input"}
        self.outputs = {p: v["bits"] for p, v in mod["ports"].items() if v["direction"] == "output"}
        inout = [p for p, v in mod["ports"].items() if v["direction"] not in ("input", "output")]
        if inout:
            raise CipherfabError(f"port {inout[0]}: only input and output ports are supported")
        self.driver: dict[int, tuple[str, str]] = {}       # bit -> (cell, output pin)
        # $scopeinfo: the hierarchy flatten leaves behind, no logic
        self.cells = {n: c for n, c in mod["cells"].items() if c["type"] != "$scopeinfo"}
        self.ffs = []
        self.rams: dict[str, list[int]] = {}        # RAM cell -> its memory cells' bits (word * 4 + bit)
        top_bit = max([b for net in mod.get("netnames", {}).values() for b in net["bits"] if isinstance(b, int)]
                      + [b for c in self.cells.values() for v in c["connections"].values() for b in v
                         if isinstance(b, int)] + [1])
        for cname, cell in self.cells.items():
            kind = cell["type"]
            if kind == RAM:
                p = {k: str(v).strip() for k, v in cell.get("parameters", {}).items()}
                if p.get("WCKMUX", "WCK") != "WCK":
                    raise CipherfabError(f"RAM {cname}: only rising-edge writes are supported")
                self.rams[cname] = list(range(top_bit + 1, top_bit + 65))
                for i, b in enumerate(self.rams[cname]):
                    names[b] = f"{cname.lstrip(chr(92))}.mem[{i // 4}][{i % 4}]"
                top_bit += 64
            if kind == FF:
                p = {k: str(v).strip() for k, v in cell.get("parameters", {}).items()}
                if p.get("CLKMUX", "CLK") != "CLK" or p.get("LSRMODE", "LSR") != "LSR":
                    raise CipherfabError(f"flip-flop {cname}: only rising-edge flip-flops with a plain set/reset")
                self.ffs.append((cname, cell["connections"], p))
                self.driver[cell["connections"]["Q"][0]] = (cname, "Q")
            elif kind in COMB:
                for pin in COMB[kind]:
                    for b in cell["connections"].get(pin, []):
                        if isinstance(b, int):
                            self.driver[b] = (cname, pin)
            else:
                raise CipherfabError(f"cell {cname}: type {kind} is not supported by the robust model "
                                     f"(LUT4, PFUMX, L6MUX21, CCU2C, TRELLIS_FF, TRELLIS_DPR16X4)")
        in_bits = [b for bits in self.inputs.values() for b in bits]
        self.stable = in_bits + [c["Q"][0] for _, c, _ in self.ffs] + [b for bits in self.rams.values() for b in bits]
        self.index = {b: i for i, b in enumerate(self.stable)}
        self.names = [names.get(b, f"${b}") for b in self.stable]
        self.net_names = names
        self.order = self._order()
        self.probes = self._probes()

    def _inputs_of(self, cname: str, pin: str) -> list[int]:
        cell = self.cells[cname]
        mem = self.rams.get(cname, [])               # a RAM's read port: every memory cell too
        return [b for p in COMB[cell["type"]][pin] for b in cell["connections"].get(p, []) if isinstance(b, int)] + mem

    def _order(self) -> list[str]:
        """The combinational cells in an order that evaluates each after its drivers."""
        order, state = [], {}
        for start in (c for c in self.cells if self.cells[c]["type"] in COMB):
            stack = [(start, False)]
            while stack:
                cname, done = stack.pop()
                if done:
                    state[cname] = 2
                    order.append(cname)
                    continue
                if state.get(cname) == 2:
                    continue
                if state.get(cname) == 1:
                    raise CipherfabError(f"combinational loop through cell {cname}")
                state[cname] = 1
                stack.append((cname, True))
                for pin in COMB[self.cells[cname]["type"]]:
                    for b in self._inputs_of(cname, pin):
                        d = self.driver.get(b)
                        if d and d[1] != "Q" and state.get(d[0]) != 2:
                            if state.get(d[0]) == 1:
                                raise CipherfabError(f"combinational loop through cell {d[0]}")
                            stack.append((d[0], False))
        return order

    def _probes(self) -> list[Probe]:
        ext: dict[int, frozenset[int]] = {}

        def extended(bit: int) -> frozenset[int]:
            if bit in self.index:
                return frozenset([self.index[bit]])
            if bit not in self.driver:            # an undriven net: a constant
                return frozenset()
            return ext[bit]

        probes = []
        for cname in self.order:                  # drivers first: each cone is known when needed
            cell = self.cells[cname]
            for pin in COMB[cell["type"]]:
                for b in cell["connections"].get(pin, []):
                    if isinstance(b, int):
                        ext[b] = frozenset().union(*[extended(i) for i in self._inputs_of(cname, pin)])
                        probes.append(Probe(cname, pin, self.net_names.get(b, f"${b}"),
                                            self._part(cname, b, ext[b]), tuple(sorted(ext[b])), b))
        for cname, conn, _ in self.ffs:
            q = conn["Q"][0]
            probes.append(Probe(cname, "Q", self.net_names.get(q, f"${q}"), self._part(cname, q, ()),
                                (self.index[q],), q))
        return probes

    def simulate(self, clocks: list[dict[str, np.ndarray]], n: int) -> tuple[np.ndarray, np.ndarray]:
        """(the stable signals', the probes' settled values) at each clock, both
        ``[clock, signal or probe, simulation]`` booleans.

        ``clocks[t]`` maps input ports to their values in clock ``t`` (arrays of ``n`` booleans,
        or ``[n, width]`` for a wide port); an input not given is 0.  Flip-flops start at their
        set/reset value, as the ECP5 cell model does."""
        if self.rams:
            raise CipherfabError(f"the numpy simulation has no RAM model ({next(iter(self.rams))}); "
                                 "cipherfab.sim.robust_engine simulates it")
        nbits = max([*self.driver, *self.index, 0]) + 1
        val = np.zeros((nbits + 2, n), dtype=bool)
        one = nbits + 1
        val[one] = True

        def row(b):
            return b if isinstance(b, int) else (one if b == "1" else nbits)

        for cname, conn, p in self.ffs:
            val[conn["Q"][0]] = p.get("REGSET", "RESET") == "SET"
        out = np.zeros((len(clocks), len(self.stable), n), dtype=bool)
        settled = np.zeros((len(clocks), len(self.probes), n), dtype=bool)
        probe_bits = [p.bit for p in self.probes]
        tables = {c: _table(self.cells[c]) for c in self.order}
        for t, given in enumerate(clocks):
            for port, bits in self.inputs.items():
                v = np.asarray(given.get(port, np.zeros(n, dtype=bool)), dtype=bool).reshape(n, -1)
                if v.shape[1] != len(bits):
                    raise CipherfabError(f"input {port}: {v.shape[1]} bits given, the port has {len(bits)}")
                val[bits] = v.T
            unknown = set(given) - set(self.inputs)
            if unknown:
                raise CipherfabError(f"the netlist has no input {sorted(unknown)[0]}")
            for cname in self.order:
                cell = self.cells[cname]
                c = {k: val[row(v[0])] for k, v in cell["connections"].items() if v and k not in COMB[cell["type"]]}
                for pin, v in _eval(cell["type"], c, tables[cname]).items():
                    if cell["connections"].get(pin) and isinstance(cell["connections"][pin][0], int):
                        val[cell["connections"][pin][0]] = v
            out[t] = val[self.stable]
            settled[t] = val[probe_bits]
            nxt = []
            for cname, conn, p in self.ffs:
                q = val[conn["Q"][0]]
                di = val[row(conn["DI"][0])] if "DI" in conn else np.zeros(n, dtype=bool)
                ce = {"1": True, "0": False}.get(p.get("CEMUX", "1"))     # the cell model's default
                if ce is None:
                    ce = val[row(conn["CE"][0])] if "CE" in conn else True
                    ce = ~ce if p.get("CEMUX") == "INV" else ce
                lsr = val[row(conn["LSR"][0])] if "LSR" in conn else np.zeros(n, dtype=bool)
                lsr = ~lsr if p.get("LSRMUX", "LSR") == "INV" else lsr
                nxt.append(np.where(lsr, p.get("REGSET", "RESET") == "SET", np.where(ce, di, q)))
            for (cname, conn, _), v in zip(self.ffs, nxt):
                val[conn["Q"][0]] = v
        return out, settled


    def _part(self, cell: str, out: int, extended) -> str:
        """The part of the design a probe is in: the hierarchy its flattened cell name keeps
        (``aes.sbox.q_TRELLIS_FF_Q`` -> ``aes.sbox``); for a cell named without it (LUTs
        that ABC names after a top-level net), the deepest module whose nets include its
        output (if that has a public name inside a module) and its whole extended set."""
        name = cell.lstrip("\\")
        if "." in name and not name.startswith("$"):
            return name.rsplit(".", 1)[0]
        bits = [self.stable[i] for i in extended] + ([out] if len(self.scopes.get(out, ())) > 1 else [])
        common = set.intersection(*[self.scopes.get(b, {""}) for b in bits]) if bits else {""}
        return max(common, key=lambda p: (p.count(".") + bool(p), p)) or "(top)"


def _init(cell: dict, name: str) -> np.ndarray:
    s = str(cell["parameters"][name]).strip()
    v = int(s, 2) if set(s) <= {"0", "1"} else int(s)
    return np.array([(v >> i) & 1 for i in range(16)], dtype=bool)


def _table(cell: dict):
    if cell["type"] == "LUT4":
        return _init(cell, "INIT")
    if cell["type"] == "CCU2C":
        p = cell["parameters"]
        return (_init(cell, "INIT0"), _init(cell, "INIT1"),
                str(p.get("INJECT1_0", "YES")).strip() == "YES", str(p.get("INJECT1_1", "YES")).strip() == "YES")
    return None


def _eval(kind: str, c: dict, table) -> dict:
    z = np.zeros_like(next(iter(c.values()))) if c else False
    g = lambda k: c.get(k, z)                               # noqa: E731 (an unconnected pin is 0)
    if kind == "LUT4":
        return {"Z": table[g("A") * 1 + g("B") * 2 + g("C") * 4 + g("D") * 8]}
    if kind == "PFUMX":
        return {"Z": np.where(g("C0"), g("ALUT"), g("BLUT"))}
    if kind == "L6MUX21":
        return {"Z": np.where(g("SD"), g("D1"), g("D0"))}
    init0, init1, inj0, inj1 = table                        # CCU2C, as Yosys' ccu2c_sim.vh
    l0 = init0[g("A0") * 1 + g("B0") * 2 + g("C0") * 4 + g("D0") * 8]
    l20 = init0[g("A0") * 1 + g("B0") * 2]
    s0 = l0 if inj0 else l0 ^ g("CIN")
    c0 = (l0 & g("CIN")) if inj0 else ((~l0 & l20) | (l0 & g("CIN")))
    l1 = init1[g("A1") * 1 + g("B1") * 2 + g("C1") * 4 + g("D1") * 8]
    l21 = init1[g("A1") * 1 + g("B1") * 2]
    s1 = l1 if inj1 else l1 ^ c0
    cout = (l1 & c0) if inj1 else ((~l1 & l21) | (l1 & c0))
    return {"S0": s0, "S1": s1, "COUT": cout}


def chi2_mlog10_sf(x: float, df: int) -> float:
    """``-log10`` of the chi-square survival function ``P(X > x)`` for ``df`` degrees of
    freedom: the regularized upper incomplete gamma ``Q(df/2, x/2)``, by its series below
    ``a + 1`` and its continued fraction (modified Lentz) above, in logarithms so that a
    p-value far below the smallest double still has its exponent."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 0.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:                                  # P by the series, Q = 1 - P
        term = total = 1.0 / a
        k = a
        while abs(term) > abs(total) * 1e-16:
            k += 1
            term *= z / k
            total += term
        p = math.exp(log_front) * total
        return -math.log10(max(1.0 - p, 1e-300)) if p < 1 else 300.0
    tiny = 1e-300                                  # Q by the continued fraction
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return -(log_front + math.log(h)) / math.log(10)


def g_test(table: np.ndarray) -> tuple[float, int, float]:
    """(G, degrees of freedom, -log10 p) of a ``groups x values`` count table, as PROLEAD
    pools it (``Util::GetGValue``): a value keeps its own column only if every group's
    expected count there is at least 5, and at least 20 or 5 N / values; the other values,
    those seen in one group only among them, are pooled into one column.  Degrees of freedom:
    (groups - 1)(columns - 1); a table of one column has p = 1."""
    table = np.asarray(table, dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    n = table.sum()
    if table.shape[1] < 2 or n == 0:
        return 0.0, 0, 0.0
    share = table.sum(axis=1, keepdims=True) / n
    expected = share * table.sum(axis=0, keepdims=True)
    pool_factor = n / table.shape[1]
    keep = np.all((expected >= 5) & ((expected >= 5 * pool_factor) | (expected >= 20)), axis=0)
    cols = [table[:, keep]]
    if not keep.all():
        cols.append(table[:, ~keep].sum(axis=1, keepdims=True))
    obs = np.concatenate(cols, axis=1)
    exp = share * obs.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 2 * float(np.sum(np.where(obs > 0, obs * np.log(obs / exp), 0.0)))
    df = (table.shape[0] - 1) * (obs.shape[1] - 1)
    return max(g, 0.0), df, (chi2_mlog10_sf(g, df) if df else 0.0)


def _keys(obs: np.ndarray) -> np.ndarray:
    """One integer per simulation for its row of observed bits (``[n, k]`` booleans)."""
    if obs.shape[1] <= 62:
        return obs.astype(np.int64) @ (np.int64(1) << np.arange(obs.shape[1], dtype=np.int64))
    packed = np.packbits(obs, axis=1)
    return np.unique(packed, axis=0, return_inverse=True)[1].ravel()


def assess(net: Netlist, sim: tuple[np.ndarray, np.ndarray], fixed: np.ndarray, model: str = "robust",
           transitions: bool = False, order: int = 1) -> list[Leak]:
    """Every probe set's fixed-vs-random test at every clock, worst first.

    ``sim``: what :meth:`Netlist.simulate` returned; ``fixed``: which simulations are in the
    fixed group.  ``model="robust"``: a probe observes its glitch-extended set;
    ``"settled"``: its own settled value only (the zero-delay view, for comparison).  With
    ``transitions`` a probe also observes the same signals in the previous clock (clock 0
    has no previous clock and is tested alone).  ``order`` t (1 to 3): sets of t probes at
    the same clock, their observations joined (:func:`.robust_order.probe_sets`: maximal
    observations only, each union once; ``Leak.probes`` names one probe of each part)."""
    from .robust_order import check_order, probe_sets
    values, settled = sim
    if model not in ("robust", "settled"):
        raise CipherfabError(f"unknown model {model!r} (robust, settled)")
    check_order(order)
    fixed = np.asarray(fixed, dtype=bool)
    group = fixed.astype(np.int64)
    n_stable = len(net.stable)
    # a signal: a stable one (its index) or a probe's settled value (n_stable + its index)
    own = [list(p.extended) if model == "robust" else [n_stable + pi] for pi, p in enumerate(net.probes)]
    out = []
    for t in range(values.shape[0]):
        now = np.concatenate([values[t], settled[t]])
        before = np.concatenate([values[t - 1], settled[t - 1]]) if transitions and t > 0 else None
        if order == 1:                        # every probe alone, as it always was
            sets = [(tuple(o), (pi,)) for pi, o in enumerate(own) if o]
        else:
            found = probe_sets(own, order, width=10 ** 9)
            sets = list(zip(found.unions, found.probes))
        for union, parts in sets:
            rows = list(union)
            name = lambda r: net.names[r] if r < n_stable else net.probes[r - n_stable].net   # noqa: E731
            obs, names = now[rows].T, [name(r) for r in rows]
            if before is not None:
                obs = np.concatenate([obs, before[rows].T], axis=1)
                names += [f"{name(r)}@-1" for r in rows]
            keys = _keys(obs)
            uniq, inv = np.unique(keys, return_inverse=True)
            table = np.zeros((2, len(uniq)))
            np.add.at(table, (group, inv.ravel()), 1)
            g, df, ml = g_test(table)
            probes = tuple(net.probes[pi] for pi in parts)
            out.append(Leak(probes[0], t, tuple(names), g, df, ml, probes))
    return sorted(out, key=lambda lk: -lk.mlog10p)


def fixed_vs_random(net: Netlist, secrets: dict[str, list[str]], randoms: list[str], clocks: int, n: int,
                    seed: int = 1, fixed_value: int = 1) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """Simulate ``n`` runs of ``clocks`` clocks, half with every secret at ``fixed_value``
    (the fixed group) and half with random secrets, interleaved at random.

    ``secrets`` maps a secret to the input ports holding its shares (Boolean masking: the
    shares XOR to it; all but the last share are uniform); a secret with one port is
    unmasked.  Secrets and shares are drawn once a run and held; every port of ``randoms``
    gets fresh uniform bits every clock.  Returns (:meth:`Netlist.simulate`'s result, the
    fixed group's mask)."""
    if n < 2 or clocks < 1:
        raise CipherfabError(f"need at least 2 simulations and 1 clock (got {n} and {clocks})")
    ports = [p for ps in secrets.values() for p in ps] + list(randoms)
    twice = sorted({p for p in ports if ports.count(p) > 1})
    if twice:
        raise CipherfabError(f"input {twice[0]} is named twice among the shares and the randomness")
    rng = np.random.default_rng(seed)
    fixed = rng.random(n) < 0.5
    held = {}
    for secret, ports in secrets.items():
        unknown = [p for p in ports if p not in net.inputs]
        if unknown or not ports:
            raise CipherfabError(f"secret {secret}: the netlist has no input {unknown[0] if unknown else '(none)'}")
        width = len(net.inputs[ports[0]])
        if any(len(net.inputs[p]) != width for p in ports):
            raise CipherfabError(f"secret {secret}: its share ports differ in width")
        const = np.array([(fixed_value >> i) & 1 for i in range(width)], dtype=bool)
        value = np.where(fixed[:, None], const, rng.random((n, width)) < 0.5)
        shares = [rng.random((n, width)) < 0.5 for _ in ports[1:]]
        last = value.copy()
        for s in shares:
            last ^= s
        held.update(zip(ports, [*shares, last]))
    for p in randoms:
        if p not in net.inputs:
            raise CipherfabError(f"the netlist has no randomness input {p}")
    inputs = [{**held, **{p: rng.random((n, len(net.inputs[p]))) < 0.5 for p in randoms}} for _ in range(clocks)]
    return net.simulate(inputs, n), fixed


def report(leaks: list[Leak], threshold: float = THRESHOLD) -> list[str]:
    """One line per leaking probe set and clock (``-log10 p`` above ``threshold``), worst first."""
    return [f"clock {lk.clock}  " + " + ".join(f"{p.cell}.{p.pin} ({p.part}, net {p.net})" for p in lk.probes or (lk.probe,))
            + "  "
            f"-log10(p)={lk.mlog10p:.1f}  G={lk.g:.1f} df={lk.df}  observes {{{', '.join(lk.signals)}}}"
            for lk in leaks if lk.mlog10p > threshold]
