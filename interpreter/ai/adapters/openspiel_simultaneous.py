"""A rulebook whose decisions are all taken together as an OpenSpiel game of type
SIMULTANEOUS (needs the ``rl`` extra): joint actions, one per player, at every node where
the seats decide.

    import pyspiel
    from interpreter.ai.adapters.openspiel_simultaneous import load_simultaneous
    game = load_simultaneous("tests/rulebooks/sealed_bids", players=3)   # regelwerk_sim_<folder>
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_actions([state.legal_actions(p)[0] for p in range(game.num_players())])

Every decision of such a rulebook is a ``decide: … together:`` step (docs/language.md,
"Decisions taken together"); a rulebook that also has decisions of one seat is refused
(``ValueError``) — load it with :func:`interpreter.ai.adapters.openspiel.load`, the
sequential form, whose information states already hide the choices of a decision taken
together (another seat is told ``…``).  An action is an index into the layout's fixed
action space; one more index, ``num_distinct_actions() - 1`` (``"wait"``), is the only
legal action of a player with nothing to choose at a node (a seat the decision does not
name, or one whose options are empty).  The joint action is applied in seat order
(:mod:`.joint`).  Chance nodes (setup's shuffles, ``random`` steps) are explicit, as in the
sequential form; automaton seats are players that only wait.  Returns: ``win`` (the
default), ``rank``, ``zero_sum`` or ``score``, as there.  Games and states pickle by the
rulebook's folder, the parameters and the steps taken.
"""
from __future__ import annotations

try:
    import numpy as np  # noqa: F401 - the rl extra
    import pyspiel
except ImportError as exc:  # pragma: no cover - the rl extra is absent
    raise ImportError("the OpenSpiel adapter needs the rl extra: pip install -e '.[rl]'") from exc

from pathlib import Path

from ...game import LIMITS, ChanceState, load_rulebook_once, draws_at_random, information_state_string
from .joint import all_together, pending_decisions

__all__ = ["load_simultaneous", "register_simultaneous"]

_REGISTERED: dict = {}


def _short_name(path) -> str:
    return f"regelwerk_sim_{Path(path).resolve().name}"


def register_simultaneous(path) -> str:
    """Register the rulebook at ``path`` as a simultaneous-move game; its short name."""
    rb = load_rulebook_once(path)
    if not all_together(rb.game):
        why = ("it has no decision taken together" if not rb.game.sealed
               else "it also has decisions of one seat")
        raise ValueError(f"{rb.name}: not a game of joint actions ({why}); load it with "
                         f"interpreter.ai.adapters.openspiel.load (the sequential form)")
    name = _short_name(path)
    if name in _REGISTERED:
        return name
    g = rb.game
    params = {"players": g.min_players, "variants": "", "returns": "win"}
    for opt_name, opt in g.options.items():
        params[opt_name] = opt.default
    Type = pyspiel.GameType
    game_type = Type(
        short_name=name, long_name=f"Regelwerk (simultaneous): {g.name}",
        dynamics=Type.Dynamics.SIMULTANEOUS,
        chance_mode=(Type.ChanceMode.EXPLICIT_STOCHASTIC if draws_at_random(g)
                     else Type.ChanceMode.DETERMINISTIC),
        information=Type.Information.IMPERFECT_INFORMATION,
        utility=Type.Utility.GENERAL_SUM, reward_model=Type.RewardModel.TERMINAL,
        max_num_players=g.max_players + 8, min_num_players=1,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=params)
    cls = type(f"RegelwerkSimultaneousGame_{Path(path).resolve().name}", (SimultaneousGame,),
               {"default_type": game_type, "path": str(Path(path).resolve())})
    pyspiel.register_game(game_type, cls)
    _REGISTERED[name] = game_type
    return name


def load_simultaneous(path, players: int, variants=(), returns: str = "win", **options):
    """Register the rulebook (once) and load it as a simultaneous-move ``pyspiel.Game``."""
    name = register_simultaneous(path)
    params = {"players": int(players), "variants": ",".join(variants), "returns": returns}
    params.update(options)
    return pyspiel.load_game(name, params)


def _load(path, params):
    register_simultaneous(path)
    return pyspiel.load_game(_short_name(path), params)


def _load_state(game, steps):
    state = game.new_initial_state()
    for kind, what in steps:
        if kind == "chance":
            state.apply_action(what)
        else:
            state.apply_actions(list(what))
    return state


class SimultaneousGame(pyspiel.Game):
    default_type = None   # set by register_simultaneous() on the class made for each rulebook
    path = None

    def __init__(self, params=None):
        params = dict(params or {})
        rb = load_rulebook_once(self.path)
        g = rb.game
        self.rulebook = rb
        self.players = int(params.get("players", g.min_players))
        self.variants = tuple(v for v in str(params.get("variants", "")).split(",") if v)
        self.returns_kind = str(params.get("returns", "win"))
        self.options = {k: params[k] for k in g.options if k in params}
        lay = rb.layout(self.players, self.options, self.variants)
        self.layout = lay
        self.space = rb.action_space(self.players, self.options, self.variants)
        self.wait = len(self.space)                 # the one action of a player with nothing to choose
        self.obs_spec = rb.observation_spec(self.players, self.options, self.variants)
        self.info_spec = rb.information_state_spec(self.players, self.options, self.variants)
        lo, hi = {"win": (0.0, 1.0), "rank": (0.0, 1.0), "zero_sum": (-1.0, 1.0)}.get(self.returns_kind,
                                                                                      (-1e6, 1e6))
        decisions = lay.max_decisions if lay.max_decisions else LIMITS.decisions
        chance = 2 * len(lay.components) + 16
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.space) + 1,
            max_chance_outcomes=max(len(lay.components), len(lay.zones), 64),
            num_players=lay.num_seats, min_utility=lo, max_utility=hi, utility_sum=None,
            max_game_length=decisions + (decisions + 1) * chance)
        full = dict(params)
        full.setdefault("players", self.players)
        self.params = full
        super().__init__(self.default_type, info, full)

    def __reduce__(self):
        return (_load, (self.path, self.params))

    def new_initial_state(self):
        return SimultaneousState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation tensor and string, or with perfect recall asked for the
        information state's (the sequential form's observer: the same tensors)."""
        from .openspiel import RegelwerkObserver
        return RegelwerkObserver(self, information_state=bool(iig_obs_type is not None
                                                               and iig_obs_type.perfect_recall))


class SimultaneousState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.cs = ChanceState(game.rulebook, game.players, game.options, game.variants)
        self._space = game.space
        self._wait = game.wait
        self._n = game.layout.num_seats
        self._at = None             # the position the options below belong to
        self._options = {}          # seat -> the space index of each option, in the options' order
        self.steps = []             # ("chance", outcome) or ("joint", actions): what pickling replays

    def __reduce__(self):
        return (_load_state, (self.get_game(), list(self.steps)))

    def current_player(self):
        st = self.cs.state
        if st is None:
            return pyspiel.PlayerId.CHANCE
        if st.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.SIMULTANEOUS

    def _choosing(self) -> dict:
        at = len(self.steps)
        if self._at != at:
            st = self.cs.state
            self._options = ({} if st is None or st.is_terminal() else
                             {seat: self._space.indices_of(dec) for seat, dec in pending_decisions(st).items()})
            self._at = at
        return self._options

    def _legal_actions(self, player):
        if self.cs.state is None or self.cs.state.is_terminal():
            return []
        order = self._choosing().get(player)
        return sorted(order) if order else [self._wait]

    def chance_outcomes(self):
        return self.cs.chance_outcomes()

    def _apply_action(self, action):         # a chance outcome
        self.cs.apply_outcome(int(action))
        self.steps.append(("chance", int(action)))

    def _apply_actions(self, actions):
        options = self._choosing()
        choices = {}
        for seat, order in options.items():
            a = int(actions[seat])
            if a not in order:
                raise ValueError(f"action {a} is not legal for player {seat} now")
            choices[seat] = order.index(a)
        for seat in sorted(choices):
            self.cs.apply_index(choices[seat])
        self.steps.append(("joint", tuple(int(a) for a in actions)))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        return "wait" if action == self._wait else self._space.action_id(int(action))

    def is_terminal(self):
        st = self.cs.state
        return st is not None and st.is_terminal()

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self._n
        return [float(r) for r in self.cs.returns(self.get_game().returns_kind)]

    def observation_string(self, player):
        st = self.cs.state
        return "" if st is None else st.observation_string(player)

    def information_state_string(self, player):
        st = self.cs.state
        return "" if st is None else information_state_string(st, player)

    def __str__(self):
        st = self.cs.state
        return f"chance node after {len(self.steps)} steps" if st is None else st.observation_string(None)
