"""argparse value types shared by every subcommand (each refusal is one line from argparse)."""

from __future__ import annotations

import argparse


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
