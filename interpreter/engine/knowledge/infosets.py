"""Information states: what a seat knows, as text and as arrays.

What a seat knows is its record (engine/knowledge/: every event it was shown, in order), and
``State.resample`` draws from the worlds that give it the same record.  Here: the decisions as
the seat knows them, the information-state string (its observation and those decisions) and the
information-state tensor (its observation tensor, a summary of the decisions it knows of, and the
facts it was told about places).
"""
from __future__ import annotations

from .observe import sees_zone


def recall_notes(st, seat: int) -> list:
    """Where resample follows less than ``seat`` could tell from the rules: nowhere since issue 36
    (a world is replayed and checked against the seat's whole record), so always []."""
    return []


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
    from ..run.spaces import space_of
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
    from ..run.values import format_value
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
    from ..run.spaces import space_of
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
    from ..run.values import format_value
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
