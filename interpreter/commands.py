"""What the front door (cli.py) shares with the commands it starts (mutate, replay, play, serve):
the filter that keeps a rulebook's text from driving the terminal (safe_output, raw, console),
the usage error and the argument types, so that no command imports the cli."""
from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager

from dsl.diagnostics import printable


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


# --- output a rulebook or a log cannot use to drive the terminal -----------------------------------
# Names, labels, log lines and messages come from files Regelwerk does not trust.  While a command
# runs, safe_output() puts a filter in front of sys.stdout and sys.stderr that shows every control
# character as \xNN (newline and tab pass): no escape sequence of a rulebook reaches the terminal
# (no title, clipboard, cursor movement or hidden text).  The rich views draw on raw() (their own
# colours) through console(), and clean the text they are given themselves (play/view/terminal.py).

class SafeStream:
    """A text stream that writes to ``raw`` what it is given, control characters made visible."""

    def __init__(self, raw):
        self.raw_stream = raw

    def write(self, text) -> int:
        return self.raw_stream.write(printable(text) if isinstance(text, str) else text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):        # flush, isatty, fileno, encoding, …: the stream's own
        return getattr(self.raw_stream, name)


def raw(stream):
    """The stream behind a :class:`SafeStream` (for rich, which writes its own colours)."""
    return getattr(stream, "raw_stream", stream)


@contextmanager
def safe_output():
    """Filter ``sys.stdout`` and ``sys.stderr`` while the block runs (not twice)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, SafeStream):
        sys.stdout = SafeStream(sys.stdout)
    if not isinstance(sys.stderr, SafeStream):
        sys.stderr = SafeStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def console(stream=None, **options):
    """A rich Console on the raw ``stream`` (default: stdout) that prints text given as ``str``
    with its control characters made visible (markup stays the caller's choice)."""
    from rich.console import Console

    class SafeConsole(Console):
        def print(self, *objects, **kw):
            return super().print(*(printable(o) if isinstance(o, str) else o for o in objects), **kw)

    return SafeConsole(file=raw(stream if stream is not None else sys.stdout), **options)
