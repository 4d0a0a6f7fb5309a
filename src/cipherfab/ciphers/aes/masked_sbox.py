"""The masked S-box of the masked AES cores, chosen in one place (``gadget``):

- ``hpc2``: HPC2 AND gadgets (G. Cassiers et al., IEEE Trans. Computers 2021) on Boyar and
  Peralta's 113-gate circuit (:mod:`.sbox_circuit`, :class:`~cipherfab.hw.masking.masked.
  MaskedCircuit`): 34 ANDs, ``34 d (d - 1) / 2`` fresh bits an evaluation, 7 clocks; PINI, so
  secure composed in any wiring;
- ``dom``: DOM-indep products in the tower field (H. Gross et al., CT-RSA 2017;
  :mod:`.masked_sbox_dom`): ``18 d (d - 1) / 2`` fresh bits, 9 clocks; secure where each
  product's operands are independently shared registers, which its pipeline keeps.

Both take ``x`` and give ``y`` as ``d`` shares of a byte and ``rand`` every clock; their
schedules give ``latency``, ``random_bits`` and ``rand_clocks`` (which clock of an evaluation
takes which bits).
"""

from __future__ import annotations

from ...hw.masking.masked import MaskedCircuit, Schedule
from .masked_sbox_dom import DomSchedule, MaskedSboxDOM
from .sbox_circuit import GATES, INPUTS, OUTPUTS

GADGETS = {
    "hpc2": "HPC2 AND gadgets on Boyar and Peralta's circuit (Cassiers et al. 2021): "
            "34 d (d - 1) / 2 fresh bits an S-box, 7 clocks",
    "dom": "DOM-indep products in the tower field (Gross et al., CT-RSA 2017): "
           "18 d (d - 1) / 2 fresh bits an S-box, 9 clocks",
}
#: each gadget's glitch test mode (its products without their registers)
UNREGISTERED = {"hpc2": "hpc2-unregistered", "dom": "dom-unregistered"}


def check(gadget: str) -> None:
    """Refuse a gadget this module does not have."""
    if gadget not in GADGETS:
        raise ValueError(f"the masked S-box gadget is one of {', '.join(GADGETS)}, not {gadget!r}")


def schedule(gadget: str, shares: int):
    """Latency and fresh bits of one S-box (no hardware)."""
    check(gadget)
    return Schedule(GATES, INPUTS, OUTPUTS, shares) if gadget == "hpc2" else DomSchedule(shares)


def sbox(gadget: str, shares: int, unregistered: bool = False):
    """One masked S-box component (``unregistered``: the gadget's glitch TEST MODE)."""
    check(gadget)
    if gadget == "hpc2":
        return MaskedCircuit(GATES, INPUTS, OUTPUTS, unregistered=unregistered, shares=shares)
    return MaskedSboxDOM(shares, unregistered)
