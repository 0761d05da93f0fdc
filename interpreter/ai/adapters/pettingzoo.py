"""A rulebook as a PettingZoo AEC environment (needs the ``rl`` extra).

    from interpreter.adapters.pettingzoo import env
    e = env("rules/<game>", players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        mask = obs["action_mask"]
        e.step(None if terminated or truncated else int(mask.nonzero()[0][0]))

Agents are the seats that decide (``player_0`` …; automaton seats never
decide and are no agents).  An action is an index into the layout's fixed
action space (``info["action_ids"]`` of ``e.unwrapped`` names them); the
observation is the flattened observation tensor with the action mask.
Rewards come at the end: ``State.returns(kind)`` (``reward_kind``, default
``"win"``: 1 for a (shared) win, 0 otherwise).
"""
from __future__ import annotations

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the PettingZoo adapter needs the rl extra: pip install -e '.[rl]'") from exc

from ...game import Rulebook

__all__ = ["env", "RulebookEnv"]


def env(path, players: int, variants=(), render_mode=None, reward_kind: str = "win", **options) -> "RulebookEnv":
    """An AEC environment for the rulebook at ``path`` (options as keyword arguments)."""
    return RulebookEnv(Rulebook.load(path), players, options, variants, render_mode, reward_kind)


class RulebookEnv(AECEnv):
    metadata = {"render_modes": ["ansi"], "name": "regelwerk", "is_parallelizable": False}

    def __init__(self, rulebook: Rulebook, players: int, options=None, variants=(), render_mode=None,
                 reward_kind: str = "win"):
        super().__init__()
        self.rulebook = rulebook
        self.players = players
        self.options = dict(options or {})
        self.variants = tuple(variants)
        self.render_mode = render_mode
        self.reward_kind = reward_kind
        self.metadata = dict(self.metadata, name=f"regelwerk_{rulebook.path.name}")
        self.space = rulebook.action_space(players, self.options, self.variants)
        self.spec_obs = rulebook.observation_spec(players, self.options, self.variants)
        lay = rulebook.layout(players, self.options, self.variants)
        self.seat_of = {f"player_{s}": s for s in lay.seats if s not in lay.automata}
        self.agent_of = {s: a for a, s in self.seat_of.items()}
        self.possible_agents = list(self.seat_of)
        n = len(self.space)
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.spec_obs.size(),), np.float32),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.state = self.rulebook.new_game(self.players, 0 if seed is None else int(seed), self.options,
                                            self.variants, logging=False)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        who = self.state.current_player()
        if who is not None:
            self.agent_selection = self.agent_of[who]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent):
        seat = self.seat_of[agent]
        st = self.state
        obs = self.spec_obs.flatten(st.observation_tensor(seat))
        mask = np.zeros(len(self.space), dtype=np.int8)
        if st.current_player() == seat:
            mask[:] = st.legal_mask()
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state
        st.apply_action(self.space.action_id(int(action)))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if st.is_terminal():
            returns = st.returns(self.reward_kind) if self.reward_kind != "win" else st.returns()
            for a in self.agents:
                self.rewards[a] = float(returns[self.seat_of[a]])
                self.terminations[a] = True
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self):
        if self.state is None:
            return ""
        return self.state.observation_string(None)

    def close(self):
        pass
