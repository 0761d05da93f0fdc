"""Decisions taken together in the adapters (issue 42): PettingZoo's ParallelEnv and
OpenSpiel's SIMULTANEOUS game type with joint actions; the AEC env keeps working."""
import pickle
import random
import warnings

import pytest

from conftest import ROOT

BOOKS = ROOT / "tests" / "rulebooks"
GAMES = [("sealed_bids", 3), ("hand_draft", 3), ("written_orders", 2)]


@pytest.mark.parametrize("game, players", GAMES)
def test_parallel_env_passes_pettingzoo_s_parallel_api_test_and_aec_still_works(game, players):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, parallel_api_test
    from interpreter.ai.adapters.parallel import parallel_env
    from interpreter.ai.adapters.pettingzoo import env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # PettingZoo's hints about dict observations
        parallel_api_test(parallel_env(BOOKS / game, players), num_cycles=1000)
        api_test(env(BOOKS / game, players), num_cycles=300)


def test_every_seat_of_a_decision_taken_together_acts_in_one_step():
    pytest.importorskip("pettingzoo")
    from interpreter.ai.adapters.parallel import parallel_env
    e = parallel_env(BOOKS / "sealed_bids", 3)
    obs, infos = e.reset(seed=1)
    space = e.space
    # all three seats may bid 0..6 at once (money 6 each)
    for a in e.agents:
        assert infos[a]["acting"]
        assert [space.action_id(i) for i in obs[a]["action_mask"].nonzero()[0]] == \
            [f"bid(amount={n})" for n in range(7)]
    bid = {f"player_{s}": space.index[f"bid(amount={n})"] for s, n in enumerate((1, 4, 2))}
    obs, rewards, term, trunc, infos = e.step(bid)
    st = e.game_state
    # one step took all three choices: Player 2 won lot 1 and paid 4 (6 - 4 = 2 left)
    assert st.history == [(0, "bid(amount=1)"), (1, "bid(amount=4)"), (2, "bid(amount=2)")]
    assert e.rulebook.evaluate(st, "money[1]") == 2
    assert obs["player_1"]["action_mask"].sum() == 3 and obs["player_0"]["action_mask"].sum() == 7


def test_an_illegal_choice_ends_the_episode_for_the_agent_that_made_it():
    pytest.importorskip("pettingzoo")
    from interpreter.ai.adapters.parallel import parallel_env
    e = parallel_env(BOOKS / "written_orders", 2)
    e.reset(seed=1)
    obs, rewards, term, trunc, infos = e.step({"player_0": 12, "player_1": 99})
    assert rewards == {"player_0": 0.0, "player_1": -1.0} and all(term.values()) and e.agents == []
    assert "index 99 is not a legal action of player_1" in infos["player_1"]["illegal_action"]["why"]
    assert e.game_state.history == []                 # nothing half-done


@pytest.mark.parametrize("game, players", GAMES)
def test_openspiel_simultaneous_type_plays_100_random_games_through_joint_actions(game, players):
    pyspiel = pytest.importorskip("pyspiel")
    from interpreter.ai.adapters.openspiel_simultaneous import load_simultaneous
    g = load_simultaneous(BOOKS / game, players)
    assert g.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    rng = random.Random(7)
    finished = 0
    for _ in range(100):
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes())
                s.apply_action(rng.choices(outcomes, probs)[0])
            else:
                assert s.is_simultaneous_node()
                s.apply_actions([rng.choice(s.legal_actions(p)) for p in range(g.num_players())])
        assert sum(s.returns()) >= 1.0              # "win": someone wins (a shared win splits nothing)
        finished += 1
    assert finished == 100
    again = pickle.loads(pickle.dumps(s))
    assert again.returns() == s.returns() and str(again) == str(s)
    pyspiel.random_sim_test(g, num_sims=5, serialize=False, verbose=False)


def test_openspiel_joint_action_is_each_seat_s_own_choice():
    pytest.importorskip("pyspiel")
    from interpreter.ai.adapters.openspiel_simultaneous import load_simultaneous
    g = load_simultaneous(BOOKS / "written_orders", 2)
    s = g.new_initial_state()
    wait = g.num_distinct_actions() - 1
    ids = [s.action_to_string(0, a) for a in s.legal_actions(0)]
    assert "stand" in ids and "send(region=2,n=4)" in ids and s.action_to_string(0, wait) == "wait"
    index = {s.action_to_string(0, a): a for a in s.legal_actions(0)}
    s.apply_actions([index["send(region=2,n=3)"], index["send(region=2,n=2)"]])
    # region 3 (worth 3): 3 beats 2; Player 1 has 1 troop left, so sends at most 1
    assert [s.action_to_string(0, a) for a in s.legal_actions(0)] == \
        ["send(region=0,n=1)", "send(region=1,n=1)", "send(region=2,n=1)", "stand"]


def test_a_rulebook_with_decisions_of_one_seat_is_refused_with_the_sequential_form_named(rulebook):
    pytest.importorskip("pyspiel")
    from interpreter.ai.adapters.openspiel_simultaneous import load_simultaneous
    with pytest.raises(ValueError, match="no decision taken together.*sequential form"):
        load_simultaneous(ROOT / "tests" / "rulebooks" / "cups", 2)


def test_the_sequential_openspiel_form_hides_a_choice_taken_together():
    pytest.importorskip("pyspiel")
    from interpreter.ai.adapters.openspiel import load
    g = load(BOOKS / "sealed_bids", 2)
    a, b = g.new_initial_state(), g.new_initial_state()
    legal = a.legal_actions()
    a.apply_action(legal[1])
    b.apply_action(legal[5])
    assert a.current_player() == b.current_player() == 1
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.information_state_tensor(1) == b.information_state_tensor(1)
    assert a.information_state_string(0) != b.information_state_string(0)
