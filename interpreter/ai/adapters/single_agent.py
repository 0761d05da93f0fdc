"""One seat of a rulebook as a single-agent Gymnasium environment (needs the ``rl`` extra).

    from interpreter.ai.adapters.single_agent import single_agent_env
    e = single_agent_env("rules/<game>", players=2)          # the learner is player_0
    obs, info = e.reset(seed=1)
    obs, reward, terminated, truncated, info = e.step(int(e.action_masks().nonzero()[0][0]))

The learner is one agent of the AEC environment (:mod:`.pettingzoo`); every
other agent is played by ``opponent`` — a callable ``opponent(observation,
mask, rng) -> action index`` (default: a uniformly random legal action from
the environment's seeded generator) — inside ``reset`` and ``step``, and the
rulebook plays its automata.  The observation is the learner's observation
vector, the action an index into the action space; ``action_masks()`` is the
legal mask (what sb3-contrib's ``MaskablePPO`` asks for), also in
``info["action_mask"]``.  The reward is the learner's reward of the AEC
environment (at the end; with ``illegal_action="terminate"`` the penalty of
an illegal action, which ends the episode).  Seeds work as in the AEC
environment: ``reset(seed=s)`` repeats exactly, ``reset()`` draws a fresh game.
A game past its decision bound ends the episode with ``truncated=True``
(reward 0).  The environment pickles with plain ``pickle`` (the opponent must
be picklable: a module-level function such as :func:`random_opponent`).
"""
from __future__ import annotations

try:
    import gymnasium
    import numpy as np
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the single-agent environment needs the rl extra: pip install -e '.[rl]'") from exc

import random

from .pettingzoo import env as aec_env

__all__ = ["single_agent_env", "SingleAgentEnv", "random_opponent"]


def random_opponent(observation, mask, rng) -> int:
    """A uniformly random legal action."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def single_agent_env(path, players: int, learner: str = "player_0", opponent=random_opponent,
                     **kwargs) -> "SingleAgentEnv":
    """The seat ``learner`` of the rulebook at ``path`` against ``opponent`` (the keyword
    arguments of :func:`interpreter.ai.adapters.pettingzoo.env` pass on)."""
    return SingleAgentEnv(aec_env(path, players, **kwargs), learner, opponent)


class SingleAgentEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(self, aec, learner: str = "player_0", opponent=random_opponent):
        if learner not in aec.possible_agents:
            raise ValueError(f"{learner!r} is no agent of this game ({', '.join(aec.possible_agents)})")
        self.aec = aec
        self.learner = learner
        self.opponent = opponent
        self.observation_space = aec.observation_space(learner)["observation"]
        self.action_space = aec.action_space(learner)
        self.render_mode = aec.render_mode
        self._rng = random.Random()
        self._mask = np.zeros(self.action_space.n, np.int8)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(int(seed))
        self.aec.reset(seed=seed)
        obs, _reward, _terminated, _truncated, info = self._play_others()
        return obs, info

    def step(self, action):
        aec = self.aec
        if aec.agent_selection != self.learner or aec.terminations[self.learner] or aec.truncations[self.learner]:
            raise RuntimeError("the episode is over: reset() first")
        aec.step(action)
        return self._play_others()

    def action_masks(self):
        """The learner's legal mask now (all 0 at the end)."""
        return self._mask

    def _play_others(self):
        """Let the other agents move until the learner decides or the episode is over; the
        learner's observation, reward, whether the episode terminated or was truncated (the game
        went past its decision bound), and its info."""
        aec = self.aec
        while True:
            agent = aec.agent_selection
            obs, reward, terminated, truncated, info = aec.last()
            if agent == self.learner and not (terminated or truncated):
                self._mask = obs["action_mask"]
                return obs["observation"], float(reward), False, False, dict(info, action_mask=self._mask)
            if terminated or truncated:
                if not aec.agents or self.learner not in aec.agents or agent == self.learner:
                    break
                aec.step(None)
                continue
            aec.step(self.opponent(obs["observation"], obs["action_mask"], self._rng))
        truncated = bool(aec.truncations.get(self.learner)) and not aec.terminations.get(self.learner)
        reward = float(aec._cumulative_rewards.get(self.learner, 0.0)) if self.learner in aec.agents else 0.0
        obs = aec.observe(self.learner)
        self._mask = np.zeros(self.action_space.n, np.int8)
        info = dict(aec.infos.get(self.learner, {}), action_mask=self._mask)
        return obs["observation"], reward, not truncated, truncated, info

    def render(self):
        return self.aec.render()
