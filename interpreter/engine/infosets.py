"""Information sets: states a seat cannot tell from the real one.

``resample(state, seat, seed)`` returns a copy the seat cannot tell from the
real one:

1. **Values drawn by chance that the seat does not see are drawn anew.**  A
   ``random`` step that draws into a variable some seat may not see (``random:
   "die[p] in 1..6"``, or a local copied unchanged into it: ``set: "die[p] =
   r"``) records where the generator stood (``State.drawn``, provenance
   inferred by the compiler; a value *computed* from a drawn one is RW260 at
   validation).  The game is replayed from its seed and decisions with those
   draws answered afresh, and the replay is kept only if the seat saw exactly
   what it saw in the real game at the start and after every decision (its
   observation, which shows what was revealed to it, and its legal actions) —
   perfect recall for drawn values — and every decision of the history is
   legal again.  At most ``limits.resample_tries`` replays; if none fits, a
   located error (RW921).  A state that its seed and decisions do not give
   back (a scenario's edited start) cannot be replayed: RW922.
2. **Components the seat cannot see** (in zones hidden from it: other
   hands, decks, bags) are redistributed at random among those hidden zones —
   each hidden zone keeps how many components of each kind it holds, so the
   seat's observation is the same.  A component changes places only with one
   of its kind that belongs to the same seat (equal attributes of type
   player): another player's cards never end up in one's deck.  **Perfect
   recall:** a replay of the game (cached; from a scenario's edited start,
   ``State.origin``, when there is one) gives what the seat saw at every stop
   (:class:`Recall`): each component stays among the hidden zones it may be in
   — a card the seat watched go into another's hidden hand stays there, or,
   once that player put a card away unseen, there or where that card went —
   and one whose place in a hidden deck the seat knows (it saw it put under the
   deck, or the whole deck revealed, and the deck was not shuffled since) stays
   at that place; one it knew at the top of a deck that another seat then drew
   from unseen is where the draw took it.  Where this follows less than the
   rules tell, :func:`recall_notes` says so.  Facts a `tell` step told the
   seat hold at their places.
3. The random generator is reseeded, so the future differs too.

Search bots (ISMCTS) plan on such samples instead of on the real state, so
they never read hidden information.

Another seat's secret choice kept in a hidden variable (``GameDef.secret_kept``)
is chosen anew in the replay of step 1: uniformly among the options legal then
that the seat is told the same of.

Limits: a hidden value computed from hidden components is kept as it is
(validation warns: RW263); the pending decision is kept as it is, so
resample at the seat's own decisions.  A state with decisions whose seed and
decisions do not give it back (edited, not by a scenario's start) cannot be
replayed: RW922.
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

from . import rng as rngmod
from . import types as T
from .limits import LIMITS
from .observe import observation, sees_zone, var_visible
from .recall import Recall, Recalls


def resample(st, seat: int, seed: int):
    keys = hidden_draws(st, seat)
    secrets = secret_choices(st, seat)
    if keys or secrets:
        r, memory = redrawn(st, seat, seed, keys, secrets)
        return permuted(r, seat, seed, memory)
    return permuted(st, seat, seed, recalled(st, seat) if needs_recall(st, seat) else None)


def secret_choices(st, seat: int) -> frozenset:
    """The places in the history (0 = the first decision) of the decisions of other seats
    whose secret parameters ``seat`` was not told and an action keeps in a variable that may
    be hidden (``GameDef.secret_kept``): ``resample`` chooses them anew."""
    kept = st.game.secret_kept
    if not kept:
        return frozenset()
    return frozenset(i for i, (who, opt) in enumerate(st._history)
                     if who != seat and who is not None and opt.id.partition("(")[0] in kept)


def needs_recall(st, seat: int) -> bool:
    """Whether what ``seat`` remembers can matter to a resample: some kind of component it
    cannot see lies in two or more zones hidden from it, or a deck hidden from it holds two
    or more (else redistributing them moves nothing)."""
    zones: dict = {}
    for z in st.lay.zones:
        if st.z[z.id] and not sees_zone(st, z, seat):
            if z.type == "deck" and len(st.z[z.id]) > 1:
                return True
            for c in st.z[z.id]:
                got = zones.setdefault(c.kind, z.id)
                if got != z.id:
                    return True
    return False


def recalled(st, seat: int):
    """``Recall.memory()`` of ``seat`` in the game of ``st``, from a replay of its decisions
    (cached with the replay), or None when the game has no decision yet (a scenario's edited
    start: the seat knows what it sees).  A state with decisions that its seed and decisions
    do not give back: RW922."""
    if not st._history:
        return None
    return _trajectory(st, seat)[2]


def recall_notes(st, seat: int) -> list:
    """Where what ``seat`` remembers of the components (:class:`Recall`) is looser than
    what it could tell from the rules, in the game of ``st``: ``[(decision, zone, why)]``
    — after that many decisions (0: the start), at that zone; a resample may then put
    there a component the seat could rule out (never one it saw elsewhere).  [] when
    nothing was loose, or when the game has no decision yet."""
    if not st._history or not needs_recall(st, seat):
        return []
    return list(_trajectory(st, seat)[2][2])


def permuted(st, seat: int, seed: int, memory=None):
    """A copy of ``st`` with the components ``seat`` cannot see redistributed (honouring the
    facts it was told and, given ``memory`` (``Recall.memory()``), what it remembers: each
    component stays among the zones it may be in, one whose place in a deck it knows stays
    there) and the generator reseeded: steps 2 and 3 of the module docstring."""
    s = st.clone()
    s.logging = False
    hidden = [z for z in st.lay.zones if not sees_zone(st, z, seat)]
    places, ordered = memory[:2] if memory is not None else (None, ())
    keep = frozenset(c.id for z in hidden if z.type == "deck" for c in s.z[z.id] if c.id in ordered)
    owners = {name: [a for a, t in kind.attributes.items() if t == T.PLAYER]
              for name, kind in st.game.kinds.items()}

    def group(c):
        return (c.kind,) + tuple(c.attrs.get(a) for a in owners.get(c.kind, ()))
    pools: dict = {}
    for z in hidden:
        for c in s.z[z.id]:
            if c.id not in keep:
                pools.setdefault(group(c), []).append(c)
    r = rngmod.Rng(seed, 3000)
    for key in sorted(pools, key=repr):
        # from a canonical order: the sample depends on which components are hidden, not where
        pools[key].sort(key=lambda c: c.id)
        r.shuffle(pools[key])
    told = _told(s, seat, hidden)
    allowed = _allowed(s, hidden, pools, places)
    if told or allowed or keep:
        _place_told(s, seat, hidden, pools, group, told, r, allowed, keep)
    else:
        _place(s, hidden, pools, group, r)
    s.rng = rngmod.seed_state(seed, 4000)
    s.forget_all()
    return s


def _place(s, hidden, pools, group, r) -> None:
    """Each hidden zone takes as many of each group as it held, in a random order."""
    taken = {key: 0 for key in pools}
    for z in hidden:
        counts: dict = {}
        for c in s.z[z.id]:
            key = group(c)
            counts[key] = counts.get(key, 0) + 1
        new = []
        for key in sorted(counts, key=repr):
            new.extend(pools[key][taken[key]:taken[key] + counts[key]])
            taken[key] += counts[key]
        r.shuffle(new)              # the order inside a hidden zone is unknown too
        for c in new:
            s.where[c.id] = z.id
        s.z[z.id] = new


def _told(s, seat: int, hidden) -> dict:
    """The facts told to ``seat`` about components in ``hidden`` zones: {component id: [fact]}."""
    ids = {c.id for z in hidden for c in s.z[z.id]}
    out: dict = {}
    for fact in s.facts:
        if fact[0] == seat and fact[1] in ids:
            out.setdefault(fact[1], []).append(fact)
    return out


def _fits(c, facts) -> bool:
    return all(((c.attrs.get(attr) == value) == equal) == holds
               for _seat, _cid, attr, value, equal, holds in facts)


def _allowed(s, hidden, pools, places) -> dict:
    """{component id: the ids of the hidden zones it may go to} for the pooled components that
    ``places`` (``Recall.places``) keep out of some hidden zone holding their group; {} when
    it keeps none out (or is None)."""
    if places is None:
        return {}
    hidden_ids = frozenset(z.id for z in hidden)
    out = {}
    for pool in pools.values():
        holding = {s.where[c.id] for c in pool}
        if len(holding) < 2:
            continue
        for c in pool:
            mine = places[c.id] & hidden_ids
            if not holding <= mine:
                out[c.id] = mine
    return out


def _place_told(s, seat: int, hidden, pools, group, told: dict, r, allowed=None, keep=frozenset()) -> None:
    """Like :func:`_place`, but a place holding a component the seat was told facts about
    (a `tell` step) gets a component of the same group for which every such fact holds
    alike, a component that ``allowed`` names goes only to one of the zones it gives
    (what the seat remembers, :class:`Recall`), and one in ``keep`` stays where it is (not
    in ``pools``); the order of a zone with such places is kept (the facts are about
    places), that of the others is not.  Random choices, retried on a dead end up to
    ``limits.resample_tries`` times; then RW921.  The facts (of every seat) are about the
    components now at those places."""
    allowed = allowed or {}
    places = [(z, i, c) for z in hidden for i, c in enumerate(s.z[z.id]) if c.id not in keep]
    bound = {z.id for z, _i, c in places if c.id in told} | {s.where[cid] for cid in keep}

    def may(x, zid) -> bool:
        mine = allowed.get(x.id)
        return mine is None or zid in mine
    # the places with facts first, the most constrained first
    fixed = sorted(((z, i, c) for z, i, c in places if c.id in told),
                   key=lambda p: (sum(_fits(x, told[p[2].id]) and may(x, p[0].id) for x in pools[group(p[2])]),
                                  p[0].id, p[1]))
    # how many of each group each zone holds, outside the places with facts
    need: dict = {}
    for z, i, c in places:
        if c.id not in told:
            per = need.setdefault(group(c), {})
            per[z.id] = per.get(z.id, 0) + 1
    for _ in range(LIMITS.resample_tries):
        chosen = _try_place(fixed, pools, group, told, need, allowed, may, r)
        if chosen is not None:
            break
    else:
        raise RuleRuntimeError(f"resample: no placement in {LIMITS.resample_tries:,} tries fits what seat {seat} "
                               f"was told and saw (limit 'resample_tries')", s.pending.pos if s.pending else None,
                               "RW921")
    fact_picks, members = chosen
    moved = {}
    for z in hidden:
        old = s.z[z.id]
        mine = members.get(z.id, {})
        if z.id in bound:
            new = []
            for i, c in enumerate(old):
                pick = c if c.id in keep else fact_picks.get((z.id, i))
                if pick is None:
                    pick = mine[group(c)].pop()
                new.append(pick)
        else:
            new = [mine[group(c)].pop() for c in old]
            r.shuffle(new)
        for c_old, c_new in zip(old, new):
            moved[c_old.id] = c_new
        s.z[z.id] = new
    for z in hidden:
        for c in s.z[z.id]:
            s.where[c.id] = z.id
    facts = []
    for f_seat, cid, attr, value, equal, holds in s.facts:
        new = moved.get(cid)
        if new is None:
            facts.append((f_seat, cid, attr, value, equal, holds))
        else:                   # the fact is about the component now at that place
            facts.append((f_seat, new.id, attr, value, equal, (new.attrs.get(attr) == value) == equal))
    s.facts = tuple(facts)


def _try_place(fixed, pools, group, told, need, allowed, may, r):
    """One random try of :func:`_place_told`: ({(zone id, place): component} for the places
    with facts, {zone id: {group: [components]}} for the rest), or None at a dead end."""
    left = {key: list(pool) for key, pool in pools.items()}
    fact_picks = {}
    for z, i, c in fixed:
        key = group(c)
        fits = [x for x in left[key] if _fits(x, told[c.id]) and may(x, z.id)]
        if not fits:
            return None
        pick = fits[r.below(len(fits))]
        left[key].remove(pick)
        fact_picks[(z.id, i)] = pick
    members: dict = {}
    for key in sorted(need, key=repr):
        room = dict(need[key])
        # the most constrained components first; each to one of its zones, as likely as the room left there
        todo = sorted(left[key], key=lambda x: len(allowed[x.id]) if x.id in allowed else 1 << 30)
        for x in todo:
            mine = allowed.get(x.id)
            zones = sorted(zid for zid, n in room.items() if n and (mine is None or zid in mine))
            total = sum(room[zid] for zid in zones)
            if not total:
                return None
            k = r.below(total)
            for zid in zones:
                k -= room[zid]
                if k < 0:
                    break
            room[zid] -= 1
            members.setdefault(zid, {}).setdefault(key, []).append(x)
    return fact_picks, members


def hidden_draws(st, seat: int) -> frozenset:
    """Where the generator stood for each drawn value (``State.drawn``) ``seat`` does not see now."""
    if not st.drawn:
        return frozenset()
    owner = {}
    game = st.game
    for var in game.scalar_vars:
        owner[var.offset] = (var, None)
    for var in game.family_vars:
        for key, at in st.lay.vkeys[var.family_id].items():
            owner[at] = (var, key)
    return frozenset(key for slot, key in st.drawn.items()
                     if seat not in st.value_revealed_to(slot) and not var_visible(st, *owner[slot], seat))


def chosen_anew(r, action_id: str, fresh) -> str:
    """Another seat's decision ``action_id`` chosen anew in the replayed state ``r``:
    uniformly among the options legal there that the other seats are told the same of."""
    told = r.told_id(action_id)
    same = [o.id for o in r.pending.options if r.told_id(o.id) == told]
    return same[fresh.below(len(same))] if same else action_id


class _Redraw:
    """``State.chance`` of a replay: the numbers the game's generator gives, except for the
    draws in ``keys`` (where the generator stood), which ``fresh`` answers."""

    __slots__ = ("st", "keys", "fresh")

    def __init__(self, st, keys, fresh):
        self.st, self.keys, self.fresh = st, keys, fresh

    def __call__(self, n: int) -> int:
        st = self.st
        key = st.rng
        value, st.rng = rngmod.below(key, n)
        if key in self.keys:
            return self.fresh.below(n)
        return value


def _replay(st, seat: int, keys, fresh, expect, recall: bool = False, secrets=frozenset()):
    """The game of ``st`` played again from its seed with its decisions, the draws in ``keys``
    answered by ``fresh``; returns (state, [seat's observation at the start and after each
    decision], ``Recall.memory()`` of the seat at the end when ``recall``, else None), or None
    as soon as it differs from ``expect`` or a decision is not legal."""
    got = _replay_from(st, seat, keys, fresh, expect, Recall if recall else None, True, None, secrets)
    return None if got is None else (got[0], got[1], got[2].memory() if got[2] is not None else None)


def _replay_from(st, seat: int, keys, fresh, expect, recall, observe: bool, base, secrets=frozenset()):
    """:func:`_replay` (the observations only when ``observe`` or ``expect``; its ``Recall``
    itself, given the class as ``recall``), going on from ``base`` — (a replayed state, its
    observations or None, its Recall, how many decisions it took) of a prefix of the history
    of ``st`` — when given (without keys: the real game).  Returns (state, observations,
    Recall, decisions taken)."""
    start = st.game.replay_start
    if start is None:
        return None
    observe = observe or expect is not None
    try:
        if base is not None:
            r = base[0].clone()
            r.logging = False
            seen = list(base[1]) if observe else None
            memory = base[2].copy() if base[2] is not None else None
            done = base[3]
            if memory is not None:
                r.shuffles = []         # which decks were shuffled: what the recall follows
        else:
            if st.origin is not None:           # an edited start (a scenario's): the game from there
                if keys:
                    return None
                r = st.origin.clone()
                r.logging = False
            else:
                r = start(st.lay, st.seed, False, lambda new: _Redraw(_followed(new, recall), keys, fresh))
            seen = [observation(r, seat)] if observe else None
            if expect is not None and seen[0] != expect[0]:
                return None
            memory = (recall(st.lay, seat, r if st.origin is not None else None)) if recall else None
            if memory is not None:
                if r.shuffles is None:
                    r.shuffles = []
                memory.step(r)
            done = 0
        for i in range(done + 1, len(st._history) + 1):
            opt = st._history[i - 1][1]
            if r.pending is None:
                return None
            if i - 1 in secrets:            # another seat's secret choice: chosen anew
                r.apply(chosen_anew(r, opt.id, fresh))
            elif opt.id in r.pending.by_id:
                r.apply(opt.id)
            else:
                return None
            if observe:
                seen.append(observation(r, seat))
                if expect is not None and seen[i] != expect[i]:
                    return None
            if memory is not None:
                memory.step(r)
    except RuleRuntimeError:
        if expect is None:
            raise
        return None
    r.chance = None
    return r, seen, memory, len(st._history)


def _followed(st, recall):
    """``st``, logging the decks shuffled (``State.shuffles``) when a ``recall`` follows it."""
    if recall:
        st.shuffles = []
    return st


def _same(a, b) -> bool:
    return (a.v == b.v and a.rng == b.rng and a.status == b.status and
            [[c.id for c in z] for z in a.z] == [[c.id for c in z] for z in b.z])


#: the real game's replays (the seat's observations at every decision and what it remembers
#: of the components), for repeated resamples of one state (a search resamples one state many times)
_TRAJECTORIES: dict = {}


#: the last replay of the real game per game, seed and seat (a check or a bot resamples along
#: one game: the next replay goes on from there)
_PREFIXES: dict = {}


def _trajectory(st, seat: int, observe: bool = False):
    """The replay of the real game of ``st`` (see :func:`_replay`: the seat's observations
    at every stop (None unless ``observe``), its ``Recall.memory()``), cached; RW922 when its
    seed and decisions do not give ``st`` back."""
    history = tuple(opt.id for _who, opt in st._history)
    key = (id(st.game), id(st.lay), st.seed, seat, st.rng, tuple(st.v), history)
    real = _TRAJECTORIES.get(key)
    if real is not None and observe and real[1] is None:
        real = None
    if real is None:
        # observing: one seat's replay; else one replay remembers for every seat
        game_key = (id(st.game), id(st.lay), st.seed, seat if observe else None, id(st.origin))
        base = _PREFIXES.get(game_key)
        if base is not None and (len(base[0]) > len(history) or history[:len(base[0])] != base[0]):
            base = None
        try:
            got = _replay_from(st, seat, frozenset(), None, None, Recall if observe else Recalls, observe,
                               base[1] if base is not None else None)
        except RuleRuntimeError:
            got = None
        if got is not None and _same(got[0], st):
            real = (got[0], got[1], got[2].memory() if observe else got[2].of[seat].memory())
            if len(_TRAJECTORIES) >= 64:
                _TRAJECTORIES.clear()
            _TRAJECTORIES[key] = real
            if len(_PREFIXES) >= 64:
                _PREFIXES.clear()
            _PREFIXES[game_key] = (history, got)
    if real is None:
        raise RuleRuntimeError(f"resample: this state is not what its seed and decisions give (its start was "
                               f"edited), so what seat {seat} saw since the start cannot be replayed: the values "
                               f"and places hidden from it cannot be drawn anew",
                               st.pending.pos if st.pending is not None else None, "RW922")
    return real


def redrawn(st, seat: int, seed: int, keys, secrets=frozenset()):
    """A replay of ``st``'s game in which the drawn values in ``keys`` are drawn anew and
    ``seat`` sees what it saw at every decision (see the module docstring), and what the
    seat remembers of the components in it (``Recall.memory()``, or None when nothing of it
    can matter)."""
    where = st.pending.pos if st.pending is not None else None
    if st.origin is not None and keys:
        raise RuleRuntimeError(f"resample: this state began at an edited start (a scenario's), so the values "
                               f"hidden from seat {seat} that chance drew cannot be drawn anew", where, "RW922")
    real = _trajectory(st, seat, True)
    fresh = rngmod.Rng(seed, 6000)
    recall = needs_recall(st, seat)
    for _ in range(LIMITS.resample_tries):
        got = _replay(st, seat, keys, fresh, real[1], recall, secrets)
        if got is not None:
            r = got[0]
            r.log = list(st.log)
            r.logging = st.logging
            r.forced = list(st.forced)
            return r, got[2]
    raise RuleRuntimeError(f"resample: no game in {LIMITS.resample_tries:,} tries draws the values hidden from "
                           f"seat {seat} so that it sees what it saw (limit 'resample_tries')", where, "RW921")


def history_for(st, seat: int) -> list:
    """The decisions so far as ``seat`` knows them: ``State.history_for`` — another
    seat's secret parameters (``secret:`` on the action or its default, see
    docs/language.md) as ``…``, a ``display: secret`` action as ``name(…)``."""
    return st.history_for(seat)       # GameDef.redact already holds the display: secret actions


def information_state_string(st, seat: int) -> str:
    """What ``seat`` sees now and the decisions it knows of, as text."""
    lines = [st.observation_string(seat), "history:"]
    lines += [f"{who}: {a}" for who, a in history_for(st, seat)]
    return "\n".join(lines)


def information_state_spec(game, lay):
    """The observation spec and two history parts (see :func:`information_state_tensor`)."""
    from .spaces import space_of
    from .tensors import ObservationSpec, _Part, observation_spec
    obs = observation_spec(game, lay)
    space = space_of(game, lay)
    cols = list(space.ids) + ["secret"]
    seats = [str(s) for s in lay.seats]
    return ObservationSpec(list(obs.parts) + [
        _Part("history:counts", (lay.num_seats, len(cols)), "history", None, cols, seats),
        _Part("history:last", (lay.num_seats, len(cols)), "history", None, cols, seats),
    ] + _fact_parts(game, lay))


def _fact_columns(game, lay) -> list:
    """(attribute, value as text) of every value a component of the layout has for an
    attribute some `tell` step tells facts about, in a stable order."""
    from .values import format_value
    cols = {(a, format_value(c.attrs[a])) for c in lay.components for a in game.tell_attrs if a in c.attrs}
    return sorted(cols)


def _fact_parts(game, lay) -> list:
    """``facts:ZONE`` for each zone a seat may not see, when the rulebook tells facts: one row
    per place (1 = first, as many as the zone can hold), one column per attribute value;
    +1: the seat was told the component there has it, -1: that it has not, 0: nothing told."""
    if not game.tell_attrs:
        return []
    from .tensors import _Part
    cols = _fact_columns(game, lay)
    names = [f"{a}={v}" for a, v in cols]
    parts = []
    for zone in lay.zones:
        fam = game.zones.get(zone.family)
        if fam is None or fam.visible_const is True:
            continue
        cap = sum(1 for c in lay.components if not zone.holds or c.kind in zone.holds)
        if isinstance(zone.capacity, int):
            cap = min(cap, zone.capacity)
        if cap:
            parts.append(_Part(f"facts:{zone.name}", (cap, len(cols)), "facts", zone, names,
                               [str(i + 1) for i in range(cap)]))
    return parts


def information_state_tensor(st, seat: int) -> dict:
    """What ``seat`` sees now (the observation tensor) and the decisions it knows
    of, in fixed shapes: ``history:counts`` — per seat, how often it took each
    action id of the layout's action space (another seat's secret choice counts
    in the last column, ``secret``, its parameters unknown); ``history:last`` —
    per seat, its last known decision, one-hot.  A summary of the history, not
    its order: enough for the shipped games, whose boards show the rest.  In a
    rulebook with `tell` steps also ``facts:ZONE`` per zone it may not see: what it
    was told about the component at each place (+1 has, -1 has not, 0 not told)."""
    from .spaces import space_of
    from .tensors import _np
    np = _np()
    out = dict(st.observation_tensor(seat))
    space = space_of(st.game, st.lay)
    width = len(space) + 1
    counts = np.zeros((st.lay.num_seats, width), np.float32)
    last = np.zeros((st.lay.num_seats, width), np.float32)
    for who, action in history_for(st, seat):
        if who is None or not 0 <= who < st.lay.num_seats:
            continue
        col = space.index.get(action, width - 1)
        counts[who, col] += 1
        last[who].fill(0)
        last[who, col] = 1
    out["history:counts"] = counts
    out["history:last"] = last
    if st.game.tell_attrs:
        out.update(_fact_tensors(st, seat, np))
    return out


def _fact_tensors(st, seat: int, np) -> dict:
    """The ``facts:ZONE`` arrays of ``seat`` (see :func:`_fact_parts`)."""
    from .values import format_value
    parts = {p.ref.id: p for p in _fact_parts(st.game, st.lay)}
    col = {key: i for i, key in enumerate(_fact_columns(st.game, st.lay))}
    out = {p.name: np.zeros(p.shape, np.float32) for p in parts.values()}
    for f_seat, cid, attr, value, equal, holds in st.facts:
        if cid < 0:                     # a condition told: in the information-state string, not here
            continue
        zid = st.where[cid]
        part = parts.get(zid)
        if f_seat != seat or part is None or sees_zone(st, st.lay.zones[zid], seat):
            continue
        at = st.z[zid].index(st.lay.components[cid])
        j = col.get((attr, format_value(value)))
        if at < part.shape[0] and j is not None:
            out[part.name][at, j] = 1.0 if holds == equal else -1.0
    return out
