"""DOM after synthesis: in the flat ``synth_ecp5`` netlist of the DOM S-box, no register of one
share (an inner-domain term, a compression, a delay, an output) has another share's register
in its input cone; only the cross-domain registers (``<product>_s<i>_x<j>``, share i's term of
share j, masked by fresh z) read two shares.  The walk finds such registers in the glitch test
mode, which puts every product's terms into one register.

``python tests/aes/test_dom_cones.py`` runs the same walk on the whole 4-S-box DOM core
(about a minute of Yosys) and prints the count per module."""

import json
import re
import sys

from amaranth.back import rtlil

from cipherfab.flow.robust_netlist import synthesized_once

#: a register of one share: an inner term, a compression, a delay, an output (not a cross term)
ONE_SHARE = re.compile(r"_s(\d)_(?:in|c|d\d)\b|(?:^|\.)(?:a|dd|tinv|dinv)_s(\d)\b|(?:^|\.)y__(\d)\b")


def foreign_cones(netlist: dict, module: str) -> dict[str, set[str]]:
    """For each one-share register (by name) of ``module`` in a Yosys JSON netlist whose input
    cone reaches a register named with another share: those registers' names."""
    mod = netlist["modules"][module]
    names: dict[int, list[str]] = {}
    for n, v in mod["netnames"].items():
        for b in v["bits"]:
            if isinstance(b, int):
                names.setdefault(b, []).append(n)
    driver, ffs = {}, {}
    for cn, c in mod["cells"].items():
        dirs, conns = c.get("port_directions", {}), c["connections"]
        ins = [b for p, bs in conns.items() if dirs.get(p) == "input" for b in bs if isinstance(b, int)]
        for p, bs in conns.items():
            if dirs.get(p) == "output":
                for b in bs:
                    driver[b] = (c["type"], ins)
        if c["type"] == "TRELLIS_FF":
            ffs[cn] = c

    def name(bit):
        return min(names.get(bit, ["?"]), key=len)

    def cone(bits):
        seen, out, stack = set(), set(), list(bits)
        while stack:
            b = stack.pop()
            if b in seen or not isinstance(b, int) or b not in driver:
                continue
            seen.add(b)
            kind, ins = driver[b]
            if kind == "TRELLIS_FF":
                out.add(name(b))
            else:
                stack.extend(ins)
        return out
    found: dict[str, set[str]] = {}
    for c in ffs.values():
        reg = name(c["connections"]["Q"][0])
        m = ONE_SHARE.search(reg)
        if not m:
            continue
        share = next(g for g in m.groups() if g is not None)
        other = {r for r in cone(c["connections"]["DI"])
                 if re.search(rf"_s(?!{share})\d|__(?!{share})\d\b", r) and not re.search(rf"_s{share}_x\d", r)}
        if other:
            found.setdefault(reg, set()).update(other)
    return found


def _sbox_netlist(unregistered: bool) -> dict:
    """The flat synthesized netlist of one DOM S-box on 2 shares (Yosys JSON, cached)."""
    from cipherfab.ciphers.aes.masked_sbox_dom import MaskedSboxDOM
    return json.loads(synthesized_once(rtlil.convert(MaskedSboxDOM(2, unregistered), name="sbox"), "sbox",
                                       "read_rtlil", None))


def test_no_one_share_register_reads_another_share():
    net = _sbox_netlist(False)
    regs = [r for r in net["modules"]["sbox"]["netnames"] if ONE_SHARE.search(r)]
    assert len(regs) > 20                                 # the walk looks at the registers it means
    assert foreign_cones(net, "sbox") == {}


def test_the_glitch_test_mode_is_found():
    found = foreign_cones(_sbox_netlist(True), "sbox")
    assert "d_s0_c" in found and any("a_s1" in r for r in found["d_s0_c"]), found


if __name__ == "__main__":                                  # the whole 4-S-box core
    from cipherfab.generate import generate_verilog
    from cipherfab.registry import resolve
    point = resolve("aes", "masked", sboxes=4, gadget="dom",
                    glitch_test=sys.argv[1] if len(sys.argv) > 1 else "none")
    text, top = generate_verilog(point)[0], point.top
    net = json.loads(synthesized_once(text, top, "read_verilog", None))
    total = foreign_cones(net, top)
    print(f"{top}: {len(total)} one-share registers whose input cone reads another share's registers")
    for reg, other in sorted(total.items())[:10]:
        print(f"  {reg}: {sorted(other)[:4]}")
