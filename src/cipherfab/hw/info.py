"""What a core declares about itself, once: :class:`CoreInfo`, carried on its signature.

Every cipherfab core is a ``lib.wiring`` component whose signature is a
:class:`CoreSignature`.  The signature builds the stream ports from the
declaration (so the port convention lives here and nowhere else) and
annotates the core with a :class:`CoreAnnotation` (``amaranth.lib.meta``),
whose JSON form is the sidecar written beside the Verilog.  The Verilator
harness, the evaluation flow and the reports read these facts; none of them
recomputes a cycle count.

Ports (``hw.export`` flattens them to plain Verilog names)::

    key            In  stream, key_bits wide      key_interface == "stream"
    block_in       In  stream, payload:
                         data     block_bits
                         decrypt  1               when both directions are built
                         key      key_bits        key_interface == "per_block"
    block_out      Out stream, block_bits
    busy           Out 1                          key setup, block in flight or result waiting
    seed           In  stream, seed_bits wide     seed_bits > 0: the entropy input of a core
                                                  with its own random generator (masked cores)

A core with a seed port accepts no key and no block after reset until one seed transfer
has been taken and its generators have warmed up (``seed_setup_cycles`` from the seed
handshake); a later seed reseeds them between blocks.  Its masks then depend on the seed,
never on the key alone.  ``random_bits_per_clock`` declares the fresh bits its generators
give every clock (bits a block: that times ``cycles_per_block``); 0 for every other core.

Clocks: every core runs on ``sync`` (exported as ``clk``/``rst``).  A core may
declare further clock domains in ``clocks`` (exported as ``<name>_clk``, reset
from ``rst`` through a reset synchronizer), e.g. ``("key",)`` for a key schedule
at its own clock (paper 000 section 4.6).  Then ``key_clock_cycles`` of the
``key_setup_cycles`` are cycles of the key clock: the rest are ``sync`` cycles
(crossing and handshake), and ``key_setup_cycles`` is exact when both clocks
run at the same rate.  Key setup time = (key_setup_cycles - key_clock_cycles)
/ f_sync + key_clock_cycles / f_key.

Key interfaces: ``stream`` (a key is taken between blocks, before a block
offered in the same cycle), ``per_block`` (key-agile: every block carries its
key), ``none`` (key-specific core: the key is part of the circuit).
"""

from __future__ import annotations

import json
from pathlib import Path
from dataclasses import asdict, dataclass, field, replace

from amaranth.lib import data, meta, stream, wiring
from amaranth.lib.wiring import In, Out

KEY_INTERFACES = ("stream", "per_block", "none")


@dataclass(frozen=True, kw_only=True)
class CoreInfo:
    """The facts a core declares (cycle counts are exact: the harness checks them).

    A core declares what it does, never who it is: its identity (``cipher``, ``arch`` and the
    parameter values that name it, ``params``) is its registry point's, which
    :func:`cipherfab.generate.make_core` gives it (:func:`identified`).  A core made directly
    (a unit test) has the empty identity; an external core's comes from its declaration file."""

    cipher: str = ""
    arch: str = ""
    params: dict = field(default_factory=dict)
    block_bits: int
    key_bits: int                    # bits on the key port (DES: 64/128/192, parity included)
    key_bits_effective: int          # bits that matter (DES: 56/112/168)
    key_interface: str               # one of KEY_INTERFACES
    directions: tuple[str, ...]      # ("encrypt",), ("decrypt",) or ("encrypt", "decrypt")
    latency: int                     # block_in handshake -> block_out valid, in cycles
    cycles_per_block: int            # between accepted blocks, back to back (ECB/CTR)
    cycles_per_block_feedback: int   # when each input waits for the previous output (CBC)
    blocks_in_flight: int            # independent blocks the datapath works on at once
    key_setup_cycles: int            # key handshake -> first block handshake (0: none needed)
    parts: dict = field(default_factory=dict)   # submodule name -> part, for the area split
    fixed_key: str | None = None     # hex, for key-specific cores
    notes: tuple[str, ...] = ()      # extra lines for the Verilog header
    clocks: tuple[str, ...] = ()     # clock domains besides sync, each a <name>_clk port
    key_clock_cycles: int = 0        # of key_setup_cycles, those counted in the key clock
    seed_bits: int = 0               # bits on the seed (entropy) port; 0: no seed port
    seed_setup_cycles: int = 0       # seed handshake -> the first key handshake it allows
    burst_spacing: int = 1           # clocks between the blocks_in_flight blocks of a burst
    random_bits_per_clock: int = 0   # fresh bits the core's generators give a clock (masked cores)

    def __post_init__(self):
        if self.key_interface not in KEY_INTERFACES:
            raise ValueError(f"key_interface must be one of {KEY_INTERFACES}")
        if (self.key_interface == "none") != (self.fixed_key is not None):
            raise ValueError("a core has a fixed key exactly when it has no key interface")
        if "sync" in self.clocks:
            raise ValueError("clocks names the domains besides sync")
        if self.key_clock_cycles and "key" not in self.clocks:
            raise ValueError("key_clock_cycles needs a 'key' clock in clocks")
        if self.seed_bits < 0 or (self.seed_setup_cycles and not self.seed_bits):
            raise ValueError("seed_setup_cycles needs a seed port (seed_bits > 0)")
        if self.random_bits_per_clock < 0 or (self.random_bits_per_clock and not self.seed_bits):
            raise ValueError("random_bits_per_clock needs a seed port (seed_bits > 0)")
        if not 0 <= self.key_clock_cycles <= self.key_setup_cycles:
            raise ValueError("key_clock_cycles must lie within key_setup_cycles")
        if not 1 <= self.burst_spacing * max(1, self.blocks_in_flight - 1) <= max(
                1, self.blocks_in_flight * self.cycles_per_block):
            raise ValueError("burst_spacing must fit a burst within its period")

    def key_setup_ns(self, fmax_mhz: float, fmax_by_clock_mhz: dict | None = None) -> float:
        """Key setup time at the given clock rates (a missing key clock rate: sync's)."""
        f_key = (fmax_by_clock_mhz or {}).get("key", fmax_mhz)
        return (1000.0 * (self.key_setup_cycles - self.key_clock_cycles) / fmax_mhz
                + 1000.0 * self.key_clock_cycles / f_key)

    def with_built_in_key(self, key_hex: str, variant: str, notes: tuple[str, ...] = ()) -> "CoreInfo":
        """This declaration for a key-specific form of the core (paper 004): no key port,
        no key setup, the key in ``fixed_key``; ``notes`` kept after the key-specific one."""
        return replace(self, key_interface="none", fixed_key=key_hex,
                       key_setup_cycles=0,
                       notes=(f"key-specific ({variant}): built for one key, given in fixed_key",)
                       + notes)

    @property
    def direction_input(self) -> bool:
        """True when block_in carries a decrypt flag (both directions built)."""
        return len(self.directions) == 2

    @property
    def direction(self) -> str:
        return "both" if self.direction_input else self.directions[0]

    def as_json(self) -> dict:
        d = asdict(self)
        d["directions"] = list(self.directions)
        d["notes"] = list(self.notes)
        d["direction_input"] = self.direction_input
        if not self.clocks:                  # single-clock cores: the sidecar as it always was
            del d["clocks"], d["key_clock_cycles"]
        else:
            d["clocks"] = list(self.clocks)
        if not self.seed_bits:               # cores without an entropy input: unchanged sidecar
            del d["seed_bits"], d["seed_setup_cycles"]
        if self.burst_spacing == 1:          # bursts one a clock: unchanged sidecar
            del d["burst_spacing"]
        if not self.random_bits_per_clock:   # no generators: unchanged sidecar
            del d["random_bits_per_clock"]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "CoreInfo":
        d = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        d["directions"] = tuple(d["directions"])
        d["notes"] = tuple(d.get("notes", ()))
        d["clocks"] = tuple(d.get("clocks", ()))
        return cls(**d)


class CoreAnnotation(meta.Annotation):
    """The :class:`CoreInfo` of a core, as an interface annotation."""

    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:cipherfab:core-info:1",
        "type": "object",
        "properties": {
            "cipher": {"type": "string"}, "arch": {"type": "string"}, "params": {"type": "object"},
            "block_bits": {"type": "integer", "minimum": 1},
            "key_bits": {"type": "integer", "minimum": 0},
            "key_bits_effective": {"type": "integer", "minimum": 0},
            "key_interface": {"enum": list(KEY_INTERFACES)},
            "directions": {"type": "array", "items": {"enum": ["encrypt", "decrypt"]}, "minItems": 1},
            "direction_input": {"type": "boolean"},
            "latency": {"type": "integer", "minimum": 1},
            "cycles_per_block": {"type": "integer", "minimum": 1},
            "cycles_per_block_feedback": {"type": "integer", "minimum": 1},
            "blocks_in_flight": {"type": "integer", "minimum": 1},
            "key_setup_cycles": {"type": "integer", "minimum": 0},
            "parts": {"type": "object", "additionalProperties": {"type": "string"}},
            "fixed_key": {"type": ["string", "null"]},
            "notes": {"type": "array", "items": {"type": "string"}},
            "clocks": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                       "uniqueItems": True},
            "key_clock_cycles": {"type": "integer", "minimum": 0},
            "seed_bits": {"type": "integer", "minimum": 0},
            "seed_setup_cycles": {"type": "integer", "minimum": 0},
            "burst_spacing": {"type": "integer", "minimum": 1},
            "random_bits_per_clock": {"type": "integer", "minimum": 0},
        },
        "required": ["cipher", "arch", "params", "block_bits", "key_bits", "key_interface",
                     "directions", "latency", "cycles_per_block", "cycles_per_block_feedback",
                     "blocks_in_flight", "key_setup_cycles", "parts"],
    }

    def __init__(self, info: CoreInfo):
        self._info = info

    @property
    def origin(self) -> CoreInfo:
        return self._info

    def as_json(self) -> dict:
        return json.loads(json.dumps(self._info.as_json()))


def block_in_layout(info: CoreInfo):
    fields = {"data": info.block_bits}
    if info.direction_input:
        fields["decrypt"] = 1
    if info.key_interface == "per_block":
        fields["key"] = info.key_bits
    return data.StructLayout(fields) if len(fields) > 1 else info.block_bits


class CoreSignature(wiring.Signature):
    """The stream ports every core has, built from its :class:`CoreInfo`."""

    def __init__(self, info: CoreInfo):
        self.info = info
        members = {}
        if info.key_interface == "stream":
            members["key"] = In(stream.Signature(info.key_bits))
        members["block_in"] = In(stream.Signature(block_in_layout(info)))
        members["block_out"] = Out(stream.Signature(info.block_bits))
        members["busy"] = Out(1)
        if info.seed_bits:
            members["seed"] = In(stream.Signature(info.seed_bits))
        super().__init__(members)

    def annotations(self, obj, /):
        return (*super().annotations(obj), CoreAnnotation(self.info))

    def __eq__(self, other):
        return type(other) is CoreSignature and other.info == self.info

    __hash__ = None


def info_of(core: wiring.Component) -> CoreInfo:
    """The declaration a core carries (refuses a component that is not a cipherfab core)."""
    for a in core.signature.annotations(core):
        if isinstance(a, CoreAnnotation):
            return a.origin
    raise TypeError(f"{type(core).__name__} carries no CoreAnnotation: its signature must be a CoreSignature")


def identified(core: wiring.Component, cipher: str, arch: str, params: dict) -> wiring.Component:
    """``core`` with the identity of its registry point in its declaration (what
    :func:`cipherfab.generate.make_core` does to every core it makes)."""
    core.signature.info = replace(info_of(core), cipher=cipher, arch=arch, params=dict(params))
    return core


def payload_parts(core: wiring.Component):
    """(block, decrypt flag or None, per-block key or None) of ``core.block_in.payload``."""
    info, p = info_of(core), core.block_in.payload
    if isinstance(block_in_layout(info), int):
        return p, None, None
    return (p.data, p.decrypt if info.direction_input else None,
            p.key if info.key_interface == "per_block" else None)


def load_info(path) -> CoreInfo:
    """A declaration from a JSON file (a generated core's sidecar, or one written for an
    external core): checked against :class:`CoreAnnotation`'s schema, errors in one line.
    ``arch`` and ``params`` may be left out (``"external"``, ``{}``)."""
    import jsonschema

    from ..errors import CipherfabError
    try:
        d = json.loads(Path(path).read_text())
    except OSError as err:
        raise CipherfabError(f"cannot read core info {path}: {err.strerror or err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CipherfabError(f"core info {path} is not JSON: {err}") from None
    if not isinstance(d, dict):
        raise CipherfabError(f"core info {path}: expected a JSON object")
    d = {"arch": "external", "params": {}, **d}
    d.setdefault("key_bits_effective", d.get("key_bits"))
    err = next(iter(sorted(jsonschema.Draft202012Validator(CoreAnnotation.schema).iter_errors(d),
                           key=lambda e: list(e.path))), None)
    if err is not None:
        where = "/".join(map(str, err.path))
        raise CipherfabError(f"core info {path}: {where + ': ' if where else ''}{err.message}")
    try:
        return CoreInfo.from_json(d)
    except (TypeError, ValueError) as e:
        raise CipherfabError(f"core info {path}: {e}") from None

