"""The core registry: every cipher and architecture declares itself once, here is how.

A cipher package ``cipherfab/ciphers/<name>/__init__.py`` defines ``CIPHER``, a
:class:`Cipher` with its block size, key sizes, reference model, vector files
and :class:`Architecture` entries; each architecture lists its :class:`Param`
entries and the :class:`Rule` entries that forbid impossible combinations.
Everything else is derived from these declarations: the core options of
``generate``, ``sim``, ``build``, ``verify`` and study points, their checks
and messages, labels, top-module names.  The cycle facts come from the core
itself (:class:`~cipherfab.hw.info.CoreInfo` on its signature).  No tool module
names a cipher: adding one is adding a package under ``ciphers/``.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import pkgutil
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Callable

from .errors import CipherfabError


@dataclass(frozen=True)
class Param:
    """One generator parameter: ``--name-with-dashes VALUE`` on the command line."""

    name: str
    choices: tuple | None
    default: Any
    help: str
    #: for a free-form parameter (choices None): returns what is wrong with a value, or None
    check: Callable[[Any], str | None] | None = None
    #: leave the default value out of top-module names (an option added to an architecture
    #: later keeps the names, so the Verilog and every cached build, of its existing points)
    quiet_default: bool = False

    def problem(self, value) -> str | None:
        """Why ``value`` is refused, or None."""
        if self.choices is None:
            return self.check(value) if self.check else None
        if value not in self.choices:
            shown = repr(value) if isinstance(value, str) else value
            return f"{self.option} {shown} is not supported; choose from {', '.join(map(str, self.choices))}"
        return None

    @property
    def values(self) -> tuple:
        """The values ``verify --all`` and grids enumerate (a free-form parameter: its default)."""
        return self.choices if self.choices is not None else (self.default,)

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parse(self, text: str):
        """The value of ``text`` in this parameter's type (an argparse type function)."""
        if isinstance(self.default, bool):
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise argparse.ArgumentTypeError(f"{self.option} takes yes or no, not {text!r}")
        if isinstance(self.default, int):
            try:
                return int(text.replace("_", ""))
            except ValueError:
                raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None
        return text

    def tag(self, value) -> str:
        """How the value appears in a top-module name."""
        if isinstance(value, bool):
            return self.name if value else f"no_{self.name}"
        return str(value)


def hex_key_problem(text, bits: int | tuple[int, ...]) -> str | None:
    """Why ``text`` is not a key of ``bits`` (one size, or any of several) in hex, or None:
    the check of a built-in key (``--key``) of a key-specific core."""
    t, sizes = str(text), (bits,) if isinstance(bits, int) else bits
    if len(t) in [b // 4 for b in sizes] and all(c in "0123456789abcdefABCDEF" for c in t):
        return None
    if len(sizes) == 1:
        return f"--key {t!r}: a {sizes[0]}-bit key is {sizes[0] // 4} hex digits"
    digits = [str(b // 4) for b in sizes]
    return f"--key {t!r}: a key is {', '.join(digits[:-1])} or {digits[-1]} hex digits"


@dataclass(frozen=True)
class Rule:
    """A combination the generator cannot build: ``forbids(values)`` is True for it."""

    text: str
    forbids: Callable[[dict], bool]


@dataclass(frozen=True)
class Architecture:
    """One architecture of a cipher: its parameters and the component class that builds it.

    ``core`` is ``"module:Class"`` (imported on first use); the class takes the
    parameters as keyword arguments.  ``test_points`` are the representative
    points the default test run checks (each option value at least once);
    ``cipherfab verify --all`` checks every valid point.
    """

    name: str
    summary: str
    core: str
    params: tuple[Param, ...]
    rules: tuple[Rule, ...] = ()
    test_points: tuple[dict, ...] = ()
    paper: str = ""

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def component_class(self):
        module, _, attr = self.core.partition(":")
        return getattr(importlib.import_module(module), attr)

    def points(self) -> list[dict]:
        """Every valid combination of parameter values, in declaration order."""
        names = [p.name for p in self.params]
        out = []
        for combo in itertools.product(*(p.values for p in self.params)):
            values = dict(zip(names, combo))
            if not any(r.forbids(values) for r in self.rules):
                out.append(values)
        return out


@dataclass(frozen=True)
class Cipher:
    """A block cipher: sizes, reference model, vector files and architectures.

    ``key_bits`` are bits on the key port (DES family: 64/128/192, parity
    included); ``effective_key_bits`` maps them to the bits that matter.
    ``reference`` is ``"module:factory"``; ``factory(key_bits)`` returns an
    object with ``encrypt(key, data)`` and ``decrypt(key, data)`` over whole
    blocks (ECB).  ``aliases`` are the names vector files use for the cipher.
    ``kat_files(key_bits)`` names the known-answer files (paths under a
    vector folder) every core of that key size must pass; records of other key
    sizes in them are skipped.  ``submission_byte_reversed``: the cipher's
    AES-submission files print values byte-reversed (Serpent's do).
    ``software``: (provider, that provider's name for the cipher) pairs measured as
    software baselines (providers: ``openssl``, ``cryptopp``; see
    :mod:`cipherfab.study.software`).
    """

    name: str
    title: str
    block_bits: int
    key_bits: tuple[int, ...]
    reference: str
    architectures: tuple[Architecture, ...] = ()
    aliases: tuple[str, ...] = ()
    kat_files: Callable[[int], list[str]] = lambda key_bits: []
    effective_key_bits: Callable[[int], int] = lambda key_bits: key_bits
    submission_byte_reversed: bool = False
    software: tuple[tuple[str, str], ...] = ()

    def arch(self, name: str) -> Architecture:
        for a in self.architectures:
            if a.name == name:
                return a
        known = ", ".join(a.name for a in self.architectures) or "none yet"
        raise CipherfabError(f"{self.name}: --arch {name!r} is not supported; choose from {known}")

    def reference_model(self, key_bits: int):
        if key_bits not in self.key_bits:
            raise CipherfabError(f"{self.name} takes {'/'.join(map(str, self.key_bits))}-bit keys, "
                                 f"not {key_bits}")
        module, _, attr = self.reference.partition(":")
        return getattr(importlib.import_module(module), attr)(key_bits)


@cache
def ciphers() -> dict[str, Cipher]:
    """Every cipher package under ``cipherfab.ciphers`` that defines ``CIPHER``, by name."""
    from . import ciphers as package
    found = {}
    for mod in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        entry = getattr(importlib.import_module(f"{package.__name__}.{mod.name}"), "CIPHER", None)
        if isinstance(entry, Cipher):
            found[entry.name] = entry
    return found


def get_cipher(name: str) -> Cipher:
    reg = ciphers()
    if name not in reg:
        raise CipherfabError(f"unknown cipher {name!r}; known ciphers: {', '.join(reg)}")
    return reg[name]


# ------------------------------------------------------------------------------- core parameters

@dataclass(frozen=True)
class CoreParams:
    """A validated point: cipher, architecture and every parameter's value."""

    cipher: str
    arch: str
    values: tuple[tuple[str, Any], ...] = field(default=())

    def as_dict(self, quiet: bool = False) -> dict:
        """Cipher, architecture and values; ``quiet`` leaves out quiet defaults (as names do)."""
        a = self.architecture if quiet else None
        return {"cipher": self.cipher, "arch": self.arch,
                **{k: v for k, v in self.values
                   if not (quiet and a.param(k).quiet_default and v == a.param(k).default)}}

    @property
    def architecture(self) -> Architecture:
        return get_cipher(self.cipher).arch(self.arch)

    @property
    def top(self) -> str:
        """Top-module name: ``aes_iterative_128_encrypt_rom``."""
        a = self.architecture
        return "_".join([self.cipher, self.arch, *(a.param(k).tag(v) for k, v in self.values
                                                    if not (a.param(k).quiet_default
                                                            and v == a.param(k).default))])

    @property
    def label(self) -> str:
        return "-".join(str(v) for v in self.as_dict().values())


def resolve(cipher: str, arch: str | None = None, **given) -> CoreParams:
    """Check a cipher, architecture and parameter values; fill defaults; one-line refusals."""
    entry = get_cipher(cipher)
    if arch is None:
        if not entry.architectures:
            raise CipherfabError(f"{cipher}: no hardware architecture yet (reference model only)")
        arch = entry.architectures[0].name
    a = entry.arch(arch)
    for name in given:
        if a.param(name) is None:
            opts = ", ".join(p.option for p in a.params) or "none"
            raise CipherfabError(f"{cipher} {arch}: {'--' + name.replace('_', '-')} does not apply "
                                 f"(its options: {opts})")
    values = {}
    for p in a.params:
        v = given.get(p.name, p.default)
        problem = p.problem(v)
        if problem:
            raise CipherfabError(f"{cipher}: {problem}")
        values[p.name] = v
    for r in a.rules:
        if r.forbids(values):
            raise CipherfabError(f"{cipher} {arch}: {r.text}")
    return CoreParams(cipher, arch, tuple(values.items()))


def all_points(cipher: str | None = None, test_only: bool = False) -> list[CoreParams]:
    """Every valid point (or each architecture's ``test_points``) of one or all ciphers."""
    out = []
    for c in ([get_cipher(cipher)] if cipher else ciphers().values()):
        for a in c.architectures:
            for values in (a.test_points if test_only else a.points()):
                out.append(resolve(c.name, a.name, **values))
    return out


# ------------------------------------------------------------------------------- command line

def _all_params() -> dict[str, list[tuple[str, Param]]]:
    """Parameter name -> [(\"cipher arch\", Param)] across the registry, in first-seen order."""
    seen: dict[str, list] = {}
    for c in ciphers().values():
        for a in c.architectures:
            for p in a.params:
                seen.setdefault(p.name, []).append((f"{c.name} {a.name}", p))
    return seen


def add_core_arguments(parser, cipher_required: bool = True, group_title: str = "core") -> None:
    """CIPHER, --arch and every registered parameter as options (defaults come from the registry)."""
    reg = ciphers()
    parser.add_argument("cipher", metavar="CIPHER", nargs=None if cipher_required else "?",
                        help=f"cipher: {', '.join(reg)}")
    g = parser.add_argument_group(group_title)
    archs = "; ".join(f"{c.name}: {', '.join(a.name for a in c.architectures) or 'none yet'}"
                      f" (default {c.architectures[0].name if c.architectures else '-'})"
                      for c in reg.values())
    g.add_argument("--arch", default=None, help=f"architecture ({archs})")
    for name, uses in _all_params().items():
        first = uses[0][1]
        where = "; ".join(f"{who}: {', '.join(map(str, p.choices)) if p.choices else 'any'}"
                          f", default {p.default}" for who, p in uses)
        g.add_argument(first.option, dest=name, type=first.parse, default=None, metavar="VALUE",
                       help=f"{first.help} ({where})")


def params_from_args(args) -> CoreParams:
    given = {name: getattr(args, name) for name in _all_params()
             if getattr(args, name, None) is not None}
    return resolve(args.cipher, getattr(args, "arch", None), **given)


def given_core_options(args) -> list[str]:
    """The registered core options set in ``args`` (for tools that refuse them in some mode)."""
    names = ["arch", *_all_params()]
    return ["--" + n.replace("_", "-") for n in names if getattr(args, n, None) is not None]
