"""A count of a zone's components by a field equal to the function's last argument, a symbol
of an enum, fills the results of every symbol at once (compile/rowfill.py): asked for one
colour, the others are found remembered, with the counts the function gives for each."""
import pytest

from interpreter.ai.bots import RandomBot, play_out
from interpreter.engine.compile import calls
from interpreter.game import Rulebook

from conftest import RULES, SHIPPED

GAME = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
enums:
  color: [red, blue, green]
components:
  chip:
    attributes: {color: color}
    items:
      - {color: red, count: 3}
      - {color: blue, count: 1}
      - {color: green, count: 2}
    home: bag
zones:
  bag: {}
  hand: {index: {p: players}}
variables: {x: 0}
functions:
  held:
    params: {p: player, c: color}
    value: "count(hand[p], t -> t.color == c)"
  %s
actions:
  take:
    params:
      c: "[c for c in color if held(player, c) < 3 and any(bag, t -> t.color == c)]"
    do:
      - move: "first(filter(bag, t -> t.color == c))"
        to: "hand[player]"
      - set: "x += held(player, c) * 10 + held(player, red)"
flow:
  - repeat: 4
    do:
      - for: "p in players"
        do:
          - if: "any(color, c -> held(p, c) < 3 and any(bag, t -> t.color == c))"
            then:
              - decide: [take]
                who: p
end: {score: "x"}
"""

OTHER = """in_bag:
    params: {c: color}
    value: "count(bag, t -> c == t.color)"
  not_equal:
    params: {p: player, c: color}
    value: "count(hand[p], t -> t.color != c)"
  colour_first:
    params: {c: color, p: player}
    value: "count(hand[p], t -> t.color == c)"
  reads_c:
    params: {c: color}
    value: "count(filter(bag, t -> t.color != c), t -> t.color == c)"
"""


def _load(rulebook, rows=True, monkeypatch=None, extra=""):
    text = GAME.replace("%s", extra)
    if rows:
        return Rulebook.load(rulebook(text))
    with monkeypatch.context() as m:
        m.setattr(calls, "row_lines", lambda node, params, cx: [])
        return Rulebook.load(rulebook(text))


def _text(rb, name):
    return rb.game.functions[name].compiled.__doc__ or ""


def test_asked_for_one_symbol_the_function_remembers_every_symbol_s_count(rulebook):
    rb = _load(rulebook)
    assert "_memo.update(_row)" in _text(rb, "held")
    st = rb.new_game(2, 1, logging=False)
    hand = rb.game.zones["hand"]
    # by hand: move red, red, green into hand[0]
    reds = [c for c in st.z[st.zf[hand.id][0].id]]
    assert reds == []
    bag = st.z[st.zf[rb.game.zones["bag"].id][()].id]
    picks = [c for c in bag if c.a_color == "red"][:2] + [c for c in bag if c.a_color == "green"][:1]
    for c in picks:
        st.move_component(c, st.zf[hand.id][0], False, None)
    fn, slot = rb.game.functions["held"].compiled, int(rb.game.functions["held"].slot)
    assert fn(st, 0, "blue") == 0
    assert st.memo[slot][0] == {"red": 2, "blue": 0, "green": 1}        # the other two filled too
    assert fn(st, 1, "red") == 0 and st.memo[slot][1] == {"red": 0, "blue": 0, "green": 0}
    assert fn(st, 0, "nothing") == 0 and st.memo[slot][0]["nothing"] == 0     # no symbol: counted as before


def test_the_same_games_with_and_without_the_rows(rulebook, monkeypatch):
    rb, plain = _load(rulebook), _load(rulebook, False, monkeypatch)
    assert "_memo.update" not in _text(plain, "held")
    for seed in range(1, 9):
        a, b = rb.new_game(2, seed, logging=False), plain.new_game(2, seed, logging=False)
        play_out(a, [RandomBot(seed, s) for s in range(2)])
        play_out(b, [RandomBot(seed, s) for s in range(2)])
        assert a.scores() == b.scores()


def test_only_a_count_by_a_symbol_that_the_zone_does_not_read_fills_a_row(rulebook):
    rb = _load(rulebook, extra=OTHER)
    assert "_memo.update(_row)" in _text(rb, "in_bag")          # one argument, == either way round
    assert _text(rb, "not_equal") and _text(rb, "colour_first") and _text(rb, "reads_c")
    assert "_memo.update" not in _text(rb, "not_equal")          # not a count by ==
    assert "_memo.update" not in _text(rb, "colour_first")       # the last argument is no symbol
    assert "_memo.update" not in _text(rb, "reads_c")            # the zone's contents read c
    st = rb.new_game(2, 1, logging=False)
    fn, slot = rb.game.functions["in_bag"].compiled, int(rb.game.functions["in_bag"].slot)
    assert fn(st, "green") == 2 and st.memo[slot] == {"red": 3, "blue": 1, "green": 2}


@pytest.mark.parametrize("game", SHIPPED)
def test_the_shipped_games_counts_by_colour_fill_rows_or_have_none(game):
    rb = Rulebook.load(RULES / game)
    rows = [name for name, f in rb.game.functions.items()
            if f.compiled is not None and "_memo.update(_row)" in (f.compiled.__doc__ or "")]
    # held(p, c) in Azul and Iquazú, the food counts of Yak; Moonlight counts no field by a symbol
    assert bool(rows) == (game != "moonlight_market"), rows
