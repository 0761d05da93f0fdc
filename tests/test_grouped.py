"""A function counting the items whose key equals a parameter answers for every value at once
(interpreter/engine/compile/grouped.py): the same answers, games and errors as the body computed
for each value alone."""
from __future__ import annotations

import pytest

from dsl import ast
from dsl.diagnostics import RuleRuntimeError
from dsl.parser import parse_expression
from interpreter.ai.bots import RandomBot
from interpreter.engine.compile import declarations, grouped as G
from interpreter.engine.compile import types as T
from interpreter.game import Rulebook

GAME = """\
regelwerk: 1
game: {name: Test, players: {min: 2, max: 2}}
enums: {color: [red, blue, green]}
components:
  chip:
    attributes: {color: color, n: int}
    items:
      - {color: red, n: 1}
      - {color: red, n: 2}
      - {color: blue, n: 3}
      - {color: green, n: 4}
      - {color: red, n: 5}
      - {color: blue, n: 0}
    label: "{color}{n}"
    home: pool
zones:
  pool: {}
  hand: {index: {p: players}}
functions:
  held:
    params: {p: player, c: color}
    value: "count(hand[p], t -> t.color == c)"
  picked:
    params: {z: zone, c: color}
    value: "filter(z, t -> t.n > 0 and c == t.color)"
  by_c:
    params: {c: color}
    value: "count(pool, t -> %s == c)"
  by_n:
    params: {k: int}
    value: "count(pool, t -> t.n % 3 == k)"
actions:
  take:
    params: {c: "distinct([t.color for t in pool])"}
    do:
      - move: "first(filter(pool, t -> t.color == c))"
        to: "hand[player]"
      - log: "{held(player, red)} {held(player, blue)} {held(player, green)}
              {[t.n for t in picked(hand[player], red)]} {count(picked(hand[player], blue))}
              {count(picked(pool, green))} {by_c(red)} {by_c(blue)} {by_c(green)} {by_n(1)}"
flow:
  - repeat: 3
    do:
      - for: "p in players"
        do: [{decide: [take], who: p}]
end: {score: "held(p, red)"}
"""


def _load(rulebook, key="t.color", monkeypatch=None):
    text = GAME.replace("%s", key)
    if monkeypatch is None:
        return Rulebook.load(rulebook(text))
    with monkeypatch.context() as m:
        m.setattr(declarations, "grouped_parts", lambda *a: None)
        return Rulebook.load(rulebook(text))


def _play(rb, seed):
    st = rb.new_game(2, seed)
    bots = [RandomBot(seed, s) for s in range(2)]
    try:
        while not st.is_terminal():
            st.apply_index(bots[st.current_player()].choose_index(st))
    except RuleRuntimeError as exc:
        return st.log, (exc.message, exc.pos.line, exc.pos.col)
    return st.log, st.scores()


def test_grouped_functions_answer_as_the_body_does(rulebook, monkeypatch):
    rb = _load(rulebook)
    names = {n for n, f in rb.game.functions.items() if f.compiled.__name__ == "looking"}
    assert names == {"held", "by_c"}    # not picked (a filter), nor by_n (an int: which values?)
    plain = _load(rulebook, monkeypatch=monkeypatch)
    assert not any(f.compiled.__name__ == "looking" for f in plain.game.functions.values())
    for seed in range(1, 7):
        assert _play(rb, seed) == _play(plain, seed)


def test_the_answers_by_hand(rulebook):
    # always the first option: the first colour left in the pool (in its order), its first chip
    rb = _load(rulebook)
    st = rb.new_game(2, 1)
    while not st.is_terminal():
        st.apply_index(0)
    # held red blue green, the n of the red chips in hand, picked blue in hand (blue0 is not:
    # n > 0), picked green in the pool, the pool's chips by colour (red blue green), and
    # by_n(1): the pool's chips with n % 3 == 1
    assert [" ".join(line.split()) for line in st.log[-6:]] == [
        "1 0 0 (1) 0 1 2 2 1 1",        # P1 red1; pool red2 blue3 green4 red5 blue0
        "1 0 0 (2) 0 1 1 2 1 1",        # P2 red2; pool blue3 green4 red5 blue0
        "1 1 0 (1) 1 1 1 1 1 1",        # P1 blue3; pool green4 red5 blue0
        "1 0 1 (2) 0 0 1 1 0 0",        # P2 green4; pool red5 blue0
        "2 1 0 (1,5) 1 0 0 1 0 0",      # P1 red5; pool blue0
        "1 1 1 (2) 0 0 0 0 0 0",        # P2 blue0; pool empty
    ]
    assert st.scores() == [2, 1]


def test_a_key_that_fails_fails_as_the_body_does(rulebook, monkeypatch):
    # 6 // t.n divides by zero at the chip blue0 whichever colour is asked
    key = "(t.color if 6 // t.n > 0 else red)"
    rb, plain = _load(rulebook, key), _load(rulebook, key, monkeypatch)
    got = _play(rb, 1)
    assert isinstance(got[1], tuple) and "division by zero" in got[1][0]
    assert got == _play(plain, 1)


def _parts(src, params):
    return G.grouped_parts(parse_expression(src), params, {})


@pytest.mark.parametrize("src", [
    "count(z, t -> t.color == c and t.n > 0)",      # the test of c not last
    "count(z, t -> t.color == c or t.n > 0)",
    "count(filter(z, t -> t.n == c), t -> t.n == c)",  # c read by the list too
    "count(z, t -> t.n + c == c)",                   # ... and by the key
    "sum(z, t -> t.n == c)",
    "count(z, t -> t.color != c)",
    "filter(z, t -> t.color == c)",                  # asked about once per change: not worth it
])
def test_bodies_that_are_not_grouped(src):
    assert _parts(src, [("z", T.ANY), ("c", T.INT)]) is None


def test_only_a_parameter_of_known_values_that_hash_as_they_compare_is_grouped():
    class Colors:
        symbols = ("red", "blue")
    body = "count(z, t -> t.n == c)"
    assert G.grouped_parts(parse_expression(body), [("z", T.ANY), ("c", T.Sym("color"))], {"color": Colors})[2] \
        == ("red", "blue")
    assert _parts(body, [("z", T.ANY), ("c", T.BOOL)])[2] == (False, True)
    for typ in (T.ANY, T.INT, T.PLAYER):            # which values would it answer for?
        assert _parts(body, [("z", T.ANY), ("c", typ)]) is None
