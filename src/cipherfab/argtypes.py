"""argparse value types shared by every subcommand (each refusal is one line from argparse)."""

from __future__ import annotations

import argparse
import math
import re


def integer(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None


def at_least(minimum: int):
    def check(text: str) -> int:
        value = integer(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    check.__name__ = f"integer >= {minimum}"
    return check


count = at_least(1)
non_negative = at_least(0)


def probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid probability {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def clock_ratio(text: str) -> float:
    """A clock period in units of another clock's, 0.05 to 20."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid clock period {text!r}") from None
    if not 0.05 <= value <= 20:
        raise argparse.ArgumentTypeError(f"must lie in 0.05 to 20 clk periods, got {value}")
    return value


def _number(text: str) -> float:
    """``text`` as a float (``1_000`` reads), or argparse's one-line refusal."""
    try:
        return float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number {text!r}") from None


def non_negative_number(text: str) -> float:
    """A finite number >= 0 (a budget or a limit): nan, inf and negatives are refused."""
    value = _number(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


#: schemes a Dask client connects to a scheduler with
DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_ADDRESS = re.compile(r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?"
                      r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]@]+):(?P<port>[0-9]+)")


def scheduler_address(text: str) -> str:
    """A Dask scheduler address, ``[tcp://]host:port``: checked for shape here, so a typo is
    refused at once rather than after the connection timeout."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty address: give the scheduler's, e.g. tcp://host:8786")
    if text.startswith("inproc://"):      # a cluster inside this process (Dask's LocalCluster)
        return text
    m = _ADDRESS.fullmatch(text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"invalid scheduler address {text!r}: expected "
                                         "tcp://host:port (e.g. tcp://10.0.0.5:8786)")
    scheme = (m["scheme"] or "tcp").lower()
    if scheme not in DASK_SCHEMES:
        raise argparse.ArgumentTypeError(f"unsupported scheme {scheme!r} in {text!r}: use "
                                         + ", ".join(f"{s}://" for s in DASK_SCHEMES))
    if not 1 <= int(m["port"]) <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 1..65535 in {text!r}")
    return text.strip()


def count_upto(maximum: int, minimum: int = 1):
    """A count from ``minimum`` to ``maximum``; also reads ``1e6`` (an exact integer)."""
    def check(text: str) -> int:
        try:
            value = integer(text)
        except argparse.ArgumentTypeError:
            try:
                f = float(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None
            if not f.is_integer():
                raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None
            value = int(f)
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must lie in {minimum} to {maximum:.0e}, got {text}")
        return value
    check.__name__ = f"integer in {minimum}..{maximum}"
    return check


def real_between(low: float, high: float, unit: str = ""):
    """A finite number in [low, high] (an argparse type): ``nan``, ``inf`` and values out of
    range are refused here, before they reach arithmetic that would turn them into a
    traceback (``round(nan)``) or a silently wrong result."""
    suffix = f" {unit}" if unit else ""

    def check(text: str) -> float:
        value = _number(text)
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must lie in {low:g} to {high:g}{suffix}, got {value:g}")
        return value
    check.__name__ = f"number in {low:g} to {high:g}"
    return check


def between(minimum: int, maximum: int, why: str = ""):
    """A whole number in ``minimum..maximum``; ``why`` (shown when too large) says where the
    upper bound comes from."""
    def check(text: str) -> int:
        value = integer(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be <= {maximum}{f' ({why})' if why else ''}, got {value}")
        return value
    check.__name__ = f"integer in {minimum}..{maximum}"
    return check
