"""The test games written for issue 27 (tests/rulebooks/gem_guild, domino_kingdom, patch_quilt, hex_garden),
each held to the same bar: clean (0 errors, 0 warnings), its scenarios pass, random games pass
`check` (200 per player count in the slow suite), and PettingZoo's api_test passes.
What is particular to one game is in its own tests/test_<game>.py."""
import contextlib
import io
import warnings
from pathlib import Path

import pytest

from interpreter.game import check_rulebook
from interpreter.tools.scenarios import run_scenarios
from interpreter.tools.simulate import run_check

BOOKS = Path(__file__).parent / "rulebooks"
# game: (scenarios at least, player counts, random games per count in the default suite)
GAMES = {
    "gem_guild": (6, [2, 3, 4], 15),
    "domino_kingdom": (4, [2, 3], 10),
    "patch_quilt": (4, [2], 10),
    "hex_garden": (3, [2], 10),
}


@pytest.mark.parametrize("game", GAMES)
def test_it_validates_without_errors_or_warnings(game):
    report, rules = check_rulebook(BOOKS / game)
    assert rules is not None and report.items == [], [d.format() for d in report.items]


@pytest.mark.parametrize("game", GAMES)
def test_its_scenarios_pass(game):
    results = run_scenarios([BOOKS / game])
    assert len(results) >= GAMES[game][0] and all(r.ok for r in results), [r for r in results if not r.ok]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_random_games_find_no_problem(game):
    _, counts, games = GAMES[game]
    assert run_check(str(BOOKS / game), games, counts, {}, [], jobs=1) == []


@pytest.mark.slow                       # 200 games per player count: ~30 s to ~1 min a game
@pytest.mark.parametrize("game", GAMES)
def test_two_hundred_games_per_player_count_find_no_problem(game):
    assert run_check(str(BOOKS / game), 200, GAMES[game][1], {}, [], jobs=2) == []


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test_passes(game):
    pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the rl extra")
    from pettingzoo.test import api_test
    from interpreter.ai.adapters import pettingzoo as pz_adapter
    for players in [n for n in GAMES[game][1] if n <= 3]:
        env = pz_adapter.env(BOOKS / game, players=players)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=300)
