"""`secret: true` on an action: State.history_for(seat) shows every decision,
another seat's secret choice as `name(…)`; infosets.history_for agrees."""
from interpreter.game import Rulebook
from interpreter.engine.knowledge.infosets import history_for

BOOK = """\
regelwerk: 1
game: {name: Bid, players: {min: 2, max: 2}}
variables:
  bid: {index: {p: players}, init: 0, visible: "viewer == p"}
actions:
  offer:
    secret: true
    params: {n: "1..3"}
    do: [{set: "bid[player] = n"}]
  name_it:
    params: {n: "1..3"}
    do: []
flow:
  - turns: 0
    once: true
    do: [{decide: [offer]}, {decide: [name_it]}]
end: {score: "bid[p]"}
"""


def test_secret_parameters_are_hidden_from_other_seats(rulebook):
    rb = Rulebook.load(rulebook(BOOK))
    st = rb.new_game(2, 0)
    for a in ["offer(n=2)", "name_it(n=3)", "offer(n=1)", "name_it(n=1)"]:
        st.apply_action(a)
    assert st.is_terminal()
    assert st.history_for(0) == [(0, "offer(n=2)"), (0, "name_it(n=3)"), (1, "offer(…)"), (1, "name_it(n=1)")]
    assert st.history_for(1) == [(0, "offer(…)"), (0, "name_it(n=3)"), (1, "offer(n=1)"), (1, "name_it(n=1)")]
    assert history_for(st, 1) == st.history_for(1)
