"""The PettingZoo and OpenSpiel adapters (interpreter/adapters/), on every
encoded game.  They need the rl extra; without it these tests skip."""
import contextlib
import io
import warnings

import pytest

from conftest import RULES

pettingzoo = pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the rl extra: "
                                                      "pip install -e '.[rl]'")
pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel adapter needs the rl extra: pip install -e '.[rl]'")

from pettingzoo.test import api_test  # noqa: E402

from interpreter.ai.adapters import openspiel, pettingzoo as pz_adapter  # noqa: E402

ALL = [(g, n) for g, ns in {"azul_summer_pavilion": (2, 3, 4), "iquazu": (2, 3, 4),
                            "moonlight_market": (1, 2, 3, 4, 5), "yak": (2, 3, 4)}.items() for n in ns]
# the default run: one player count per game (the slow run covers every count)
QUICK = [("azul_summer_pavilion", 2), ("iquazu", 3), ("moonlight_market", 1), ("yak", 2)]
QUICK_OPENSPIEL = [("azul_summer_pavilion", 2), ("moonlight_market", 1)]      # the others in the slow run


def run_api_test(game, players):
    env = pz_adapter.env(RULES / game, players=players)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=300)


def run_random_sim(game, players):
    g = openspiel.load(RULES / game, players=players)
    pyspiel.random_sim_test(g, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("game,players", QUICK)
def test_pettingzoo_api_test_passes(game, players):
    run_api_test(game, players)


@pytest.mark.parametrize("game,players", QUICK_OPENSPIEL)
def test_openspiel_random_simulation_with_serialisation_passes(game, players):
    run_random_sim(game, players)


@pytest.mark.slow
@pytest.mark.parametrize("game,players", ALL)
def test_every_player_count_passes_both(game, players):
    run_api_test(game, players)
    run_random_sim(game, players)


def test_pettingzoo_agents_actions_and_rewards():
    import numpy as np
    env = pz_adapter.env(RULES / "moonlight_market", players=1)
    env.reset(seed=4)
    # one player against the two automata (Dirk and Beate): one agent, three seats
    assert env.possible_agents == ["player_0"]
    space = env.unwrapped.space
    obs, *_ = env.last()
    legal = env.unwrapped.state.legal_actions()
    assert sorted(space.action_id(int(i)) for i in np.flatnonzero(obs["action_mask"])) == sorted(legal)
    steps = 0
    final = None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final = reward
            env.step(None)
            continue
        assert reward == 0                            # rewards come at the end only
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    st = env.unwrapped.state
    assert st.is_terminal() and steps > 0
    # the reward is the win return: 1 if the player is first (shared or not), 0 if an automaton beat them
    assert final == (1.0 if st.ranking()[0] == 1 else 0.0)


def test_openspiel_game_facts_and_chance_nodes():
    game = openspiel.load(RULES / "iquazu", players=2)
    assert game.get_type().short_name == "regelwerk_iquazu"
    assert game.num_distinct_actions() == 442        # see tests/test_spaces.py: 70 + 70 + 286 + 16
    assert game.num_players() == 2
    state = game.new_initial_state()
    assert state.is_chance_node()                     # setup shuffles: chance decides
    outcomes = state.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and len({p for _, p in outcomes}) == 1
    while state.is_chance_node():
        state.apply_action(outcomes[0][0] if outcomes else 0)
        outcomes = state.chance_outcomes()
    assert state.current_player() in (0, 1) and state.legal_actions()
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(copy) == str(state) and copy.legal_actions() == state.legal_actions()


def test_information_state_tensor_counts_the_decisions_a_seat_knows():
    from interpreter.game import Rulebook
    rb = Rulebook.load(RULES / "iquazu")
    st = rb.new_game(2, 5, logging=False)
    taken = []
    for _ in range(12):
        a = st.legal_actions()[-1]
        taken.append((st.current_player(), a))
        st.apply_action(a)
    spec = rb.information_state_spec(2)
    space = rb.action_space(2)
    t = st.information_state_tensor(0)
    assert {k: v.shape for k, v in t.items()} == spec.shapes
    # by hand: each seat's column of each action it took holds how often it took it
    for seat in (0, 1):
        for col in range(len(space)):
            expected = sum(1 for who, a in taken if who == seat and space.action_index(a) == col)
            assert t["history:counts"][seat, col] == expected
        mine = [a for who, a in taken if who == seat]
        if mine:
            assert t["history:last"][seat].sum() == 1 and t["history:last"][seat, space.action_index(mine[-1])] == 1
    # OpenSpiel reads the same tensor (flattened in the spec's order) with perfect recall
    game = openspiel.load(RULES / "iquazu", players=2)
    assert game.get_type().provides_information_state_tensor
    assert game.information_state_tensor_size() == spec.size()
    state = game.new_initial_state()
    decisions = 0
    while state.is_chance_node() or decisions < 10:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
            decisions += 1
    seat = state.current_player()
    import numpy as np
    vec = np.asarray(state.information_state_tensor(seat))
    assert vec.shape == (spec.size(),) and vec[-2 * 2 * (len(space) + 1):].sum() == 10 + 2   # 2 seats, counts and last
    assert "history:" in state.information_state_string(seat)


def test_the_adapters_refuse_a_rulebook_without_a_fixed_action_space():
    # tests/rulebooks/pair_dice validates with a warning (RW240) and plays; an environment
    # needs the fixed action space, so both adapters refuse it with the located message
    from interpreter.game import RulebookError
    book = RULES.parent / "tests" / "rulebooks" / "pair_dice"
    for make in (lambda: pz_adapter.env(book, players=2), lambda: openspiel.load(book, players=2)):
        with pytest.raises(RulebookError) as err:
            make()
        [d] = err.value.diagnostics
        assert d.code == "RW240" and (d.pos.line, d.pos.col) == (17, 17)
        assert "pair_dice/game.yaml:17:17: error:" in str(err.value)
def _to_decision(state, rng):
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])


def test_openspiel_resample_from_infostate_redraws_the_hidden_die():
    # tests/rulebooks/hidden_die (issue 26): seat 0 sees its die, not seat 1's
    import random
    from pathlib import Path
    game = openspiel.load(Path(__file__).parent / "rulebooks" / "hidden_die", players=2)
    state = game.new_initial_state()
    _to_decision(state, random.Random(3))
    rng = random.Random(1)
    samples = [state.resample_from_infostate(0, rng.random) for _ in range(30)]
    real = state.cs.state
    assert {s.cs.state.v[0] for s in samples} == {real.v[0]}
    assert len({s.cs.state.v[1] for s in samples}) >= 2
    for s in samples:
        assert s.information_state_string(0) == state.information_state_string(0)
        assert s.legal_actions() == state.legal_actions()
        s.apply_action(s.legal_actions()[0])           # play goes on from a sample
        assert not s.is_chance_node()


def test_openspiel_resample_from_infostate_keeps_a_shipped_games_view():
    import random
    game = openspiel.load(RULES / "moonlight_market", players=2)
    state = game.new_initial_state()
    rng = random.Random(2)
    _to_decision(state, rng)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
        _to_decision(state, rng)
    seat = state.current_player()
    sample = state.resample_from_infostate(seat, rng.random)
    assert sample.information_state_string(seat) == state.information_state_string(seat)
    assert sample.legal_actions() == state.legal_actions()
