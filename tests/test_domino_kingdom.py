"""tests/rulebooks/domino_kingdom: two-terrain dominoes laid into a 5x5 kingdom around a
castle with the grid-shape functions (issue 27): each seat's observation shows what every cell of its kingdom holds.
(Clean, scenarios, `check` and PettingZoo's api_test: tests/test_written_games.py.)"""
from pathlib import Path

from interpreter.game import Rulebook

BOOK = Path(__file__).parent / "rulebooks" / "domino_kingdom"


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
