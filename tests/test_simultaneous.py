"""`simultaneous: NAME` on a decide step: the seats choose at the same time
(one after the other, none seeing the others' picks — the author hides them
with visibility); observations and State.simultaneous() show the group."""
from interpreter.game import Rulebook

BOOK = """\
regelwerk: 1
game: {name: Draft, players: {min: 2, max: 3}}
components:
  card: {items: [{count: 6}], home: deck}
zones:
  deck: {type: deck}
  hand: {index: {p: players}, visible: "viewer == p"}
  pick: {index: {p: players}, visible: false}
actions:
  choose:
    params: {c: "hand[player]"}
    do: [{move: c, to: "pick[player]"}]
  go: {do: []}
setup:
  - for: "p in players"
    do: [{draw: 2, from: deck, to: "hand[p]"}]
flow:
  - turns: 0
    once: true
    do: [{decide: [choose], simultaneous: picks}]
  - turns: 0
    once: true
    do: [{decide: [go]}]
end: {score: "count(pick[p])"}
"""


def test_the_group_shows_while_the_picks_last(rulebook):
    rb = Rulebook.load(rulebook(BOOK))
    st = rb.new_game(2, 0)
    assert st.simultaneous() == "picks"
    assert st.observation(1)["decision"]["simultaneous"] == "picks"
    st.apply_action(st.legal_actions()[0])
    assert st.simultaneous() == "picks" and st.current_player() == 1
    again = rb.state_from_json(st.to_json())
    assert again.simultaneous() == "picks"
    st.apply_action(st.legal_actions()[0])
    assert st.simultaneous() is None                      # the next decisions are not simultaneous
    assert "simultaneous" not in st.observation(0)["decision"]
