"""Issue 39, item 4: plain pickle round-trips Rulebook, State and the environments mid-game;
actions of a wrong shape raise a clear error; options are checked at construction."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from interpreter.game import Rulebook

ROOT = Path(__file__).resolve().parents[1]
YAK = ROOT / "rules" / "yak"


def test_rulebook_and_a_state_mid_game_pickle_and_play_on_alike():
    rb = Rulebook.load(YAK)
    again = pickle.loads(pickle.dumps(rb))
    assert again.path == rb.path and again.name == rb.name
    st = rb.new_game(2, 11, logging=False)
    for k in range(25):
        st.apply_index(k % len(st.legal_action_indices()))
    copy = pickle.loads(pickle.dumps(st))
    assert copy is not st and copy.to_json() == st.to_json()
    for k in range(40):             # both go on alike: the same legal actions, the same results
        if st.is_terminal():
            break
        assert copy.legal_actions() == st.legal_actions()
        i = (3 * k) % len(st.legal_action_indices())
        st.apply_index(i)
        copy.apply_index(i)
    assert copy.to_json() == st.to_json()


def test_a_state_from_json_pickles_through_its_json_form():
    rb = Rulebook.load(YAK)
    st = rb.new_game(2, 4)
    st.apply_index(0)
    loaded = rb.state_from_json(st.to_json())
    assert pickle.loads(pickle.dumps(loaded)).to_json() == st.to_json()


def test_the_environments_pickle_mid_game_and_go_on_alike():
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from interpreter.ai.adapters.pettingzoo import env as aec_env
    from interpreter.ai.adapters.single_agent import single_agent_env
    e = aec_env(YAK, players=2, seed=5)
    e.reset(seed=5)
    for _ in range(10):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.agent_selection == e.agent_selection
    for _ in range(10):
        a, b = e.observe(e.agent_selection), e2.observe(e2.agent_selection)
        assert np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])
        act = int(np.flatnonzero(a["action_mask"])[0])
        e.step(act)
        e2.step(act)
    e.reset()
    e2.reset()                                  # the seed generator pickled too: the same next game
    assert e.game_seed == e2.game_seed
    s = single_agent_env(YAK, players=2)
    obs, _ = s.reset(seed=2)
    s.step(int(np.flatnonzero(s.action_masks())[0]))
    s2 = pickle.loads(pickle.dumps(s))
    assert np.array_equal(s2.action_masks(), s.action_masks())
    a = int(np.flatnonzero(s.action_masks())[0])
    assert np.array_equal(s.step(a)[0], s2.step(a)[0])


def test_a_wrong_action_shape_raises_and_options_are_checked_at_construction():
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from interpreter.ai.adapters.pettingzoo import env as aec_env
    from interpreter.ai.adapters.single_agent import single_agent_env
    e = aec_env(YAK, players=2)
    e.reset(seed=1)
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    with pytest.raises(TypeError, match=r"step\(None\) is only for an agent whose episode is over"):
        e.step(None)
    with pytest.raises(ValueError, match=r"not an array of shape \(1,\)"):
        e.step(np.array([legal]))
    with pytest.raises(TypeError, match="an action is one index"):
        e.step("2")
    assert not any(e.terminations.values())              # nothing half done: the episode goes on
    e.step(np.int64(legal))                              # numpy integers and 0-d arrays are indices
    e.step(np.array(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])))
    s = single_agent_env(YAK, players=2)
    s.reset(seed=1)
    with pytest.raises(ValueError, match="not an array of shape"):
        s.step(np.array([0, 1]))
    with pytest.raises(ValueError, match="reward_kind must be one of win, rank, zero_sum, score, not 'wins'"):
        aec_env(YAK, players=2, reward_kind="wins")


@pytest.mark.parametrize("bad", [{"reward_kind": "wins"}, {"illegal_action": "skip"}])
def test_the_parallel_env_checks_its_options_at_construction_as_the_aec_env_does(bad):
    pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from interpreter.ai.adapters.parallel import parallel_env
    from interpreter.ai.adapters.pettingzoo import env as aec_env
    with pytest.raises(ValueError, match="must be one of") as parallel:
        parallel_env(YAK, players=2, **bad)
    with pytest.raises(ValueError, match="must be one of") as aec:
        aec_env(YAK, players=2, **bad)
    assert str(parallel.value) == str(aec.value)


def test_info_names_the_numbers_that_fall_back_to_the_default_bound():
    rb = Rulebook.load(ROOT / "rules" / "azul_summer_pavilion")
    info = rb.info(2)
    # score states min: 1 and no max; round states neither: both fall back to ±1000 on the open side
    assert info["unbounded"] == ["round", "score"]
    lay = rb.layout(2)
    assert lay.clamp["score"] == (1, None)


def test_invariants_that_always_hold_bound_the_observations(tmp_path):
    import shutil
    np = pytest.importorskip("numpy")
    from interpreter.game import observation_bounds
    book = tmp_path / "duel"
    shutil.copytree(ROOT / "tests" / "rulebooks" / "tiny_duel", book)
    text = (book / "game.yaml").read_text()
    text = text.replace("target: {init: 0, min: 0, max: 3}", "target: {init: 0}\n  spare: {init: 0}")
    text = text.replace("score: {index: {p: players}, init: 0, min: 0, max: 6}",
                        "score: {index: {p: players}, init: 0}")
    text += ('invariants:\n  kept: "target in 0..3 and all(players, p -> score[p] >= 0 and score[p] <= 6)"\n'
             '  half: {expr: "spare <= 9", when: turn_end}\n')
    (book / "game.yaml").write_text(text)
    rb = Rulebook.load(book)
    assert rb.game.invariant_bounds == {"target": (0, 3), "score": (0, 6)}
    # `spare` is bounded only at the end of a turn: not at every decision, so not at all
    assert rb.info(2)["unbounded"] == ["spare"]
    spec = rb.observation_spec(2)
    low, high = observation_bounds(rb.game, rb.layout(2))
    cols = {name: i for i, name in enumerate(spec_names(spec))}
    assert (low[cols["target"]], high[cols["target"]]) == (0, 3)
    assert (low[cols["score[0]"]], high[cols["score[0]"]]) == (0, 6)
    assert (low[cols["spare"]], high[cols["spare"]]) == (-1000, 1000)


def spec_names(spec):
    """The name of each flat entry of the spec that holds a number variable's value."""
    out, at = [], 0
    for p in spec.parts:
        n = 1
        for d in p.shape:
            n *= d
        names = [None] * n
        if p.kind == "var" and len(p.columns) == 2 and p.columns[1] == "value":
            for r, key in enumerate(p.rows):
                names[r * p.shape[1] + 1] = p.name.split(":", 1)[-1] if len(p.rows) == 1 else \
                    f"{p.name.split(':', 1)[-1]}[{key}]"
        out += names
        at += n
    return out


def test_openspiel_checks_its_returns_parameter_when_the_game_loads():
    pytest.importorskip("pyspiel")
    from interpreter.ai.adapters import openspiel
    with pytest.raises(ValueError, match="returns must be one of win, rank, zero_sum, score, not 'wins'"):
        openspiel.load(ROOT / "tests" / "rulebooks" / "tiny_duel", players=2, returns="wins")
