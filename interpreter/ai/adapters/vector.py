"""N games of one rulebook stepped together in one process (needs the ``rl`` extra).

    from interpreter.ai.adapters.vector import vector_env, sb3_vec_env
    envs = vector_env("rules/<game>", players=2, num_envs=64, seed=0)     # a gymnasium VectorEnv
    obs, info = envs.reset(seed=0)
    masks = envs.action_masks()                    # (64, actions) 0/1: the learners' legal actions now
    obs, rewards, terminated, truncated, info = envs.step(actions)

    venv = sb3_vec_env("rules/<game>", players=2, num_envs=8)            # a stable-baselines3 VecEnv
    MaskablePPO("MlpPolicy", venv).learn(10_000)  # (sb3-contrib asks env_method("action_masks"))

Each copy is one game with one *learner* seat; the other deciding seats are played
by ``opponent`` (default: a uniformly random legal action, on the engine's index
path, without observations) and the rulebook plays its automata, until the
learner decides or the game ends.  ``learner="rotate"`` (the default) turns the
learner seat at every new game of a copy (copy ``i``'s ``k``-th game: deciding
seat ``(i + k) mod n``), so one policy learns every seat; an int fixes it.

Observations are the learner's flat observation vectors, batched ``(N, size)``
float32 (``normalise=True``: scaled to 0..1 by the layout's bounds), written
over the last one of the same copy (:class:`interpreter.game.ObservationWriter`:
only what changed, in place in the batch when not normalised); ``action_masks()`` is ``(N, actions)`` int8 — the masks of
the games the observations belong to, also right after an automatic reset.

Autoreset (Gymnasium's ``SAME_STEP`` mode; SB3's own): a copy whose game ended
in ``step`` starts its next game at once; the observations, masks and
``info["seat"]`` are the new game's, the last observation of the finished game
is ``info["final_obs"][i]`` (SB3: ``infos[i]["terminal_observation"]``).  The
reward is the learner's return (``reward_kind``: ``State.returns``) at the end,
0 before; a game not ended at the layout's decision bound (``max_decisions``,
else 1000 per seat) is truncated with reward 0 (SB3: ``TimeLimit.truncated``).

Seeds: ``reset(seed=s)`` seeds copy ``i``'s generator with ``(s, i)``; every game
of the copy takes its seed from there, so a seeded run repeats exactly; the
constructor's ``seed`` seeds the first ``reset()``.  An illegal learner action
raises :class:`interpreter.game.IllegalAction` (the masks say what is legal); an
action that is not one index per copy raises ``ValueError``.  Both classes pickle.
"""
from __future__ import annotations

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the vector environments need the rl extra: pip install -e '.[rl]'") from exc

import random

from ...game import IllegalAction, ObservationWriter, Rulebook, observation_bounds
from .seated import REWARD_KINDS

__all__ = ["vector_env", "sb3_vec_env", "VectorGames", "RulebookVectorEnv"]


def _load(path):
    return path if isinstance(path, Rulebook) else Rulebook.load(path)


def vector_env(path, players: int, num_envs: int = 8, copy: bool = True, **kwargs) -> "RulebookVectorEnv":
    """A Gymnasium ``VectorEnv`` of ``num_envs`` games of the rulebook at ``path`` (``copy``: as
    Gymnasium's own vector envs, see :class:`RulebookVectorEnv`; the other keyword arguments:
    those of :class:`VectorGames`)."""
    return RulebookVectorEnv(VectorGames(_load(path), players, num_envs, **kwargs), copy=copy)


def sb3_vec_env(path, players: int, num_envs: int = 8, **kwargs):
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` games (needs the ``train`` extra)."""
    from ._sb3 import RulebookVecEnv
    return RulebookVecEnv(VectorGames(_load(path), players, num_envs, **kwargs))


def random_opponent(state, rng) -> int:
    """A uniformly random legal action, by its position among the legal actions."""
    return rng.randrange(len(state.legal_action_indices()))


class VectorGames:
    """The games themselves: N states, their learner seats, the batched observations and masks.
    ``opponent(state, rng) -> position`` among ``state.legal_action_indices()`` plays the others."""

    def __init__(self, rulebook: Rulebook, players: int, num_envs: int, options=None, variants=(),
                 reward_kind: str = "win", seed=None, learner="rotate", opponent=random_opponent,
                 normalise: bool = False):
        if reward_kind not in REWARD_KINDS:
            raise ValueError(f"reward_kind must be one of {', '.join(REWARD_KINDS)}, not {reward_kind!r}")
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        self._args = (rulebook, players, num_envs, dict(options or {}), tuple(variants), reward_kind, seed,
                      learner, opponent, bool(normalise))
        self.rulebook, self.players, self.num_envs = rulebook, players, num_envs
        self.options, self.variants = dict(options or {}), tuple(variants)
        self.reward_kind, self.opponent, self.normalise = reward_kind, opponent, bool(normalise)
        lay = rulebook.layout(players, self.options, self.variants)
        self.space = rulebook.action_space(players, self.options, self.variants)
        self.deciding = [s for s in lay.seats if s not in lay.automata]
        if learner != "rotate" and learner not in self.deciding:
            raise ValueError(f"learner must be 'rotate' or a deciding seat ({self.deciding}), not {learner!r}")
        self.learner = learner
        self.bound = lay.decision_bound
        self.size = rulebook.observation_spec(players, self.options, self.variants).size()
        if self.normalise:
            self.low, self.high = np.zeros(self.size, np.float32), np.ones(self.size, np.float32)
        else:
            self.low, self.high = observation_bounds(rulebook.game, lay)
        self.n_actions = len(self.space)
        # each copy's row has one cell more, its writer's own (ObservationWriter.write_over): the
        # observations are the first ``size`` columns, written in place where not normalised
        self._rows = np.zeros((num_envs, self.size + 1), np.float32)
        self.obs = self._rows[:, :self.size]
        self._row = list(self._rows)                 # (the same row object each step: the writer keeps it)
        self.masks = np.zeros((num_envs, self.n_actions), np.int8)
        self._mask_rows = [memoryview(row) for row in self.masks]
        self.rewards = np.zeros(num_envs, np.float32)
        self.terminated = np.zeros(num_envs, bool)
        self.truncated = np.zeros(num_envs, bool)
        self.states = [None] * num_envs
        self.seats = [0] * num_envs
        self.games = [0] * num_envs                  # games started per copy (the learner rotation)
        self.legal = [[] for _ in range(num_envs)]   # per copy: the legal indices in the order of the options
        self.writers = [ObservationWriter(rulebook.game, lay) for _ in range(num_envs)]
        self.rngs = [random.Random() for _ in range(num_envs)]
        self._seeder = random.Random(seed)
        self.decisions = 0                           # every decision taken (learners' and opponents')
        self.write_obs = True                        # False: masks only (what the benchmark compares with)

    # --- pickling: the arguments, the games, the generators --------------------------------------
    def __getstate__(self):
        return {"args": self._args, "states": self.states, "seats": self.seats, "games": self.games,
                "rngs": [r.getstate() for r in self.rngs], "seeder": self._seeder.getstate(),
                "decisions": self.decisions}

    def __setstate__(self, saved):
        self.__init__(*saved["args"])
        self.states, self.seats, self.games = saved["states"], saved["seats"], saved["games"]
        for r, s in zip(self.rngs, saved["rngs"]):
            r.setstate(s)
        self._seeder.setstate(saved["seeder"])
        self.decisions = saved["decisions"]
        for i, st in enumerate(self.states):
            if st is not None:
                self._write(i)

    # --- playing ----------------------------------------------------------------------------------
    def reset(self, seed=None):
        for i in range(self.num_envs):
            if seed is not None:
                self.rngs[i].seed(f"{int(seed)}:{i}")
            else:
                self.rngs[i].seed(self._seeder.getrandbits(64))
            self.games[i] = 0
            self._new_game(i)
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False

    def _new_game(self, i):
        """Start copy ``i``'s next game and play up to its learner's first decision."""
        rng = self.rngs[i]
        for _attempt in range(100):
            k = self.games[i]
            self.games[i] = k + 1
            seat = self.learner if self.learner != "rotate" else self.deciding[(i + k) % len(self.deciding)]
            st = self.rulebook.new_game(self.players, rng.getrandbits(63), self.options, self.variants,
                                        logging=False)
            self.states[i], self.seats[i] = st, seat
            self._others(i)
            if st.pending is not None and st.status != "over":
                self._write(i)
                return
        raise RuntimeError("100 games in a row ended before the learner's first decision")

    def _others(self, i):
        """Let the opponents move in copy ``i`` until its learner decides or the game ends."""
        st, seat, rng, opponent = self.states[i], self.seats[i], self.rngs[i], self.opponent
        bound, n = self.bound, 0
        while True:
            pending = st.pending
            if pending is None or st.status == "over" or len(st._history) >= bound or pending.who == seat:
                break
            st.apply_index(opponent(st, rng))
            n += 1
        self.decisions += n

    def _write(self, i):
        """Copy ``i``'s observation row and mask row, from its learner's view."""
        st, seat = self.states[i], self.seats[i]
        if self.write_obs:
            if self.normalise:
                self.writers[i].write_into(self.obs[i], st, seat, True)
            else:
                self.writers[i].write_over(self._row[i], st, seat)
        row = self._mask_rows[i]                     # (a memoryview: one cell at a time beats numpy here)
        for j in self.legal[i]:
            row[j] = 0
        if st.pending is not None and st.status != "over" and len(st._history) < self.bound:
            idx = self.legal[i] = self.space.indices_of(st.pending)
            for j in idx:
                row[j] = 1
        else:
            self.legal[i] = []

    def step(self, actions):
        """Apply each copy's action; returns the indices of the copies whose game ended (their
        final observations, before the autoreset, in ``self.final_obs``)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be one action index per copy: an integer array of shape "
                             f"({self.num_envs},), not {actions.dtype} of shape {actions.shape}")
        rewards, terminated, truncated = self.rewards, self.terminated, self.truncated
        rewards[:] = 0
        terminated[:] = False
        truncated[:] = False
        ended, self.final_obs, self.final_seats = [], {}, {}
        states, legal, seats, bound = self.states, self.legal, self.seats, self.bound
        for i, a in enumerate(actions.tolist()):
            st = states[i]
            try:
                pos = legal[i].index(a)
            except ValueError:
                why = (f"{a} is not an index of the action space (0..{self.n_actions - 1})"
                       if not 0 <= a < self.n_actions else f"'{self.space.action_id(a)}' (index {a}) is not legal now")
                raise IllegalAction(f"copy {i}: {why}") from None
            st.apply_index(pos)
            self.decisions += 1
            self._others(i)
            if st.status == "over":
                rewards[i] = st.returns(self.reward_kind)[seats[i]]
                terminated[i] = True
            elif len(st._history) >= bound:
                truncated[i] = True
            else:
                self._write(i)
                continue
            self._write(i)
            ended.append(i)
            self.final_obs[i] = self.obs[i].copy()
            self.final_seats[i] = seats[i]
            self._new_game(i)
        return ended


class RulebookVectorEnv(VectorEnv):
    """Gymnasium's ``VectorEnv`` over :class:`VectorGames` (autoreset: ``SAME_STEP``).
    ``copy`` as in Gymnasium's ``SyncVectorEnv``: True (the default), ``reset`` and ``step``
    return a copy of the observations (and ``action_masks`` of the masks); False, the batch's
    own arrays, which the next ``step`` writes over — no copy of ``(num_envs, size)`` floats
    a step, for a learner that copies what it keeps (SB3's rollout buffer does)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, games: VectorGames, copy: bool = True):
        if not isinstance(copy, bool):
            raise ValueError(f"copy must be True or False, not {copy!r}")
        self.copy = copy
        self.games = games
        self.num_envs = games.num_envs
        self.single_observation_space = spaces.Box(games.low, games.high, (games.size,), np.float32)
        self.single_action_space = spaces.Discrete(games.n_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self.closed = False

    def reset(self, *, seed=None, options=None):
        if seed is not None and not isinstance(seed, int):
            raise ValueError("seed must be one int (each copy's generator is seeded with it and its index)")
        self.games.reset(seed)
        obs = self.games.obs
        return obs.copy() if self.copy else obs, {"seat": np.array(self.games.seats)}

    def step(self, actions):
        g = self.games
        ended = g.step(actions)
        info = {"seat": np.array(g.seats)}
        if ended:
            final = np.empty(self.num_envs, object)
            has = np.zeros(self.num_envs, bool)
            for i in ended:
                final[i] = g.final_obs[i]
                has[i] = True
            info.update(final_obs=final, _final_obs=has,
                        final_info=np.array([{"seat": g.final_seats.get(i)} if i in g.final_obs else {}
                                             for i in range(self.num_envs)], object), _final_info=has)
        return (g.obs.copy() if self.copy else g.obs, g.rewards.copy(), g.terminated.copy(), g.truncated.copy(),
                info)

    def action_masks(self):
        """``(num_envs, actions)``: the learners' legal actions now (the new games' after a reset);
        with ``copy=False`` the batch's own array, which the next ``step`` writes over."""
        return self.games.masks.copy() if self.copy else self.games.masks

    def close_extras(self, **kwargs):
        pass
