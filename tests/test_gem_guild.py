"""tests/rulebooks/gem_guild: a gem-taking engine builder written with set-valued choices
(issue 27): clean, its scenarios pass, random games pass `check`, PettingZoo's api_test
passes, and "take 3 different of 5 colours" is exactly 10 ids of the fixed action space."""
import contextlib
import io
import warnings
from pathlib import Path

import pytest

from interpreter.game import Rulebook, check_rulebook
from interpreter.tools.scenarios import run_scenarios
from interpreter.tools.simulate import run_check

BOOK = Path(__file__).parent / "rulebooks" / "gem_guild"


def test_it_validates_without_errors_or_warnings():
    report, game = check_rulebook(BOOK)
    assert game is not None and report.items == [], [d.format() for d in report.items]


def test_its_scenarios_pass():
    results = run_scenarios([BOOK])
    assert len(results) >= 6 and all(r.ok for r in results), [r for r in results if not r.ok]


def test_take_three_different_of_five_colours_is_ten_ids():
    rb = Rulebook.load(BOOK)
    for players in (2, 3, 4):
        ids = [i for i in rb.action_space(players).ids if i.startswith("take_three(")]
        assert len(ids) == 10 and "take_three(gems={blue,green,white})" in ids


def test_random_games_find_no_problem():
    assert run_check(str(BOOK), 15, [2, 3, 4], {}, [], jobs=1) == []


@pytest.mark.slow                       # 200 games per player count: ~30 s
def test_two_hundred_games_per_player_count_find_no_problem():
    assert run_check(str(BOOK), 200, [2, 3, 4], {}, [], jobs=2) == []


def test_pettingzoo_api_test_passes():
    pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the rl extra")
    from pettingzoo.test import api_test
    from interpreter.ai.adapters import pettingzoo as pz_adapter
    for players in (2, 3):
        env = pz_adapter.env(BOOK, players=players)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=300)
