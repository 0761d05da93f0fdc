"""What the front door (cli.py) shares with the commands it starts (mutate, replay, play, serve):
the usage error and the argument types, so that no command imports the cli."""
from __future__ import annotations

import argparse


class UsageError(Exception):
    """A bad command line: one clear line, exit status 2."""


def whole(least: int, most: int | None = None):
    """An argparse type: a whole number in least..most (a clear message otherwise)."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if n < least or (most is not None and n > most):
            span = f"from {least} to {most}" if most is not None else f"at least {least}"
            raise argparse.ArgumentTypeError(f"must be {span}, not {n}")
        return n
    parse.__name__ = "number"
    return parse


SEED = whole(0, 2**63 - 1)
