"""Vector files named inside an installed package: ``cryptography-vectors:PATH`` is PATH in
the ``cryptography_vectors`` package from PyPI (pyca's copies of NIST's CAVP files, SP
800-38B's CMAC examples, ...), so ``sim --vectors`` reads them where pip put them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ..errors import CipherfabError

#: prefix -> the importable package whose folder the rest of the name is in
PACKAGES = {"cryptography-vectors": "cryptography_vectors"}


def resolve(names: list[str]) -> list[str]:
    """Each name as file paths: a ``PACKAGE:PATH`` name inside its installed package (PATH may
    be a glob, ``ciphers/AES/CFB/CFB128*.rsp``: every match, sorted), any other name as given."""
    out = []
    for name in names:
        prefix, sep, rest = name.partition(":")
        out += _inside(name, prefix, rest) if sep and prefix in PACKAGES else [name]
    return out


def _inside(name: str, prefix: str, rest: str) -> list[str]:
    spec = importlib.util.find_spec(PACKAGES[prefix])
    if spec is None or not spec.submodule_search_locations:
        raise CipherfabError(f"--vectors {name}: the {prefix} package is not installed "
                             f"(pip install {prefix})")
    folder = Path(next(iter(spec.submodule_search_locations))).resolve()
    paths = sorted(folder.glob(rest)) if rest and not rest.startswith("/") and ".." not in rest else None
    if paths is None:
        raise CipherfabError(f"--vectors {name}: name a file inside {prefix}, e.g. "
                             f"{prefix}:CMAC/nist-800-38b-aes128.txt")
    paths = [p for p in paths if p.is_file()]
    if not paths:
        raise CipherfabError(f"--vectors {name}: no file {rest} in {prefix} ({folder})")
    return [str(p) for p in paths]
