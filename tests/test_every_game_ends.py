"""Every game ends (issue 39, item 1): each shipped game and each test rulebook, played by
lowest-first, highest-first and random policies through the PettingZoo environment, the
single-agent wrapper and OpenSpiel, ends within its decision bound — terminated, or
truncated at the bound (the rulebook's ``max_decisions``, else 1000 per seat)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo", reason="the rl extra")

from interpreter.game import Rulebook, RulebookError  # noqa: E402

from conftest import SHIPPED  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# the shipped games by name, never every folder of rules/: a user's own copy is not ours to test
BOOKS = sorted(p for p in (ROOT / "tests" / "rulebooks").iterdir() if (p / "game.yaml").exists()) + \
    [ROOT / "rules" / name for name in SHIPPED]
POLICIES = ("lowest", "highest", "random")


def pick(policy, legal, rng):
    if policy == "lowest":
        return int(legal[0])
    if policy == "highest":
        return int(legal[-1])
    return int(legal[rng.randrange(len(legal))])


def _params():
    for book in BOOKS:
        for policy in POLICIES:
            yield pytest.param(book, policy, id=f"{book.name}-{policy}")     # (all 75: ~13 s)


def _book(path):
    try:
        rb = Rulebook.load(path)
        players = rb.game.min_players
        rb.action_space(players)
    except RulebookError as exc:         # no fixed action space (RW240): no environment either
        pytest.skip(f"{path.name}: {exc}")
    return rb, players


@pytest.mark.parametrize("book,policy", list(_params()))
def test_every_episode_ends_within_the_bound_through_every_adapter(book, policy):
    from interpreter.ai.adapters import openspiel
    from interpreter.ai.adapters.pettingzoo import RulebookEnv
    from interpreter.ai.adapters.single_agent import SingleAgentEnv
    rb, players = _book(book)
    bound = rb.info(players)["truncation"]
    declared = rb.info(players)["max_game_length"]
    assert bound == (declared if declared is not None else 1000 * rb.layout(players).num_seats)
    rng = random.Random(7)
    # PettingZoo: every agent sees the end (terminated or truncated), decisions <= bound
    env = RulebookEnv(rb, players, seed=3)
    env.reset(seed=3)
    decisions, ended = 0, set()
    for agent in env.agent_iter(max_iter=10 * bound + 100):
        obs, _r, terminated, truncated, _info = env.last()
        if terminated or truncated:
            ended.add((agent, terminated, truncated))
            env.step(None)
            continue
        env.step(pick(policy, np.flatnonzero(obs["action_mask"]), rng))
        decisions += 1
    assert not env.agents and len(ended) == len(env.possible_agents)
    st = env.game_state
    assert decisions <= bound
    assert st.is_terminal() or (st.truncated and decisions == bound)
    assert all(term == st.is_terminal() and trunc == (not st.is_terminal()) for _a, term, trunc in ended)
    pz_truncated = st.truncated
    # the single-agent wrapper: the learner (player_0) follows the policy, the others random
    single = SingleAgentEnv(RulebookEnv(rb, players), opponent=lambda o, m, r: pick(policy, np.flatnonzero(m), r))
    single.reset(seed=3)
    done = truncated = False
    steps = 0
    while not (done or truncated):
        mask = single.action_masks()
        assert mask.any()
        _obs, reward, done, truncated, _info = single.step(pick(policy, np.flatnonzero(mask), rng))
        steps += 1
        assert steps <= bound
    st = single.aec.game_state
    assert done == st.is_terminal() and truncated == st.truncated and (not truncated or reward == 0.0)
    assert len(st.history) <= bound
    # OpenSpiel: the state turns terminal (game over or truncated) within max_game_length
    game = openspiel.load(book, players=players)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(outcomes[rng.randrange(len(outcomes))])
        else:
            state.apply_action(pick(policy, state.legal_actions(), rng))
        steps += 1
        assert steps <= game.max_game_length()
    assert len(state.cs.state.history) <= bound
    if state.truncated():
        assert state.returns() == [0.0] * game.num_players() and len(state.cs.state.history) == bound
    if policy == "lowest" and book.name == "yak":
        assert pz_truncated            # the Yak: lowest-first plays for ever; the bound ends it


@pytest.mark.slow
def test_check_warns_with_the_seed_where_a_simple_policy_runs_past_the_bound(tmp_path, capsys):
    from interpreter.cli import main
    from interpreter.tools.simulate import policy_findings
    found = policy_findings(str(ROOT / "rules" / "yak"), 2, {}, [])
    assert [(f.code, f.severity, f.seed) for f in found] == [("RW907", "warning", 1)] * 2
    assert "lowest-first" in found[0].message and "highest-first" in found[1].message
    assert len(found[0].decisions) == 400 == Rulebook.load(ROOT / "rules" / "yak").info(2)["truncation"]
    assert policy_findings(str(ROOT / "tests" / "rulebooks" / "tiny_duel"), 2, {}, []) == []
    # a warning: `check` names it with its seed and still succeeds
    code = main(["check", str(ROOT / "rules" / "yak"), "--games", "2", "--players", "2",
                 "--replays", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "warning: a game played lowest-first has not ended after 400 decisions" in out
    assert "seed 1" in out and "[RW907]" in out
