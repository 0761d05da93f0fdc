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


def test_a_place_outside_the_zone_is_a_located_error():
    from dsl.diagnostics import RuleRuntimeError
    rb = Rulebook.load(RULEBOOKS / "zone_order")
    s = rb.new_game(players=1, seed=1)
    with pytest.raises(RuleRuntimeError) as err:
        s.apply("aside_at(k=4)")
    assert "at: 4 is not a place in deck: 3 other components lie there" in str(err.value)
    assert str(err.value.pos).endswith("zone_order/game.yaml:26:42")      # at the step


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
