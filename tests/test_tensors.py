"""Observation tensors and strings (interpreter/tensors.py): fixed shapes per
layout, hidden zones as counts only."""
import random

import pytest

from conftest import RULES
from interpreter.game import Rulebook

np = pytest.importorskip("numpy", reason="observation tensors need numpy: install the rl extra (pip install -e '.[rl]')")

GAMES = {"azul_summer_pavilion": (2, 4), "iquazu": (2, 4), "moonlight_market": (1, 3, 5), "yak": (2, 4)}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_shapes_follow_the_spec_in_every_state(game):
    rb = Rulebook.load(RULES / game)
    for players in GAMES[game]:
        spec = rb.observation_spec(players)
        st = rb.new_game(players, 3, logging=False)
        rng = random.Random(3)
        for step in range(60):
            if st.is_terminal():
                break
            for seat in range(st.lay.num_seats):
                tensors = st.observation_tensor(seat)
                assert list(tensors) == [p.name for p in spec.parts]
                assert {k: v.shape for k, v in tensors.items()} == spec.shapes
                assert spec.flatten(tensors).shape == (spec.size(),)
            st.apply_action(rng.choice(st.legal_actions()))


def test_a_hidden_hand_is_a_count_and_an_own_hand_is_labels():
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(3, 1)
    spec = rb.observation_spec(3)
    rows = spec.rows("zone:hand")
    cols = spec.columns("zone:hand")
    assert cols[:2] == ["visible", "count"] and rows == ["hand[0]", "hand[1]", "hand[2]"]
    mine, theirs = st.observation_tensor(0)["zone:hand"], st.observation_tensor(1)["zone:hand"]
    # every hand holds 4 cards at the start ("Zu Beginn jeden Durchgangs zieht ihr 4 Karten")
    assert list(mine[:, 1]) == [4, 4, 4] and list(theirs[:, 1]) == [4, 4, 4]
    assert mine[0, 0] == 1 and mine[0, 2:].sum() == 4            # own hand: which cards
    assert mine[1, 0] == 0 and mine[1, 2:].sum() == 0            # another's hand: only how many
    assert theirs[1, 0] == 1 and theirs[1, 2:].sum() == 4
    hand0 = [c.label for c in st.z[st.lay.zfam[st.game.zones["hand"].id][0].id]]
    for label in hand0:
        assert mine[0, cols.index(label)] == 1
    # a seat variable is one-hot, the viewer and the seat to move too
    t = st.observation_tensor(2)
    assert list(t["var:start_player"][0]) == [1, 1, 0, 0]        # visible, then seat 0
    assert list(t["seat:viewer"]) == [0, 0, 1] and list(t["seat:to_move"]) == [1, 0, 0]


def test_observation_string_hides_what_the_seat_may_not_see():
    rb = Rulebook.load(RULES / "moonlight_market")
    a = rb.new_game(3, 1)
    b = rb.new_game(3, 1)
    assert a.observation_string(1) == b.observation_string(1)
    # swap one card of seat 0's hand with one of its deck: seat 1 cannot tell, seat 0 can
    lay = b.lay
    hand, deck = lay.zfam[b.game.zones["hand"].id][0], lay.zfam[b.game.zones["deck"].id][0]
    other = next(c for c in b.z[deck.id] if c.label not in {x.label for x in b.z[hand.id]})
    h0 = b.z[hand.id][0]
    b.z[hand.id][0], b.z[deck.id][b.z[deck.id].index(other)] = other, h0
    b.where[other.id], b.where[h0.id] = hand.id, deck.id          # where each component lies, kept true
    assert a.observation_string(1) == b.observation_string(1)
    assert a.observation_string(0) != b.observation_string(0)
    assert (a.observation_tensor(1)["zone:hand"] == b.observation_tensor(1)["zone:hand"]).all()
    assert not (a.observation_tensor(0)["zone:hand"] == b.observation_tensor(0)["zone:hand"]).all()
