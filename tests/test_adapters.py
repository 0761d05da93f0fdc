"""The PettingZoo and OpenSpiel adapters (interpreter/adapters/), on every
encoded game.  They need the rl extra; without it these tests skip."""
import contextlib
import io
import warnings

import pytest

from conftest import ROOT, RULES

pettingzoo = pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the rl extra: "
                                                      "pip install -e '.[rl]'")
pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel adapter needs the rl extra: pip install -e '.[rl]'")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from interpreter.ai.adapters import openspiel, pettingzoo as pz_adapter  # noqa: E402

ALL = [(g, n) for g, ns in {"azul_summer_pavilion": (2, 3, 4), "iquazu": (2, 3, 4),
                            "moonlight_market": (1, 2, 3, 4, 5), "yak": (2, 3, 4)}.items() for n in ns]
# the default run: one player count per game (the slow run covers every count)
QUICK = [("azul_summer_pavilion", 2), ("iquazu", 3), ("moonlight_market", 1), ("yak", 2)]
TINY = ROOT / "tests" / "rulebooks" / "tiny_duel"        # 2 seats, a die and three cards each, two rounds
QUICK_OPENSPIEL = [("azul_summer_pavilion", 2), ("moonlight_market", 1)]      # the others in the slow run


def run_api_test(game, players):
    env = pz_adapter.env(RULES / game, players=players)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=300)
        seed_test(lambda: pz_adapter.env(RULES / game, players=players), num_cycles=100)


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
    legal = env.unwrapped.game_state.legal_actions()
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
    st = env.unwrapped.game_state
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
def first_observation(env, **reset):
    env.reset(**reset)
    return env.observe(env.agent_selection)["observation"]


def test_reset_without_a_seed_draws_a_fresh_game_and_a_seed_repeats_it():
    import numpy as np
    env = pz_adapter.env(RULES / "yak", players=2)          # setup draws from the bag and shuffles cards
    a, b = first_observation(env), first_observation(env)
    assert not np.array_equal(a, b)
    assert env.game_seed != 0
    five = first_observation(env, seed=5)
    assert np.array_equal(five, first_observation(env, seed=5))
    assert env.unwrapped.game_state.seed == 5
    # the unseeded resets after reset(seed=s), or from a seeded constructor, repeat too
    after = [first_observation(env) for _ in range(2)]
    first_observation(env, seed=5)
    assert all(np.array_equal(x, first_observation(env)) for x in after)
    one, two = pz_adapter.env(RULES / "yak", players=2, seed=9), pz_adapter.env(RULES / "yak", players=2, seed=9)
    for _ in range(3):
        assert np.array_equal(first_observation(one), first_observation(two))


def illegal_index(env):
    import numpy as np
    obs = env.observe(env.agent_selection)
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def test_an_illegal_action_ends_the_episode_with_a_penalty_or_raises():
    from interpreter.game import IllegalAction
    env = pz_adapter.env(RULES / "iquazu", players=3, illegal_reward=-2)
    env.reset(seed=1)
    env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))      # one legal step first
    cheat = env.agent_selection
    bad = illegal_index(env)
    env.step(bad)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[cheat] == -2 and all(r == 0 for a, r in env._cumulative_rewards.items() if a != cheat)
    why = env.infos[cheat]["illegal_action"]
    assert why["action"] == bad and "not a legal action now" in why["why"]
    seen = {}
    for agent in env.agent_iter():                           # every agent sees the end, then leaves
        _obs, reward, terminated, _truncated, _info = env.last()
        assert terminated
        seen[agent] = reward
        env.step(None)
    assert seen[cheat] == -2 and len(seen) == 3 and not env.agents
    strict = pz_adapter.env(RULES / "iquazu", players=3, illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalAction, match="not a legal action now"):
        strict.step(illegal_index(strict))
    with pytest.raises(IllegalAction, match="not an index of the action space"):
        strict.step(10_000)
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        pz_adapter.env(RULES / "iquazu", players=3, illegal_action="ignore")


def test_state_is_the_full_privileged_state_and_nothing_shadows_it():
    import numpy as np
    env = pz_adapter.env(RULES / "moonlight_market", players=3)
    env.reset(seed=2)
    full = env.state()
    assert callable(env.state) and full.shape == env.state_space.shape and env.state_space.contains(full)
    spec = env.unwrapped.spec_obs
    hand = spec.unflatten(full)["zone:hand"]
    mine = spec.unflatten(env.observe("player_0")["observation"])["zone:hand"]
    # the state shows every hand's cards; player_0 sees only its own
    assert (hand[:, 0] == 1).all() and hand[1, 2:].sum() == hand[1, 1] > 0
    assert mine[0, 0] == 1 and mine[1, 0] == 0 and mine[1, 2:].sum() == 0 and mine[1, 1] == hand[1, 1]
    assert np.array_equal(hand[0], mine[0])


@pytest.mark.parametrize("game,players", QUICK)
def test_observations_lie_within_finite_bounds_from_the_layout(game, players):
    import numpy as np
    env = pz_adapter.env(RULES / game, players=players)
    unit = pz_adapter.env(RULES / game, players=players, normalise=True)
    box = env.observation_space(env.possible_agents[0])["observation"]
    assert np.isfinite(box.low).all() and np.isfinite(box.high).all() and (box.high > box.low).all()
    spec = env.unwrapped.spec_obs
    parts = spec.unflatten(box.high)
    lay = env.unwrapped.layout
    # a zone's count: at most the components the zone may hold; a column per label: that label's copies
    for p in spec.parts:
        if p.kind == "zone":
            holdable = [c for c in lay.components if not p.ref.holds or c.kind in p.ref.holds]
            assert (parts[p.name][:, 1] <= len(holdable)).all()
            for i, label in enumerate(p.columns[2:], start=2):
                assert (parts[p.name][:, i] <= max(1, sum(c.label == label for c in holdable))).all()
    steps = 0
    for seed in (0, 1):
        pick = __import__("random").Random(seed)
        env.reset(seed=seed)
        unit.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _r, terminated, truncated, _i = env.last()
            scaled = unit.observe(agent)["observation"]
            assert env.observation_space(agent)["observation"].contains(obs["observation"]), agent
            assert unit.observation_space(agent)["observation"].contains(scaled)
            lo, hi = box.low, box.high
            assert np.allclose(scaled, (obs["observation"] - lo) / (hi - lo), atol=1e-6)
            legal = np.flatnonzero(obs["action_mask"])
            action = None if terminated or truncated else int(legal[pick.randrange(len(legal))])
            env.step(action)
            unit.step(action)
            steps += 1
    assert steps > 20


def test_sb3_check_env_passes_on_the_single_agent_wrapper():
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker",
                                      reason="stable-baselines3 is an optional extra (the train extra)")
    from interpreter.ai.adapters.single_agent import single_agent_env
    env = single_agent_env(RULES / "yak", players=2, illegal_action="terminate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env_checker.check_env(env)


def test_the_single_agent_wrapper_plays_the_other_seats_and_ends_with_the_reward():
    import numpy as np
    from interpreter.ai.adapters.single_agent import single_agent_env
    env = single_agent_env(RULES / "azul_summer_pavilion", players=2, learner="player_1")
    obs, info = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    assert np.array_equal(obs, again)
    aec = env.aec
    done, reward, steps = False, None, 0
    while not done:
        assert aec.agent_selection == "player_1"            # only the learner is ever asked
        mask = env.action_masks()
        assert mask.sum() > 0 and np.array_equal(mask, info["action_mask"])
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        steps += 1
    st = aec.game_state
    assert st.is_terminal() and steps > 5
    assert reward == (1.0 if 1 in st.winners() else 0.0)
    # an illegal action: the penalty, and the episode is over
    env.reset(seed=4)
    obs, reward, done, truncated, info = env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    assert done and reward == -1.0 and "illegal_action" in info


def test_openspiel_game_type_comes_from_the_rulebook():
    Type = pyspiel.GameType
    iquazu = openspiel.load(RULES / "iquazu", players=2, returns="zero_sum").get_type()
    assert iquazu.utility == Type.Utility.ZERO_SUM
    assert iquazu.chance_mode == Type.ChanceMode.EXPLICIT_STOCHASTIC         # shuffles and bags
    assert iquazu.information == Type.Information.IMPERFECT_INFORMATION      # hands are hidden
    assert openspiel.load(RULES / "iquazu", players=3).get_type().utility == Type.Utility.GENERAL_SUM
    # nothing hidden, nothing drawn at random (tests/rulebooks/lowest_wins): deterministic, perfect information
    lowest = openspiel.load(ROOT / "tests" / "rulebooks" / "lowest_wins", players=2).get_type()
    assert lowest.chance_mode == Type.ChanceMode.DETERMINISTIC
    assert lowest.information == Type.Information.PERFECT_INFORMATION
    # secret offers, no randomness (tests/rulebooks/sealed_offers): deterministic, imperfect information
    sealed = openspiel.load(ROOT / "tests" / "rulebooks" / "sealed_offers", players=2).get_type()
    assert sealed.chance_mode == Type.ChanceMode.DETERMINISTIC
    assert sealed.information == Type.Information.IMPERFECT_INFORMATION


def test_openspiel_max_game_length_is_decisions_plus_bounded_chance():
    game = openspiel.load(TINY, players=2)
    # max_decisions 4; per segment at most 2 x 6 components + 16 = 28 chance nodes; 5 segments
    assert game.max_game_length() == 4 + 5 * 28
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0] if not state.is_chance_node() else 0)
        steps += 1
    assert steps == 2 * (1 + 2) <= game.max_game_length()         # two rounds: a die, two cards


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_openspiel_exploitability_and_cfr_run_on_a_zero_sum_rulebook():
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability
    game = openspiel.load(TINY, players=2, returns="zero_sum")
    uniform = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    assert uniform > 0.1
    assert exploitability.nash_conv(game, policy.UniformRandomPolicy(game)) == pytest.approx(2 * uniform)
    solver = cfr.CFRSolver(game)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    assert exploitability.exploitability(game, solver.average_policy()) < uniform / 2
    # win returns are not zero-sum: OpenSpiel refuses, as it should
    with pytest.raises(ValueError):
        exploitability.exploitability(openspiel.load(TINY, players=2), policy.UniformRandomPolicy(game))


def test_openspiel_games_and_states_pickle():
    import pickle
    game = openspiel.load(RULES / "azul_summer_pavilion", players=3, returns="rank")
    copy = pickle.loads(pickle.dumps(game))
    assert str(copy) == str(game) and copy.num_distinct_actions() == game.num_distinct_actions()
    state = game.new_initial_state()
    for _ in range(40):
        state.apply_action(state.chance_outcomes()[-1][0] if state.is_chance_node() else state.legal_actions()[-1])
    again = pickle.loads(pickle.dumps(state))
    assert again.history() == state.history() and str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()


def test_openspiel_automata_as_players_or_as_the_environment():
    seats = openspiel.load(RULES / "moonlight_market", players=2)
    env = openspiel.load(RULES / "moonlight_market", players=2, automaton_seats="environment")
    assert seats.num_players() == 3 and env.num_players() == 2          # Dirk is seat 2
    with pytest.raises(ValueError, match="automaton_seats must be one of"):
        openspiel.load(RULES / "moonlight_market", players=2, automaton_seats="bots")
    import random
    pick = random.Random(3)
    a, b = seats.new_initial_state(), env.new_initial_state()
    while not a.is_terminal():
        if a.is_chance_node():
            o = pick.randrange(len(a.chance_outcomes()))
        else:
            assert a.current_player() in (0, 1)                          # Dirk never decides
            o = a.legal_actions()[pick.randrange(len(a.legal_actions()))]
        a.apply_action(o)
        b.apply_action(o)
    assert b.is_terminal() and len(a.returns()) == 3 and b.returns() == a.returns()[:2]
