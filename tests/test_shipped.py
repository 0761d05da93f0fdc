"""The shipped rulebooks are installed with the package and found by name (interpreter/engine/shipped.py)."""
from __future__ import annotations

import pytest

import json
import subprocess
import sys
from pathlib import Path

from interpreter.game import Rulebook, rulebook_path, shipped_games

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p.name for p in (ROOT / "rules").iterdir() if (p / "game.yaml").is_file())


def regelwerk(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_every_folder_of_rules_is_a_shipped_game():
    found = shipped_games()
    assert sorted(found) == GAMES
    assert all((found[name] / "game.yaml").read_bytes() == (ROOT / "rules" / name / "game.yaml").read_bytes()
               for name in GAMES)


def test_a_name_loads_the_shipped_game_and_a_path_that_exists_wins(tmp_path, monkeypatch):
    assert Rulebook.load("yak").game.name == "Yak"
    monkeypatch.chdir(tmp_path)
    own = tmp_path / "yak"
    own.mkdir()
    (own / "game.yaml").write_text("regelwerk: 1\ngame: {name: Not Yak, players: {min: 1, max: 1}}\n"
                                   "flow: []\nend: {score: '0'}\n")
    assert rulebook_path("yak") == Path("yak")                   # the folder here, not the shipped one
    assert rulebook_path("no_such_game") == Path("no_such_game")  # unknown: the path as given (its error is the loader's)
    assert rulebook_path("rules/yak") == Path("rules/yak")        # a path is never looked up by name


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_the_commands_take_a_name_from_any_directory(tmp_path):
    listed = regelwerk("games", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [r["name"] for r in rows] == GAMES
    assert {"name": "yak", "title": "Yak", "players": [2, 4]}.items() <= [r for r in rows if r["name"] == "yak"][0].items()
    played = regelwerk("play", "yak", "--players", "2", "--seed", "1", "--json", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["game"] == "Yak"
    validated = regelwerk("validate", "iquazu", cwd=tmp_path)
    assert validated.returncode == 0 and "ok (0 errors, 0 warnings)" in validated.stdout, validated.stdout
    missing = regelwerk("play", "no_such_game", "--players", "2", cwd=tmp_path)
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
