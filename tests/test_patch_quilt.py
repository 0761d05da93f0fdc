"""tests/rulebooks/patch_quilt: polyomino patches, turned and flipped, sewn onto a 9x9
quilt with button income (issue 27): clean, its scenarios pass, random games pass `check`,
PettingZoo's api_test passes, and each seat's observation shows what covers every cell."""
import contextlib
import io
import warnings
from pathlib import Path

import pytest

from interpreter.game import Rulebook, check_rulebook
from interpreter.tools.scenarios import run_scenarios
from interpreter.tools.simulate import run_check

BOOK = Path(__file__).parent / "rulebooks" / "patch_quilt"


def test_it_validates_without_errors_or_warnings():
    report, game = check_rulebook(BOOK)
    assert game is not None and report.items == [], [d.format() for d in report.items]


def test_its_scenarios_pass():
    results = run_scenarios([BOOK])
    assert len(results) >= 4 and all(r.ok for r in results), [r for r in results if not r.ok]


def test_every_cell_is_observed_and_the_space_holds_every_placement():
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, 3)
    sew = next(a for a in st.legal_actions() if a.startswith("sew("))
    st.apply_action(sew)
    quilt = st.observation(1)["variables"]["quilt"]
    size = len(rb.evaluate(st, "shapes[first(sewn[0]).n][0]"))
    # two quilts of 81 cells; the cells of the patch just sewn show its number
    assert len(quilt) == 2 * 81 and sum(1 for v in quilt.values() if v is not None) == size
    # 12 patches x 8 orientation numbers x 81 corners, and rest
    assert len(rb.action_space(2)) == 12 * 8 * 81 + 1


def test_random_games_find_no_problem():
    assert run_check(str(BOOK), 10, [2], {}, [], jobs=1) == []


@pytest.mark.slow                       # 200 games per player count: ~1 min
def test_two_hundred_games_per_player_count_find_no_problem():
    assert run_check(str(BOOK), 200, [2], {}, [], jobs=2) == []


def test_pettingzoo_api_test_passes():
    pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the rl extra")
    from pettingzoo.test import api_test
    from interpreter.ai.adapters import pettingzoo as pz_adapter
    for players in (2,):
        env = pz_adapter.env(BOOK, players=players)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=300)
