"""A comprehension whose element is the left side of its condition's comparison
(``[u * k for u in 0..n if u * k <= m]``) computes that value once per item and keeps it
(compile/comprehensions.py, ``_kept``): the same lists, the same errors, one computation."""
from dsl import ast
from dsl.parser import parse_expression
from interpreter.game import Rulebook, RuleRuntimeError

import pytest

GAME = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
variables: {x: 0}
functions:
  steps_of:
    description: "the multiples u * k (u = 0..n) that are at most m"
    params: {k: int, n: int, m: int}
    value: "[u * k for u in 0..n if u * k <= m]"
  other_side:
    params: {k: int, n: int}
    value: "[u * k for u in 0..n if 10 >= u * k]"
  failing:
    params: {n: int}
    value: "[12 // u for u in 0..n if 12 // u > 3]"
actions:
  go:
    params: {v: "steps_of(3, 4, 7 + x)"}
    do: [{set: "x += v"}]
flow:
  - repeat: 3
    do: [{decide: [go], who: 0}]
end: {score: "x"}
"""


def _fn(rb, name):
    return rb.game.functions[name].compiled


def test_the_element_is_computed_once_and_the_lists_are_as_written(rulebook):
    rb = Rulebook.load(rulebook(GAME))
    st = rb.new_game(2, 1, logging=False)
    steps = _fn(rb, "steps_of")
    # by hand: 3 * 0..4 = 0, 3, 6, 9, 12; at most 7: 0, 3, 6; at most 100: all; at most -1: none
    assert steps(st, 3, 4, 7) == (0, 3, 6)
    assert steps(st, 3, 4, 100) == (0, 3, 6, 9, 12)
    assert steps(st, 3, 4, -1) == ()
    assert steps.__doc__.count("*") == 1             # one multiplication per item
    other = _fn(rb, "other_side")                   # the element on the right: written as it is
    assert other(st, 4, 3) == (0, 4, 8) and other.__doc__.count("*") == 2
    # the first decision by hand: v in steps_of(3, 4, 7) = 0, 3, 6
    assert st.legal_actions() == ["go(v=0)", "go(v=3)", "go(v=6)"]


def test_a_failure_of_the_kept_value_is_reported_at_the_rule(rulebook):
    rb = Rulebook.load(rulebook(GAME))
    st = rb.new_game(2, 1, logging=False)
    failing = _fn(rb, "failing")
    with pytest.raises(RuleRuntimeError, match="division by zero") as err:
        failing(st, 2)                              # u = 0 first
    assert "game.yaml:" in str(err.value)


def test_same_tree_compares_expressions_without_their_positions():
    a, b = parse_expression("u * k <= m"), parse_expression("u  *  k <= m")
    assert ast.same_tree(a, b) and ast.same_tree(a.left, parse_expression("u * k"))
    assert not ast.same_tree(a.left, parse_expression("k * u"))
    assert not ast.same_tree(parse_expression("f(1, 2)"), parse_expression("f(1, 2, 3)"))
    assert not ast.same_tree(parse_expression("'1'"), parse_expression("1"))
