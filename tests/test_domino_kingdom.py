"""tests/rulebooks/domino_kingdom: two-terrain dominoes laid into a 5x5 kingdom around a
castle, each domino one piece on the kingdom's grid covering two cells (issue 27): each
seat's observation shows what covers every cell of every kingdom.
(Clean, scenarios, `check` and PettingZoo's api_test: tests/test_written_games.py.)"""
from pathlib import Path

from interpreter.game import Rulebook

BOOK = Path(__file__).parent / "rulebooks" / "domino_kingdom"


def test_every_cell_is_observed_and_the_space_holds_every_placement():
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, 3)
    first = st.legal_actions()[0]
    st.apply_action(first)
    cells = st.observation(1)["cells"]
    # two kingdoms of 24 cells (the castle's is no cell of the grid): the domino just laid
    # is one piece, in one zone, covering two cells, its half a on the first
    assert sorted(cells) == ["kingdom[0]", "kingdom[1]"] and all(len(k) == 24 for k in cells.values())
    laid = st.observation(1)["zones"]["kingdom[0]"]
    covered = {cell: held for cell, held in cells["kingdom[0]"].items() if held is not None}
    assert len(laid) == 1 and sorted(covered.values()) == [[laid[0], 0], [laid[0], 1]]
    # 24 dominoes x 25 cells x 4 directions, and a discard per domino
    assert len(rb.action_space(2)) == 24 * 25 * 4 + 24


def test_the_view_draws_each_cell_of_a_kingdom_as_the_terrain_of_the_half_on_it():
    from interpreter.play.view.model import build_view
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, 3)
    d17 = st.lay.by_label["d17"][0]
    st.cover(d17, st.lay.zone_by_name("kingdom[0]"), ((1, 2), (0, 2)), None)
    kingdom = next(f for f in build_view(st, 1)["players"][0]["families"] if f["name"] == "kingdom")
    assert kingdom["shape"] == "grid" and kingdom["rows"] == ["0", "1", "2", "3", "4"]
    # display: parts: {domino: half}: d17's half a, meadow, on (1, 2); half b, lake, on (0, 2); the castle no cell
    assert kingdom["cells"][1][2]["components"][0]["short"] == "M"
    assert kingdom["cells"][0][2]["components"][0]["short"] == "L"
    assert kingdom["cells"][2][2] is None and kingdom["cells"][0][0]["components"] == []
