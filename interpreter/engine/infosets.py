"""Information sets: states a seat cannot tell apart from the real one.

``resample(state, seat, seed)`` returns a copy in which every component the
seat cannot see (in zones hidden from it: other hands, decks, bags) is
redistributed at random among those hidden zones — each hidden zone keeps
how many components of each kind it holds, so the seat's observation is the
same — and whose random generator is reseeded, so the future differs too.
A component changes places only with one of its kind that belongs to the
same seat (equal attributes of type player): another player's cards never
end up in one's deck.
Search bots (ISMCTS) plan on such samples instead of on the real state, so
they never read hidden information.

Limits: the sample is consistent with what the seat sees *now*, not with
everything it saw earlier (a card it watched go into another hand may be
swapped away); hidden variables keep their values; the pending decision is
kept as it is, so resample at the seat's own decisions.
"""
from __future__ import annotations

from . import rng as rngmod
from . import types as T
from .observe import sees_zone


def resample(st, seat: int, seed: int):
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
    s.rng = rngmod.seed_state(seed, 4000)
    s.forget_all()
    return s


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
    ])


def information_state_tensor(st, seat: int) -> dict:
    """What ``seat`` sees now (the observation tensor) and the decisions it knows
    of, in fixed shapes: ``history:counts`` — per seat, how often it took each
    action id of the layout's action space (another seat's secret choice counts
    in the last column, ``secret``, its parameters unknown); ``history:last`` —
    per seat, its last known decision, one-hot.  A summary of the history, not
    its order: enough for the shipped games, whose boards show the rest."""
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
    return out
