"""Observations as named, fixed-shape arrays, and as one line of text.

The shape of every array depends only on the layout (player count, options,
variants), never on the state, so a network can read any state of a game:

``zone:<family>``  one row per zone instance; columns ``visible``, ``count``,
                   then one per component label the family may hold (how
                   many of that label lie there).  A zone the seat may not
                   see shows its count only (the label columns are 0).
                   Order inside a zone is not shown.
``var:<name>``     a number or a bool: one column; a seat: one-hot over the
                   seats; an enum symbol: one-hot over its symbols.  A
                   family of variables has one row per key.  A value the
                   seat may not see is 0 (and ``visible`` says so).
                   Lists, records and text are left out.
``seat:viewer``    one-hot: the seat observing.
``seat:to_move``   one-hot: the seat that decides (all 0 when none does).

Needs numpy (the ``rl`` extra).  ``ObservationSpec.flatten`` concatenates
the arrays in the spec's order, for agents that take one vector.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import types as T
from .observe import observation, sees_zone, var_visible


def _np():
    try:
        import numpy
    except ImportError:  # pragma: no cover - the rl extra is absent
        raise ImportError("observation tensors need numpy: pip install -e '.[rl]'") from None
    return numpy


@dataclass
class _Part:
    name: str
    shape: tuple
    kind: str                       # zone / var / seat
    ref: object = None              # the zone family or variable
    columns: list = field(default_factory=list)
    rows: list = field(default_factory=list)


@dataclass
class ObservationSpec:
    """Names and shapes of the arrays of ``State.observation_tensor`` for one layout."""

    parts: list

    @property
    def shapes(self) -> dict:
        return {p.name: p.shape for p in self.parts}

    def size(self) -> int:
        total = 0
        for p in self.parts:
            n = 1
            for d in p.shape:
                n *= d
            total += n
        return total

    def columns(self, name: str) -> list:
        """What each column of array ``name`` means (labels, symbols, seats)."""
        return next(p.columns for p in self.parts if p.name == name)

    def rows(self, name: str) -> list:
        """What each row of array ``name`` is (zone names, variable keys)."""
        return next(p.rows for p in self.parts if p.name == name)

    def flatten(self, tensors: dict):
        np = _np()
        return np.concatenate([np.asarray(tensors[p.name], dtype=np.float32).ravel() for p in self.parts])


def observation_spec(game, lay) -> ObservationSpec:
    if lay.observation_spec is not None:
        return lay.observation_spec
    parts = []
    labels_all = []
    for c in lay.components:
        if c.label not in labels_all:
            labels_all.append(c.label)
    for fam in game.zone_list:
        zones = list(lay.zfam[fam.id].values())
        if not zones:
            continue
        labels = []
        for c in lay.components:
            if (not fam.holds or c.kind in fam.holds) and c.label not in labels:
                labels.append(c.label)
        parts.append(_Part(f"zone:{fam.name}", (len(zones), 2 + len(labels)), "zone", fam,
                           ["visible", "count"] + labels, [z.name for z in zones]))
    for var in game.scalar_vars + game.family_vars:
        cols = _var_columns(game, lay, var.type)
        if cols is None:
            continue
        if var.index:
            keys = list(lay.vkeys[var.family_id])
            rows = [k for k in keys]
        else:
            rows = [None]
        parts.append(_Part(f"var:{var.name}", (len(rows), 1 + len(cols)), "var", var, ["visible"] + cols, rows))
    seats = [str(s) for s in lay.seats]
    parts.append(_Part("seat:viewer", (lay.num_seats,), "seat", None, seats))
    parts.append(_Part("seat:to_move", (lay.num_seats,), "seat", None, seats))
    spec = ObservationSpec(parts)
    lay.observation_spec = spec
    return spec


def _var_columns(game, lay, typ):
    if typ in (T.INT, T.BOOL):
        return ["value"]
    if typ == T.PLAYER:
        return [str(s) for s in lay.seats]
    if isinstance(typ, T.Sym) and typ.enum in game.enums:
        return list(game.enums[typ.enum].symbols)
    return None


def observation_tensor(st, viewer: int) -> dict:
    """Named arrays (float32) of what seat ``viewer`` may see; shapes from :func:`observation_spec`."""
    np = _np()
    spec = observation_spec(st.game, st.lay)
    out = {}
    for p in spec.parts:
        a = np.zeros(p.shape, dtype=np.float32)
        if p.kind == "zone":
            col = {label: i for i, label in enumerate(p.columns)}
            for r, zone in enumerate(st.lay.zfam[p.ref.id].values()):
                contents = st.z[zone.id]
                a[r, 1] = len(contents)
                if sees_zone(st, zone, viewer):
                    a[r, 0] = 1
                    for c in contents:
                        a[r, col[c.label]] += 1
        elif p.kind == "var":
            var = p.ref
            if var.index:
                keys = st.lay.vkeys[var.family_id]
                cells = [(r, key, keys[key]) for r, key in enumerate(p.rows)]
            else:
                cells = [(0, None, var.offset)]
            for r, key, at in cells:
                if not var_visible(st, var, key, viewer):
                    continue
                a[r, 0] = 1
                value = st.v[at]
                if len(p.columns) == 2 and p.columns[1] == "value":
                    a[r, 1] = float(value) if isinstance(value, (int, float)) else 0.0
                elif value is not None:
                    name = str(value)
                    if name in p.columns[1:]:
                        a[r, 1 + p.columns[1:].index(name)] = 1
        elif p.name == "seat:viewer":
            if viewer is not None:
                a[viewer] = 1
        else:
            who = st.current_player()
            if who is not None:
                a[who] = 1
        out[p.name] = a
    return out


def observation_string(st, viewer: int) -> str:
    """What seat ``viewer`` may see, as text: equal for two states exactly when
    their observations are equal (zones, variables, who decides)."""
    obs = observation(st, viewer)
    lines = [f"viewer {viewer}; status {obs['status']}; to move "
             f"{'-' if obs['decision'] is None else obs['decision']['player']}"]
    for name, value in obs["variables"].items():
        lines.append(f"{name} = {value}")
    for name, contents in obs["zones"].items():
        if isinstance(contents, dict):
            lines.append(f"{name}: {contents['count']} hidden")
        else:
            lines.append(f"{name}: {' '.join(contents)}")
    for zone, at, fact, holds in obs.get("facts", ()):
        lines.append(f"told: {zone} #{at} {fact}: {'yes' if holds else 'no'}")
    return "\n".join(lines)
