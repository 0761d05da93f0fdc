"""tests/rulebooks/patch_quilt: polyomino patches, turned and flipped, sewn onto a 9x9
quilt with button income (issue 27), each patch one piece on the quilt's grid: each seat's
observation shows what covers every cell.
(Clean, scenarios, `check` and PettingZoo's api_test: tests/test_written_games.py.)"""
from pathlib import Path

from interpreter.game import Rulebook

BOOK = Path(__file__).parent / "rulebooks" / "patch_quilt"


def test_every_cell_is_observed_and_the_space_holds_every_placement():
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, 3)
    sew = next(a for a in st.legal_actions() if a.startswith("sew("))
    st.apply_action(sew)
    cells = st.observation(1)["cells"]
    patch = st.observation(1)["zones"]["quilt[0]"]
    size = len(rb.evaluate(st, "cells_of(first(quilt[0]))"))
    # two quilts of 81 cells; the patch just sewn is one piece covering its cells, part 0 first
    assert [len(q) for q in cells.values()] == [81, 81] and len(patch) == 1
    covering = sorted(held for held in cells["quilt[0]"].values() if held is not None)
    assert covering == [[patch[0], i] for i in range(size)] and size >= 2
    # 12 patches x 8 orientation numbers x 81 corners, and rest
    assert len(rb.action_space(2)) == 12 * 8 * 81 + 1
