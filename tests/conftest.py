"""Shared helpers: write small rulebooks into a temporary folder."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

# the remembered findings of the semantic checks (interpreter/checkcache.py) stay off in the
# tests, which patch checks and count what runs; tests/test_checkcache.py turns them on
os.environ["REGELWERK_CACHE"] = "0"

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
#: The games the project ships.  Tests enumerate these, never every folder in
#: rules/: a user's own rulebook there must not break (or join) the tests.
SHIPPED = ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak")

MINIMAL_HEADER = """\
regelwerk: 1
game: {name: Test, players: {min: 2, max: 4}}
"""


def write_rulebook(folder: Path, text: str, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    for name, body in files.items():
        (folder / name.replace("__", ".")).write_text(textwrap.dedent(body), encoding="utf-8")
    return folder


@pytest.fixture
def rulebook(tmp_path):
    """rulebook(yaml_text, **other_files) -> path of a fresh rulebook folder."""
    counter = {"n": 0}

    def make(text: str, **files: str) -> Path:
        counter["n"] += 1
        return write_rulebook(tmp_path / f"rb{counter['n']}", text, **files)
    return make


def game_folders():
    return [RULES / name for name in SHIPPED]
