"""A selection from a product of lists by ``k == c``, ``c`` the function's last parameter,
fills the selections of every value of ``k`` at once (compile/rowfill.py, bucket_lines): the same results as the function selects alone, a
value no item has selects nothing, and an error that only the pass over every value meets
leaves the function selecting as written."""
import pytest

from interpreter.ai.bots import RandomBot, play_out
from interpreter.engine.compile import calls, rowfill
from interpreter.game import Rulebook, RuleRuntimeError

from conftest import RULES

GAME = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
enums:
  color: [red, blue, green]
components:
  chip:
    attributes: {color: color}
    items:
      - {color: red, count: 4}
      - {color: blue, count: 3}
      - {color: green, count: 2}
    home: bag
zones:
  bag: {}
  cell: {index: {a: "1..3", b: "1..3"}, capacity: 1}
variables: {x: 0}
functions:
  in_row:
    description: "the filled cells of row r (its first condition is the key)"
    params: {r: int}
    value: "[(a, b) for a in 1..3 for b in 1..3 if a == r and not empty(cell[a, b])]"
  of_color:
    description: "the cells of colour c: the key read only of filled cells (a condition before it)"
    params: {p: player, c: color}
    value: "[(a, b) for a in 1..3 for b in 1..3 if not empty(cell[a, b]) and first(cell[a, b]).color == c]"
  picky:
    description: "row r's columns, when 6 // (r - 2) > 0: row 2 fails, asked or not"
    params: {r: int}
    value: "[b for a in 1..3 for b in 1..3 if r == a and 6 // (a - 2) > 0]"
  bad_key:
    params: {r: int}
    value: "[b for a in 1..3 for b in 1..3 if 6 // (a - 2) == r]"
  one_list:
    params: {c: color}
    value: "[t for t in bag if t.color == c]"
actions:
  put:
    params:
      a: "[a for a in 1..3 if any(1..3, b -> empty(cell[a, b]))]"
    do:
      - move: "first(bag)"
        to: "cell[a, first([b for b in 1..3 if empty(cell[a, b])])]"
      - set: "x += count(in_row(a)) * 10 + count(of_color(player, red)) + count(of_color(player, green))"
flow:
  - repeat: 4
    do:
      - for: "p in players"
        do:
          - decide: [put]
            who: p
end: {score: "x"}
"""


def _load(rulebook, fill=True, monkeypatch=None):
    if fill:
        return Rulebook.load(rulebook(GAME))
    with monkeypatch.context() as m:
        m.setattr(calls, "bucket_lines", lambda node, params, cx: [])
        return Rulebook.load(rulebook(GAME))


def _fn(rb, name):
    f = rb.game.functions[name]
    return f.compiled, int(f.slot)


def _filled(text):
    return "_rows" in (text or "")


def _place(rb, st, cells):
    """Put the bag's first chips of the given colours into the given cells, by hand."""
    bag = st.z[st.zf[rb.game.zones["bag"].id][()].id]
    for (a, b), color in cells:
        chip = next(c for c in bag if c.a_color == color)
        st.move_component(chip, st.zf[rb.game.zones["cell"].id][(a, b)], False, None)


def test_only_a_selection_by_the_last_argument_from_a_product_fills(rulebook):
    rb = _load(rulebook)
    texts = {n: f.compiled.__doc__ for n, f in rb.game.functions.items()}
    assert _filled(texts["in_row"]) and _filled(texts["of_color"]) and _filled(texts["picky"])
    assert _filled(texts["bad_key"])
    assert not _filled(texts["one_list"])           # one list: selected as written


def test_one_value_asked_fills_every_value_with_the_selections_by_hand(rulebook):
    rb = _load(rulebook)
    st = rb.new_game(2, 1, logging=False)
    _place(rb, st, [((1, 2), "red"), ((3, 1), "blue"), ((3, 3), "red"), ((1, 1), "green")])
    fn, slot = _fn(rb, "in_row")
    # by hand: row 1 holds (1, 1) and (1, 2) in loop order; row 2 nothing; row 3 (3, 1), (3, 3)
    assert fn(st, 3) == ((3, 1), (3, 3))
    assert st.memo[slot] == {1: ((1, 1), (1, 2)), 3: ((3, 1), (3, 3)), rowfill.FILLED: True}
    assert fn(st, 1) == ((1, 1), (1, 2))
    assert fn(st, 2) == () and fn(st, 7) == ()       # no item has them: nothing selected
    # the key read only where the condition before it holds (empty cells have no first chip)
    of_color, oslot = _fn(rb, "of_color")
    assert of_color(st, 0, "green") == ((1, 1),)
    assert st.memo[oslot][0] == {"green": ((1, 1),), "red": ((1, 2), (3, 3)), "blue": ((3, 1),),
                                 rowfill.FILLED: True}
    assert of_color(st, 0, "red") == ((1, 2), (3, 3))
    assert of_color(st, 1, "blue") == ((3, 1),)      # another first argument: its own row
    # a move forgets them all, as every remembered result: asked again, selected again
    _place(rb, st, [((2, 2), "blue")])
    assert st.memo[slot] is None
    assert fn(st, 2) == ((2, 2),) and fn(st, 1) == ((1, 1), (1, 2)) and fn(st, 3) == ((3, 1), (3, 3))


def test_a_condition_that_fails_only_for_another_value_leaves_the_selection_as_written(rulebook):
    rb = _load(rulebook)
    st = rb.new_game(2, 1, logging=False)
    fn, slot = _fn(rb, "picky")
    # by hand: row 1: 6 // -1 = -6, not > 0: nothing; row 3: 6 // 1 = 6: columns 1, 2, 3;
    # row 2 divides by zero — but only when row 2 is asked
    assert fn(st, 1) == ()
    assert st.memo[slot] == {rowfill.FILLED: False, 1: ()}   # the pass over every row met row 2
    assert fn(st, 3) == (1, 2, 3)
    assert st.memo[slot] == {rowfill.FILLED: False, 1: (), 3: (1, 2, 3)}
    with pytest.raises(RuleRuntimeError) as err:
        fn(st, 2)
    assert "game.yaml:" in str(err.value) and "division by zero" in str(err.value)   # located as before


def test_a_key_that_fails_fails_for_every_value_as_written(rulebook):
    rb = _load(rulebook)
    st = rb.new_game(2, 1, logging=False)
    fn, slot = _fn(rb, "bad_key")
    for r in (1, 2, 3):
        with pytest.raises(RuleRuntimeError, match="division by zero"):
            fn(st, r)
    assert st.memo[slot] == {rowfill.FILLED: False}


def test_the_same_games_with_and_without_the_fill(rulebook, monkeypatch):
    rb, plain = _load(rulebook), _load(rulebook, False, monkeypatch)
    assert not _filled(plain.game.functions["in_row"].compiled.__doc__)
    for seed in range(1, 9):
        a, b = rb.new_game(2, seed, logging=False), plain.new_game(2, seed, logging=False)
        play_out(a, [RandomBot(seed, s) for s in range(2)])
        play_out(b, [RandomBot(seed, s) for s in range(2)])
        assert a.scores() == b.scores() and a.status == b.status == "over"


def test_iquazu_s_gems_of_a_row_are_filled_and_its_games_unchanged(monkeypatch):
    rb = Rulebook.load(RULES / "iquazu")
    assert _filled(rb.game.functions["row_gems"].compiled.__doc__)
    with monkeypatch.context() as m:
        m.setattr(calls, "bucket_lines", lambda node, params, cx: [])
        plain = Rulebook.load(RULES / "iquazu")
    for seed in range(3):
        a, b = rb.new_game(3, seed, logging=False), plain.new_game(3, seed, logging=False)
        play_out(a, [RandomBot(seed, s) for s in range(3)])
        play_out(b, [RandomBot(seed, s) for s in range(3)])
        assert a.scores() == b.scores()
