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
   player): another player's cards never end up in one's deck.
3. The random generator is reseeded, so the future differs too.

Search bots (ISMCTS) plan on such samples instead of on the real state, so
they never read hidden information.

Limits: for components, the sample is consistent with what the seat sees
*now*, not with everything it saw earlier (a card it watched go into another
hand may be swapped away); hidden variables that no ``random`` step drew
(another seat's secret choice kept in a variable) keep their values; the
pending decision is kept as it is, so resample at the seat's own decisions.
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

from . import rng as rngmod
from . import types as T
from .limits import LIMITS
from .observe import observation, sees_zone, var_visible


def resample(st, seat: int, seed: int):
    keys = hidden_draws(st, seat)
    return permuted(redrawn(st, seat, seed, keys) if keys else st, seat, seed)


def permuted(st, seat: int, seed: int):
    """A copy of ``st`` with the components ``seat`` cannot see redistributed (honouring the
    facts it was told) and the generator reseeded: steps 2 and 3 of the module docstring."""
    s = st.clone()
    s.logging = False
    hidden = [z for z in st.lay.zones if not sees_zone(st, z, seat)]
    owners = {name: [a for a, t in kind.attributes.items() if t == T.PLAYER]
              for name, kind in st.game.kinds.items()}

    def group(c):
        return (c.kind,) + tuple(c.attrs.get(a) for a in owners.get(c.kind, ()))
    pools: dict = {}
    for z in hidden:
        for c in s.z[z.id]:
            pools.setdefault(group(c), []).append(c)
    r = rngmod.Rng(seed, 3000)
    for key in sorted(pools, key=repr):
        # from a canonical order: the sample depends on which components are hidden, not where
        pools[key].sort(key=lambda c: c.id)
        r.shuffle(pools[key])
    told = _told(s, seat, hidden)
    if told:
        _place_told(s, seat, hidden, pools, group, told, r)
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


def _place_told(s, seat: int, hidden, pools, group, told: dict, r) -> None:
    """Like :func:`_place`, but a place holding a component the seat was told facts about
    (a `tell` step) gets a component of the same group for which every such fact holds
    alike; the order of a zone with such places is kept (the facts are about places),
    that of the others is not.  Random choices, retried on a dead end up to
    ``limits.resample_tries`` times; then RW921.  The facts (of every seat) are about
    the components now at those places."""
    places = [(z, i, c) for z in hidden for i, c in enumerate(s.z[z.id])]
    bound = {z.id for z, _i, c in places if c.id in told}
    # the places with facts first, the most constrained first
    fixed = sorted(((z, i, c) for z, i, c in places if c.id in told),
                   key=lambda p: (sum(_fits(x, told[p[2].id]) for x in pools[group(p[2])]), p[0].id, p[1]))
    for _ in range(LIMITS.resample_tries):
        left = {key: list(pool) for key, pool in pools.items()}
        chosen = {}
        for z, i, c in fixed:
            fits = [x for x in left[group(c)] if _fits(x, told[c.id])]
            if not fits:
                break
            pick = fits[r.below(len(fits))]
            left[group(c)].remove(pick)
            chosen[(z.id, i)] = pick
        else:
            break
    else:
        raise RuleRuntimeError(f"resample: no placement in {LIMITS.resample_tries:,} tries fits what seat {seat} "
                               f"was told (limit 'resample_tries')", s.pending.pos if s.pending else None, "RW921")
    moved = {}
    for z in hidden:
        old = s.z[z.id]
        if z.id in bound:
            new = []
            for i, c in enumerate(old):
                pick = chosen.get((z.id, i))
                if pick is None:
                    pick = left[group(c)].pop()
                new.append(pick)
        else:
            new = [left[group(c)].pop() for c in old]
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


def _replay(st, seat: int, keys, fresh, expect):
    """The game of ``st`` played again from its seed with its decisions, the draws in ``keys``
    answered by ``fresh``; returns (state, [seat's observation at the start and after each
    decision]), or None as soon as it differs from ``expect`` or a decision is not legal."""
    start = st.game.replay_start
    if start is None:
        return None
    try:
        r = start(st.lay, st.seed, False, lambda new: _Redraw(new, keys, fresh))
        seen = [observation(r, seat)]
        if expect is not None and seen[0] != expect[0]:
            return None
        for i, (_who, opt) in enumerate(st._history, 1):
            if r.pending is None or opt.id not in r.pending.by_id:
                return None
            r.apply(opt.id)
            seen.append(observation(r, seat))
            if expect is not None and seen[i] != expect[i]:
                return None
    except RuleRuntimeError:
        if expect is None:
            raise
        return None
    r.chance = None
    return r, seen


def _same(a, b) -> bool:
    return (a.v == b.v and a.rng == b.rng and a.status == b.status and
            [[c.id for c in z] for z in a.z] == [[c.id for c in z] for z in b.z])


#: the real game's replays (the seat's observations at every decision), for repeated resamples
#: of one state (a search resamples the same state many times)
_TRAJECTORIES: dict = {}


def redrawn(st, seat: int, seed: int, keys):
    """A replay of ``st``'s game in which the drawn values in ``keys`` are drawn anew and
    ``seat`` sees what it saw at every decision (see the module docstring)."""
    where = st.pending.pos if st.pending is not None else None
    key = (id(st.game), id(st.lay), st.seed, seat, st.rng, tuple(st.v), tuple(opt.id for _who, opt in st._history))
    real = _TRAJECTORIES.get(key)
    if real is None:
        try:
            real = _replay(st, seat, frozenset(), None, None)
        except RuleRuntimeError:
            real = None
        if real is not None and _same(real[0], st):
            if len(_TRAJECTORIES) >= 64:
                _TRAJECTORIES.clear()
            _TRAJECTORIES[key] = real
    if real is None or not _same(real[0], st):
        raise RuleRuntimeError(f"resample: this state is not what its seed and decisions give (its start was "
                               f"edited), so the values hidden from seat {seat} cannot be drawn anew", where,
                               "RW922")
    fresh = rngmod.Rng(seed, 6000)
    for _ in range(LIMITS.resample_tries):
        got = _replay(st, seat, keys, fresh, real[1])
        if got is not None:
            r = got[0]
            r.log = list(st.log)
            r.logging = st.logging
            r.forced = list(st.forced)
            return r
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
        zid = st.where[cid]
        part = parts.get(zid)
        if f_seat != seat or part is None or sees_zone(st, st.lay.zones[zid], seat):
            continue
        at = st.z[zid].index(st.lay.components[cid])
        j = col.get((attr, format_value(value)))
        if at < part.shape[0] and j is not None:
            out[part.name][at, j] = 1.0 if holds == equal else -1.0
    return out
