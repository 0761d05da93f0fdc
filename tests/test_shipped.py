"""The shipped rulebooks are installed with the package and found by name (interpreter/engine/shipped.py)."""
from __future__ import annotations

import pytest

import json
import subprocess
import sys
from pathlib import Path

from interpreter.game import Rulebook, rulebook_path, shipped_games

from conftest import ROOT, SHIPPED

# the shipped games by their list, never by the folders in rules/: a user's own folder there
# (a copy rules/my_yak_copy) must not break a test (issue 37)
GAMES = sorted(SHIPPED)


def regelwerk(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_the_list_of_shipped_games_is_what_the_repository_keeps_in_rules():
    # every rulebook folder git tracks in rules/ is in the list, and every listed one is tracked
    # (untracked folders there are the user's own); skipped outside a git checkout
    try:
        proc = subprocess.run(["git", "ls-files", "rules/*/game.yaml"], cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
    except OSError:
        pytest.skip("git is not installed")
    if proc.returncode != 0 or not proc.stdout.strip():
        pytest.skip("not a git checkout")
    assert sorted(Path(line).parent.name for line in proc.stdout.split()) == GAMES


def test_every_shipped_game_is_found_by_name():
    found = shipped_games()
    assert set(GAMES) <= set(found)
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
    assert set(GAMES) <= {r["name"] for r in rows}
    assert {"name": "yak", "title": "Yak", "players": [2, 4]}.items() <= [r for r in rows if r["name"] == "yak"][0].items()
    played = regelwerk("play", "yak", "--players", "2", "--seed", "1", "--json", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["game"] == "Yak"
    validated = regelwerk("validate", "iquazu", cwd=tmp_path)
    assert validated.returncode == 0 and "ok (0 errors, 0 warnings)" in validated.stdout, validated.stdout
    missing = regelwerk("play", "no_such_game", "--players", "2", cwd=tmp_path)
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
