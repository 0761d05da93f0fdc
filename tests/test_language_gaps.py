"""The language gaps published games met (issue 37, ``shared/language-repro``): each case
as its reproducer's README says it should behave, plus the edges of each new construct."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.game import Rulebook, check_rulebook

RULEBOOKS = Path(__file__).with_name("rulebooks")


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "game.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def _labels(state, zone: str) -> list:
    return list(state.observation(0)["zones"][zone])


#: the test rulebooks of this file: each validates clean, its scenarios (hand calculations)
#: pass and random games find no problem
BOOKS = {"zone_order": 1, "set_size_from_state": 2, "piece_parts": 1}      # rulebook: players


@pytest.mark.parametrize("book", BOOKS)
def test_the_rulebooks_validate_clean_and_their_scenarios_pass(book):
    from interpreter.tools.scenarios import run_scenarios
    from interpreter.tools.simulate import run_check
    report, rules = check_rulebook(RULEBOOKS / book)
    assert rules is not None and report.items == [], [d.format() for d in report.items]
    results = run_scenarios([RULEBOOKS / book])
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    assert run_check(str(RULEBOOKS / book), 10, [BOOKS[book]], {}, [], jobs=1) == []


# --- moves within a zone --------------------------------------------------------------

def test_a_move_within_its_own_zone_to_the_bottom_or_a_place_reorders_it():
    rb = Rulebook.load(RULEBOOKS / "zone_order")
    s = rb.new_game(players=1, seed=1)
    before = _labels(s, "deck")
    s.apply("roll_top")
    assert _labels(s, "deck") == [before[-1], *before[:-1]]
    s.apply("top_under_one")
    now = _labels(s, "deck")
    assert now[1] == before[-2] and len(now) == 4


def test_a_place_outside_the_zone_is_a_located_error(tmp_path):
    from dsl.diagnostics import RuleRuntimeError
    text = (RULEBOOKS / "zone_order" / "game.yaml").read_text()
    rb = Rulebook.load(_write(tmp_path, text.replace('params: {k: "0..3"}', 'params: {k: "0..4"}')))
    s = rb.new_game(players=1, seed=1)
    with pytest.raises(RuleRuntimeError) as err:
        s.apply("aside_at(k=4)")
    assert "at: 4 is not a place in deck: 3 other components lie there" in str(err.value)
    assert str(err.value.pos).endswith("game.yaml:26:42")      # at the step


# --- a decide nobody can make ----------------------------------------------------------

DECIDE_WITHOUT_PLAYER = """\
regelwerk: 1
game: {name: Decide without player, players: {min: 1, max: 1}}
variables:
  done: false
actions:
  stop:
    do: [{set: "done = true"}]
flow:
  - while: "not done"
    do:
      - decide: [stop]
%s
end: {score: "0"}
"""


def _codes(folder, severity=None) -> list:
    report, _ = check_rulebook(folder)
    return [(d.code, d.pos.line, d.pos.col) for d in report.items if severity in (None, d.severity)]


def test_a_decide_nobody_can_make_is_a_warning_at_the_decide(rulebook):
    folder = rulebook(DECIDE_WITHOUT_PLAYER % "")
    report, _ = check_rulebook(folder)
    found = [d for d in report.items if d.code == "RW312"]
    assert [(d.severity, d.pos.line, d.pos.col) for d in found] == [("warning", 11, 9)]
    assert "'player' is not set" in found[0].message and "who:" in found[0].message
    assert not [d for d in report.items if d.severity == "error"]


def test_a_decide_with_who_or_inside_turns_is_not_reported(rulebook):
    assert "RW312" not in [c for c, *_ in _codes(rulebook(DECIDE_WITHOUT_PLAYER % "        who: 0"))]
    in_turns = DECIDE_WITHOUT_PLAYER.replace("""  - while: "not done"
    do:
      - decide: [stop]""", """  - turns: 0
    while: "not done"
    do:
      - decide: [stop]""") % ""
    assert "RW312" not in [c for c, *_ in _codes(rulebook(in_turns))]
    # a decision every seat takes together (decide: … together: true) needs no player
    assert "RW312" not in [c for c, *_ in _codes(RULEBOOKS / "hand_draft")]


# --- ** and first/last with a default ---------------------------------------------------

LIB = """\
regelwerk: 1
game: {name: Lib, players: {min: 2, max: 2}}
variables:
  x: 0
flow: []
end: {score: "0"}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    folder = _write(tmp_path_factory.mktemp("lib"), LIB)
    rb = Rulebook.load(folder)
    return rb, rb.new_game(2, seed=1)


@pytest.mark.parametrize("text, expected", [
    ("2 ** 10", 1024),
    ("-2 ** 2", -4),                      # as in Python: the power first, then the minus
    ("(-2) ** 3", -8),
    ("2 ** 3 ** 2", 512),                 # to the right: 2 ** 9
    ("3 * 2 ** 2", 12),
    ("10 ** 0", 1),
    ("first([], 7)", 7),
    ("first([4, 5], 7)", 4),
    ("first([4, 5], x -> x > 4, 9)", 5),
    ("first([4], x -> x > 4, 9)", 9),
    ("first([4], x -> x > 4)", None),
    ("last([1, 2], 0)", 2),
    ("last([], x -> x > 1, 3)", 3),
])
def test_power_and_a_default_for_first_and_last(lib, text, expected):
    rb, state = lib
    assert rb.evaluate(state, text) == expected


@pytest.mark.parametrize("text, message", [
    ("2 ** -1", "'**' needs a power of at least 0, not -1"),
    ("10 ** 5000", "limit 'digits'"),
    ("2 ** 100000000000", "limit 'digits'"),          # refused before it is computed
])
def test_a_power_that_is_not_a_whole_number_or_too_big_is_a_located_error(lib, text, message):
    from dsl.diagnostics import RuleRuntimeError
    rb, state = lib
    with pytest.raises(RuleRuntimeError) as err:
        rb.evaluate(state, text)
    assert message in str(err.value) and str(err.value).startswith("<expression>:1:")


def test_power_needs_numbers(lib):
    from dsl.diagnostics import RulebookError
    rb, state = lib
    with pytest.raises(RulebookError, match=r"'\*\*' needs numbers, but this is a boolean \[RW102\]"):
        rb.evaluate(state, "2 ** true")


# --- set sizes from the state -----------------------------------------------------------

SET_HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
actions:
  pick:
    params: {xs: {set: "1..6", size: %s}}
    do: []
flow:
  - decide: [pick]
    who: 0
    otherwise: []
end: {score: "0"}
"""


@pytest.mark.parametrize("size, message", [
    ('"3..1"', "the size of set parameter 'xs' must be a number"),
    ('"-1"', "the size of set parameter 'xs' must be a number"),
    ('"true"', "the size of set parameter 'xs' must be a number, not a boolean"),
    ("[1, 2]", "the size of set parameter 'xs' must be a number"),
])
def test_a_size_that_is_no_number_is_located(rulebook, size, message):
    report, game = check_rulebook(rulebook(SET_HEAD % size))
    errors = [d for d in report.items if d.severity == "error"]
    assert game is None and any(message in e.message for e in errors), [d.format() for d in report.items]
    assert {e.pos.line for e in errors} == {5}


@pytest.mark.parametrize("size, count", [
    ('"2"', 15),                            # a quoted number is the number: C(6, 2)
    ('"num_players"', 15),
    ('"num_players + 10"', 0),              # more than there are: no set
    ('"num_players - 3"', 1),               # below 0 counts as 0: the empty set
    ('"num_players..num_players + 1"', 15 + 20),
    ('"5..num_players"', 0),                # an empty range
])
def test_a_size_from_the_state_offers_the_sets_of_that_size(rulebook, size, count):
    rb = Rulebook.load(rulebook(SET_HEAD % size))
    assert len(rb.new_game(2, seed=1).legal_actions()) == count


def test_counting_sets_of_alike_elements():
    import itertools
    from interpreter.engine.run.choices import count_sets
    for sizes in ([1, 1, 1], [2, 1], [3, 2, 1], [1, 4], [2, 2, 2]):
        elems = [j for j, n in enumerate(sizes) for _ in range(n)]
        for lo in range(5):
            for hi in range(lo, 7):
                by_hand = len({c for k in range(lo, hi + 1) for c in itertools.combinations(elems, k)})
                assert count_sets(sizes, lo, hi) == by_hand, (sizes, lo, hi)


# --- the order of an open deck in the observation tensor ---------------------------------

OPEN_DECK = """\
regelwerk: 1
game: {name: Open deck order, players: {min: 2, max: 2}}
components:
  card:
    attributes: {n: int}
    items: [{for_each: {n: "1..3"}, count: 1}]
    label: "c{n}"
    home: row
zones:
  row: {type: deck, holds: [card], visible: %s}
  taken: {index: {p: players}, holds: [card]}
actions:
  take_top:
    do: [{move: "top(row)", to: "taken[player]"}]
  roll:
    do: [{move: "top(row)", to: row, bottom: true}]
  mix:
    do: [{shuffle: row}]
setup:
  - shuffle: row
flow:
  - turns: 0
    while: "count(row) > 0"
    do: [{decide: [take_top, roll, mix]}]
end: {score: "sum(taken[p], c -> c.n)"}
"""


def test_an_open_decks_order_is_in_the_tensor_top_first(rulebook):
    np = pytest.importorskip("numpy", reason="observation tensors need numpy (the rl extra)")
    rb = Rulebook.load(rulebook(OPEN_DECK % "true"))
    spec = rb.observation_spec(2)
    assert spec.rows("order:row") == [("row", 0), ("row", 1), ("row", 2)] and spec.columns("order:row") == ["c1", "c2", "c3"]
    seen = {}
    for seed in range(20):                    # the reproducer's check: all 6 orders, 6 different tensors
        st = rb.new_game(2, seed=seed)
        order = tuple(st.observation(0)["zones"]["row"])          # bottom first
        vec = rb.observation_spec(2).flatten(st.observation_tensor(0))
        seen.setdefault(order, vec)
        rows = st.observation_tensor(0)["order:row"]
        assert [spec.columns("order:row")[int(np.argmax(r))] for r in rows] == list(reversed(order))
    assert len(seen) == 6
    vecs = list(seen.values())
    assert all(not np.array_equal(a, b) for i, a in enumerate(vecs) for b in vecs[i + 1:])


def test_a_hidden_deck_has_no_order_rows_and_the_writer_follows_reorders(rulebook):
    np = pytest.importorskip("numpy", reason="observation tensors need numpy (the rl extra)")
    from interpreter.engine.knowledge.observation_writer import ObservationWriter
    from interpreter.engine.knowledge.tensors import observation_vector
    assert "order:row" not in Rulebook.load(rulebook(OPEN_DECK % "false")).observation_spec(2).shapes
    rb = Rulebook.load(rulebook(OPEN_DECK % "true"))
    st = rb.new_game(2, seed=1)
    writer = ObservationWriter(st.game, st.lay)
    for action in ["roll", "mix", "roll", "take_top", "mix", "roll", "take_top"]:
        st.apply(action)
        for seat in (0, 1):
            assert np.array_equal(writer.vector(st, seat), observation_vector(st, seat)), action
    rows = st.observation_tensor(0)["order:row"]
    assert rows[0].sum() == 1 and rows[1].sum() == 0 and rows[2].sum() == 0     # one card left, on top


# --- a piece's parts against the cells it is laid on ------------------------------------

PIECE = """\
regelwerk: 1
game: {name: Piece cells, players: {min: 1, max: 1}}
constants:
  bar5: [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
components:
  patch: {count: 1, label: bar5, home: pool%s}
zones:
  pool: {holds: [patch]}
  quilt: {holds: [patch], cells: "[(r, c) for r in 0..8 for c in 0..8]"}
actions:
  lay_one_cell:
    do: [{move: "first(pool)", to: quilt, cells: "[(4, 4)]"}]
  lay_scattered:
    do: [{move: "first(pool)", to: quilt, cells: "[(0, 0), (8, 8), (3, 7)]"}]
  lay_row:
    do: [{move: "first(pool)", to: quilt, cells: "[(1, c) for c in 2..6]"}]
flow:
  - decide: [lay_one_cell, lay_scattered, lay_row]
    who: 0
end: {score: "count(covered(quilt))"}
"""


@pytest.mark.parametrize("action, cells", [("lay_one_cell", 1), ("lay_scattered", 3)])
def test_a_piece_laid_on_fewer_cells_than_its_shape_is_a_located_error(rulebook, action, cells):
    from dsl.diagnostics import RuleRuntimeError
    rb = Rulebook.load(rulebook(PIECE % ', shape: "bar5"'))
    st = rb.new_game(1, seed=1)
    with pytest.raises(RuleRuntimeError) as err:
        st.apply(action)
    assert f"bar5 has 5 parts (its shape), so it covers 5 cells, not {cells}" in str(err.value)
    assert err.value.pos.line == {"lay_one_cell": 12, "lay_scattered": 14}[action]      # at the move
    good = rb.new_game(1, seed=1)
    good.apply("lay_row")
    assert rb.evaluate(good, "count(covered(quilt))") == 5


def test_without_a_shape_a_piece_covers_any_cells_as_before(rulebook):
    rb = Rulebook.load(rulebook(PIECE % ""))
    st = rb.new_game(1, seed=1)
    st.apply("lay_scattered")
    assert rb.evaluate(st, "count(covered(quilt))") == 3


def test_a_scenario_lay_is_checked_against_the_shape(rulebook):
    from interpreter.tools.scenarios import run_scenarios
    folder = rulebook(PIECE % ', shape: "bar5"')
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "lay.yaml").write_text("""\
scenario: "A piece of five laid on one cell"
source: "By hand: bar5 has five parts; a start that lays it on one cell is refused where it is written."
players: 1
seed: 1
start:
  lay: {quilt: {bar5: "[(4, 4)]"}}
steps:
  - legal_includes: [lay_row]
""")
    [result] = run_scenarios([folder])
    assert not result.ok
    assert any("bar5 has 5 parts (its shape), so it covers 5 cells, not 1" in d.message and d.pos.line == 6
               for d in result.messages), [d.format() for d in result.messages]


def test_a_shape_that_is_no_list_is_located(rulebook):
    report, game = check_rulebook(rulebook(PIECE % ', shape: "5"'))
    assert game is None and any(d.code == "RW102" and "shape is the list of a piece's cells" in d.message
                                and d.pos.line == 6 for d in report.items), [d.format() for d in report.items]


# --- records with a field spelled like an enum symbol -----------------------------------

RECORDS = """\
regelwerk: 1
game: {name: Records, players: {min: 2, max: 2}}
enums:
  color: [red, blue]
constants:
  points: {red: 3, blue: 2}
  shop: [{name: "a", red: 1, cost: 4}, {name: "b", red: 0, cost: 2}]
variables:
  x: 0
flow: []
end: {score: "0"}
"""


def test_a_record_with_a_field_named_like_a_symbol_stays_a_record(rulebook):
    rb = Rulebook.load(rulebook(RECORDS))
    st = rb.new_game(2, seed=1)
    assert rb.evaluate(st, "shop[0].red") == 1                      # was: "a table has no attributes"
    assert list(rb.evaluate(st, "[o.name for o in shop if o.red > 0]")) == ["a"]
    assert rb.evaluate(st, "points[red] + points[blue]") == 5      # every key a symbol: still a table
