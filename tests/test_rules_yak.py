"""Yak: the morning choice is secret — other seats' observations show only counts.

Scenarios check expressions, not observations; this checks what each seat is
shown (interpreter/engine/knowledge/observe.py) for the rulebook's `hand` and `chosen` zones.
"""
from conftest import RULES
from interpreter.game import Rulebook


def test_a_chosen_card_is_hidden_from_the_other_seats_until_noon():
    rb = Rulebook.load(RULES / "yak")
    st = rb.new_game(3, seed=5)
    assert st.current_player() == 0                        # the baby yak starts with seat 0
    st.apply_action("choose(card=market)")
    mine, theirs = st.observation(0), st.observation(1)
    assert mine["zones"]["chosen[0]"] == ["market_0"]
    assert mine["zones"]["hand[0]"] == ["build_0", "supply_0"]
    # seat 1 sees that seat 0 has chosen, not what: neither the card nor the two left in hand
    assert theirs["zones"]["chosen[0]"] == {"count": 1}
    assert theirs["zones"]["hand[0]"] == {"count": 2}
    assert "market_0" not in str(theirs)
    assert "legal_actions" not in mine["decision"]          # seat 1 decides now
    st.apply_action("choose(card=build)")
    st.apply_action("choose(card=supply)")
    # noon: seat 0 reveals first; seat 1's and seat 2's cards are still face down
    theirs = st.observation(1)
    assert theirs["zones"]["played[0]"] == ["market_0"]
    assert st.observation(0)["zones"]["chosen[1]"] == {"count": 1}
    assert st.observation(2)["zones"]["chosen[1]"] == {"count": 1}
    assert st.observation(1)["zones"]["chosen[1]"] == ["build_1"]
