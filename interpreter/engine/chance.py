"""Explicit chance: every random number the rules need becomes a chance node.

In the default mode a state holds its random generator, so a clone "knows"
every future draw.  A :class:`ChanceState` holds no generator: whenever the
rules need a random number in ``range(n)`` (a shuffle swaps, a draw from a
bag picks, a ``random`` step chooses), play stops at a chance node with
``n`` equally likely outcomes; applying an outcome continues the game.

    cs = rules.new_chance_game(players=2)
    while not cs.is_terminal():
        if cs.is_chance_node():
            outcome, p = cs.chance_outcomes()[0]
            cs.apply_outcome(outcome)
        else:
            cs.apply_action(cs.legal_actions()[0])

How: all randomness of the engine flows through ``State.below(n)``.  A
chance state keeps the last decision point (a plain :class:`State`), the
decision taken there and the outcomes chosen since; to go on it replays that
segment on a copy whose ``below`` answers from the outcomes and stops at the
first number not yet chosen.  The default engine path is untouched.
"""
from __future__ import annotations

from .runtime import State, run
from .start import fresh_state, with_frames

class _NeedChance(BaseException):
    """Stops a replay at a number not yet chosen.  A BaseException, so that the
    engine's handlers (which turn faults into located rule errors) let it pass."""

    def __init__(self, n: int):
        super().__init__(n)
        self.n = n


class _Script:
    """The random numbers of a replayed segment: the chance outcomes chosen so far
    (``State.chance`` while it replays: it answers ``State.below``)."""

    __slots__ = ("outcomes", "i", "before")

    def __init__(self, outcomes, before: int = 0):
        self.outcomes = outcomes
        self.i = 0
        self.before = before        # the chance outcomes of the game before this segment

    def key(self) -> int:
        """``State.draw_key``: -1 - the number of the game's next chance outcome."""
        return -1 - (self.before + self.i)

    def __call__(self, n: int) -> int:
        return self.below(n)

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        if self.i < len(self.outcomes):
            v = self.outcomes[self.i]
            self.i += 1
            return v
        raise _NeedChance(n)


class ChanceState:
    """A game in which the seat to move may be chance (see the module docstring)."""

    CHANCE = -1

    def __init__(self, rulebook, players: int, options=None, variants=()):
        self.rulebook = rulebook
        self.players = players
        self.options = dict(options or {})
        self.variants = tuple(variants)
        self.base = None          # the State at the last decision (None: before setup)
        self.action = None        # the decision taken there
        self.outcomes: list = []  # chance outcomes chosen since
        self.state = None         # the State at a decision or the end (None at a chance node)
        self.need = 0             # outcomes of the pending chance node
        self.history: list = []   # ("chance", k) or (seat, action id), in order
        self._advance()

    # --- the state API ---------------------------------------------------
    def is_chance_node(self) -> bool:
        return self.state is None

    def current_player(self):
        """The seat that decides, CHANCE (-1) at a chance node, None at the end."""
        if self.state is None:
            return self.CHANCE
        return self.state.current_player()

    def chance_outcomes(self) -> list:
        """(outcome, probability) pairs of the pending chance node: uniform over range(n)."""
        if self.state is not None:
            return []
        p = 1.0 / self.need
        return [(k, p) for k in range(self.need)]

    def apply_outcome(self, k: int) -> None:
        if self.state is not None or not 0 <= k < self.need:
            raise ValueError(f"chance outcome {k} is not possible here")
        self.outcomes.append(k)
        self.history.append(("chance", k))
        self._advance()

    def legal_actions(self) -> list:
        return [] if self.state is None else self.state.legal_actions()

    def apply_action(self, action_id: str) -> None:
        if self.state is None:
            raise ValueError("a chance node: apply a chance outcome")
        st = self.state
        from .runtime import IllegalAction
        if st.pending is None or action_id not in st.pending.by_id:
            raise IllegalAction(f"'{action_id}' is not a legal action now")
        self.history.append((st.current_player(), action_id))
        self.base = st
        self.action = action_id
        self.outcomes = []
        self._advance()

    def is_terminal(self) -> bool:
        return self.state is not None and self.state.is_terminal()

    def returns(self, kind: str = "win") -> list:
        if self.state is None:
            return [0] * self.rulebook.layout(self.players, self.options, self.variants).num_seats
        return self.state.returns(kind)

    def clone(self) -> "ChanceState":
        c = ChanceState.__new__(ChanceState)
        c.rulebook, c.players, c.options, c.variants = self.rulebook, self.players, self.options, self.variants
        c.base = self.base            # never changed in place: advancing replays a copy
        c.action = self.action
        c.outcomes = list(self.outcomes)
        c.state = None if self.state is None else self.state.clone()
        c.need = self.need
        c.history = list(self.history)
        return c

    def resample(self, seat: int, seed: int) -> "ChanceState":
        """A game at this decision that ``seat`` cannot tell from this one (engine/infosets.py
        for the plain state): the chance outcomes that drew values hidden from the seat drawn
        anew — the game replayed with them, kept only if the seat saw what it saw at every
        decision (at most ``limits.resample_tries`` tries, then RW921) — and what the seat cannot
        see among the components redistributed.  Its history is this game's with the new
        outcomes; after a redistribution it is no longer a path of outcomes."""
        from dsl.diagnostics import RuleRuntimeError
        from .infosets import hidden_draws, permuted
        from .limits import LIMITS
        from .rng import Rng
        st = self.state
        if st is None:
            raise ValueError("resample at a decision, not at a chance node")
        redraw = {-1 - key for key in hidden_draws(st, seat) if key < 0}
        got = None
        if redraw:
            expect = self._replayed(seat, set(), None, None)[1]
            fresh = Rng(seed, 6000)
            for _ in range(LIMITS.resample_tries):
                got = self._replayed(seat, redraw, fresh, expect)
                if got is not None:
                    break
            else:
                raise RuleRuntimeError(f"resample: no game in {LIMITS.resample_tries:,} tries draws the values "
                                       f"hidden from seat {seat} so that it sees what it saw (limit "
                                       f"'resample_tries')", st.pending.pos if st.pending else None, "RW921")
        cs = got[0] if got is not None else self.clone()
        cs.state = cs.base = permuted(cs.state, seat, seed)
        cs.action, cs.outcomes, cs.need = None, [], 0
        return cs

    def _replayed(self, seat, redraw, fresh, expect):
        """This game's steps again, the chance outcomes numbered in ``redraw`` drawn by
        ``fresh``: (game, [seat's observation at each decision]); None as soon as an
        observation differs from ``expect`` or a step is impossible."""
        from .observe import observation
        from .runtime import IllegalAction
        cs = ChanceState(self.rulebook, self.players, self.options, self.variants)
        seen = []
        n = 0
        try:
            for step in self.history:
                if step[0] == "chance":
                    if cs.state is not None:
                        return None
                    k = fresh.below(cs.need) if n in redraw else step[1]
                    n += 1
                    cs.apply_outcome(k)
                    continue
                if cs.state is None:
                    return None
                seen.append(observation(cs.state, seat))
                if expect is not None and seen[-1] != expect[len(seen) - 1]:
                    return None
                cs.apply_action(step[1])
        except (ValueError, IllegalAction):
            return None
        if cs.state is None:
            return None
        seen.append(observation(cs.state, seat))
        if expect is not None and seen[-1] != expect[len(seen) - 1]:
            return None
        return cs, seen

    def __deepcopy__(self, memo) -> "ChanceState":
        return self.clone()

    def __reduce__(self):
        """Pickled as the rulebook's folder, the layout, the last decision point (as JSON),
        the decision taken there, the outcomes since and the steps so far."""
        base = None if self.base is None else self.base.to_json()
        return (_rebuild, (type(self.rulebook), str(self.rulebook.path), self.players, self.options, self.variants, base,
                           self.action, list(self.outcomes), list(self.history)))

    # --- replaying a segment -----------------------------------------------
    def _advance(self) -> None:
        if self.base is None:
            st = _start(self.rulebook, self.players, self.options, self.variants)
        else:
            st = self.base.clone()
        st.chance = _Script(self.outcomes, sum(1 for h in self.history if h[0] == "chance") - len(self.outcomes))
        try:
            if self.base is None:
                run(st)
            else:
                st.apply(self.action)
        except _NeedChance as need:
            self.state = None
            self.need = need.n
            return
        finally:
            st.chance = None
        self.state = st
        self.need = 0
        self.base = st            # the decision point: the next segment replays from a copy of it
        self.action = None
        self.outcomes = []


_BOOKS: dict = {}


def _rebuild(rulebook_class, path, players, options, variants, base, action, outcomes, history) -> ChanceState:
    """A pickled chance state again (its rulebook loaded once per process, by the class it was of)."""
    if path not in _BOOKS:
        _BOOKS[path] = rulebook_class.load(path)
    rb = _BOOKS[path]
    cs = ChanceState.__new__(ChanceState)
    cs.rulebook, cs.players, cs.options, cs.variants = rb, players, dict(options), tuple(variants)
    cs.base = None if base is None else rb.state_from_json(base)
    cs.action = action
    cs.outcomes = list(outcomes)
    cs.history = [tuple(h) for h in history]
    cs.state = None
    cs.need = 0
    if cs.base is not None and action is None:
        cs.state = cs.base           # at a decision (or the end)
    else:
        cs._advance()
    return cs


def _start(rulebook, players, options, variants) -> State:
    return with_frames(fresh_state(rulebook.game, rulebook.layout(players, options, variants), 0, False))
