"""The standard library, each function on its own, through the language.

Expected values are worked out by hand in the comments.
"""
import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.game import Rulebook
from interpreter.engine.run.stdlib import BUILTINS

GAME = """\
regelwerk: 1
game: {name: Lib, players: {min: 2, max: 4}}
enums:
  color: [red, blue, green]
components:
  chip:
    attributes: {color: color, value: int}
    items:
      - {color: red, value: 3, count: 2}
      - {color: blue, value: 5, count: 1}
      - {color: green, value: 1, count: 1}
    label: "{color}{value}"
    home: pile
zones:
  pile: {type: deck}
  tray: {capacity: 3, owner: 1}
  hand: {index: {p: players}, owner: p}
  grid: {index: {r: "1..2", c: "1..3"}}
seats:
  automata: "1 if num_players == 2 else 0"
  automaton_names: [Robo]
flow: []
end: {score: "0"}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lib")
    (folder / "game.yaml").write_text(GAME)
    rb = Rulebook.load(folder)
    state = rb.new_game(2, seed=1)
    return rb, state


def ev(lib, text):
    rb, state = lib
    value = rb.evaluate(state, text)
    return list(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize("text, expected", [
    # counting and aggregates
    ("count([1, 2, 3])", 3),
    ("count([1, 2, 3, 4], x -> x % 2 == 0)", 2),
    ("count([x for x in [1, 2, 3, 4] if x % 2 == 0])", 2),    # counted as the line above: no list made
    ("count([c for c in pile if c.color == red])", 2),         # of a zone's contents
    ("count([x for x in [1, 2, 3] if x > 5])", 0),
    ("count([x + 1 for x in [1, 2, 3] if x > 1])", 2),         # another element: the list, counted
    ("count(pile)", 4),                                   # a zone stands for its contents
    ("count(pile, c -> c.color == red)", 2),
    ("sum([1, 2, 3])", 6),
    ("sum(pile, c -> c.value)", 12),                      # 3 + 3 + 5 + 1
    ("max([4, 9, 2])", 9),
    ("max(pile, c -> c.value)", 5),
    ("max([], x -> x, 7)", 7),                            # a default for an empty list
    ("max(3, 8, 5)", 8),
    ("min(pile, c -> c.value)", 1),
    ("min(4, 2)", 2),
    ("any([1, 2], x -> x > 1)", True),
    ("any([], x -> x > 1)", False),
    ("all([1, 2], x -> x > 1)", False),
    ("all([], x -> x > 1)", True),
    ("abs(-4)", 4),
    # lists
    ("filter([5, 6, 7], x -> x != 6)", [5, 7]),
    ("map([1, 2], x -> x * 10)", [10, 20]),
    ("sorted([3, 1, 2])", [1, 2, 3]),
    ("sorted([3, 1, 2], x -> -x)", [3, 2, 1]),
    ("reversed([1, 2, 3])", [3, 2, 1]),
    ("distinct([2, 1, 2, 3, 1])", [2, 1, 3]),
    ("first([4, 5, 6], x -> x > 4)", 5),
    ("first([4], x -> x > 4)", None),
    ("last([4, 5, 6], x -> x < 6)", 5),
    ("argmax([1, 3, 2, 3], x -> x)", [3, 3]),
    ("argmin([2, 1, 1], x -> x)", [1, 1]),
    ("index_of([7, 8, 9], 9)", 2),
    ("index_of([7, 8, 9], 1)", -1),
    ("flatten([[1], [2, 3], []])", [1, 2, 3]),
    ("repeat_list(0, 3)", [0, 0, 0]),
    ("take([1, 2, 3], 2)", [1, 2]),
    ("take([1, 2, 3], 0)", []),
    ("take([1, 2, 3], -1)", []),                          # nothing below 0
    ("take([1, 2, 3], 5)", [1, 2, 3]),                    # as many as there are
    ("take(pile, 1) == [bottom(pile)]", True),            # a zone's order, bottom first; a list value (a tuple)
    ("count(take(filter(pile, c -> c.color == red), 9))", 2),
    ("[1, 2] + [3]", [1, 2, 3]),
    ("1..4", [1, 2, 3, 4]),
    ("3..2", []),
    # zones and components
    ("empty(tray)", True),
    ("empty(pile)", False),
    ("full(tray)", False),
    ("capacity(tray)", 3),
    ("room(tray)", 3),
    ("owner(tray)", 1),
    ("owner(hand[0])", 0),
    ("top(pile).label", "green1"),                        # a deck's top is the last one put there
    ("bottom(pile).label", "red3"),
    ("zone_of(top(pile)) == pile", True),
    ("zone_index(grid[2, 3])", [2, 3]),
    ("labels(pile)", ["blue5", "green1", "red3", "red3"]),
    ("top(pile) in pile", True),
    ("top(pile) in tray", False),
    ("top(pile).kind == chip", True),
    # seats: 2 players + 1 automaton = 3 seats
    ("num_seats", 3),
    ("next(2)", 0),
    ("next(0, 2)", 2),
    ("prev(0)", 2),
    ("seats_from(1)", [1, 2, 0]),
    ("seats_from(0)", [0, 1, 2]),                         # (answers made once per number of seats)
    ("seats_from(2)", [2, 0, 1]),
    ("seats_from(2) == seats_from(next(1))", True),
    ("automaton(2)", True),
    ("automaton(0)", False),
    ("seat_name(2)", "Robo"),
    # graphs: a path 1-2-3 and a separate 5; neighbours are +-1
    ("connected(2, n -> [n - 1, n + 1], n -> n in [1, 2, 3, 5])", [2, 1, 3]),   # 2, then its neighbours in order
    ("connected(4, n -> [n - 1, n + 1], n -> n in [1, 2, 3, 5])", []),
    # groups: 1,2 red; 3 blue; 4 red (not next to 2) -> [1,2], [3], [4]
    ("groups([1, 2, 3, 4], n -> [n - 1, n + 1], n -> red if n != 3 else blue)", [(1, 2), (3,), (4,)]),
    ("subsets([1, 2, 3], 2)", [(1, 2), (1, 3), (2, 3)]),
    ("multisets([1, 2], 2)", [(1, 1), (1, 2), (2, 2)]),
    ("count(permutations([1, 2, 3]))", 6),
    # shapes: a domino of cells a=(0,0), b=(0,1). Turned 90 degrees clockwise (r, c) -> (c, -r):
    # a (0,0), b (1,0); 180: a (0,0), b (0,-1) moved right by 1: a (0,1), b (0,0); 270: b above a
    ("orientations([(0, 0), (0, 1)])", [((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 1), (0, 0)), ((1, 0), (0, 0))]),
    # an L of 4 cells has 8 different images (4 turns x 2 sides), turned only 4
    ("count(orientations([(0, 0), (1, 0), (2, 0), (2, 1)]))", 8),
    ("count(rotations([(0, 0), (1, 0), (2, 0), (2, 1)]))", 4),
    # the 2x2 square: its cells' order changes with each turn; as sets of cells one image
    ("count(distinct(map(orientations([(0, 0), (0, 1), (1, 0), (1, 1)]), o -> sorted(o))))", 1),
    # a hex domino points in 6 directions; its mirror images are among them
    ("count(hex_orientations([(0, 0), (1, 0)]))", 6),
    # turning (1, 0) by 60 degrees: (q, r) -> (-r, q + r) = (0, 1); cell 0 stays, moved to (0, 0)
    ("hex_orientations([(0, 0), (1, 0)])[1]", [(0, 0), (0, 1)]),
    ("translate([(0, 0), (1, 0)], 2, 3)", [(2, 3), (3, 3)]),
    ("neighbours4((2, 2))", [(1, 2), (2, 1), (2, 3), (3, 2)]),
    ("hex_neighbours((0, 0))", [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]),
    ("inside([(0, 0), (4, 4)], 5, 5)", True),
    ("inside([(4, 4), (4, 5)], 5, 5)", False),
    ("touches([(0, 0), (0, 1)], [(1, 1)])", True),              # (0,1) is above (1,1)
    ("touches([(0, 0), (0, 1)], [(1, 2)])", False),             # only diagonal
    # on a hex grid (0, 0) is beside (1, -1) but not (1, 1) (see hex_neighbours above)
    ("touches([(0, 0)], [(1, -1)], q -> hex_neighbours(q))", True),
    ("touches([(0, 0)], [(1, 1)], q -> hex_neighbours(q))", False),
    # a straight hex tromino lies along one of 3 axes; a bent one (120 degrees at the middle)
    # points 6 ways and is its own mirror image, so flipping adds none
    ("count(distinct(map(hex_rotations([(0, 0), (1, 0), (2, 0)]), o -> sorted(o))))", 3),
    ("count(distinct(map(hex_rotations([(0, 0), (1, 0), (1, 1)]), o -> sorted(o))))", 6),
    ("count(distinct(map(hex_orientations([(0, 0), (1, 0), (1, 1)]), o -> sorted(o))))", 6),
    # a line of three with a hook at one end has no mirror axis: its mirror image (the hook on the
    # other side) is no turn of it, so 6 turns x 2 sides
    ("count(distinct(map(hex_rotations([(0, 0), (1, 0), (2, 0), (2, -1)]), o -> sorted(o))))", 6),
    ("count(distinct(map(hex_orientations([(0, 0), (1, 0), (2, 0), (2, -1)]), o -> sorted(o))))", 12),
    # matching terrain: a red/blue domino on (0,0) (0,1); only (1,0), below the red half, shows red
    ("touches_same([(0, 0), (0, 1)], [red, blue], q -> neighbours4(q), q -> red if q == (1, 0) else none)", True),
    # turned round (blue on (0,0)): blue is beside red, red beside nothing
    ("touches_same([(0, 0), (0, 1)], [blue, red], q -> neighbours4(q), q -> red if q == (1, 0) else none)", False),
    # matching edges: red below red and blue below blue match; blue above red does not; nothing beside matches
    ("borders_match([(0, 0), (0, 1)], [red, blue], q -> neighbours4(q), "
     "q -> red if q == (1, 0) else (blue if q == (1, 1) else none))", True),
    ("borders_match([(0, 0), (0, 1)], [blue, blue], q -> neighbours4(q), "
     "q -> red if q == (1, 0) else (blue if q == (1, 1) else none))", False),
    ("borders_match([(0, 0), (0, 1)], [red, blue], q -> neighbours4(q), q -> none)", True),
    # edges in the order of neighbours4 (up, left, right, down). A tile on (1, 1) with a red right side
    # beside a tile on (1, 2) whose left side (its 2nd, where (1, 1) is among its neighbours) is red: match
    ("edges_match((1, 1), [blue, blue, red, blue], q -> neighbours4(q), "
     "q -> [green, red, green, green] if q == (1, 2) else none)", True),
    # the neighbour's left side is green: no match; no neighbour at all: a match
    ("edges_match((1, 1), [blue, blue, red, blue], q -> neighbours4(q), "
     "q -> [red, green, red, red] if q == (1, 2) else none)", False),
    ("edges_match((1, 1), [blue, blue, red, blue], q -> neighbours4(q), q -> none)", True),
])
def test_builtin(lib, text, expected):
    assert ev(lib, text) == expected


def test_rank_shares_places_and_skips(lib):
    # values 5, 9, 5, 1: 9 is 1st, both 5s share 2nd, 1 is 4th
    out = ev(lib, "map(rank([5, 9, 5, 1], x -> x), r -> (r.item, r.place))")
    assert sorted(out) == [(1, 4), (5, 2), (5, 2), (9, 1)]


def test_dense_rank_counts_distinct_values(lib):
    # 11, 7, 7, 5: 11 first, the 7s second, 5 third (the "second-highest value" reading)
    out = ev(lib, "map(dense_rank([7, 11, 5, 7], x -> x), r -> (r.item, r.place))")
    assert sorted(out) == [(5, 3), (7, 2), (7, 2), (11, 1)]


def test_rank_breaks_ties_with_later_keys(lib):
    # (count, tie-break): (2, 1) beats (2, 0); (1, 5) last
    out = ev(lib, "map(rank([(2, 0), (1, 5), (2, 1)], x -> x), r -> r.place)")
    assert out == [1, 2, 3]


def test_best_assignment_maximises_and_keeps_options_distinct(lib):
    # items a=1 (options 10, 20), b=2 (option 20); value = sum of options chosen.
    # Best: 1->10, 2->20 (30); 1->20 alone would give 20.
    out = ev(lib, "best_assignment([1, 2], i -> [10, 20] if i == 1 else [20], a -> sum(a, p -> p[1]))")
    assert out == [(1, 10), (2, 20)]


def test_best_assignment_may_leave_items_out(lib):
    # the value punishes assigning item 2: leaving it out is best
    out = ev(lib, "best_assignment([1, 2], i -> [i], a -> sum(a, p -> 5 if p[0] == 1 else -5))")
    assert out == [(1, 1)]


def test_max_of_an_empty_list_is_a_located_rule_error(lib):
    with pytest.raises(RuleRuntimeError) as info:
        ev(lib, "max([])")
    assert "max() of an empty list" in info.value.message


def test_every_builtin_is_documented_in_the_language_reference():
    from conftest import ROOT
    text = (ROOT / "docs" / "language.md").read_text()
    missing = [name for name in BUILTINS if f"`{name}(" not in text]
    assert not missing, f"undocumented: {missing}"


@pytest.mark.parametrize("text", [
    "sorted([3, 1, 2, 1], x -> x % 2)",                 # ties keep their order: 2, 3, 1, 1
    "argmin([2, 1, 3, 1], x -> x)",
    "argmax([2, 7, 3, 7], x -> x * 2)",
    "map(rank([5, 9, 5, 1], x -> x), r -> (r.item, r.place, r.key))",
    "map(dense_rank([7, 11, 5, 7], x -> -x), r -> (r.item, r.place))",
    "(any([0, 2], x -> x > 1), all([2, 0], x -> x > 1), first([0, 2, 3], x -> x > 1), count([1, 2, 3], x -> x > 1))",
    "(filter([1, 2, 3], x -> x != 2), map([1, 2], x -> x * 3), sum([1, 2, 3], x -> x * x))",
    # written out as Python where their arguments allow it
    "(top(pile), bottom(pile), first(pile), last(pile), first([]), top(tray), first([2, 3]))",
    "(room(tray), full(tray), capacity(tray), capacity(pile), owner(tray), room(hand[0]))",
    "(next(1), next(0, 3), prev(0), prev(1, 2), automaton(1), automaton(0), seat_name(1))",
])
def test_a_function_with_a_lambda_written_as_statements_or_as_one_expression_agrees(lib, text):
    """Generated code writes these as loops in statement context (a key per item, then the
    library function given the keys; or the loop itself) and as calls with a Python lambda
    inside one expression (here: the element of a comprehension over five lists, too deep
    to be written as nested loops: exprs._listcomp_nested); a comprehension over two lists is
    written as loops, its element as statements."""
    assert ev(lib, text) == ev(lib, f"first([{text} for i in [1] for j in [1] for a in [1] for b in [1] for c in [1]])")
    assert ev(lib, text) == ev(lib, f"first([{text} for i in [1] for j in [1]])")
    assert ev(lib, "sorted([3, 1, 2, 1], x -> x % 2)") == [2, 3, 1, 1]


def test_a_counted_selection_fails_where_its_condition_fails(lib):
    # count([x for x in xs if cond]) is counted without the list (calls._counted_selection): a
    # condition that fails is still the located error of the expression, for the item it fails on
    with pytest.raises(RuleRuntimeError) as info:
        ev(lib, "count([x for x in [2, 1, 0] if 6 // x > 2])")     # 6 // 2 = 3, 6 // 1 = 6, 6 // 0 fails
    assert "division by zero" in info.value.message or "zero" in info.value.message
