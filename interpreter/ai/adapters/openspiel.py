"""A rulebook as an OpenSpiel game (needs the ``rl`` extra).

    import pyspiel
    from interpreter.ai.adapters.openspiel import load
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
(:mod:`interpreter.engine.run.chance`); a player action is an index into the layout's
fixed action space; observations are the observation tensor and string of
:mod:`interpreter.engine.knowledge.tensors`.  The game's parameters are ``players``, each
option of the rulebook, ``variants`` (comma-separated), ``returns``
(``win``, ``rank``, ``zero_sum``, ``score``) and ``automaton_seats`` (``players``:
automaton seats are OpenSpiel players that never move; ``environment``: the
players are the deciding seats only, the rulebook plays the automata and
the returns are the deciding seats').  States serialise through
OpenSpiel's own mechanism: the decisions and chance outcomes so far; games
and states pickle (by the rulebook's folder, the parameters and the steps).

The game type comes from the rulebook: zero-sum when the returns are
``zero_sum`` over every seat (else general-sum), perfect information when
nothing is ever hidden, deterministic when nothing is drawn at random (else
explicit chance).  ``max_game_length`` is the layout's decision bound (the
rulebook's ``max_decisions``, else 1000 decisions per seat; ``Rulebook.info``'s
``truncation``) plus, per segment between decisions, the bound
:func:`max_chance_per_segment` on chance nodes, which the state enforces.
``new_initial_state()`` takes no seed: it is the root of the game tree, a
chance node where setup draws; each game's randomness is whatever outcomes
the caller samples there (OpenSpiel's own ``sample_chance_outcome`` etc.).

Every game ends: a state whose game has not ended after the decision bound is
terminal (truncated: ``state.truncated()`` says so), with returns of 0 for all.
"""
from __future__ import annotations

try:
    import numpy as np
    import pyspiel
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the OpenSpiel adapter needs the rl extra: pip install -e '.[rl]'") from exc

from pathlib import Path

from ...game import (ChanceState, draws_at_random, information_state_string, load_rulebook_once,
                     observation_vector, perfect_information)

__all__ = ["load", "register", "AUTOMATA"]

#: the ``automaton_seats`` parameter: automaton seats as OpenSpiel players that never move (with returns),
#: or as part of the environment (no players: the rulebook plays them; returns of deciding seats only)
AUTOMATA = ("players", "environment")

_REGISTERED: dict = {}
_CHANCE, _TERMINAL = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)


def _short_name(path) -> str:
    return f"regelwerk_{Path(path).resolve().name}"


def register(path) -> str:
    """Register the rulebook at ``path`` with OpenSpiel; return its short name (``regelwerk_<folder>``)."""
    rb = load_rulebook_once(path)
    name = _short_name(path)
    if name in _REGISTERED:
        return name
    g = rb.game
    params = {"players": g.min_players, "variants": "", "returns": "win", "automaton_seats": "players"}
    for opt_name, opt in g.options.items():
        params[opt_name] = opt.default
    game_type = _game_type(rb, name, params, zero_sum=False)
    # a class per rulebook (as OpenSpiel's own Python games register theirs); pickled by
    # its rulebook's folder and parameters (RegelwerkGame.__reduce__), never by the class
    cls = type(f"RegelwerkGame_{Path(path).resolve().name}", (RegelwerkGame,),
               {"default_type": game_type, "path": str(Path(path).resolve())})
    pyspiel.register_game(game_type, cls)
    _REGISTERED[name] = game_type
    return name


def _game_type(rb, name, params, zero_sum: bool):
    """The OpenSpiel game type of the rulebook with these parameters: zero-sum when the
    returns are ``zero_sum`` over every seat, else general-sum; perfect information when
    nothing is ever hidden (``Rulebook.info``); deterministic when nothing is ever drawn
    at random, else explicit chance nodes."""
    g = rb.game
    Type = pyspiel.GameType
    return Type(
        short_name=name,
        long_name=f"Regelwerk: {g.name}",
        dynamics=Type.Dynamics.SEQUENTIAL,
        chance_mode=(Type.ChanceMode.EXPLICIT_STOCHASTIC if draws_at_random(g)
                     else Type.ChanceMode.DETERMINISTIC),
        information=(Type.Information.PERFECT_INFORMATION if perfect_information(g)
                     else Type.Information.IMPERFECT_INFORMATION),
        utility=Type.Utility.ZERO_SUM if zero_sum else Type.Utility.GENERAL_SUM,
        reward_model=Type.RewardModel.TERMINAL,
        max_num_players=g.max_players + 8,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params)


def load(path, players: int, variants=(), returns: str = "win", automaton_seats: str = "players", **options):
    """Register the rulebook (once) and load it as a ``pyspiel.Game`` for ``players``."""
    name = register(path)
    params = {"players": int(players), "variants": ",".join(variants), "returns": returns,
              "automaton_seats": automaton_seats}
    params.update(options)
    return pyspiel.load_game(name, params)


def _load(path, params):
    """Unpickle a game: register its rulebook in this process and load it again."""
    register(path)
    return pyspiel.load_game(_short_name(path), params)


def _load_state(game, history):
    """Unpickle a state: its game, then the steps so far."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def max_chance_per_segment(lay) -> int:
    """The bound on the chance nodes between two decisions that the adapter states and
    enforces: every component shuffled or drawn twice, plus 16 (dice and other ``random``
    steps).  A segment that needs more raises an error instead of breaking the bound."""
    return 2 * len(lay.components) + 16


class RegelwerkGame(pyspiel.Game):
    default_type = None   # set by register() on the class made for each rulebook
    path = None

    def __init__(self, params=None):
        params = dict(params or {})
        rb = load_rulebook_once(self.path)
        g = rb.game
        self.rulebook = rb
        self.players = int(params.get("players", g.min_players))
        variants = params.get("variants", "")
        self.variants = tuple(v for v in str(variants).split(",") if v)
        self.returns_kind = str(params.get("returns", "win"))
        if self.returns_kind not in ("win", "rank", "zero_sum", "score"):      # (State.returns' kinds)
            raise ValueError(f"returns must be one of win, rank, zero_sum, score, not {self.returns_kind!r}")
        self.automata_mode = str(params.get("automaton_seats", "players"))
        if self.automata_mode not in AUTOMATA:
            raise ValueError(f"automaton_seats must be one of {', '.join(AUTOMATA)}, not {self.automata_mode!r}")
        self.options = {k: params[k] for k in g.options if k in params}
        lay = rb.layout(self.players, self.options, self.variants)
        self.layout = lay
        self.space = rb.action_space(self.players, self.options, self.variants)
        self.obs_spec = rb.observation_spec(self.players, self.options, self.variants)
        self.info_spec = rb.information_state_spec(self.players, self.options, self.variants)
        # automata as the environment: the OpenSpiel players are the deciding seats (seats 0..n-1:
        # automata always come last), and the returns are theirs only
        self.num_openspiel_players = lay.num_seats if self.automata_mode == "players" else self.players
        lo, hi = {"win": (0.0, 1.0), "rank": (0.0, 1.0), "zero_sum": (-1.0, 1.0)}.get(self.returns_kind,
                                                                                      (-1e6, 1e6))
        zero_sum = (self.returns_kind == "zero_sum" and self.num_openspiel_players > 1
                    and (self.automata_mode == "players" or not lay.automata))   # the returns of every seat
        self.chance_per_segment = max_chance_per_segment(lay)
        decisions = lay.decision_bound          # a longer game ends there, truncated (RegelwerkState)
        self.decision_bound = decisions
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.space),
            max_chance_outcomes=max(len(lay.components), len(lay.zones), 64),
            num_players=self.num_openspiel_players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=decisions + (decisions + 1) * self.chance_per_segment)
        full = dict(params)
        full.setdefault("players", self.players)
        self.params = full
        game_type = _game_type(rb, self.default_type.short_name, self.default_type.parameter_specification,
                               zero_sum)
        super().__init__(game_type, info, full)

    def __reduce__(self):
        return (_load, (self.path, self.params))

    def new_initial_state(self):
        """The root of the game tree: with chance, a chance node (a fresh game is a fresh
        sample of its outcomes: OpenSpiel's own sampling draws them, so no seed is needed)."""
        return RegelwerkState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation observer, or with perfect recall asked for, the
        information-state observer (observation and history summary)."""
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return RegelwerkObserver(self, information_state=True)
        return RegelwerkObserver(self)


class _GameFacts:
    """What a state's steps need of its game, shared by the state and its copies (OpenSpiel
    copies a Python state's attributes with ``copy.deepcopy``: this one stays the same)."""

    __slots__ = ("space", "chance_bound", "decision_bound")

    def __init__(self, game):
        self.space = game.space
        self.chance_bound = game.chance_per_segment
        self.decision_bound = game.decision_bound

    def __deepcopy__(self, memo):
        return self


class RegelwerkState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.cs = ChanceState(game.rulebook, game.players, game.options, game.variants)
        self.chance_run = 0        # chance nodes since the last decision (bounded: max_chance_per_segment)
        self._legal_at = None      # the decision self._legal belongs to
        self._legal = []
        # the game's facts a step needs, kept here: get_game() crosses into C++ on every call
        self._facts = _GameFacts(game)
        self._in_order = []        # the indices of self._legal in the order of the decision's options

    def __reduce__(self):
        return (_load_state, (self.get_game(), list(self.history())))

    def current_player(self):
        st = self.cs.state                   # (asked by OpenSpiel on every step: kept short)
        if st is None:
            return _CHANCE
        if st.status == "over" or len(st._history) >= self._facts.decision_bound:   # (State.truncated)
            return _TERMINAL
        return st.current_player()

    def _legal_actions(self, player):
        st = self.cs.state
        if st is None:
            return []
        at = len(self.cs.steps)                       # worked out once per position (states only go on)
        if self._legal_at != at:
            self._in_order = self._facts.space.indices_of(st.pending)       # (no action ids written)
            self._legal = sorted(self._in_order)
            self._legal_at = at
        return self._legal

    # OpenSpiel's own State.legal_actions / is_chance_node call back into Python several times
    # (current player, terminal, chance node, then _legal_actions); these answer the same directly
    def legal_actions(self, player=None):
        """The legal actions of ``player`` (default: the one to move), ascending; at a chance
        node the chance outcomes (as OpenSpiel's ``State.legal_actions``)."""
        st = self.cs.state
        if st is None:
            if player is None or player == _CHANCE:
                return [k for k, _p in self.cs.chance_outcomes()]
            return []
        who = st.current_player()
        if st.is_terminal() or st.truncated or (player is not None and player != who):
            return []
        return list(self._legal_actions(who))

    def is_chance_node(self):
        return self.cs.state is None

    def chance_outcomes(self):
        return self.cs.chance_outcomes()

    def _apply_action(self, action):
        cs = self.cs
        if cs.state is None:
            self.chance_run += 1
            if self.chance_run > self._facts.chance_bound:
                raise RuntimeError(f"more than {self._facts.chance_bound} chance nodes between two decisions: "
                                   "beyond the bound max_game_length was made from")
            cs.apply_outcome(int(action))
        else:
            self.chance_run = 0
            action = int(action)
            self._legal_actions(None)
            try:                                      # by its position among the options: no ids written
                i = self._in_order.index(action)
            except ValueError:                        # not legal: IllegalAction, as for an id
                cs.apply_action(self._facts.space.ids[action])
                return
            cs.apply_index(i)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        return self.get_game().space.action_id(int(action))

    def is_terminal(self):
        st = self.cs.state                                 # (asked every step: kept short)
        return st is not None and (st.status == "over" or len(st._history) >= self._facts.decision_bound)

    def truncated(self) -> bool:
        """Whether the game was cut off at the decision bound (terminal, returns 0) rather than ended."""
        st = self.cs.state
        return st is not None and st.truncated

    def returns(self):
        game = self.get_game()
        return [float(r) for r in self.cs.returns(game.returns_kind)[:game.num_openspiel_players]]

    def observation_string(self, player=None):
        if player is None:
            player = self.current_player()
        return "" if self.cs.state is None else self.cs.state.observation_string(player)

    def information_state_string(self, player=None):
        if player is None:
            player = self.current_player()
        st = self.cs.state
        if st is None:              # a chance node: no seat decides
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
            return f"chance node ({self.cs.need} outcomes) after {len(self.cs.steps)} steps"
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
        st = state.cs.state
        if st is None:
            self.tensor.fill(0)
            return
        if self.information_state:
            self.tensor[:] = self.spec.flatten(st.information_state_tensor(player))
        else:
            self.tensor[:] = observation_vector(st, player)

    def string_from(self, state, player):
        if self.information_state:
            return state.information_state_string(player)
        st = state.cs.state
        return "" if st is None else st.observation_string(player)
