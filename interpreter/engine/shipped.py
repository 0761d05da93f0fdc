"""The rulebooks shipped with the package, found by name.

The repository keeps them in ``rules/<game>/``; an install carries the same
folders as the package ``regelwerk_rules`` (pyproject.toml maps it onto
``rules/``), so ``Rulebook.load("<game>")`` and ``regelwerk play <game>`` work from
any directory after ``pip install``.  A path that exists is always taken as
the path it is: a folder of that name in the current directory wins over the
shipped game.
"""
from __future__ import annotations

import re
from importlib import util
from pathlib import Path

_NAME = re.compile(r"[a-z0-9_]+\Z")


def shipped_dir() -> Path | None:
    """The folder holding the shipped rulebooks (one sub-folder each), or None if not installed."""
    try:
        spec = util.find_spec("regelwerk_rules")
    except (ImportError, ValueError):
        return None
    for place in (spec.submodule_search_locations or []) if spec is not None else []:
        if Path(place).is_dir():       # a folder of data (no __init__): found as a namespace package
            return Path(place)
    return None


def shipped_games() -> dict[str, Path]:
    """``{name: folder}`` of every shipped rulebook (a folder with a ``game.yaml``), sorted by name."""
    root = shipped_dir()
    if root is None:
        return {}
    return {p.name: p for p in sorted(root.iterdir()) if (p / "game.yaml").is_file()}


def rulebook_path(path) -> Path:
    """``path`` as a Path; a bare name that is no existing file or folder but a shipped game's name
    is that game's folder."""
    p = Path(path)
    if not p.exists() and isinstance(path, str) and _NAME.match(path):
        found = shipped_games().get(path)
        if found is not None:
            return found
    return p
