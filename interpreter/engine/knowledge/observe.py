"""What one player may see of a state.

A zone's ``visible`` decides whether its contents are shown to a viewer; a
hidden zone shows only how many components it holds, unless a ``reveal`` step
showed it to the viewer and its contents have not changed since.  Variables follow the
same rule (a ``reveal`` of a variable shows its values until they change).  What `tell` steps told the viewer about components it cannot see
shows as ``facts`` (only when there are some).  The decision history is shown as the viewer may know it (another
seat's secret parameters as ``…``); the random generator and the stack never are.
"""
from __future__ import annotations

from ..compile import types as T
from ..run.values import format_value, plain


def _plain(value):
    return plain(value, format_value)   # observations are JSON: keys as text


def zone_visible(st, zone, viewer) -> bool:
    if zone.family == "box":
        return True
    fam = st.game.zones[zone.family]
    if fam.visible_const is not None:
        return fam.visible_const
    L = [None] * max(fam.nslots, 1)
    for spec, value in zip(fam.index, zone.index_values):
        L[spec.slot] = value
    L[fam.viewer_slot] = viewer
    return bool(fam.visible(st, L))


def sees_zone(st, zone, viewer) -> bool:
    """Whether ``viewer`` sees what ``zone`` holds: its ``visible`` rule, or a
    ``reveal`` step showed it to the viewer and it has not changed since.  ``None``,
    an onlooker, sees what every seat sees (never more than any seat)."""
    if viewer is None:
        return all(sees_zone(st, zone, seat) for seat in st.lay.seats)
    return zone_visible(st, zone, viewer) or viewer in st.revealed_to(zone)


def var_visible(st, var, key, viewer) -> bool:
    """Whether ``viewer`` sees the variable ``var`` (its element ``key``) by its ``visible``
    rule; ``None``, an onlooker, when every seat does."""
    if var.visible_const is not None:
        return var.visible_const
    if viewer is None:
        return all(var_visible(st, var, key, seat) for seat in st.lay.seats)
    L = [None] * max(var.nslots, 1)
    values = key if isinstance(key, tuple) and len(var.index) > 1 else (key,)
    for spec, value in zip(var.index, values):
        L[spec.slot] = value
    L[var.viewer_slot] = viewer
    return bool(var.visible(st, L))


def observation(st, viewer: int | None, history: bool = True) -> dict:
    """The state as seat ``viewer`` sees it (``None``: an onlooker); ``history=False`` leaves the
    decisions so far out (``"history"`` is then empty: a board drawn for a seat does not need them)."""
    return observations(st, (viewer,), history)[viewer]


def observations(st, viewers, history: bool = True) -> dict:
    """:func:`observation` of each of ``viewers`` (seats, ``None`` an onlooker), ``{viewer: dict}``,
    made together: what every seat sees by the rules (a zone or variable whose `visible:` shows it
    to all, the grids) is read from the state once, and the dicts share those parts — read them, do
    not change them.  Each dict is equal to ``observation(st, viewer, history)``, keys in the same order."""
    z = st.z
    known = st.known
    seats = st.lay.seats
    zones = {}                          # every zone in order: what all see, or None where each viewer is asked
    asked_zones = []
    for zone, const in st.lay.zone_sight or zone_sight(st):
        if const is True:               # (most zones, many of them empty: the cheapest path first)
            contents = z[zone.id]
            zones[zone.name] = [c.label for c in contents] if contents else []
        else:
            zones[zone.name] = None
            asked_zones.append((zone, const))
    game = st.game
    v = st.v
    variables = {}                      # every variable in order: its value for all, or None where asked
    asked_vars = []
    for var in game.scalar_vars:
        variables[var.name] = _plain(v[var.offset]) if var.visible_const is True else None
        if var.visible_const is not True:
            asked_vars.append((var, None))
    for var in game.family_vars:
        keys = st.lay.vkeys[var.family_id]
        if var.visible_const is True:   # (seen by every seat: no rule to ask per element)
            shown = {format_value(key): _plain(v[at]) for key, at in keys.items()}
            if shown:
                variables[var.name] = shown
        else:
            variables[var.name] = None
            asked_vars.append((var, keys))
    cells = grid_cells(st) if st.lay.grids else None
    seat_names = st.lay.seat_names
    one = len(viewers) == 1
    out = {}
    for viewer in viewers:
        mine = zones if one else dict(zones)
        for zone, const in asked_zones:
            contents = z[zone.id]
            if const is None:
                seen = sees_zone(st, zone, viewer)
            else:                       # (sees_zone: only a `reveal` shows it)
                told = known.get(zone.id, ()) if known else ()
                seen = viewer in told if viewer is not None else all(seat in told for seat in seats)
            if not seen:
                mine[zone.name] = {"count": len(contents)}
            else:
                mine[zone.name] = [c.label for c in contents] if contents else []
        shown_vars = variables if one else dict(variables)
        for var, keys in asked_vars:
            shown = _var_shown(st, var, keys, viewer)
            if shown is _HIDDEN:
                del shown_vars[var.name]
            else:
                shown_vars[var.name] = shown
        decision = None
        if st.pending is not None:
            decision = {"player": st.pending.who}
            if st.pending.group is not None:
                decision["simultaneous"] = st.pending.group
            if viewer == st.pending.who:
                decision["legal_actions"] = [o.id for o in st.pending.options]
        facts = told_facts(st, viewer) if st.facts else None
        out[viewer] = {
            "game": game.name,
            "viewer": viewer,
            "seats": list(seat_names),
            "status": st.status,
            "decision": decision,
            "variables": shown_vars,
            "zones": mine,
            # every decision so far as the viewer knows it: [seat, action id], others' secret parameters as …
            "history": [[who, action_id] for who, action_id in st.history_for(viewer)] if history else [],
            **({"facts": facts} if facts else {}),
            **({"cells": cells} if cells is not None else {}),
        }
    return out


_HIDDEN = object()


def _var_shown(st, var, keys, viewer):
    """What ``viewer`` is shown of the variable ``var`` (``keys``: a family's element slots, None
    for a single value): its value, the elements it sees as ``{key text: value}``, or ``_HIDDEN``."""
    known = st.known
    v = st.v
    if keys is None:
        if var_visible(st, var, None, viewer) or (known and _told_value(known, -1 - var.offset, viewer, st)):
            return _plain(v[var.offset])
        return _HIDDEN
    shown = {}
    for key, at in keys.items():
        if var_visible(st, var, key, viewer) or (known and _told_value(known, -1 - at, viewer, st)):
            shown[format_value(key)] = _plain(v[at])
    return shown if shown else _HIDDEN


def observed_variable(st, name: str, viewer: int | None):
    """``observation(st, viewer)["variables"].get(name)`` without the rest of the observation: the
    value of the variable ``name`` as ``viewer`` is shown it (a family: ``{key: value}`` of the
    elements it sees), None where it is shown nothing (or no variable has that name)."""
    game = st.game
    for var in game.scalar_vars:
        if var.name == name:
            shown = _var_shown(st, var, None, viewer)
            return None if shown is _HIDDEN else shown
    for var in game.family_vars:
        if var.name == name:
            shown = _var_shown(st, var, st.lay.vkeys[var.family_id], viewer)
            return None if shown is _HIDDEN else shown
    return None


def zone_sight(st) -> list:
    """``Layout.zone_sight``: per zone, (zone, True when its rule shows it to every seat always,
    False when to none, None when its `visible:` rule decides), made once per layout."""
    lay = st.lay
    if lay.zone_sight is None:
        fams = st.game.zones
        lay.zone_sight = [(zone, True if zone.family == "box" else fams[zone.family].visible_const)
                          for zone in lay.zones]
    return lay.zone_sight


def _told_value(known, key, viewer, st) -> bool:
    seats = known.get(key, ())
    if viewer is None:
        return bool(seats) and all(seat in seats for seat in st.lay.seats)
    return viewer in seats


def grid_cells(st) -> dict:
    """What covers every cell of every grid zone (`cells:`; a grid is seen by everyone):
    ``{zone: {cell: [piece label, part] or None}}``."""
    out = {}
    v = st.v
    zones = st.lay.zones
    for zid, grid in st.lay.grids.items():
        shown = {}
        for cell, at in grid.items():
            held = v[at]
            shown[format_value(cell)] = None if held is None else [held[0].label, held[1]]
        out[zones[zid].name] = shown
    return out


def told_facts(st, viewer) -> list:
    """What `tell` steps told ``viewer`` about components it cannot see now, as
    ``[zone, position (1 = first), "color == blue", holds]``, in the order told."""
    out = []
    for seat, cid, attr, value, equal, holds in st.facts:
        if seat != viewer:
            continue
        if cid < 0:                     # a condition told (tell: without about:)
            out.append([None, None, attr, holds])
            continue
        zone = st.lay.zones[st.where[cid]]
        if sees_zone(st, zone, viewer):
            continue
        out.append([zone.name, st.z[zone.id].index(st.lay.components[cid]) + 1,
                    f"{attr} {'==' if equal else '!='} {format_value(value)}", holds])
    return out


_LAYOUT_NAMES = frozenset({"players", "num_players", "num_seats"})


def visibility_reads(game, lay, fam):
    """The slots of ``State.v`` the ``visible`` rule of the zone family ``fam`` reads when it reads
    nothing but variables (with hashable values) and constants, so that its value is fixed by the
    viewer, the zone and those slots' values; else None (it is asked every time).  Used by the
    observation tensors and by a seat's view in a replay (record.Viewer)."""
    reads = getattr(fam, "visible_reads", None)
    if reads is None or getattr(fam, "visible_reads_any", True):
        return None
    slots = set()
    for name in reads:
        if name in game.variables:
            var = game.variables[name]
            if not (var.type in (T.INT, T.BOOL, T.PLAYER) or isinstance(var.type, T.Sym)):
                return None
            if var.index:
                slots |= set(lay.vkeys[var.family_id].values())
            else:
                slots.add(var.offset)
        elif not (name in game.constants or name in game.symbol_enum or name in game.enums
                  or name in game.kinds or name in game.tables or name in _LAYOUT_NAMES):
            return None
    return slots
