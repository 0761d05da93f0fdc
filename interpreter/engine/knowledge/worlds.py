"""Worlds a seat cannot tell from the real game, drawn from the posterior of its record.

A *world* is a complete history: every random outcome (shuffles, draws from bags, `random`
steps) and every decision.  A world is possible for seat p when every decision in it is legal
and replaying it gives p exactly the record it has (:mod:`.record`).  Its weight is the
product of chance's probabilities; another seat's secret choice (parameters p was told as
``…``) is uniform among the options legal then that p is told the same of.  ``resample``
draws from that distribution (docs/language.md, "What a seat knows").

How: by rejection — a world is proposed, replayed with p's record checked event by event
(:class:`.record.Mismatch` ends it at the first difference), and kept if it gets to the end.
The proposal is uniform over the worlds that agree with the real game on what p saw of chance
(:class:`World`):

* a shuffle puts every component whose identity p saw later (before it was placed at random
  again) where the real shuffle put it, and the others in a uniformly random order in the
  places left;
* a draw from a bag takes the component the real draw took when p saw it later, else one at
  random;
* a value a `random` step drew into a variable that may be hidden is drawn anew unless p saw
  it; any other random number (a die thrown in the open, a number kept in a local) is the real
  one;
* another seat's secret choice is chosen anew among the options legal then that p is told the
  same of, leaving out those p's record rules out when the game goes on as it did (a sealed bid
  revealed later); the world is then kept with probability (options left / options told the same)
  over the same share in the real game, which makes the choice uniform among all the options
  told the same (exactly so when that share is largest in the real game — always when the
  options do not depend on what p cannot see).

Every world p's record allows agrees with the real game on those outcomes as long as the rules
route a randomly placed component the same way whatever it is (what every card game's deal
does); the replay then confirms the rest — a hand void of a suit, a told fact, an announced
answer, the legality of every recorded decision — and drops what contradicts it.  The
frequencies are checked against exact enumeration of every world on small games
(tests/test_posterior.py).

What is not replayed: up to the last stop where every outcome a world proposes is the real one
whatever its fresh numbers (every random outcome there was seen later, every secret choice there
is ruled out down to the real one), a world's replay would be the real game's replay, so a first
try goes on from a copy of the real replay's state at that stop (:func:`skip`; the world drawn is
the one the replay from the start draws, tests/test_world_skip.py); and a decision the seat is not
shown the options of looks for the recorded option only (``Recorder.want``).

The work is bounded: ``limits.resample_tries`` worlds and ``limits.resample_work`` replayed
decisions per resample (those skipped counted as replayed), then RW921.
"""
from __future__ import annotations

from operator import attrgetter

from dsl.diagnostics import RuleRuntimeError

from ..compile.codegen import finder
from ..run import rng as rngmod
from ..run.limits import LIMITS
from ..run.frames import option_id
from .record import Mismatch, Recorder
from .secret_choices import LOOKAHEAD, Window, secret_for


class Trace:
    """``State.chance`` of the real game's replay: answers every random number as the game did
    (from the generator, or from ``answers`` — a sampled world's or an explicit-chance game's
    outcomes — and then the generator at ``then``) and notes each *chance event*:
    ``("s", zone id, ids in, ids out, first answer)`` a shuffle, ``("b", zone id, picked id, first
    answer, its place in the bag)`` a draw from a bag, ``("v", n, value, first answer)`` any other
    number."""

    __slots__ = ("st", "answers", "given", "then", "events", "rec")

    def __init__(self, st, given=None, then=None):
        self.st = st
        self.answers = []
        self.given = given
        self.then = then
        self.events = []
        self.rec = None

    def copy(self, st) -> "Trace":
        """A copy that answers ``st`` (a clone of this one's state) from here on."""
        c = Trace(st, self.given, self.then)
        c.answers = list(self.answers)
        c.events = list(self.events)
        c.rec = self.rec
        return c

    def _next(self, n: int) -> int:
        given = self.given
        i = len(self.answers)
        if given is not None and i < len(given):
            value = given[i]
            if not 0 <= value < n:
                raise Mismatch()
        else:
            if given is not None and i == len(given) and self.then is not None:
                self.st.rng = self.then         # past a sampled world's answers: its generator
            value, self.st.rng = rngmod.below(self.st.rng, n)
        self.answers.append(value)
        return value

    def key(self) -> int:
        return -1 - len(self.answers)

    def __call__(self, n: int) -> int:
        first = len(self.answers)
        value = self._next(n)
        self.events.append(("v", n, value, first))
        return value

    def shuffle(self, st, zone, items) -> None:
        first = len(self.answers)
        before = tuple(c.id for c in items)
        mark = fingerprint(st, zone)
        for i in range(len(items) - 1, 0, -1):
            j = self._next(i + 1)
            items[i], items[j] = items[j], items[i]
        self.events.append(("s", zone.id, before, tuple(c.id for c in items), first, mark))
        if self.rec is not None:
            self.rec.placed(len(self.events) - 1, [c.id for c in items])

    def deal(self, st, seat: int) -> None:
        """The edited start's hidden components, as they lie (a chance event ``("o", places, ids)``)."""
        places = origin_deal(st, seat)
        ids = tuple(p[2] for p in places)
        self.events.append(("o", tuple(places), ids, None))
        if self.rec is not None:
            self.rec.placed(len(self.events) - 1, ids)

    def pick(self, st, src, lst) -> int:
        first = len(self.answers)
        i = self._next(len(lst))
        self.events.append(("b", src.id, lst[i].id, first, i))
        if self.rec is not None:
            self.rec.placed(len(self.events) - 1, (lst[i].id,))
        return i


class World:
    """``State.chance`` of a proposed world's replay (see the module docstring): follows the real
    game's chance events (``real``: :attr:`Trace.events`) while the replay meets them in the same
    order, with ``pins`` ({event: component ids} the seat saw, and the first answers of the
    numbers it saw) kept and the rest drawn with ``fresh``; once the replay meets another event
    than the real game did, every number is drawn anew.  ``answers``: every number given, in
    order (an explicit-chance game's outcomes)."""

    __slots__ = ("real", "pins", "kept", "fresh", "answers", "i", "apart", "decided", "forced", "chosen",
                 "weight", "checkpoint")

    def __init__(self, real, pins: dict, kept: frozenset, fresh, checkpoint=None):
        self.real = real
        self.pins = pins
        self.kept = kept                # the first answers of the numbers kept as they were
        self.fresh = fresh
        self.answers = []
        self.i = 0                      # the next real event
        self.apart = False              # the replay met another event than the real game
        self.decided = []               # (numbers given before it, seat, action id) per decision
        # a checkpoint (a world's numbers and secret choices up to a shuffle where the replay was the real
        # game again, see ``shuffle``): given, this world begins with them
        self.forced, self.chosen = checkpoint if checkpoint is not None else ((), ())
        self.weight = 1.0               # of the secret choices since the last checkpoint (replay_world)
        self.checkpoint = checkpoint

    def _forced(self, n: int):
        """The next number of the checkpoint this world begins with, or None past it."""
        k = len(self.answers)
        if k < len(self.forced):
            value = self.forced[k]
            self.answers.append(value)
            return value
        return None

    def key(self) -> int:
        return -1 - len(self.answers)

    def _event(self, kind: str):
        if self.apart or self.i >= len(self.real):
            self.apart = True
            return None
        event = self.real[self.i]
        if event[0] != kind:
            self.apart = True
            return None
        self.i += 1
        return event

    def __call__(self, n: int) -> int:
        event = self._event("v")
        value = self._forced(n)
        if value is not None:
            return value
        if event is not None and event[1] == n and event[3] in self.kept:
            value = event[2]
        else:
            if event is not None and event[1] != n:
                self.apart = True
            value = self.fresh.below(n)
        self.answers.append(value)
        return value

    def shuffle(self, st, zone, items) -> None:
        event = self._event("s")
        n = len(items)
        if len(self.answers) < len(self.forced):            # the checkpoint's shuffle, as it was
            for i in range(n - 1, 0, -1):
                j = self._forced(i + 1)
                items[i], items[j] = items[j], items[i]
            return
        if event is not None and len(event) > 5 and not self.apart and fingerprint(st, zone) == event[5]:
            # the replay is the real game again (what is to be shuffled aside): nothing after depends on
            # how this world got here, so a world that fails later goes on from here (worlds.sample)
            if self.weight < 1.0 and self.fresh.below(1 << 30) >= self.weight * (1 << 30):
                raise Mismatch()
            self.weight = 1.0
            self.checkpoint = (tuple(self.answers), tuple(self.chosen))
        if event is not None and event[1] == zone.id and len(event[3]) == n:
            pinned = self.pins.get(self.i - 1, ())
        else:
            if event is not None:
                self.apart = True
            pinned = ()
        target = [None] * n
        rest = list(items)
        if pinned:
            here = {c.id: c for c in items}
            for place, cid in enumerate(event[3]):
                if cid in pinned and cid in here:
                    target[place] = here.pop(cid)
            rest = [c for c in items if c.id in here]
        fresh = self.fresh
        for i in range(len(rest) - 1, 0, -1):       # the others in a uniformly random order
            j = fresh.below(i + 1)
            rest[i], rest[j] = rest[j], rest[i]
        it = iter(rest)
        target = [c if c is not None else next(it) for c in target]
        # the numbers a shuffle of ``items`` draws to give ``target`` (an explicit-chance game's outcomes)
        at = {c.id: k for k, c in enumerate(items)}
        for i in range(n - 1, 0, -1):
            j = at[target[i].id]
            self.answers.append(j)
            moved = items[i]
            items[i], items[j] = items[j], items[i]
            at[moved.id] = j
            at[target[i].id] = i

    def deal(self, st, seat: int) -> None:
        """The edited start's hidden components dealt anew among their group's places, those the
        seat saw later where they were."""
        event = self._event("o")
        if event is None:
            return
        places, ids = event[1], event[2]
        pinned = self.pins.get(self.i - 1, ())
        groups: dict = {}
        for k, p in enumerate(places):
            if ids[k] not in pinned:
                groups.setdefault(p[3], []).append(k)
        new = list(ids)
        fresh = self.fresh
        for key in sorted(groups, key=repr):
            at = groups[key]
            pool = [ids[k] for k in at]
            for i in range(len(pool) - 1, 0, -1):
                j = fresh.below(i + 1)
                pool[i], pool[j] = pool[j], pool[i]
            for k, cid in zip(at, pool):
                new[k] = cid
        _lay(st, places, new)

    def pick(self, st, src, lst) -> int:
        event = self._event("b")
        forced = self._forced(len(lst))
        if forced is not None:
            return forced
        i = None
        if event is not None and event[1] == src.id and event[2] in self.pins.get(self.i - 1, ()):
            cid = event[2]
            k = event[4]                # most often where the real draw found it
            if k < len(lst) and lst[k].id == cid:
                i = k
            else:
                for k, c in enumerate(lst):
                    if c.id == cid:
                        i = k
                        break
                if i is None:
                    self.apart = True
        elif event is not None and event[1] != src.id:
            self.apart = True
        if i is None:
            i = self.fresh.below(len(lst))
        self.answers.append(i)
        return i


class Trajectory:
    """The real game replayed for one seat: its record, the chance events and what the seat
    saw of them, the decisions, and the state the replay gives (to compare with the real one)."""

    __slots__ = ("record", "events", "pins", "kept", "decisions", "state", "answers", "choices", "stops", "_wants")

    def __init__(self, record, events, pins, kept, decisions, state, answers, choices, stops=None):
        self.record, self.events, self.pins, self.kept = record, events, pins, kept
        self.decisions, self.state, self.answers = decisions, state, answers
        #: {place in the history of another seat's secret choice: (the options legal there that the
        #: seat's record rules out when the game goes on as it did, the share of the options told
        #: the same that it does not rule out, how many options are told the same)}
        self.choices = choices
        #: the replay at each stop (the start's, then one after each decision): a :class:`Stop`; or None
        self.stops = stops
        self._wants = None

    def wants(self, seat: int) -> tuple:
        """Per decision, what a world's replay asks its decide step for (``Recorder.want``: (seat,
        action name, id parts) of the option taken), or None where it lists every option: the
        seat's own decisions (their options are in its record) and another seat's secret choices
        (chosen anew).  Made when first asked for."""
        made = self._wants
        if made is None or made[0] != seat:
            choices = self.choices
            made = self._wants = (seat, tuple(
                None if who == seat or k in choices else (who, opt.action.name, finder(opt.action).key(opt.values))
                for k, (who, opt) in enumerate(self.state._history)))
        return made[1]


class Stop:
    """The real game's replay at a stop: a copy of its state (never changed: a replay goes on from
    a copy of it), how many numbers chance had given, chance events it had met, events the seat's
    record held and log lines it had written there."""

    __slots__ = ("state", "answers", "events", "recorded", "logged")

    def __init__(self, r, trace, rec, keep=True):
        self.state = r.clone() if keep else None
        self.answers, self.events = len(trace.answers), len(trace.events)
        self.recorded, self.logged = len(rec.events), rec.logged

    def counts_only(self) -> "Stop":
        """This stop without its state (no replay goes on from it)."""
        c = Stop.__new__(Stop)
        c.state, c.answers, c.events, c.recorded, c.logged = None, self.answers, self.events, self.recorded, self.logged
        return c


#: the stops of the real game's replay whose state is kept: the last RECENT, and every SPARSE-th before
#: (a world goes on from the last kept one before the first outcome it draws anew: a few decisions
#: more replayed, for far fewer copies made and kept)
RECENT, SPARSE = 24, 8


def _kept(k: int, last: int) -> bool:
    """Whether stop ``k`` keeps its state in a replay whose last stop is ``last``."""
    return k == 0 or k % SPARSE == 0 or k > last - RECENT


def _keep(stops: list) -> None:
    """Drop the state of the stop that has just become older than the RECENT last (unless SPARSE keeps it)."""
    m = len(stops) - 1 - RECENT
    if m > 0 and not _kept(m, len(stops) - 1) and stops[m].state is not None:
        stops[m] = stops[m].counts_only()


class Skip:
    """Where a world's first try may begin instead of the start (:func:`skip`): the stop ``at`` (the
    decisions before it are taken as in the real game) and the world's weight, checkpoint, secret
    choices and fresh numbers as the replay from the start would have them there."""

    __slots__ = ("at", "weight", "checkpoint", "chosen", "fresh")

    def __init__(self, at, weight, checkpoint, chosen, fresh):
        self.at, self.weight, self.checkpoint, self.chosen = at, weight, checkpoint, chosen
        self.fresh = fresh              # the state of the world's fresh numbers there


def skip(real: Trajectory, fresh):
    """How far a world's first try is the real game's replay whatever its fresh numbers: the last
    stop up to which every chance event gets the real outcome — a number the seat saw (``kept``)
    or with one possible value, a shuffle that leaves at most one component the seat did not see
    later to place at random, a draw from a bag of a component the seat saw later — and every
    other seat's secret choice has one option left of those told the same; with ``fresh`` drawn
    from exactly as :class:`World` and :func:`replay_world` draw from it on the way (a number of
    one possible value, a checkpoint's test of the weight), so the world that goes on from there
    is the one the replay from the start would make.  A :class:`Skip` past the start, or None;
    ``fresh`` is left as it was."""
    stops = real.stops
    if not stops or len(stops) < 2:
        return None
    events, pins, kept, choices, answers = real.events, real.pins, real.kept, real.choices, real.answers
    weight, checkpoint, chosen = 1.0, None, ()
    got, initial = None, fresh.state
    j = 0
    for k in range(len(stops)):
        if k > 0:                                   # decision k - 1, then its events up to stop k
            secret = choices.get(k - 1)
            if secret is not None:                  # replay_world: chosen anew among those left
                ruled_out, share, same = secret
                if same - len(ruled_out) != 1:
                    break
                fresh.below(1)
                weight *= 1 / same / share
                chosen = chosen + (real.decisions[k - 1][1],)
        end = stops[k].events
        while j < end:
            event = events[j]
            kind = event[0]
            if kind == "v":                         # World.__call__
                if event[3] not in kept:
                    if event[1] != 1:
                        break
                    fresh.below(1)
            elif kind == "s":                       # World.shuffle: the real game again, a checkpoint
                if weight < 1.0 and fresh.below(1 << 30) >= weight * (1 << 30):
                    break
                weight = 1.0
                checkpoint = (answers[:event[4]], chosen)
                pinned = pins.get(j, ())
                if sum(1 for cid in event[3] if cid not in pinned) > 1:
                    break
            elif kind == "b":                       # World.pick
                if event[2] not in pins.get(j, ()):
                    break
            else:                                   # an edited start's deal
                break
            j += 1
        if j < end:
            break
        if k > 0 and stops[k].state is not None:
            got = Skip(k, weight, checkpoint, chosen, fresh.state)
    fresh.state = initial
    return got


_ID = attrgetter("id")


def _hashable(x):
    try:
        hash(x)
        return x
    except TypeError:
        return repr(x)


def fingerprint(st, zone) -> int:
    """What a state is, for telling whether a world's replay is the real game again at a shuffle of
    ``zone`` (whose order does not count: it is about to be shuffled)."""
    zones = [tuple(map(_ID, z)) for z in st.z]
    zones[zone.id] = tuple(sorted(zones[zone.id]))
    values = tuple(st.v)
    try:
        hash(values)                    # all hashable (the usual case): as they are
    except TypeError:
        values = tuple(_hashable(x) for x in values)
    return hash((tuple(zones), values, st.facts, tuple(sorted(st.known.items())),
                 tuple(sorted(st.drawn.items()))))


def _start(st, chance_of, rec):
    """A fresh game of ``st``'s rulebook and layout from its seed, its numbers answered by
    ``chance_of(new state)``, ``rec`` recording, run to its first stop; or, for a game that began
    at an edited start (a scenario's, ``State.origin``), a copy of that start, the components
    hidden from the seat there dealt by the chance (:func:`origin_deal`)."""
    if st.origin is not None:
        r = st.origin.clone()
        r.logging = True
        r.chance = chance_of(r)
        r.rec = rec
        r.chance.deal(r, rec.seat)
        return r

    def attach(r):
        r.rec = rec
        return chance_of(r)
    return st.game.replay_start(st.lay, st.seed, True, attach)


def origin_deal(st, seat: int) -> list:
    """An edited start's components hidden from ``seat``: ``[(zone id, place, component id,
    group)]`` — the seat does not know which of them lies where, so a world deals them anew,
    each among the places of its group (its kind and the values of its attributes of type player:
    another player's cards never end up in one's deck), the way a shuffle would."""
    from ..compile import types as T
    from .observe import sees_zone
    owners = {name: [a for a, t in kind.attributes.items() if t == T.PLAYER] for name, kind in st.game.kinds.items()}
    out = []
    for z in st.lay.zones:
        if st.z[z.id] and not sees_zone(st, z, seat):
            for i, c in enumerate(st.z[z.id]):
                out.append((z.id, i, c.id, (c.kind,) + tuple(c.attrs.get(a) for a in owners.get(c.kind, ()))))
    return out


def _lay(st, places, ids) -> None:
    """Put component ``ids[k]`` at ``places[k]`` (zone id, place)."""
    comps = st.lay.components
    for (zid, i, _cid, _group), cid in zip(places, ids):
        st.z[zid][i] = comps[cid]
        st.where[cid] = zid
    st.forget_all()


def trajectory(st, seat: int, given=None) -> Trajectory:
    """Replay the game of ``st`` for ``seat`` (``given``: its chance answers and where the
    generator goes on, for a sampled world or an explicit-chance game; else ``st.script`` or the
    seed's generator) and return its :class:`Trajectory`.  The replay goes on from where the last
    one of the same game and seat paused when its decisions begin this game's (:class:`_Replay`:
    a search bot replays its game at each of its decisions)."""
    if given is None:
        given = st.script
    ids = tuple(opt.id for _who, opt in st._history)
    start = _start_key(st, seat, given)
    replay = _paused(start, ids)
    if replay is None:
        replay = _Replay.begin(st, seat, given)
    r, rec, trace = replay.r, replay.rec, replay.trace
    decisions, secret, told = replay.decisions, replay.secret, replay.told
    for who, opt in st._history[len(decisions):]:
        if r.pending is None or r.pending.who != who or opt.id not in r.pending.by_id:
            raise Mismatch()
        if secret_for(r, seat, who, opt.id):      # followed on below
            secret.append(Window.open(len(decisions), opt.id, r.clone(), len(trace.answers), len(rec.events),
                                       rec.logged))
        decisions.append((who, opt.id, next(i for i, o in enumerate(r.pending.options) if o.id == opt.id)))
        rec.decided(r, who, opt.id)
        r.apply(opt.id)
        rec.stop(r)
        told.append((len(trace.answers), len(rec.events)))
        replay.stops.append(Stop(r, trace, rec, _kept(len(decisions), len(st._history))))   # (no copy to drop)
        _keep(replay.stops)
    replay.ids = ids
    record, answers = tuple(rec.events), tuple(trace.answers)
    done = replay.done
    choices = {}
    windows = []
    for w in secret:
        place = w.place
        last = min(len(decisions), place + 1 + LOOKAHEAD) - 1
        end, seen = told[last]
        w = w.go_on(seat, record[:seen], answers[:end], decisions, last + 1)
        choices[place] = got = w.result()
        if last == place + LOOKAHEAD:       # the window is complete: its result stays
            done[place] = got
        else:
            windows.append(w)
    replay.secret = windows
    if start is not None:
        _pause(start, replay.copy())
    pins: dict = {}
    for event, cid in rec.pins:
        pins.setdefault(event, set()).add(cid)
    kept = frozenset(e[3] for e in trace.events if e[0] == "v" and
                     (-1 - e[3] not in rec.drawn_all or -1 - e[3] in rec.drawn_seen))
    r.chance = None
    r.rec = None
    choices.update(done)
    return Trajectory(record, tuple(trace.events), pins, kept, tuple(decisions), r, answers,
                      dict(sorted(choices.items())), tuple(replay.stops))


class _Replay:
    """The real game's replay for one seat, paused at a stop: the state, its record and its
    chance as they are there, the decisions replayed (``ids``), and another seat's secret choices
    met: those whose window of LOOKAHEAD decisions is complete with what the seat's record rules
    out of them (``done``: it depends on nothing later, see :class:`Window`), the others as
    followed so far (``secret``: a :class:`Window` each)."""

    __slots__ = ("r", "rec", "trace", "ids", "decisions", "secret", "told", "done", "stops")

    @classmethod
    def begin(cls, st, seat, given) -> "_Replay":
        """The replay of ``st``'s game at its first stop."""
        answers, then = given if given is not None else (None, None)
        rec = Recorder(seat)
        trace = None

        def chance_of(r):
            nonlocal trace
            trace = Trace(r, answers, then)
            trace.rec = rec
            return trace
        r = _start(st, chance_of, rec)
        rec.chance = trace
        rec.stop(r)
        self = cls.__new__(cls)
        self.r, self.rec, self.trace, self.ids = r, rec, trace, ()
        self.decisions, self.secret, self.told, self.done = [], [], [], {}
        self.stops = [Stop(r, trace, rec)]
        return self

    def copy(self) -> "_Replay":
        """A copy that goes on on its own (its windows are shared: a window never changes, going
        on makes a new one and clones the states it goes on from)."""
        c = _Replay.__new__(_Replay)
        c.r = self.r.clone()
        c.rec = self.rec.copy()
        c.trace = self.trace.copy(c.r)
        c.rec.chance = c.r.chance = c.trace
        c.trace.rec = c.r.rec = c.rec
        c.ids = self.ids
        c.decisions, c.secret, c.told = list(self.decisions), list(self.secret), list(self.told)
        c.done = dict(self.done)
        c.stops = list(self.stops)          # (a Stop is never changed)
        return c


#: the last replay of a game for a seat, paused at its end, per (start of the game, seat)
_PAUSED: dict = {}


def _start_key(st, seat, given):
    """What a replay of ``st`` starts from, for ``seat``: (key, (game, layout)); None for an
    edited start (not kept)."""
    if st.origin is not None:
        return None
    return (id(st.game), id(st.lay), st.seed, seat, given if given is not None else st.script), (st.game, st.lay)


def _paused(start, ids):
    """A copy of the paused replay of the same start whose decisions begin ``ids``, or None."""
    if start is None:
        return None
    key, rules = start
    got = _PAUSED.get(key)
    if got is None or got[0] is not rules[0] or got[1] is not rules[1]:    # (an id of rules since freed)
        return None
    replay = got[2]
    if len(replay.ids) > len(ids) or ids[:len(replay.ids)] != replay.ids:
        return None
    return replay.copy()


def _pause(start, replay) -> None:
    if len(_PAUSED) >= 64:
        _PAUSED.clear()
    key, rules = start
    _PAUSED[key] = (*rules, replay)


def replay_world(st, seat: int, real: Trajectory, fresh, budget: list, world=None, at: Skip | None = None):
    """One proposed world replayed against ``seat``'s record: (state, world) or None when the
    world gives the seat another record or a recorded decision is not legal in it (``world``,
    when given, then holds the last checkpoint it passed).  ``budget``: [decisions left], spent here.
    ``at`` (a new world's first try, :func:`skip`): the replay goes on from the real game's replay
    at that stop, which the replay from the start would be there, when the budget covers the
    decisions before it."""
    rec = Recorder(seat, expect=real.record)
    if world is None:
        world = World(real.events, real.pins, real.kept, fresh)
    secrets = 0
    wants = real.wants(seat)
    first = 0
    try:
        if at is not None and 0 < at.at <= budget[0]:
            first = at.at
            stop = real.stops[first]
            budget[0] -= first
            world.answers = list(real.answers[:stop.answers])
            world.i = stop.events
            world.decided = [(real.stops[k].answers, who, action_id)
                             for k, (who, action_id, _i) in enumerate(real.decisions[:first])]
            world.weight, world.checkpoint, world.chosen = at.weight, at.checkpoint, at.chosen
            secrets = len(at.chosen)
            fresh.state = at.fresh
            rec.at, rec.logged = stop.recorded, stop.logged
            rec.want = wants[first] if first < len(wants) else None
            r = stop.state.clone()
            r.chance = world
            r.rec = rec
        else:
            rec.want = wants[0] if wants else None
            r = _start(st, lambda r: world, rec)
            rec.stop(r)
        for k in range(first, len(real.decisions)):
            who, action_id, index = real.decisions[k]
            if budget[0] <= 0:
                return None
            budget[0] -= 1
            dec = r.pending
            if dec is None or dec.who != who:
                return None
            want = rec.want
            rec.want = wants[k + 1] if k + 1 < len(wants) else None     # what the decide step after this looks for
            if want is None and wants[k] is not None:   # its decide step found it: its one option, that id
                rec.decided_as_recorded()
                world.decided.append((len(world.answers), who, action_id))
                r.apply_index(0)
                rec.stop(r)
                continue
            raw = dec.raw
            secret = real.choices.get(len(world.decided))
            if secret is not None and secrets < len(world.chosen):     # as the checkpoint chose it
                action_id = world.chosen[secrets]
                secrets += 1
                if action_id not in dec.by_id:
                    return None
            elif secret is not None:        # another seat's secret choice: chosen anew
                ruled_out, share, _same = secret
                told = r.told_id(action_id)
                same = [o.id for o in dec.options if r.told_id(o.id) == told]
                left = [a for a in same if a not in ruled_out]
                if not left:
                    return None
                action_id = left[fresh.below(len(left))]
                world.weight *= len(left) / len(same) / share
                secrets += 1
                world.chosen = world.chosen + (action_id,)
            elif index < len(raw) and option_id(*raw[index]) == action_id:
                rec.decided_as_recorded()           # the option where it was in the real game: no other id written
                world.decided.append((len(world.answers), who, action_id))
                r.apply_index(index)
                rec.stop(r)
                continue
            elif action_id not in dec.by_id:
                return None
            rec.decided(r, who, action_id)
            world.decided.append((len(world.answers), who, action_id))
            r.apply(action_id)
            rec.stop(r)
    except Mismatch:
        return None
    except RuleRuntimeError:
        return None
    if rec.at != len(real.record):
        return None
    if world.weight < 1.0 and fresh.below(1 << 30) >= world.weight * (1 << 30):
        return None
    return r, world


def sample(st, seat: int, seed: int, real: Trajectory):
    """A world drawn from the posterior of ``seat``'s record (see the module docstring):
    (state at the end of the history, its chance answers); RW921 when none is found within
    the limits."""
    fresh = rngmod.Rng(seed, 6000)
    budget = [LIMITS.resample_work]
    tries = 0
    checkpoint = None
    while tries < LIMITS.resample_tries and budget[0] > 0:
        tries += 1
        world = World(real.events, real.pins, real.kept, fresh, checkpoint)
        got = replay_world(st, seat, real, fresh, budget, world, skip(real, fresh) if tries == 1 else None)
        if got is not None:
            return got
        checkpoint = world.checkpoint       # the next try goes on from the last place the game was the real one
    where = st.pending.pos if st.pending is not None else None
    raise RuleRuntimeError(f"resample: no game in {tries:,} tries ({LIMITS.resample_work - max(budget[0], 0):,} "
                           f"decisions replayed) gives seat {seat} what it was shown (limits 'resample_tries', "
                           f"'resample_work')", where, "RW921")
