"""Pieces that cover several cells of a grid (issue 27), on their own: a zone with `cells:` is a
grid, a `move` with `cells:` lays one component on it covering those cells (cell i of the list
for the piece's part i), and the piece is moved and removed as one component: its cells are free
again when it leaves.  Expected values are worked out by hand in the comments."""
import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.game import Rulebook, check_rulebook

GAME = """\
regelwerk: 1
game: {name: Pieces, players: {min: 2, max: 2}}
components:
  bar: {attributes: {n: int}, items: [{for_each: {n: "1..3"}, count: 1}], label: "b{n}", home: pile}
zones:
  pile: {holds: [bar]}
  gone: {holds: [bar]}
  board: {index: {p: players}, holds: [bar], cells: "[(r, c) for r in 0..2 for c in 0..2]"}
functions:
  owner_of:                     # whose board a cell's piece lies on: read through piece_at
    params: {q: list of int}
    value: "first(players, p -> piece_at(board[p], q) != none)"
actions:
  lay:
    params: {t: pile, r: "0..2", c: "0..1"}
    where: "can_cover(board[player], [(r, c), (r, c + 1)])"
    do: [{move: t, to: "board[player]", cells: "[(r, c), (r, c + 1)]"}]
  stand:                        # lay a piece of one's board anew, upright at column c
    params: {t: "board[player]", c: "0..2"}
    where: "all([(0, c), (1, c)], q -> piece_at(board[player], q) == none or piece_at(board[player], q) == t)"
    do: [{move: t, to: "board[player]", cells: "[(1, c), (0, c)]"}]
  lift:
    params: {t: "board[player]"}
    do: [{move: t, to: gone}]
  clear:                        # everything on one's board at once
    where: "not empty(board[player])"
    do: [{move: "board[player]", to: gone}]
  give:                         # to the other board, on the same cells if free
    params: {t: "board[player]"}
    where: "can_cover(board[next(player)], cells_of(t))"
    do: [{move: t, to: "board[next(player)]", cells: "cells_of(t)"}]
flow:
  - repeat: 3
    do:
      - turns: 0
        once: true
        do: [{decide: [lay, stand, lift, clear, give], otherwise: [{log: "nothing to do"}]}]
end:
  score: "count(covered(board[p]))"
"""


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pieces")
    (folder / "game.yaml").write_text(GAME)
    return Rulebook.load(folder)


def ev(rb, st, text):
    return deep(rb.evaluate(st, text))


def deep(value):
    """Lists for tuples, all the way down (the language's lists and tuples are Python tuples)."""
    return [deep(x) for x in value] if isinstance(value, (tuple, list)) else value


def test_a_piece_is_one_component_covering_its_cells(book):
    st = book.new_game(2, seed=1)
    st.apply_action("lay(t=b1,r=1,c=0)")
    # b1 is in one zone, board[0], and covers (1, 0) with its part 0 and (1, 1) with part 1
    assert ev(book, st, "labels(board[0])") == ["b1"] and ev(book, st, "count(pile)") == 2
    assert ev(book, st, "cells_of(first(board[0]))") == deep([(1, 0), (1, 1)])
    assert ev(book, st, "(piece_at(board[0], (1, 1)), part_at(board[0], (1, 1)))") == deep((st.lay.by_label["b1"][0], 1))
    assert ev(book, st, "piece_at(board[0], (0, 0)) == none and part_at(board[0], (0, 0)) == none") is True
    assert ev(book, st, "covered(board[0])") == deep([(1, 0), (1, 1)])
    assert ev(book, st, "count(grid_cells(board[0]))") == 9
    # (1, 1) is covered, (1, 3) is no cell of the 3x3 board, (0, 0) twice is refused
    assert ev(book, st, "(can_cover(board[0], [(0, 1), (1, 1)]), can_cover(board[0], [(1, 2), (1, 3)]), "
                        "can_cover(board[0], [(0, 0), (0, 0)]), can_cover(board[0], [(0, 0), (0, 1)]))") == \
        [False, False, False, True]
    obs = st.observation(1)
    assert obs["cells"]["board[0]"]["(1,0)"] == ["b1", 0] and obs["cells"]["board[0]"]["(1,1)"] == ["b1", 1]
    assert sum(held is not None for held in obs["cells"]["board[1]"].values()) == 0


def test_laid_anew_moved_to_another_grid_and_removed_as_one_piece(book):
    st = book.new_game(2, seed=1)
    st.apply_action("lay(t=b1,r=1,c=0)")            # seat 0: b1 on (1,0) (1,1)
    st.apply_action("lay(t=b2,r=0,c=1)")            # seat 1: b2 on (0,1) (0,2) of board[1]
    assert ev(book, st, "owner_of((0, 2))") == 1
    st.apply_action("stand(t=b1,c=2)")              # seat 0: b1 stands on (1,2) (part 0) and (0,2)
    assert ev(book, st, "covered(board[0])") == deep([(0, 2), (1, 2)])
    assert ev(book, st, "cells_of(first(board[0]))") == deep([(1, 2), (0, 2)])
    assert ev(book, st, "owner_of((1, 0))") is None             # the old cells are free: remembered results too
    # seat 1 may not give b2 to board[0]: its cells there would be (0,1), free, and (0,2), b1's now
    assert "give(t=b2)" not in st.legal_actions() and "lift(t=b2)" in st.legal_actions()
    st2 = book.new_game(2, seed=1)
    for a in ["lay(t=b1,r=1,c=0)", "lay(t=b2,r=0,c=0)"]:
        st2.apply_action(a)
    st2.apply_action("give(t=b1)")                  # b1 from board[0] to board[1], cells (1,0) (1,1)
    assert ev(book, st2, "(labels(board[0]), labels(board[1]))") == deep(([], ["b1", "b2"]))
    assert ev(book, st2, "covered(board[0])") == [] and ev(book, st2, "covered(board[1])") == \
        deep([(0, 0), (0, 1), (1, 0), (1, 1)])
    st2.apply_action("lift(t=b1)")                  # seat 1 lifts b1 off: its two cells are free at once
    assert ev(book, st2, "covered(board[1])") == deep([(0, 0), (0, 1)]) and ev(book, st2, "cells_of(first(gone))") == []
    # clone and JSON keep what covers each cell
    back = book.state_from_json(st2.to_json())
    assert back.observation(0)["cells"] == st2.clone().observation(0)["cells"] == st2.observation(0)["cells"]


def test_a_board_emptied_at_once_frees_every_cell(book):
    st = book.new_game(2, seed=1)
    for a in ["lay(t=b1,r=0,c=0)", "lay(t=b2,r=0,c=0)", "lay(t=b3,r=2,c=1)", "clear"]:
        st.apply_action(a)
    # seat 1 moved board[1]'s contents, b2, to gone: its 2 cells are free, seat 0's 4 are not
    assert ev(book, st, "(labels(gone), covered(board[0]), covered(board[1]))") == \
        deep((["b2"], [(0, 0), (0, 1), (2, 1), (2, 2)], []))
    st.apply_action("clear")
    # seat 0 moves b1 and b3 at once: all 4 of their cells are free
    assert ev(book, st, "(labels(gone), covered(board[0]))") == deep((["b1", "b2", "b3"], []))


def test_connected_regions_over_the_cells_pieces_cover(book):
    st = book.new_game(2, seed=1)
    for a in ["lay(t=b1,r=0,c=0)", "lay(t=b2,r=2,c=1)", "lay(t=b3,r=1,c=1)"]:
        st.apply_action(a)
    # board[0]: b1 on (0,0) (0,1), b3 on (1,1) (1,2): one region of 4 cells ((0,1) above (1,1));
    # board[1]: b2 on (2,1) (2,2)
    assert ev(book, st, "map(groups(covered(board[0]), q -> neighbours4(q), q -> 0), g -> count(g))") == [4]
    assert ev(book, st, "map(groups(covered(board[0]), q -> neighbours4(q), q -> piece_at(board[0], q)), "
                        "g -> labels(map(g, q -> piece_at(board[0], q))))") == [["b1", "b1"], ["b3", "b3"]]


def test_a_covered_cell_or_a_cell_off_the_grid_is_a_located_rule_error(book):
    st = book.new_game(2, seed=1)
    st.apply_action("lay(t=b1,r=0,c=0)")
    b2, board = st.lay.by_label["b2"][0], st.lay.zone_by_name("board[0]")
    with pytest.raises(RuleRuntimeError, match=r"cell \(0,1\) of board\[0\] is covered by b1 already"):
        st.clone().cover(b2, board, ((0, 1), (0, 2)), None)
    with pytest.raises(RuleRuntimeError, match=r"\(0,3\) is not a cell of board\[0\]"):
        st.clone().cover(b2, board, ((0, 2), (0, 3)), None)
    with pytest.raises(RuleRuntimeError, match="is not a grid"):
        st.clone().cover(b2, st.lay.zone_by_name("gone"), ((0, 0),), None)
    with pytest.raises(RuleRuntimeError, match="board\\[0\\] is a grid"):
        st.clone().move_component(b2, board, False, None)


@pytest.mark.parametrize("zones, step, code", [
    ('board: {holds: [bar], cells: "[(0, 0), (0, 1)]", visible: false}', "{move: t, to: board, cells: \"[(0, 0)]\"}",
     "RW270"),                                        # a grid everyone sees
    ("board: {holds: [bar]}", "{move: t, to: board, cells: \"[(0, 0)]\"}", "RW271"),    # no grid there
    ('board: {holds: [bar], cells: "[(0, 0), (0, 1)]"}', "{move: t, to: board}", "RW272"),  # which cells?
    ('board: {holds: [bar], cells: "[(0, 0), (0, 1)]"}', "{move: pile, to: board, cells: \"[(0, 0)]\"}",
     "RW271"),                                        # one component, not a zone's contents
])
def test_a_grid_used_wrongly_is_a_located_error(tmp_path, zones, step, code):
    (tmp_path / "game.yaml").write_text(f"""\
regelwerk: 1
game: {{name: Bad, players: {{min: 2, max: 2}}}}
components:
  bar: {{count: 2, home: pile}}
zones:
  pile: {{holds: [bar]}}
  {zones}
actions:
  put:
    params: {{t: pile}}
    do: [{step}]
flow:
  - repeat: 2
    do: [{{decide: [put], otherwise: [{{log: none left}}]}}]
end: {{score: "count(board)"}}
""")
    report, _ = check_rulebook(tmp_path)
    found = [d for d in report.items if d.code == code]
    assert found and found[0].pos.line > 1, [d.format() for d in report.items]


def test_the_observation_tensor_shows_every_cell(book):
    pytest.importorskip("numpy")
    st = book.new_game(2, seed=1)
    st.apply_action("lay(t=b3,r=2,c=1)")
    spec = book.observation_spec(2)
    cells = st.observation_tensor(1)["cells:board"]
    rows, cols = spec.rows("cells:board"), spec.columns("cells:board")
    assert cells.shape == (18, 5) and cols == ["covered", "b1", "b2", "b3", "part"]
    # b3's part 1 on (2,2) of board[0]
    row = cells[rows.index(("board[0]", "(2,2)"))]
    assert list(row) == [1, 0, 0, 1, 1] and cells[:, 0].sum() == 2
