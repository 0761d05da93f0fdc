"""Remembered findings of the semantic checks, so an unchanged rulebook is not checked twice.

The semantic checks (:mod:`interpreter.checks`: unused definitions,
reachability, bounded parameters…) are half of what ``regelwerk validate``
costs.  Their findings depend only on the rulebook's text and on the engine
that checks it, so they are kept in a file named by the SHA-256 of exactly
that:

- every file the loader read, by the name it is reported under and its text;
- the engine: the bytes of every source file of the ``dsl`` and
  ``interpreter`` packages (grammar and JSON Schemas included), the Python
  version and the run-time limits (:mod:`interpreter.limits`).

Change a character of the rulebook or of the engine and the key changes: the
checks run again.  A finding list is stored only when the checks ran to the
end (an internal fault, RW299, is never remembered).

The files are JSON (``<key>.json``: the diagnostics), written atomically,
read back with every field checked; a missing, unreadable, malformed or
foreign file is simply a miss.  Where: ``$REGELWERK_CACHE_DIR``, else
``$XDG_CACHE_HOME/regelwerk``, else ``~/.cache/regelwerk``;
``REGELWERK_CACHE=0`` turns it off (the test suite does, except where it
tests this).  Nothing is ever written into a rulebook's folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from dataclasses import astuple
from functools import lru_cache
from pathlib import Path

from dsl.diagnostics import ERROR, WARNING, Diagnostic, Pos

#: bumped when the file format changes
FORMAT = 2      # 2: each finding keeps the language version it is an error from (docs/compatibility.md)
_SEVERITIES = (ERROR, WARNING)
_ENGINE_SUFFIXES = (".py", ".lark", ".json")


def enabled() -> bool:
    return os.environ.get("REGELWERK_CACHE", "1").strip().lower() not in ("0", "off", "no", "false")


def cache_dir() -> Path:
    explicit = os.environ.get("REGELWERK_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "regelwerk"


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """SHA-256 of the engine's own files (read once per process) and the Python version."""
    import dsl
    import interpreter
    h = hashlib.sha256(f"format {FORMAT}; python {sys.version_info[:2]}".encode())
    for package in (dsl, interpreter):
        root = Path(package.__file__).resolve().parent
        for path in sorted(root.rglob("*")):
            if path.suffix not in _ENGINE_SUFFIXES or "__pycache__" in path.parts or not path.is_file():
                continue
            h.update(str(path.relative_to(root)).encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def key_of(source) -> str | None:
    """The key of ``source`` (a dsl.loader.RulebookSource), or None when a file could not be read."""
    if not source.files or any(text is None for text in source.texts) or len(source.texts) != len(source.files):
        return None
    from ..run.limits import LIMITS
    h = hashlib.sha256(engine_fingerprint().encode())
    h.update(repr(astuple(LIMITS)).encode())
    for name, text in zip(source.files, source.texts):
        h.update(b"\0file\0" + name.encode("utf-8", "surrogatepass") + b"\0" + text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def lookup(source) -> list[Diagnostic] | None:
    """The remembered findings for ``source``, or None (not remembered, or the cache is off)."""
    if not enabled():
        return None
    key = key_of(source)
    if key is None:
        return None
    try:
        data = json.loads(_read_entry(cache_dir() / f"{key}.json"))
        return _decode(data, key, source)
    except (OSError, ValueError, TypeError, KeyError):
        return None


#: an entry larger than this is not one this module wrote
MAX_ENTRY_BYTES = 4_000_000


def _read_entry(path: Path) -> str:
    """An entry's text: a regular file (no link, FIFO or device), of a sane size; else OSError/ValueError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = f.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise ValueError("too large")
    return data.decode("utf-8")


def store(source, findings: list[Diagnostic]) -> None:
    """Remember ``findings`` for ``source``; never fails (a cache that cannot be written is no cache)."""
    if not enabled() or any(d.code == "RW299" for d in findings):
        return
    key = key_of(source)
    if key is None:
        return
    data = {"format": FORMAT, "key": key, "findings": [
        [d.pos.file, d.pos.line, d.pos.col, d.message, d.severity, d.code, d.quote, d.error_from]
        for d in findings]}
    folder = cache_dir()
    tmp = folder / f".{key}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def _decode(data, key: str, source) -> list[Diagnostic] | None:
    """The findings of an entry, each checked against ``source``: a finding of another file than the
    rulebook's own, or past the end of its file, makes the whole entry a miss (it was not written here)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return None
    lines = {name: text.count("\n") + 1 for name, text in zip(source.files, source.texts)}
    out = []
    for item in data["findings"]:
        file, line, col, message, severity, code, quote, error_from = item
        if not (isinstance(file, str) and type(line) is int and type(col) is int and isinstance(message, str)
                and severity in _SEVERITIES and isinstance(code, str) and isinstance(quote, bool)
                and (error_from is None or type(error_from) is int)):
            return None
        if file not in lines or not 1 <= line <= lines[file] or col < 1:
            return None
        out.append(Diagnostic(Pos(file, line, col), message, severity, code, quote, error_from))
    return out
