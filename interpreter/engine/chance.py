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
decision taken there and the outcomes chosen since.  The segment from there
runs on a copy whose ``below`` answers from the outcomes; at the first
number not yet chosen it pauses.  With the ``greenlet`` package (the ``rl``
extra) the paused segment is kept as a greenlet and the next outcome
resumes it where it stopped: O(1) per outcome.  Without it, or in a clone
made at a chance node (a paused greenlet cannot be copied), the segment is
replayed from the decision point up to the new number once, and then goes
on as before.  The default engine path is untouched.
"""
from __future__ import annotations

from .runtime import State, run
from .start import fresh_state, with_frames

try:  # optional: a paused segment resumes instead of replaying (see the module docstring)
    from greenlet import getcurrent as _current_greenlet
    from greenlet import greenlet as _greenlet
except ImportError:  # pragma: no cover - depends on the environment
    _greenlet = None

class _NeedChance(BaseException):
    """Stops a replay at a number not yet chosen.  A BaseException, so that the
    engine's handlers (which turn faults into located rule errors) let it pass."""

    def __init__(self, n: int):
        super().__init__(n)
        self.n = n


class _Script:
    """The random numbers of a replayed segment: the chance outcomes chosen so far
    (``State.chance`` while it replays: it answers ``State.below``).  Past them it
    stops the segment (``_NeedChance``), or in a greenlet pauses it: switches to
    the caller with the number of outcomes and goes on with the one chosen."""

    __slots__ = ("outcomes", "i", "caller")

    def __init__(self, outcomes, caller=None):
        self.outcomes = outcomes
        self.i = 0
        self.caller = caller

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        if self.i < len(self.outcomes):
            v = self.outcomes[self.i]
            self.i += 1
            return v
        if self.caller is None:
            raise _NeedChance(n)
        k = self.caller.switch(_Pause(n))
        self.outcomes.append(k)
        self.i += 1
        return k


class _Pause:
    """What a paused segment hands its caller: the outcomes of the chance node."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n


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
        self._paused = None       # the greenlet of the paused segment, if any (never copied)
        self._script = None       # its script (the outcomes it was given)
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
        self.history.append(("chance", k))
        if self._paused is not None:      # resume the segment where it stopped (it records k)
            try:
                self._resume(self._paused, k)
                return
            except _greenlet.error:       # paused in another thread: replay here instead
                pass
        self.outcomes.append(k)
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
        c._paused = c._script = None  # a clone replays its segment on its first outcome
        return c

    def __deepcopy__(self, memo) -> "ChanceState":
        return self.clone()

    def __reduce__(self):
        """Pickled as the rulebook's folder, the layout, the last decision point (as JSON),
        the decision taken there, the outcomes since and the steps so far."""
        base = None if self.base is None else self.base.to_json()
        return (_rebuild, (type(self.rulebook), str(self.rulebook.path), self.players, self.options, self.variants, base,
                           self.action, list(self.outcomes), list(self.history)))

    # --- running a segment ---------------------------------------------------
    def _advance(self) -> None:
        """Run the segment from the last decision point (replaying the outcomes chosen
        so far) up to the next chance node, decision or end."""
        if self.base is None:
            st = _start(self.rulebook, self.players, self.options, self.variants)
        else:
            st = self.base.clone()
        if _greenlet is not None:
            script = _Script(list(self.outcomes), _current_greenlet())
            self.outcomes = script.outcomes       # the segment appends what it is given
            self._script = script
            self._resume(_greenlet(_segment), (st, self.action, script))
            return
        st.chance = _Script(self.outcomes).below
        try:
            _segment(st, self.action)
        except _NeedChance as need:
            self.state = None
            self.need = need.n
            return
        self._arrive(st)

    def _resume(self, g, value) -> None:
        """Switch into the segment's greenlet; it comes back paused at a chance node or done."""
        self._paused = None
        here = _current_greenlet()
        self._script.caller = here            # pause back to whoever resumes it now
        if isinstance(value, tuple):
            got = g.switch(*value)
        else:
            g.parent = here
            got = g.switch(value)
        if isinstance(got, _Pause):
            self._paused = g
            self.state = None
            self.need = got.n
            return
        self._arrive(got)

    def _arrive(self, st) -> None:
        self.state = st
        self.need = 0
        self.base = st            # the decision point: the next segment replays from a copy of it
        self.action = None
        self.outcomes = []


def _segment(st, action, script=None):
    """Run one segment on ``st``: setup and the flow up to the first decision (``action``
    None, a fresh state), else ``action`` and what follows up to the next one."""
    if script is not None:
        st.chance = script.below
    try:
        if action is None:
            run(st)
        else:
            st.apply(action)
    finally:
        st.chance = None
    return st


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
    cs._paused = cs._script = None
    if cs.base is not None and action is None:
        cs.state = cs.base           # at a decision (or the end)
    else:
        cs._advance()
    return cs


def _start(rulebook, players, options, variants) -> State:
    return with_frames(fresh_state(rulebook.game, rulebook.layout(players, options, variants), 0, False))
