"""Set-valued parameters (interpreter/engine/run/choices.py): `{set: LIST, size: K}` offers every
set of K distinct elements once, with an order-free readable id, bounded in the fixed
action space as combinations."""
import json

import pytest

from interpreter.game import Rulebook, State, check_rulebook

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 3}}
enums:
  color: [white, blue, green, red, black]
"""

GEMS = HEAD + """\
variables:
  bank: {index: {c: color}, init: 4, min: 0, max: 4}
  held: {index: {p: players, c: color}, init: 0}
  last: {type: bool, init: false}
actions:
  three:
    params: {gems: {set: "%s", size: 3}}
    do:
      - for: "c in gems"
        do: [{set: "bank[c] -= 1"}, {set: "held[player, c] += 1"}]
      - set: "last = gems == [blue, green, white]"
  some:
    params: {gems: {set: "[c for c in color if bank[c] > 0]", size: "1..2"}}
    do:
      - for: "c in gems"
        do: [{set: "bank[c] -= 1"}, {set: "held[player, c] += 1"}]
flow:
  - repeat: 3
    do:
      - turns: 0
        once: true
        do: [{decide: [three, some], otherwise: [{fail: "a gem is left"}]}]
end: {score: "sum(color, c -> held[p, c])"}
"""


def test_three_of_five_is_ten_order_free_ids(rulebook):
    rb = Rulebook.load(rulebook(GEMS % "[c for c in color if bank[c] > 0]"))
    st = rb.new_game(2, 1)
    threes = [a for a in st.legal_actions() if a.startswith("three")]
    assert len(threes) == 10 == len(set(threes))          # C(5, 3)
    assert "three(gems={blue,green,white})" in threes and "three(gems={white,blue,green})" not in threes
    # 1 or 2 of 5: 5 + 10 ids
    assert len([a for a in st.legal_actions() if a.startswith("some")]) == 15
    space = rb.action_space(2)
    assert len([i for i in space.ids if i.startswith("three(")]) == 10
    assert len([i for i in space.ids if i.startswith("some(")]) == 15 and len(space) == 25
    assert st.legal_mask() == [1] * 25
    # the steps see a list of the chosen elements, in the set order (text: blue, green, white)
    st.apply_action("three(gems={blue,green,white})")
    assert rb.evaluate(st, "last") is True and rb.evaluate(st, "held[0, blue] + held[0, green] + held[0, white]") == 3
    assert rb.evaluate(st, "bank[blue]") == 3 and rb.evaluate(st, "bank[red]") == 4


def test_the_domain_order_does_not_change_the_ids(rulebook):
    a = Rulebook.load(rulebook(GEMS % "[c for c in color if bank[c] > 0]")).new_game(2, 1).legal_actions()
    b = Rulebook.load(rulebook(GEMS % "reversed([c for c in color if bank[c] > 0])")).new_game(2, 1).legal_actions()
    assert a == b


def test_sets_shrink_with_the_domain_and_survive_serialisation(rulebook):
    rb = Rulebook.load(rulebook(GEMS % "[c for c in color if bank[c] > 2]"))
    st = rb.new_game(2, 1)
    st.apply_action("three(gems={black,blue,red})")     # black, blue, red: 3 left each
    st.apply_action("three(gems={black,blue,red})")     # now 2 left: only green and white above 2
    assert [a for a in st.legal_actions() if a.startswith("three")] == []
    back = State.from_json(rb.game, json.loads(json.dumps(st.to_json())), st.lay)
    assert back.legal_actions() == st.legal_actions()


def test_alike_components_make_one_choice_and_can_repeat(rulebook):
    rb = Rulebook.load(rulebook(HEAD + """\
components:
  gem:
    attributes: {color: color}
    items: [{color: red, count: 2}, {color: blue, count: 1}]
    label: "{color}"
    home: "hand[0]"
zones:
  hand: {index: {p: players}, holds: [gem]}
  pile: {holds: [gem]}
actions:
  discard:
    params: {gs: {set: "hand[player]", size: 2}}
    do: [{move: "gs", to: pile}]
flow:
  - decide: [discard]
    who: 0
end: {score: "count(pile)"}
"""))
    st = rb.new_game(2, 1)
    assert st.legal_actions() == ["discard(gs={blue,red})", "discard(gs={red,red})"]
    assert set(st.legal_actions()) <= set(rb.action_space(2).ids)
    st.apply_action("discard(gs={red,red})")
    assert list(rb.evaluate(st, "labels(pile)")) == ["red", "red"]


def test_a_bad_size_is_located(rulebook):
    report, game = check_rulebook(rulebook(HEAD + """\
actions:
  pick:
    params: {cs: {set: "color", size: "3..1"}}
    do: []
flow:
  - decide: [pick]
end: {score: "0"}
"""))
    [d] = [d for d in report.items if d.severity == "error"]
    assert game is None and "size of set parameter 'cs'" in d.message and d.pos.line == 7


def test_a_scenario_plays_a_set_id(rulebook, tmp_path):
    from interpreter.tools.scenarios import run_scenarios
    folder = rulebook(GEMS % "[c for c in color if bank[c] > 0]")
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "take.yaml").write_text("""\
scenario: "Three different gems"
source: "By hand: seat 0 takes white, blue and green (any order in the id's braces is the set order)."
players: 2
seed: 1
steps:
  - legal_includes: ["three(gems={blue,green,white})"]
  - play: "three(gems={blue,green,white})"
  - expect: {"held[0, white]": 1, "bank[green]": 3, last: true}
""")
    [result] = run_scenarios([folder])
    assert result.ok, result
