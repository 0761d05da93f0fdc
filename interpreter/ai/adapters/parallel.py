"""A rulebook as a PettingZoo ``ParallelEnv`` (needs the ``rl`` extra): every seat that
decides now acts in the same ``step``.

    from interpreter.ai.adapters.parallel import parallel_env
    e = parallel_env("tests/rulebooks/sealed_bids", players=3)
    obs, infos = e.reset(seed=1)
    while e.agents:
        actions = {a: int(obs[a]["action_mask"].nonzero()[0][0]) for a in e.agents
                   if obs[a]["action_mask"].any()}
        obs, rewards, terminations, truncations, infos = e.step(actions)

At a decision taken together (``decide: … together:``) every seat still to choose acts at
once: each agent's ``action_mask`` holds its own options, and ``step`` applies the
choices in seat order (:mod:`.joint`); at a decision of one seat only that seat's mask
has options.  An agent with nothing to choose (an all-zero mask) may give any action or
none: it is ignored.  Agents, spaces, observations, rewards and the handling of an
illegal action are those of the AEC environment (:mod:`.pettingzoo`, whose ``env``
keeps working for the same rulebooks: there the seats of a decision taken together act
one after the other, each told nothing of the others' choices).  ``infos[agent]``
says ``"acting": True`` for an agent whose choice ``step`` needs.
"""
from __future__ import annotations

try:
    import numpy as np
    from pettingzoo import ParallelEnv
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the PettingZoo adapter needs the rl extra: pip install -e '.[rl]'") from exc

from ...game import EVERYONE, IllegalAction, Rulebook
from .joint import pending_decisions
from .seated import SeatedGame

__all__ = ["parallel_env", "RulebookParallelEnv"]


def parallel_env(path, players: int, variants=(), render_mode=None, reward_kind: str = "win", *, seed=None,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0, normalise: bool = False,
                 **options) -> "RulebookParallelEnv":
    """A parallel environment for the rulebook at ``path`` (the rulebook's options as keyword arguments)."""
    return RulebookParallelEnv(Rulebook.load(path), players, options, variants, render_mode, reward_kind,
                               seed=seed, illegal_action=illegal_action, illegal_reward=illegal_reward,
                               normalise=normalise)


class RulebookParallelEnv(SeatedGame, ParallelEnv):
    metadata = {"render_modes": ["ansi"], "name": "regelwerk_parallel"}

    def __init__(self, rulebook: Rulebook, players: int, options=None, variants=(), render_mode=None,
                 reward_kind: str = "win", *, seed=None, illegal_action: str = "terminate",
                 illegal_reward: float = -1.0, normalise: bool = False):
        self._seat(rulebook, players, options, variants, render_mode, reward_kind, seed, illegal_action,
                   illegal_reward, normalise, "regelwerk_parallel")
        self._acting = {}

    def reset(self, seed=None, options=None):
        self._new_game(seed)
        self._find_acting()
        return self._observations(), self._infos()

    def _find_acting(self):
        """Each seat that chooses now: the space index of each of its options, in their order."""
        self._acting = {seat: self.space.indices_of(dec) for seat, dec in pending_decisions(self.game_state).items()}

    def _observations(self) -> dict:
        st = self.game_state
        n = len(self.space)
        out = {}
        for agent in self.agents:
            seat = self.seat_of[agent]
            mask = np.zeros(n, dtype=np.int8)
            for i in self._acting.get(seat, ()):
                mask[i] = 1
            out[agent] = {"observation": self._writer.vector(st, seat, self.normalise), "action_mask": mask}
        return out

    def _infos(self) -> dict:
        return {a: {"acting": self.seat_of[a] in self._acting} for a in self.agents}

    def state(self):
        """The full state as one vector: every zone and variable shown (privileged)."""
        if self.game_state is None:
            raise RuntimeError("reset() the environment first")
        return self._writer.vector(self.game_state, EVERYONE, self.normalise)

    def step(self, actions):
        st = self.game_state
        agents = list(self.agents)
        rewards = dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, False)
        truncations = dict.fromkeys(agents, False)
        choices = {}
        for seat, order in self._acting.items():
            agent = self.agent_of[seat]
            action = actions.get(agent) if isinstance(actions, dict) else None
            why = None
            try:
                i = int(action)
                if i != action:
                    raise ValueError
            except (TypeError, ValueError):
                why = f"{agent} gave {action!r}, not an action index"
            else:
                if i not in order:
                    what = f"'{self.space.action_id(i)}' (index {i})" if 0 <= i < len(self.space) else f"index {i}"
                    why = f"{what} is not a legal action of {agent} now"
            if why is not None:
                if self.illegal_action == "raise":
                    raise IllegalAction(why)
                rewards[agent] = self.illegal_reward
                terminations = dict.fromkeys(agents, True)
                infos = {a: {} for a in agents}
                infos[agent] = {"illegal_action": {"action": action, "why": why}}
                obs = self._observations()
                self.agents = []
                return obs, rewards, terminations, truncations, infos
            choices[seat] = order.index(i)
        for seat in sorted(choices):             # seat order: the order the engine takes them in
            st.apply_index(choices[seat])
        if st.is_terminal():
            returns = st.returns(self.reward_kind) if self.reward_kind != "win" else st.returns()
            for a in agents:
                rewards[a] = float(returns[self.seat_of[a]])
            terminations = dict.fromkeys(agents, True)
            self._acting = {}
        else:
            self._find_acting()
        obs = self._observations()
        infos = self._infos()
        if st.is_terminal():
            self.agents = []
        if self.render_mode == "ansi":
            print(self.render())
        return obs, rewards, terminations, truncations, infos

    def render(self):
        if self.game_state is None:
            return ""
        return self.game_state.observation_string(None)

    def close(self):
        pass
