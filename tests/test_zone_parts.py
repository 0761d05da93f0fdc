"""zones(family, i...) and count_nonempty(zs): part of a zone family as a list of
zones, and how many of them hold something; typed like family[...] and located."""
import pytest

from dsl.diagnostics import RulebookError
from interpreter.game import Rulebook, check_rulebook

GAME = """\
regelwerk: 1
game: {name: Parts, players: {min: 2, max: 3}}
components:
  chip: {count: 4, home: pile}
zones:
  pile: {type: deck}
  grid: {index: {p: players, r: "1..2", c: "1..(3 if r == 1 else 2)"}, owner: p}
functions:
  filled_in_row:
    params: {p: player, r: int}
    value: "count_nonempty(zones(grid, p, r))"
setup:
  - {move: "top(pile)", to: "grid[0, 1, 2]"}
  - {move: "top(pile)", to: "grid[0, 2, 1]"}
  - {move: "top(pile)", to: "grid[1, 1, 3]"}
flow: []
end: {score: "0"}
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parts")
    (folder / "game.yaml").write_text(GAME)
    rb = Rulebook.load(folder)
    return rb, rb.new_game(2, seed=1)


def ev(game, text):
    rb, state = game
    value = rb.evaluate(state, text)
    return list(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize("text, expected", [
    # the family's order: p, then r, then c; row 1 has 3 positions, row 2 has 2
    ("[str(z) for z in zones(grid, 0, 1)]", ["grid[0, 1, 1]", "grid[0, 1, 2]", "grid[0, 1, 3]"]),
    ("[str(z) for z in zones(grid, 1)]",
     ["grid[1, 1, 1]", "grid[1, 1, 2]", "grid[1, 1, 3]", "grid[1, 2, 1]", "grid[1, 2, 2]"]),
    ("count(zones(grid))", 10),                        # 2 players x 5 positions
    ("zones(grid, 1, 2, 2) == [grid[1, 2, 2]]", True),  # every index given: one zone
    ("count(zones(grid, 5))", 0),                       # no such player: nothing
    # setup filled grid[0,1,2], grid[0,2,1], grid[1,1,3]
    ("count_nonempty(zones(grid, 0))", 2),
    ("count_nonempty(zones(grid, 1))", 1),
    ("count_nonempty(zones(grid, 0, 2))", 1),
    ("count_nonempty(zones(grid))", 3),
    ("count_nonempty([pile, grid[0, 1, 1]])", 1),       # pile still holds 1 chip
    ("count_nonempty([])", 0),
    ("filled_in_row(0, 1) + filled_in_row(1, 1)", 2),   # through a function
    # the same as count with a predicate
    ("count_nonempty(zones(grid, 0)) == count(zones(grid, 0), z -> not empty(z))", True),
])
def test_zone_parts(game, text, expected):
    assert ev(game, text) == expected


@pytest.mark.parametrize("text, message", [
    ("zones(grod, 0)", "must be the name of a zone family"),
    ("zones(pile, 0)", "has 0 index value(s)"),
    ("zones(grid, 0, 1, 2, 3)", "has 3 index value(s)"),
    ("zones(grid, 0, pile)", "index 'r' is a number, not a zone"),
    ("zones(3)", "must be the name of a zone family"),
    ("zones()", "needs the name of a zone family"),
    ("count_nonempty(pile)", "must be a list of zones"),
    ("count_nonempty([1, 2])", "must be a list of zones"),
])
def test_misuse_is_a_rule_error(game, text, message):
    with pytest.raises(RulebookError) as info:
        ev(game, text)
    assert any(message in d.message for d in info.value.diagnostics), info.value


def test_errors_in_a_rulebook_are_located(tmp_path):
    bad = GAME.replace('value: "count_nonempty(zones(grid, p, r))"', 'value: "count_nonempty(zones(grid, r, p, 1, 2))"')
    (tmp_path / "game.yaml").write_text(bad)
    report, _ = check_rulebook(tmp_path)
    errors = [d for d in report.sorted() if d.is_error]
    assert errors, "expected an error"
    line = bad.splitlines().index('    value: "count_nonempty(zones(grid, r, p, 1, 2))"') + 1
    assert any(d.pos.line == line and "has 3 index value(s)" in d.message for d in errors), \
        [d.format(False) for d in errors]


LONG = """\
regelwerk: 1
game: {name: Rows, players: {min: 2, max: 2}}
components:
  chip: {count: 6, home: pile}
zones:
  pile: {type: deck}
  row: {index: {p: players, k: "1..30"}, owner: p}
setup:
  - {move: "top(pile)", to: "row[0, 1]"}
  - {move: "top(pile)", to: "row[0, 30]"}
  - {move: "top(pile)", to: "row[0, 17]"}
  - {move: "top(pile)", to: "row[1, 2]"}
flow: []
end: {score: "0"}
"""


def test_count_nonempty_of_a_long_part_reads_it_as_one_run_of_zones(tmp_path):
    """A part of 24 zones or more laid out one after another is counted as a slice of the
    zones' contents (Layout.zone_spans): the same count, also after a move changes it."""
    (tmp_path / "game.yaml").write_text(LONG)
    rb = Rulebook.load(tmp_path)
    st = rb.new_game(2, seed=0)
    # setup: row[0, 1], row[0, 17], row[0, 30] and row[1, 2] hold a chip each
    assert rb.evaluate(st, "count_nonempty(zones(row, 0))") == 3
    assert rb.evaluate(st, "count_nonempty(zones(row, 1))") == 1
    assert rb.evaluate(st, "count_nonempty(zones(row))") == 4          # both seats: 60 zones in one run
    assert len(st.lay.zone_spans) == 3                                 # row 0, row 1, the whole family
    st.move_component(st.z[st.lay.zone_by_name("pile").id][-1], st.lay.zone_by_name("row[0, 29]"), False, None)
    assert rb.evaluate(st, "count_nonempty(zones(row, 0))") == 4
    assert rb.evaluate(st, "count_nonempty(zones(row, 0)) == count(zones(row, 0), z -> not empty(z))")
    # a list of the same zones made otherwise is counted zone by zone, alike
    assert rb.evaluate(st, "count_nonempty([row[0, k] for k in 1..30])") == 4
