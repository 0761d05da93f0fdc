"""A progress bar with the time left for long runs, shown only on a terminal.

``progress(total, label)`` is a context manager returning a function to call
with the number of units just finished.  When stderr is a terminal it draws a
rich bar (done/total, elapsed, time left) on stderr; otherwise (CI logs, pipes,
``--json``) it draws nothing, so logs stay clean.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager

from dsl.diagnostics import printable

from .commands import raw


def on_terminal(stream=None) -> bool:
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


@contextmanager
def progress(total: int, label: str, enabled: bool = True):
    if not (enabled and on_terminal()):
        yield lambda n=1: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                   console=Console(file=raw(sys.stderr)), transient=True)
    with bar:
        task = bar.add_task(printable(label), total=total)      # a rulebook's name: no escapes, no markup
        yield lambda n=1: bar.advance(task, n)
