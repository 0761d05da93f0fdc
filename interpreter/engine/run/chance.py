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

How: all randomness of the engine flows through ``State.below(n)``.  While
a chance state plays, ``below`` answers from the outcomes chosen; at the
first number not yet chosen play pauses.  With the ``greenlet`` package (the
``rl`` extra) the paused run is kept as a greenlet and the next outcome
resumes it where it stopped: O(1) per outcome, and a decision goes on in
place.  A checkpoint (a copy of the state at a decision) is kept every
``CHECKPOINT_EVERY`` (64) decisions; a clone made at a chance node (a paused
greenlet cannot be copied) replays the steps since the checkpoint once, and
from then on both keep a checkpoint at every decision.  Without greenlet
the checkpoint is the last decision and each outcome replays from there.
The default engine path is untouched.
"""
from __future__ import annotations

from .frames import Option
from .runtime import IllegalAction, State, run
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
    the caller with the number of outcomes (an int: a segment's other results are a
    State or ``_Failed``) and goes on with the one chosen."""

    __slots__ = ("outcomes", "i", "caller", "before")

    def __init__(self, outcomes, caller=None, before: int = 0):
        self.outcomes = outcomes
        self.i = 0
        self.caller = caller
        self.before = before        # the chance outcomes of the game before this segment

    def key(self) -> int:
        """``State.draw_key``: -1 - the number of the game's next chance outcome."""
        return -1 - (self.before + self.i)

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        if self.i < len(self.outcomes):
            v = self.outcomes[self.i]
            self.i += 1
            return v
        if self.caller is None:
            raise _NeedChance(n)
        k = self.caller.switch(n)         # paused: the caller is told the number of outcomes
        self.outcomes.append(k)
        self.i += 1
        return k

    __call__ = below      # State.chance(n): without a second call per random number


class ChanceState:
    """A game in which the seat to move may be chance (see the module docstring)."""

    CHANCE = -1

    #: without clones at chance nodes, a checkpoint (a copy of the state) is kept every this many decisions
    #: (a copy costs a few decisions' time: kept rarely, it costs little per decision, and the first clone
    #: at a chance node replays at most this many decisions once)
    CHECKPOINT_EVERY = 64

    def __init__(self, rulebook, players: int, options=None, variants=()):
        self.rulebook = rulebook
        self.players = players
        self.options = dict(options or {})
        self.variants = tuple(variants)
        self.base = None          # the checkpoint: a State at a decision, never changed (None: the start)
        self.base_at = 0          # how many steps of the history lie before it
        self.since = 0            # decisions since the checkpoint
        self.state = None         # the State at a decision or the end (None at a chance node)
        self.need = 0             # outcomes of the pending chance node
        # ("chance", k) or (seat, the Option taken, or its id), in order: an option's id is
        # written only when asked for (``history``, a replay, a pickle), not on every decision
        self.steps: list = []
        self.chances = 0          # how many of them are chance outcomes
        self._worker = None       # the greenlet that runs this game's segments (never copied)
        self._paused = False      # it is paused in a segment, at the pending chance node
        self._script = None       # the running segment's script (the outcomes it was given)
        # a checkpoint at every decision: without greenlet (every outcome replays from the last
        # decision), and once a clone was made at a chance node (tree search: it replays from there)
        self._eager = _greenlet is None
        self._replay()

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
        n = self.need
        uniform = _UNIFORM.get(n)
        if uniform is None:
            p = 1.0 / n
            uniform = _UNIFORM[n] = [(k, p) for k in range(n)]
        return list(uniform)

    def apply_outcome(self, k: int) -> None:
        if self.state is not None or not 0 <= k < self.need:
            raise ValueError(f"chance outcome {k} is not possible here")
        self.steps.append(("chance", k))
        self.chances += 1
        if self._paused:                  # resume the segment where it stopped
            try:
                self._resume(k)
                return
            except _greenlet.error:       # paused in another thread: replay here instead
                pass
        self._replay()

    def legal_actions(self) -> list:
        return [] if self.state is None else self.state.legal_actions()

    def apply_action(self, action_id: str) -> None:
        """Take a decision.  The State of ``self.state`` goes on in place (a checkpoint
        copy is kept now and then, see ``CHECKPOINT_EVERY``)."""
        if self.state is None:
            raise ValueError("a chance node: apply a chance outcome")
        st = self.state
        dec = st.pending
        opt = None if dec is None else dec.by_id.get(action_id)
        if opt is None:
            raise IllegalAction(f"'{action_id}' is not a legal action now")
        self._decide(st, dec, opt, action_id)

    def apply_index(self, i: int) -> None:
        """Take the decision ``legal_actions()[i]``, writing no action id (the steps keep the
        option; ``history`` writes its id when asked): as ``State.apply_index``."""
        if self.state is None:
            raise ValueError("a chance node: apply a chance outcome")
        st = self.state
        dec = st.pending
        if dec is None or type(i) is not int or not 0 <= i < len(dec.raw):
            raise IllegalAction(f"{i!r} is not the index of a legal action now")
        opts = dec._options
        self._decide(st, dec, opts[i] if opts is not None else Option(*dec.raw[i]), i)

    def _decide(self, st, dec, option, action) -> None:
        """Go on from decision ``dec`` of ``st`` with ``action`` (its id, or its position among
        the legal options), recorded in the steps as ``option`` (its id unwritten)."""
        if self._eager or self.since >= self.CHECKPOINT_EVERY:
            self.base = st.clone()
            self.base_at = len(self.steps)
            self.since = 0
        self.steps.append((dec.who, option))
        self.since += 1
        if _greenlet is None:
            self._replay()
        else:
            self._run(st, False, (action,), ())

    def is_terminal(self) -> bool:
        return self.state is not None and self.state.is_terminal()

    @property
    def history(self) -> list:
        """The steps so far: ``("chance", k)`` or ``(seat, action id)``, in order."""
        return [(kind, x.id if type(x) is Option else x) for kind, x in self.steps]

    def returns(self, kind: str = "win") -> list:
        if self.state is None:
            return [0] * self.rulebook.layout(self.players, self.options, self.variants).num_seats
        return self.state.returns(kind)

    def clone(self) -> "ChanceState":
        """A copy that goes on independently.  Made at a chance node, it replays the steps
        since the checkpoint on its first outcome; from then on both keep a checkpoint
        at every decision, so that further clones replay one segment at most."""
        c = ChanceState.__new__(ChanceState)
        c.rulebook, c.players, c.options, c.variants = self.rulebook, self.players, self.options, self.variants
        c.base = self.base            # never changed in place
        c.base_at = self.base_at
        c.since = self.since
        c.state = None if self.state is None else self.state.clone()
        c.need = self.need
        c.steps = list(self.steps)            # (Options are never changed: shared)
        c.chances = self.chances
        c._worker = c._script = None  # a clone replays its segment on its first outcome
        c._paused = False
        if self.state is None:
            self._eager = True
        c._eager = self._eager
        return c

    def resample(self, seat: int, seed: int) -> "ChanceState":
        """A game at this decision that ``seat`` cannot tell from this one: a world drawn from the
        posterior of what the seat was shown (engine/knowledge/), as the chance outcomes and
        decisions that lead to it.  It is a real game: its history is that world's, it plays on,
        clones and pickles as itself."""
        from ..knowledge import resample_steps
        st = self.state
        if st is None:
            raise ValueError("resample at a decision, not at a chance node")
        steps = resample_steps(st, self.history, seat, seed)
        cs = ChanceState(self.rulebook, self.players, self.options, self.variants)
        for kind, x in steps:
            if kind == "chance":
                cs.apply_outcome(x)
            else:
                cs.apply_action(x)
        return cs

    def __deepcopy__(self, memo) -> "ChanceState":
        return self.clone()

    def __reduce__(self):
        """Pickled as the rulebook's folder, the layout, the checkpoint (as JSON), where it
        lies in the history, and the steps so far."""
        base = None if self.base is None else self.base.to_json()
        return (_rebuild, (type(self.rulebook), str(self.rulebook.path), self.players, self.options, self.variants,
                           base, self.base_at, list(self.history)))

    # --- running segments ----------------------------------------------------
    def _replay(self) -> None:
        """Replay the steps since the checkpoint on a copy of it, up to the next chance
        node, decision or end."""
        span = self.steps[self.base_at:]
        outcomes = [x for kind, x in span if kind == "chance"]
        actions = tuple(x for kind, x in span if kind != "chance")
        if self.base is None:
            self._run(_start(self.rulebook, self.players, self.options, self.variants), True, actions, outcomes)
        else:
            self._run(self.base.clone(), False, actions, outcomes)

    def _run(self, st, fresh: bool, actions, outcomes) -> None:
        """Run ``st`` (setup first if ``fresh``) through ``actions``, chance answered from
        ``outcomes``, and on: paused at the next chance node (a greenlet) or stopped there
        (without greenlet: ``_NeedChance``), or arrived at a decision or the end."""
        before = self.chances - len(outcomes)
        if _greenlet is not None:
            self._script = _Script(list(outcomes), _current_greenlet(), before)
            job = (st, fresh, actions, self._script)
            if self._worker is None or self._worker.dead or self._paused:
                self._worker = _greenlet(_work)
            try:
                self._resume(job)
            except _greenlet.error:           # made in another thread: a new worker here
                self._worker = _greenlet(_work)
                self._resume(job)
            return
        script = _Script(list(outcomes), None, before)
        try:
            _segment(st, fresh, actions, script)
        except _NeedChance as need:
            self.state = None
            self.need = need.n
            return
        self._arrive(st)

    def _resume(self, value) -> None:
        """Switch into the worker (a job, or the outcome it paused for); it comes back paused
        at a chance node, failed, or done with the State at a decision or the end."""
        self._paused = False
        here = _current_greenlet()
        worker = self._worker
        script = self._script
        if script.caller is not here:         # pause back to whoever resumes it now
            script.caller = here
        if worker.parent is not here:
            worker.parent = here
        got = worker.switch(value)
        if type(got) is int:                  # paused at a chance node of that many outcomes
            self._paused = True
            self.state = None
            self.need = got
            return
        if isinstance(got, _Failed):
            raise got.error
        self._arrive(got)

    def _arrive(self, st) -> None:
        self.state = st
        self.need = 0
        self._script = None


class _Failed:
    """A segment's error, handed back by the worker (which stays alive for the next job)."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def _work(job):
    """A chance state's worker greenlet: runs each segment it is given and hands back its
    State (or error), then waits for the next (it pauses inside at chance nodes)."""
    while True:
        st, fresh, actions, script = job
        try:
            result = _segment(st, fresh, actions, script)
        except Exception as exc:  # noqa: BLE001 - re-raised by the caller, in its own frame
            result = _Failed(exc)
        job = script.caller.switch(result)


def _segment(st, fresh: bool, actions, script):
    """Run ``st``: setup and the flow up to the first decision if ``fresh``, then each of
    ``actions`` and what follows it, every random number answered by ``script``."""
    st.chance = script          # answers State.below, and says where a drawn value came from (draw_key)
    try:
        if fresh:
            run(st)
        for action in actions:          # Options or ids (a replay), or a position among the legal options
            t = type(action)
            if t is int:
                st.apply_index(action)
            elif t is Option:
                st.apply(action.id)
            else:
                st.apply(action)
    finally:
        st.chance = None
    return st


_BOOKS: dict = {}
#: the outcome lists of chance nodes, by their number of outcomes (copied when handed out)
_UNIFORM: dict = {}


def _rebuild(rulebook_class, path, players, options, variants, base, base_at, history) -> ChanceState:
    """A pickled chance state again (its rulebook loaded once per process, by the class it was of)."""
    if path not in _BOOKS:
        _BOOKS[path] = rulebook_class.load(path)
    rb = _BOOKS[path]
    cs = ChanceState.__new__(ChanceState)
    cs.rulebook, cs.players, cs.options, cs.variants = rb, players, dict(options), tuple(variants)
    cs.base = None if base is None else rb.state_from_json(base)
    cs.base_at = base_at
    cs.steps = [tuple(h) for h in history]
    cs.chances = sum(1 for kind, _x in cs.steps if kind == "chance")
    cs.since = sum(1 for kind, _x in cs.steps[base_at:] if kind != "chance")
    cs.state = None
    cs.need = 0
    cs._worker = cs._script = None
    cs._paused = False
    cs._eager = _greenlet is None
    cs._replay()
    return cs


def _start(rulebook, players, options, variants) -> State:
    return with_frames(fresh_state(rulebook.game, rulebook.layout(players, options, variants), 0, False))
