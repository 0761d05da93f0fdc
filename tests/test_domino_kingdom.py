"""tests/rulebooks/domino_kingdom: two-terrain dominoes laid into a 5x5 kingdom around a
castle with the grid-shape functions (issue 27): clean, its scenarios pass (a full scoring
example among them), random games pass `check`, PettingZoo's api_test passes, and each
seat's observation shows what every cell of its kingdom holds."""
import contextlib
import io
import warnings
from pathlib import Path

import pytest

from interpreter.game import Rulebook, check_rulebook
from interpreter.tools.scenarios import run_scenarios
from interpreter.tools.simulate import run_check

BOOK = Path(__file__).parent / "rulebooks" / "domino_kingdom"


def test_it_validates_without_errors_or_warnings():
    report, game = check_rulebook(BOOK)
    assert game is not None and report.items == [], [d.format() for d in report.items]


def test_its_scenarios_pass():
    results = run_scenarios([BOOK])
    assert len(results) >= 4 and all(r.ok for r in results), [r for r in results if not r.ok]


def test_every_cell_is_observed_and_the_space_holds_every_placement():
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, 3)
    first = st.legal_actions()[0]
    st.apply_action(first)
    land = st.observation(1)["variables"]["land"]
    # two kingdoms of 25 cells: the two castles and the two halves just laid show
    assert len(land) == 2 * 25 and sum(1 for v in land.values() if v is not None) == 2 + 2
    # 24 dominoes x 25 cells x 4 directions, and a discard per domino
    assert len(rb.action_space(2)) == 24 * 25 * 4 + 24


def test_random_games_find_no_problem():
    assert run_check(str(BOOK), 10, [2, 3], {}, [], jobs=1) == []


@pytest.mark.slow                       # 200 games per player count: ~1 min
def test_two_hundred_games_per_player_count_find_no_problem():
    assert run_check(str(BOOK), 200, [2, 3], {}, [], jobs=2) == []


def test_pettingzoo_api_test_passes():
    pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the rl extra")
    from pettingzoo.test import api_test
    from interpreter.ai.adapters import pettingzoo as pz_adapter
    for players in (2, 3):
        env = pz_adapter.env(BOOK, players=players)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=300)
