"""state.resample(seat, seed) (interpreter/infosets.py): a state the seat cannot
tell from the real one, with hidden contents and future redrawn."""
import pytest

from conftest import RULES
from interpreter.game import Rulebook
from interpreter.engine.knowledge.observe import zone_visible


# Yak's and Azul's hidden zones (bags) hold, six decisions in, exactly what the seat can count from what
# it saw drawn: the posterior is one world (issue 36), so only the future (the generator) differs there
@pytest.mark.parametrize("game,players,uncertain", [("moonlight_market", 3, True), ("yak", 2, False),
                                                    ("iquazu", 2, True), ("azul_summer_pavilion", 2, False)])
def test_resample_keeps_the_seats_view_and_changes_what_it_cannot_see(game, players, uncertain):
    rb = Rulebook.load(RULES / game)
    st = rb.new_game(players, 4)
    for _ in range(6):                           # a few decisions into the game
        st.apply_action(st.legal_actions()[0])
    seat = st.current_player()
    before = st.to_json()
    r = st.resample(seat, 1)
    assert st.to_json() == before                # the real state is untouched
    assert r.observation_string(seat) == st.observation_string(seat)
    assert r.legal_actions() == st.legal_actions()
    hidden = [z for z in st.lay.zones if not zone_visible(st, z, seat)]
    assert hidden
    assert r.rng != st.rng
    if uncertain:
        assert any([c.label for c in r.z[z.id]] != [c.label for c in st.z[z.id]] for z in hidden)
    else:
        assert all(sorted(c.label for c in r.z[z.id]) == sorted(c.label for c in st.z[z.id]) for z in hidden)
    for z in st.lay.zones:                       # every component still in exactly one zone
        assert sorted(c.id for c in r.z[z.id]) == sorted(c.id for c in r.z[z.id] if r.where[c.id] == z.id)
    assert sorted(c.id for z in r.z for c in z) == list(range(len(st.lay.components)))


def test_two_seeds_give_two_futures():
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(3, 2)
    seat = st.current_player()
    a, b = st.resample(seat, 1), st.resample(seat, 2)
    views_a, views_b = [], []
    for s, views in ((a, views_a), (b, views_b)):
        for _ in range(40):                      # the same policy: always the first legal action
            if s.is_terminal():
                break
            s.apply_action(s.legal_actions()[0])
            views.append(s.observation_string(seat))
    assert views_a != views_b
    # and the same seed gives the same future
    c = st.resample(seat, 1)
    for _ in range(len(views_a)):
        c.apply_action(c.legal_actions()[0])
    assert c.observation_string(seat) == views_a[-1]


def test_history_for_hides_the_parameters_of_anothers_secret_choice():
    from interpreter.engine.knowledge.infosets import history_for, information_state_string
    rb = Rulebook.load(RULES / "yak")            # Yak: the action card is chosen face down (display: secret)
    st = rb.new_game(2, 1)
    first = st.current_player()
    chosen = st.legal_actions()[0]
    st.apply_action(chosen)
    assert chosen.startswith("choose(")
    assert history_for(st, first) == [(first, chosen)]
    assert history_for(st, 1 - first) == [(first, "choose(…)")]
    assert chosen not in information_state_string(st, 1 - first)
    assert chosen in information_state_string(st, first)
