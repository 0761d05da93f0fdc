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
