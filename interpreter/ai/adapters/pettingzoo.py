"""A rulebook as a PettingZoo AEC environment (needs the ``rl`` extra).

    from interpreter.ai.adapters.pettingzoo import env
    e = env("rules/<game>", players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        mask = obs["action_mask"]
        e.step(None if terminated or truncated else int(mask.nonzero()[0][0]))

Agents are the seats that decide (``player_0`` …): automaton seats never
decide, the rulebook's own automaton logic plays them inside ``step``, and
they are no agents.  An action is an index into the layout's fixed action
space (``e.unwrapped.space`` names them); the observation is the flat
observation vector (bounded by the layout: ``observation_space``) with the
action mask.  Rewards come at the end: ``State.returns(kind)``
(``reward_kind``, default ``"win"``: 1 for a (shared) win, 0 otherwise).

Seeds: ``reset(seed=s)`` plays the game of seed ``s`` and reseeds the
environment's own generator with ``s``; ``reset()`` draws the next game's
seed from that generator (seeded by the constructor's ``seed``, else from
the operating system), so every unseeded reset starts a fresh game and a
seeded run of resets repeats exactly.

Every episode ends: a game that has not ended after its layout's
decision bound (the rulebook's ``max_decisions``, else 1000 decisions per
seat: ``Rulebook.info(...)["truncation"]``) is *truncated*: ``truncations``
turn True for every agent, the rewards are 0 and each agent steps ``None``
out, as at a termination.

An action is one index (an ``int`` or a numpy integer): ``None`` for a live
agent, an array of any shape but 0-d, or a non-integral number raise
``TypeError``/``ValueError`` at once (a bug in the calling code, never a move).
An illegal action (``illegal_action=``): ``"terminate"`` (the default, as
PettingZoo's classic environments): the acting agent gets ``illegal_reward``
(default -1), every other agent 0, the episode ends, and the acting agent's
info says ``illegal_action`` (the index and why); ``"raise"``:
:class:`interpreter.game.IllegalAction`.

``normalise=True`` scales every observation entry to 0..1 by the layout's
bounds.  ``env.state()`` is the full, privileged observation vector (every
zone and variable shown; ``state_space`` bounds it), for centralised critics.
``env.unwrapped.game_state`` is the engine's :class:`State`.
"""
from __future__ import annotations

try:
    import numpy as np
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the PettingZoo adapter needs the rl extra: pip install -e '.[rl]'") from exc

from ...game import EVERYONE, IllegalAction, Rulebook
from .seated import ILLEGAL_ACTION, REWARD_KINDS, SeatedGame

__all__ = ["env", "RulebookEnv", "ILLEGAL_ACTION", "REWARD_KINDS"]


def env(path, players: int, variants=(), render_mode=None, reward_kind: str = "win", *, seed=None,
        illegal_action: str = "terminate", illegal_reward: float = -1.0, normalise: bool = False,
        **options) -> "RulebookEnv":
    """An AEC environment for the rulebook at ``path`` (the rulebook's options as keyword arguments)."""
    return RulebookEnv(Rulebook.load(path), players, options, variants, render_mode, reward_kind, seed=seed,
                       illegal_action=illegal_action, illegal_reward=illegal_reward, normalise=normalise)


class RulebookEnv(SeatedGame, AECEnv):
    metadata = {"render_modes": ["ansi"], "name": "regelwerk", "is_parallelizable": False}

    def __init__(self, rulebook: Rulebook, players: int, options=None, variants=(), render_mode=None,
                 reward_kind: str = "win", *, seed=None, illegal_action: str = "terminate",
                 illegal_reward: float = -1.0, normalise: bool = False):
        super().__init__()
        self._seat(rulebook, players, options, variants, render_mode, reward_kind, seed, illegal_action,
                   illegal_reward, normalise, "regelwerk")
        self._init_args = (rulebook, players, dict(options or {}), tuple(variants), render_mode, reward_kind,
                           dict(seed=seed, illegal_action=illegal_action, illegal_reward=illegal_reward,
                                normalise=normalise))
        self._ids, self._n = self.space.ids, len(self.space)
        self._bound = self.layout.decision_bound    # decisions after which an episode is truncated
        self._legal_of = None                 # the decision the legal indices and mask below belong to
        self._legal_idx = []                  # in the order of legal_actions()
        self._legal = None                    # ascending, made when asked for
        self._no_mask = np.zeros(self._n, dtype=np.int8)
        self._mask = self._no_mask

    def reset(self, seed=None, options=None):
        self._new_game(seed)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        who = self.game_state.current_player()
        if who is not None:
            self.agent_selection = self.agent_of[who]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def _legal_mask(self):
        """The action mask now (worked out once per decision; never handed out: copied)."""
        st = self.game_state
        at = (st.pending, len(st._history))
        if at != self._legal_of:
            self._legal_idx = idx = self.space.indices_of(st.pending)       # (no action ids written)
            self._mask = mask = self._no_mask.copy()
            cells = memoryview(mask)
            for i in idx:
                cells[i] = 1
            self._legal = None
            self._legal_of = at
        return self._mask

    def legal_indices(self):
        """The indices of the legal actions now, ascending (worked out once per decision)."""
        self._legal_mask()
        if self._legal is None:
            self._legal = sorted(self._legal_idx)
        return self._legal

    def observe(self, agent):
        seat = self.seat_of[agent]
        st = self.game_state
        obs = self._writer.vector(st, seat, self.normalise)
        pending = st.pending
        mask = (self._legal_mask().copy() if pending is not None and pending.who == seat and not st.truncated
                else self._no_mask.copy())
        return {"observation": obs, "action_mask": mask}

    def state(self):
        """The full state as one vector: every zone and variable shown (privileged)."""
        if self.game_state is None:
            raise RuntimeError("reset() the environment first")
        return self._writer.vector(self.game_state, EVERYONE, self.normalise)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.game_state
        # a plain index of a legal action straight on; anything else is looked at closely
        if not (type(action) is int and 0 <= action < self._n and self._legal_mask()[action]):
            action = _one_index(action)
            why = self._illegal(action)
            if why is not None:
                if self.illegal_action == "raise":
                    raise IllegalAction(why)
                self._terminate_illegal(agent, action, why)
                return
            action = int(action)
        st.apply_index(self._legal_idx.index(action))      # the legal option of that index, by position
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        pending = st.pending
        if pending is not None and st.status != "over":
            if len(st._history) >= self._bound:              # (State.truncated) every episode ends
                for a in self.agents:
                    self.truncations[a] = True
                self.agent_selection = self.agent_of[pending.who]
                self._accumulate_rewards()
            else:
                self.agent_selection = self.agent_of[pending.who]    # (rewards are all 0: none to add up)
        else:
            if st.is_terminal():
                returns = st.returns(self.reward_kind) if self.reward_kind != "win" else st.returns()
                for a in self.agents:
                    self.rewards[a] = float(returns[self.seat_of[a]])
                    self.terminations[a] = True
            self._select()
            self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def __getstate__(self):
        """Plain ``pickle``: the constructor's arguments, the game so far (``State`` pickles by
        its rulebook) and the episode's bookkeeping; the caches are made anew."""
        return {"args": self._init_args, "rng": self._rng.getstate(), "game_state": self.game_state,
                "episode": None if self.game_state is None else {
                    k: getattr(self, k) for k in ("agents", "rewards", "_cumulative_rewards", "terminations",
                                                  "truncations", "infos", "agent_selection", "game_seed")}}

    def __setstate__(self, saved):
        rulebook, players, options, variants, render_mode, reward_kind, kw = saved["args"]
        self.__init__(rulebook, players, options, variants, render_mode, reward_kind, **kw)
        self._rng.setstate(saved["rng"])
        self.game_state = saved["game_state"]
        for k, v in (saved["episode"] or {}).items():
            setattr(self, k, v)

    def _illegal(self, action):
        """Why ``action`` is not legal now, or None."""
        i = action
        if i != action or not 0 <= i < len(self.space):
            return f"{action!r} is not an index of the action space (0..{len(self.space) - 1})"
        if not self._legal_mask()[i]:
            return f"'{self.space.action_id(i)}' (index {i}) is not a legal action now"
        return None

    def _terminate_illegal(self, agent, action, why):
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        for a in self.agents:
            self.terminations[a] = True
        self.infos[agent] = dict(self.infos[agent], illegal_action={"action": action, "why": why})
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self):
        if self.game_state is None:
            return ""
        return self.game_state.observation_string(None)

    def close(self):
        pass


def _one_index(action) -> int:
    """``action`` as one action index, or a TypeError/ValueError that says what is wrong with its
    shape (the legality of the index is ``_illegal``'s)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    if action is None:
        raise TypeError("step(None) is only for an agent whose episode is over; this agent must act: "
                        "pass one action index (an int)")
    if isinstance(action, np.ndarray):
        if action.ndim != 0:
            raise ValueError(f"an action is one index (an int), not an array of shape {action.shape}")
        action = action.item()
    if isinstance(action, float) and action.is_integer():
        return int(action)
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    raise TypeError(f"an action is one index (an int), not {type(action).__name__} {action!r:.60}")
