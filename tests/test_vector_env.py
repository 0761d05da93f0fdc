"""Issue 39, item 2: the vector environments — batched observations and masks, the masks of the
new game right after an autoreset, the learner seat rotating, seeds, pickling, and the SB3 VecEnv."""
from __future__ import annotations

import pickle
import random
import warnings
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from interpreter.ai.adapters.vector import VectorGames, vector_env  # noqa: E402
from interpreter.game import IllegalAction, Rulebook, observation_vector  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "rulebooks" / "tiny_duel"


def random_actions(envs, rng):
    return np.array([int(rng.choice(np.flatnonzero(row))) for row in envs.action_masks()])


def test_observations_and_masks_are_each_learners_view_also_right_after_an_autoreset():
    envs = vector_env(TINY, players=2, num_envs=4, seed=1)
    obs, info = envs.reset(seed=3)
    g = envs.games
    assert obs.shape == (4, g.size) and envs.action_masks().shape == (4, g.n_actions)
    assert list(info["seat"]) == [0, 1, 0, 1]                     # copy i's first game: seat i mod 2
    rng = random.Random(0)
    resets = 0
    for _ in range(30):
        obs, rewards, terminated, truncated, info = envs.step(random_actions(envs, rng))
        masks = envs.action_masks()
        for i, st in enumerate(g.states):                         # the game now, whatever happened
            seat = g.seats[i]
            assert st.current_player() == seat
            assert np.array_equal(obs[i], observation_vector(st, seat))
            assert np.array_equal(masks[i], st.legal_mask())       # never all zeros: also after a reset
        for i in np.flatnonzero(terminated | truncated):
            resets += 1
            assert info["_final_obs"][i] and info["final_obs"][i].shape == (g.size,)
            assert rewards[i] in (0.0, 1.0)
        assert not (rewards[~terminated] != 0).any()
    assert resets >= 8                     # tiny_duel: 4 decisions a game
    assert set(g.seats) == {0, 1} and min(g.games) >= 3


STEPS = 120


@pytest.mark.parametrize("game, normalise", [("moonlight_market", False), ("iquazu", False), ("yak", True)])
def test_every_step_of_shipped_games_shows_each_learner_its_observation_and_its_legal_actions(game, normalise):
    """Long games (many steps written over the last observation, zones whose visibility changes in
    Iquazú, games ending and starting again): at every step each copy's row is the learner's
    ``observation_vector`` and its mask the learner's legal actions."""
    envs = vector_env(ROOT / "rules" / game, players=2, num_envs=6, seed=2, normalise=normalise)
    obs, _info = envs.reset(seed=5)
    g = envs.games
    rng = random.Random(5)
    ended = 0
    for _ in range(STEPS):
        obs, _rewards, terminated, truncated, _info = envs.step(random_actions(envs, rng))
        masks = envs.action_masks()
        for i, st in enumerate(g.states):
            seat = g.seats[i]
            assert np.array_equal(obs[i], observation_vector(st, seat, normalise)), (game, i)
            assert np.array_equal(masks[i], st.legal_mask()), (game, i)
        ended += int((terminated | truncated).sum())
    assert ended >= 1 and g.decisions > 6 * STEPS       # (games ended and started again in between)


def test_without_copies_a_step_returns_the_batch_itself_with_the_same_values():
    """copy=False (Gymnasium's SyncVectorEnv knob): reset and step return the batch's own
    observations and masks — the same arrays every step, written over — equal to what the
    copying env returns for the same seeds and actions; with copies, what a step returned is
    left as it was by the next one."""
    game = ROOT / "rules" / "moonlight_market"
    own, copied = vector_env(game, players=2, num_envs=3, copy=False), vector_env(game, players=2, num_envs=3)
    a, _ = own.reset(seed=4)
    b, _ = copied.reset(seed=4)
    assert np.array_equal(a, b)
    rng = random.Random(2)
    kept_a, kept_b = [], []
    for _ in range(12):
        masks = own.action_masks()
        assert np.array_equal(masks, copied.action_masks())
        acts = np.array([int(rng.choice(np.flatnonzero(row))) for row in masks])
        a, *_ = own.step(acts)
        b, *_ = copied.step(acts)
        assert np.array_equal(a, b)
        kept_a.append(a)
        kept_b.append((b, b.copy()))
    assert all(x is own.games.obs for x in kept_a) and own.action_masks() is own.games.masks
    assert all(np.array_equal(b, then) for b, then in kept_b) and len({id(b) for b, _ in kept_b}) == 12
    with pytest.raises(ValueError, match="copy must be True or False"):
        vector_env(TINY, players=2, num_envs=2, copy="no")


def test_a_seeded_reset_repeats_and_the_learner_can_be_fixed():
    a = vector_env(TINY, players=2, num_envs=3)
    b = vector_env(TINY, players=2, num_envs=3)
    assert np.array_equal(a.reset(seed=5)[0], b.reset(seed=5)[0])
    acts = random_actions(a, random.Random(1))
    assert np.array_equal(a.step(acts)[0], b.step(acts)[0])
    fixed = vector_env(TINY, players=2, num_envs=3, learner=1)
    assert list(fixed.reset(seed=1)[1]["seat"]) == [1, 1, 1]
    with pytest.raises(ValueError, match="learner must be 'rotate' or a deciding seat"):
        vector_env(TINY, players=2, num_envs=3, learner=5)
    with pytest.raises(ValueError, match="reward_kind must be one of"):
        vector_env(TINY, players=2, num_envs=3, reward_kind="points")


def test_bad_actions_raise_clearly_and_the_env_pickles_mid_game():
    envs = vector_env(ROOT / "rules" / "yak", players=2, num_envs=3)
    envs.reset(seed=2)
    with pytest.raises(ValueError, match=r"one action index per copy: an integer array of shape \(3,\)"):
        envs.step(np.array([1]))
    with pytest.raises(ValueError, match="one action index per copy"):
        envs.step(None)
    bad = np.array([int(np.flatnonzero(row == 0)[0]) for row in envs.action_masks()])
    with pytest.raises(IllegalAction, match="copy 0: .* is not legal now"):
        envs.step(bad)
    rng = random.Random(3)
    for _ in range(5):
        envs.step(random_actions(envs, rng))
    again = pickle.loads(pickle.dumps(envs))
    assert np.array_equal(again.action_masks(), envs.action_masks())
    acts = random_actions(envs, rng)
    one, two = envs.step(acts), again.step(acts)
    assert all(np.array_equal(x, y) for x, y in zip(one[:4], two[:4]))


def test_truncation_at_the_bound_ends_a_copy_that_never_ends():
    rb = Rulebook.load(ROOT / "rules" / "yak")
    first = lambda st, rng: 0                                   # noqa: E731 - often endless in Yak
    g = VectorGames(rb, 2, 4, opponent=first)
    g.reset(seed=1)
    cut = []
    for _ in range(1000):
        ended = g.step(np.array([legal[0] for legal in g.legal]))          # the learners too
        for i in ended:
            assert g.terminated[i] != g.truncated[i]
            if g.truncated[i]:
                assert g.rewards[i] == 0 and len(g.states[i].history) < 5      # (a new game began at once)
                cut.append(i)
        if cut:
            break
    assert cut                   # at 400 decisions (Yak's max_decisions for 2), never an error


def test_the_sb3_vec_env_is_made_without_warnings_and_says_each_copy_renders_nothing():
    pytest.importorskip("stable_baselines3")
    from interpreter.ai.adapters.vector import sb3_vec_env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        venv = sb3_vec_env(TINY, players=2, num_envs=3, seed=0)
    # (SB3 warned "The `render_mode` attribute is not defined in your environment" when it was missing)
    assert not [w for w in caught if "render_mode" in str(w.message)]
    assert venv.render_mode is None and venv.get_attr("render_mode") == [None, None, None]
    assert venv.has_attr("render_mode") and venv.get_attr("num_envs") == [3, 3, 3]


@pytest.mark.slow
def test_sb3_check_env_passes_and_maskable_ppo_trains_through_the_vec_env():
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.vec_env import VecEnv
    from interpreter.ai.adapters.single_agent import single_agent_env
    from interpreter.ai.adapters.vector import sb3_vec_env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(single_agent_env(TINY, players=2))            # (check_env takes one env: the copy's kind)
    venv = sb3_vec_env(TINY, players=2, num_envs=4, seed=0)
    assert isinstance(venv, VecEnv)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert obs.shape == (4, venv.games.size) and masks.shape == (4, venv.games.n_actions) and masks.any(1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, seed=0, verbose=0)
    model.learn(256)
    assert model.num_timesteps >= 256
