"""A rulebook as an OpenSpiel game (needs the ``rl`` extra).

    import pyspiel
    from interpreter.adapters.openspiel import load
    game = load("rules/<game>", players=3)          # registered as regelwerk_<game>
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(outcomes[0])
        else:
            state.apply_action(state.legal_actions()[0])
    print(state.returns())

Every random number the rules need is an explicit chance node
(:mod:`interpreter.chance`); a player action is an index into the layout's
fixed action space; observations are the observation tensor and string of
:mod:`interpreter.tensors`.  The game's parameters are ``players``, each
option of the rulebook, ``variants`` (comma-separated) and ``returns``
(``win``, ``rank``, ``zero_sum``, ``score``).  States serialise through
OpenSpiel's own mechanism: the decisions and chance outcomes so far.
"""
from __future__ import annotations

try:
    import numpy as np
    import pyspiel
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the OpenSpiel adapter needs the rl extra: pip install -e '.[rl]'") from exc

from pathlib import Path

from ...game import ChanceState
from ...game import Rulebook
from ...game import information_state_string

__all__ = ["load", "register"]

#: a game is at most this long (decisions and chance outcomes) unless the rulebook says less
MAX_GAME_LENGTH = 100_000

_BOOKS: dict = {}
_REGISTERED: dict = {}


def _book(path) -> Rulebook:
    key = str(Path(path).resolve())
    if key not in _BOOKS:
        _BOOKS[key] = Rulebook.load(path)
    return _BOOKS[key]


def register(path) -> str:
    """Register the rulebook at ``path`` with OpenSpiel; return its short name (``regelwerk_<folder>``)."""
    rb = _book(path)
    name = f"regelwerk_{Path(path).resolve().name}"
    if name in _REGISTERED:
        return name
    g = rb.game
    params = {"players": g.min_players, "variants": "", "returns": "win"}
    for opt_name, opt in g.options.items():
        params[opt_name] = opt.default
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"Regelwerk: {g.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=g.max_players + 8,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params)
    # a class per rulebook (as OpenSpiel's own Python games register theirs)
    cls = type(f"RegelwerkGame_{Path(path).resolve().name}", (RegelwerkGame,),
               {"game_type": game_type, "path": str(Path(path).resolve())})
    pyspiel.register_game(game_type, cls)
    _REGISTERED[name] = game_type
    return name


def load(path, players: int, variants=(), returns: str = "win", **options):
    """Register the rulebook (once) and load it as a ``pyspiel.Game`` for ``players``."""
    name = register(path)
    params = {"players": int(players), "variants": ",".join(variants), "returns": returns}
    params.update(options)
    return pyspiel.load_game(name, params)


class RegelwerkGame(pyspiel.Game):
    game_type = None      # set by register() on the class made for each rulebook
    path = None

    def __init__(self, params=None):
        params = dict(params or {})
        game_type = self.game_type
        rb = _book(self.path)
        g = rb.game
        self.rulebook = rb
        self.players = int(params.get("players", g.min_players))
        variants = params.get("variants", "")
        self.variants = tuple(v for v in str(variants).split(",") if v)
        self.returns_kind = str(params.get("returns", "win"))
        self.options = {k: params[k] for k in g.options if k in params}
        lay = rb.layout(self.players, self.options, self.variants)
        self.space = rb.action_space(self.players, self.options, self.variants)
        self.obs_spec = rb.observation_spec(self.players, self.options, self.variants)
        self.info_spec = rb.information_state_spec(self.players, self.options, self.variants)
        lo, hi = {"win": (0.0, 1.0), "rank": (0.0, 1.0), "zero_sum": (-1.0, 1.0)}.get(self.returns_kind,
                                                                                      (-1e6, 1e6))
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.space),
            max_chance_outcomes=max(len(lay.components), len(lay.zones), 64),
            num_players=lay.num_seats,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if self.returns_kind == "zero_sum" else None,
            max_game_length=MAX_GAME_LENGTH)
        full = dict(params)
        full.setdefault("players", self.players)
        super().__init__(game_type, info, full)

    def new_initial_state(self):
        return RegelwerkState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation observer, or with perfect recall asked for, the
        information-state observer (observation and history summary)."""
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return RegelwerkObserver(self, information_state=True)
        return RegelwerkObserver(self)


class RegelwerkState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.cs = ChanceState(game.rulebook, game.players, game.options, game.variants)

    def current_player(self):
        cs = self.cs
        if cs.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        if cs.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return cs.current_player()

    def _legal_actions(self, player):
        index = self.get_game().space.index
        return sorted(index[a] for a in self.cs.legal_actions())

    def chance_outcomes(self):
        return self.cs.chance_outcomes()

    def _apply_action(self, action):
        if self.cs.is_chance_node():
            self.cs.apply_outcome(int(action))
        else:
            self.cs.apply_action(self.get_game().space.action_id(int(action)))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        return self.get_game().space.action_id(int(action))

    def is_terminal(self):
        return self.cs.is_terminal()

    def returns(self):
        return [float(r) for r in self.cs.returns(self.get_game().returns_kind)]

    def observation_string(self, player=None):
        if player is None:
            player = self.current_player()
        return "" if self.cs.state is None else self.cs.state.observation_string(player)

    def information_state_string(self, player=None):
        if player is None:
            player = self.current_player()
        st = self.cs.state if self.cs.state is not None else self.cs.base
        if st is None:
            return ""
        return information_state_string(st, player)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one (``ChanceState.resample``): the
        values and components it cannot see drawn anew, consistent with everything it saw;
        ``probability_sampler()`` (a number in [0, 1)) seeds the draw."""
        seed = int(probability_sampler() * 2 ** 31)
        new = RegelwerkState(self.get_game())
        new.cs = self.cs.resample(int(player_id), seed)
        return new

    def __str__(self):
        if self.cs.state is None:
            return f"chance node ({self.cs.need} outcomes) after {len(self.cs.history)} steps"
        return self.cs.state.observation_string(None)


class RegelwerkObserver:
    """OpenSpiel's Python observer: the flat observation tensor and its named parts
    (``information_state=True``: the information-state tensor and string)."""

    def __init__(self, game, information_state: bool = False):
        self.information_state = information_state
        spec = game.info_spec if information_state else game.obs_spec
        self.spec = spec
        self.tensor = np.zeros(spec.size(), np.float32)
        self.dict = {}
        at = 0
        for p in spec.parts:
            n = int(np.prod(p.shape))
            self.dict[p.name] = self.tensor[at:at + n].reshape(p.shape)
            at += n

    def set_from(self, state, player):
        self.tensor.fill(0)
        st = state.cs.state
        if st is None:
            return
        tensors = st.information_state_tensor(player) if self.information_state else st.observation_tensor(player)
        for name, arr in tensors.items():
            self.dict[name][...] = arr

    def string_from(self, state, player):
        if self.information_state:
            return state.information_state_string(player)
        st = state.cs.state
        return "" if st is None else st.observation_string(player)
