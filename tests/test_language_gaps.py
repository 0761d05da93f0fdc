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
