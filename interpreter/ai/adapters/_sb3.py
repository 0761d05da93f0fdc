"""The stable-baselines3 ``VecEnv`` over :class:`.vector.VectorGames` (the ``train`` extra);
made by :func:`.vector.sb3_vec_env`, documented there."""
from __future__ import annotations

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as exc:  # pragma: no cover - the train extra is absent
    raise ImportError("the SB3 vector environment needs the train extra: pip install -e '.[rl,train]'") from exc

import numpy as np
from gymnasium import spaces


class RulebookVecEnv(VecEnv):
    """N games stepped in one process; ``action_masks()`` (and ``env_method("action_masks")``,
    which sb3-contrib's MaskablePPO calls) gives the learners' masks now."""

    def __init__(self, games):
        self.games = games
        self.render_mode = None
        super().__init__(games.num_envs, spaces.Box(games.low, games.high, (games.size,), np.float32),
                         spaces.Discrete(games.n_actions))
        self._actions = None

    def reset(self):
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self.games.reset(seed)
        self._reset_seeds()
        return self.games.obs.copy()

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        g = self.games
        ended = g.step(np.asarray(self._actions).reshape(-1).astype(np.int64))
        infos = [{"seat": s} for s in g.seats]
        for i in ended:
            infos[i]["terminal_observation"] = g.final_obs[i]
            infos[i]["TimeLimit.truncated"] = bool(g.truncated[i])
        dones = g.terminated | g.truncated
        return g.obs.copy(), g.rewards.copy(), dones, infos

    def action_masks(self):
        return self.games.masks.astype(bool)

    def close(self):
        pass

    def has_attr(self, attr_name):
        return attr_name in ("action_masks", "render_mode") or hasattr(self.games, attr_name)

    def get_attr(self, attr_name, indices=None):
        if attr_name == "render_mode":          # (each copy's: none; VecEnv asks while it is made)
            return [None for _ in self._get_indices(indices)]
        return [getattr(self.games, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        setattr(self.games, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            masks = self.games.masks.astype(bool)
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"the games have no method {method_name!r} per copy (only action_masks)")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]
