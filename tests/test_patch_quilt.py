"""tests/rulebooks/patch_quilt: polyomino patches, turned and flipped, sewn onto a 9x9
quilt with button income (issue 27): each seat's observation shows what covers every cell.
(Clean, scenarios, `check` and PettingZoo's api_test: tests/test_written_games.py.)"""
from pathlib import Path

from interpreter.game import Rulebook

BOOK = Path(__file__).parent / "rulebooks" / "patch_quilt"


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
