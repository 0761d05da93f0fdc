"""end_turn: ends the current turn from the turn's own steps or from an action's
own steps (the action ends first); anywhere else RW153.  Rulebook:
tests/rulebooks/end_turn (Pig without flags or break)."""
import json
from pathlib import Path

import pytest

from interpreter.game import Rulebook, check_rulebook
from interpreter.tools.scenarios import ScenarioRunner, find_scenarios

BOOK = Path(__file__).parent / "rulebooks" / "end_turn"
HEADER = "regelwerk: 1\ngame: {name: T, players: {min: 2, max: 2}}\nvariables: {n: 0}\nend: {score: n}\n"


def test_the_scenario_passes():
    for folder, file in find_scenarios([BOOK]):
        result = ScenarioRunner(Rulebook.load(folder), file).run()
        assert result.ok, "\n".join(d.format() for d in result.messages)


def test_the_turn_ends_with_its_events_and_the_game_goes_on_through_json():
    rb = Rulebook.load(BOOK)
    st = rb.new_game(2, seed=5)
    ended = 0
    while not st.is_terminal():
        before = st.current_player()
        st = rb.state_from_json(json.loads(json.dumps(st.to_json())))   # suspended mid-turn: data only
        st.apply_action("stop" if st.v[st.game.variables["pot"].offset] >= 8 else "roll")
        assert st.open_scopes().count(("turn", "turn")) <= 1
        if st.current_player() != before:
            ended += 1
    assert rb.evaluate(st, "turns_ended") == 4 and st.ranking()


def test_end_turn_in_an_inline_action_ends_the_turn(rulebook):
    path = rulebook(HEADER + """
flow:
  - turns: 0
    once: true
    do:
      - decide:
          - name: go
            do: [{set: "n += 1"}, {end_turn: true}, {set: "n += 100"}]
      - set: "n += 1000"
""")
    report, _ = check_rulebook(path)
    assert not report.items, [d.format() for d in report.items]
    st = Rulebook.load(path).new_game(2)
    st.apply_action("go")
    st.apply_action("go")
    assert st.is_terminal() and st.scores() == [2, 2]


@pytest.mark.parametrize("body, why", [
    ("setup: [{end_turn: true}]\nflow: [{set: 'n = 1'}]", "neither in a turns loop"),
    ("procedures:\n  p: {do: [{end_turn: true}]}\nflow: [{turns: 0, once: true, do: [{call: p}]}]",
     "neither in a turns loop"),
    ("flow: [{turns: 0, once: true, do: [{phase: x, do: [{end_turn: true}]}]}]", "phase, round or scope"),
    ("actions:\n  a: {do: [{end_turn: true}]}\nflow: [{decide: [a]}]", "not taken in a turn"),
    ("actions:\n  a: {do: [{end_turn: true}]}\nflow: [{turns: 0, once: true, do: [{phase: x, do: [{decide: [a]}]}]}]",
     "not taken in a turn"),
    ("actions:\n  a: {do: [{scope: s, do: [{end_turn: true}]}]}\nflow: [{turns: 0, once: true, do: [{decide: [a]}]}]",
     "phase, round or scope"),
])
def test_end_turn_where_no_turn_can_end_is_rw153(rulebook, body, why):
    report, _ = check_rulebook(rulebook(HEADER + body))
    found = [d for d in report.items if d.code == "RW153"]
    assert found and why in found[0].message, [d.format() for d in report.items]


def test_end_turn_takes_only_true(rulebook):
    report, _ = check_rulebook(rulebook(HEADER + "flow: [{turns: 0, once: true, do: [{end_turn: 1}]}]"))
    assert any(d.code == "RW010" for d in report.items)
