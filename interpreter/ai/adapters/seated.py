"""What the PettingZoo environments share (the AEC one in :mod:`.pettingzoo`, the parallel one
in :mod:`.parallel`): their arguments checked at construction, the agents (one per deciding
seat), their spaces, and a new game at each ``reset``."""
from __future__ import annotations

try:
    import numpy as np
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the PettingZoo adapter needs the rl extra: pip install -e '.[rl]'") from exc

import random

from ...game import ObservationWriter, observation_bounds

#: what ``step`` does with an action that is not legal now
ILLEGAL_ACTION = ("terminate", "raise")
#: what a reward is (``State.returns``)
REWARD_KINDS = ("win", "rank", "zero_sum", "score")


class SeatedGame:
    """A base of both environment classes: :meth:`_seat` sets up, :meth:`_new_game` starts a game."""

    def _seat(self, rulebook, players: int, options, variants, render_mode, reward_kind: str, seed,
              illegal_action: str, illegal_reward: float, normalise: bool, name: str) -> None:
        """Check the arguments (a ValueError now, not at the end of the first episode) and make the
        agents ``player_<seat>`` of the deciding seats, their spaces and the observation writer."""
        if illegal_action not in ILLEGAL_ACTION:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTION)}, not {illegal_action!r}")
        if reward_kind not in REWARD_KINDS:
            raise ValueError(f"reward_kind must be one of {', '.join(REWARD_KINDS)}, not {reward_kind!r}")
        self.rulebook = rulebook
        self.players = players
        self.options = dict(options or {})
        self.variants = tuple(variants)
        self.render_mode = render_mode
        self.reward_kind = reward_kind
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.normalise = bool(normalise)
        self.metadata = dict(self.metadata, name=f"{name}_{rulebook.path.name}")
        self.space = rulebook.action_space(players, self.options, self.variants)
        self.spec_obs = rulebook.observation_spec(players, self.options, self.variants)
        lay = rulebook.layout(players, self.options, self.variants)
        self.layout = lay
        self.seat_of = {f"player_{s}": s for s in lay.seats if s not in lay.automata}
        self.agent_of = {s: a for a, s in self.seat_of.items()}
        self.possible_agents = list(self.seat_of)
        n, size = len(self.space), self.spec_obs.size()
        if self.normalise:
            low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
        else:
            low, high = observation_bounds(rulebook.game, lay)
        vector = spaces.Box(low, high, (size,), np.float32)
        obs_space = spaces.Dict({"observation": vector, "action_mask": spaces.Box(0, 1, (n,), np.int8)})
        self.state_space = vector
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.game_state = None
        self.agents = []
        self._rng = random.Random(seed)       # None: seeded from the operating system
        # observation vectors written over the last one of the same agent (only what changed)
        self._writer = ObservationWriter(rulebook.game, lay)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _new_game(self, seed) -> None:
        """The next game: ``seed`` (an int) seeds it and the generator of the games after it;
        None draws its seed from that generator."""
        if seed is not None:
            self._rng = random.Random(int(seed))
            game_seed = int(seed)
        else:
            game_seed = self._rng.getrandbits(63)
        self.game_seed = game_seed
        self.game_state = self.rulebook.new_game(self.players, game_seed, self.options, self.variants,
                                                 logging=False)
        self.agents = list(self.possible_agents)
