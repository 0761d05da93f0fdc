"""Diagnostics: every problem in a rulebook or an input file, located.

A :class:`Diagnostic` carries a file, a 1-based line and column, a severity,
a code and a message.  Checks yield diagnostics; a :class:`Report` collects
all of them so that one run shows every problem, not only the first.
Formatting follows the compiler convention ``file:line:col: error: message``
followed by the offending source line and a caret, as strictyaml does.
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

ERROR = "error"
WARNING = "warning"

#: The language version this engine reads: ``regelwerk: N`` at the top of game.yaml
#: (docs/compatibility.md says what a version promises).
LANGUAGE_VERSION = 1

#: Checks that are errors only from a later language version on: code -> the version whose
#: rulebooks get them as errors.  A rulebook that declares an older version gets the same
#: finding as a warning that names the version (``Diagnostic.at_version``).  A new check
#: enters here with the next version's number, so no rulebook that validated stops
#: validating; a diagnostic may also carry its own ``error_from``.
ERROR_FROM: dict[str, int] = {}

#: control characters (C0 but newline and tab, DEL, C1) as visible text: a rulebook's or a log's text
#: never moves the cursor, sets a title or the clipboard, or hides a line on the terminal
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0, 32), *range(127, 160)] if c not in (9, 10)}


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with its control characters shown as ``\\xNN`` (newline and tab kept)."""
    return text.translate(_CONTROLS) if _CONTROL.search(text) else text


@dataclass(frozen=True, order=True)
class Pos:
    """A position in a source file (line and column are 1-based)."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN_POS = Pos("<unknown>", 1, 1)


@dataclass(frozen=True)
class Diagnostic:
    pos: Pos
    message: str
    severity: str = ERROR
    code: str = "RW000"
    #: False where the file must not be quoted (it lies outside what may be read)
    quote: bool = True
    #: the language version from which this finding is an error (None: as ``ERROR_FROM`` says
    #: for its code, else every version)
    error_from: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def at_version(self, version: int) -> "Diagnostic":
        """This finding as a rulebook of language ``version`` gets it: an error that becomes one
        only in a later version is a warning that says from which version on it is an error."""
        since = self.error_from if self.error_from is not None else ERROR_FROM.get(self.code)
        if self.severity != ERROR or since is None or version >= since:
            return self
        return replace(self, severity=WARNING, message=f"{self.message} (an error for rulebooks of language "
                                                        f"version {since} on, `regelwerk: {since}`)")

    def format(self, with_source: bool = True) -> str:
        head = printable(f"{self.pos}: {self.severity}: {self.message} [{self.code}]")
        if not with_source or not self.quote:
            return head
        snippet = source_snippet(self.pos)
        return head + ("\n" + snippet if snippet else "")

    def as_json(self) -> dict:
        return {
            "file": self.pos.file,
            "line": self.pos.line,
            "column": self.pos.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


class RulebookError(Exception):
    """Raised when loading or compiling cannot go on; carries all diagnostics."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.pos, d.message))
        super().__init__("\n".join(d.format(with_source=False) for d in self.diagnostics))

    def __reduce__(self):     # pickled by its diagnostics (a worker process's error reaches its parent)
        return (type(self), (self.diagnostics,))


class RuleRuntimeError(Exception):
    """An error inside the rules while a game runs, located at a rulebook line."""

    def __init__(self, message: str, pos: Pos | None = None, code: str = "RW900"):
        self.pos = pos or UNKNOWN_POS
        self.message = message
        self.code = code
        super().__init__(f"{self.pos}: error: {message}")

    def __reduce__(self):     # pickled by its arguments, not by its text (a worker's error unpickles)
        return (type(self), (self.message, self.pos, self.code), self.__dict__)

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(self.pos, self.message, ERROR, self.code)


@dataclass
class Report:
    """Collects diagnostics from every check."""

    items: list[Diagnostic] = field(default_factory=list)
    #: the language version the rulebook declares (``regelwerk: N``; set by the loader): a
    #: finding that is an error only from a later version is added as a warning
    version: int = LANGUAGE_VERSION

    def error(self, pos: Pos, message: str, code: str = "RW000", error_from: int | None = None) -> None:
        self.items.append(Diagnostic(pos, message, ERROR, code, error_from=error_from).at_version(self.version))

    def warning(self, pos: Pos, message: str, code: str = "RW000") -> None:
        self.items.append(Diagnostic(pos, message, WARNING, code))

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        self.items.extend(d.at_version(self.version) for d in diags)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.is_error]

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        seen = set()
        out = []
        for d in sorted(self.items, key=lambda d: (d.pos, d.severity, d.message)):
            key = (d.pos, d.message, d.code)
            if key not in seen:
                seen.add(key)
                out.append(d)
        return out

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.sorted())


@lru_cache(maxsize=32)
def _lines(file: str, mtime_ns: int, size: int) -> tuple:
    """A file's lines, read once however many diagnostics point into it (none of a link out of
    its folder: a rulebook reads nothing outside it)."""
    if os.path.islink(file) and not _inside_own_folder(file):
        return ()
    try:
        return tuple(Path(file).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return ()


#: how much of a long source line a snippet shows around the column
SNIPPET_WIDTH = 100


def _inside_own_folder(file: str) -> bool:
    try:
        Path(file).resolve().relative_to(Path(file).parent.resolve())
        return True
    except (ValueError, OSError, RuntimeError):
        return False


def source_snippet(pos: Pos) -> str:
    """The source line at ``pos`` with a caret under the column (long lines cut around it)."""
    try:
        st = os.stat(pos.file)
    except (OSError, ValueError):
        return ""
    if not stat.S_ISREG(st.st_mode) or st.st_size > 50_000_000:
        return ""
    lines = _lines(pos.file, st.st_mtime_ns, st.st_size)
    if not 1 <= pos.line <= len(lines):
        return ""
    text = lines[pos.line - 1].replace("\t", " ")
    col = max(pos.col, 1)
    if len(text) > SNIPPET_WIDTH:
        start = max(0, min(col - 1 - SNIPPET_WIDTH // 2, len(text) - SNIPPET_WIDTH))
        text = ("…" if start else "") + text[start:start + SNIPPET_WIDTH] + ("…" if start + SNIPPET_WIDTH < len(text) else "")
        col = col - start + (1 if start else 0)
    return f"  {printable(text)}\n  {' ' * (col - 1)}^"


def format_report(diags: Iterable[Diagnostic], fmt: str = "text") -> str:
    diags = list(diags)
    if fmt == "json":
        return json.dumps([d.as_json() for d in diags], indent=2, ensure_ascii=False)
    return "\n".join(d.format() for d in diags)
