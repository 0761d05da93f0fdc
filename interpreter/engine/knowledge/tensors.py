"""Observations as named, fixed-shape arrays, and as one line of text.

The shape of every array depends only on the layout (player count, options,
variants), never on the state, so a network can read any state of a game:

``zone:<family>``  one row per zone instance; columns ``visible``, ``count``,
                   then one per component label the family may hold (how
                   many of that label lie there).  A zone the seat may not
                   see shows its count only (the label columns are 0).
                   Order inside a zone is not shown here (see ``order:``).
``var:<name>``     a number or a bool: one column; a seat: one-hot over the
                   seats; an enum symbol: one-hot over its symbols.  A
                   family of variables has one row per key.  A value the
                   seat may not see is 0 (and ``visible`` says so); a value
                   a ``reveal`` step showed the seat (``known(p, v[k])``)
                   is shown, until it changes.
                   Lists, records and text are left out.
``cells:<family>`` a grid (a zone family with ``cells:``): one row per cell of each of
                   its zones; columns ``covered``, one per component label the
                   family may hold (the piece that covers the cell), and
                   ``part`` (which of the piece's cells lies there, from 0).
``order:<family>`` a deck some seat may see (``type: deck`` not ``visible: false``):
                   one row per place of each of its zones, the top first (as many
                   places as the zone can hold), one column per component label:
                   1 where that label lies at that place.  All 0 for a zone the
                   seat may not see.  (``zone:`` rows count labels; this is the
                   order, which decides what a deck offers next.)
``seat:viewer``    one-hot: the seat observing.
``seat:to_move``   one-hot: the seat that decides (all 0 when none does).

Needs numpy (the ``rl`` extra).  ``ObservationSpec.flatten`` concatenates
the arrays in the spec's order, for agents that take one vector.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field

from ..compile import types as T
from .observe import observation, var_visible, visibility_reads
from ..run.values import format_value


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
    encoder: object = field(default=None, repr=False, compare=False)   # tensors._Encoder, made on first use

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

    def unflatten(self, vec) -> dict:
        """The named arrays of a flat vector (views into it)."""
        out = {}
        at = 0
        for p in self.parts:
            n = 1
            for d in p.shape:
                n *= d
            out[p.name] = vec[at:at + n].reshape(p.shape)
            at += n
        return out

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
    for fam in game.zone_list:          # the order of decks a seat may see
        if fam.ztype != "deck" or fam.visible_const is False:
            continue
        zones = list(lay.zfam[fam.id].values())
        holdable = [c for c in lay.components if not fam.holds or c.kind in fam.holds]
        labels = list(dict.fromkeys(c.label for c in holdable))
        rows = [(z.name, place) for z in zones
                for place in range(min(z.capacity, len(holdable)) if isinstance(z.capacity, int) else len(holdable))]
        if rows and labels:
            parts.append(_Part(f"order:{fam.name}", (len(rows), len(labels)), "order", fam, labels, rows))
    for fam in game.zone_list:
        if fam.cells is None:
            continue
        labels = []
        for c in lay.components:
            if (not fam.holds or c.kind in fam.holds) and c.label not in labels:
                labels.append(c.label)
        rows = [(z.name, format_value(cell)) for z in lay.zfam[fam.id].values() for cell in lay.grids[z.id]]
        if rows:
            parts.append(_Part(f"cells:{fam.name}", (len(rows), 2 + len(labels)), "cells", fam,
                               ["covered"] + labels + ["part"], rows))
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


#: the bound of a number variable that states no ``min``/``max`` (its value is clipped to it)
VAR_BOUND = 1000

def number_bounds(game, lay, name: str) -> tuple:
    """(low, high) of a number variable as far as the rulebook bounds it, None where nothing
    does: its ``min``/``max`` (the layout's, a rule), else what a ``when: always`` invariant keeps
    it within (engine/compile/bounds.py); the observation falls back to ±VAR_BOUND where None."""
    lo, hi = lay.clamp.get(name) or (None, None)
    kept = game.invariant_bounds.get(name)
    if kept is not None:
        lo = kept[0] if lo is None else lo
        hi = kept[1] if hi is None else hi
    return lo, hi


#: ``observation_vector(st, EVERYONE)``: every zone and variable shown (the full, privileged state)
EVERYONE = "everyone"


def observation_tensor(st, viewer: int) -> dict:
    """Named arrays (float32) of what seat ``viewer`` may see; shapes from :func:`observation_spec`
    (views into one flat array: :func:`observation_vector`)."""
    spec = observation_spec(st.game, st.lay)
    return spec.unflatten(_encoder(spec, st.game, st.lay).encode(st, viewer))


def observation_vector(st, viewer, normalise: bool = False):
    """The observation tensor of ``viewer`` as one flat float32 array, in the spec's order
    (what ``ObservationSpec.flatten(observation_tensor(st, viewer))`` gives, built directly).
    ``viewer=EVERYONE``: every zone and variable shown (the full state, for a critic).
    ``normalise``: each entry scaled by the spec's bounds to 0..1."""
    spec = observation_spec(st.game, st.lay)
    enc = _encoder(spec, st.game, st.lay)
    vec = enc.encode(st, viewer)
    if normalise:
        vec -= enc.low
        vec *= enc.inv_span
    return vec


def observation_bounds(game, lay):
    """(low, high): the flat float32 arrays every observation vector of the layout lies within."""
    enc = _encoder(observation_spec(game, lay), game, lay)
    return enc.low.copy(), enc.high.copy()


def _encoder(spec, game, lay):
    enc = spec.encoder
    if enc is None:
        enc = spec.encoder = _Encoder(spec, game, lay)
    return enc


class _Encoder:
    """What the layout fixes about the observation vector, worked out once: the flat
    position of every zone's row and of every (zone, component) label cell, the
    zones whose visibility is constant, every variable cell's position and bounds.
    Encoding a state is then two ``bincount``s over ``State.where`` plus a loop over
    the variable cells."""

    def __init__(self, spec, game, lay):
        np = _np()
        self.game = game
        self.size = size = spec.size()
        dump = size                                     # a cell past the end: components no row counts
        nz, nc = len(lay.zones), len(lay.components)
        label_cell = np.full((nz, nc), dump, dtype=np.intp)
        count_cell = np.full(nz, dump, dtype=np.intp)
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        static_vis = np.ones(nz, np.float32)            # box zones and constant rules
        dynamic = []                                    # zones whose rule is evaluated per state
        self.var_cells = []                             # (slot in State.v, var, key, row, one-hot columns, lo, hi)
        self.seat_parts = []
        self.grid_cells = []                            # (slot in State.v, row, label -> column, part column)
        self.order_parts = []                           # (zone id, first row's place, places, width, label -> column)
        at = 0
        for p in spec.parts:
            n = 1
            for d in p.shape:
                n *= d
            if p.kind == "zone":
                fam = p.ref
                col = {label: i for i, label in enumerate(p.columns)}
                holdable = [c for c in lay.components if not fam.holds or c.kind in fam.holds]
                per_label = {}
                for c in holdable:
                    per_label[c.label] = per_label.get(c.label, 0) + 1
                width = p.shape[1]
                for r, zone in enumerate(lay.zfam[fam.id].values()):
                    row = at + r * width
                    count_cell[zone.id] = row + 1
                    for c in holdable:
                        label_cell[zone.id, c.id] = row + col[c.label]
                    cap = zone.capacity if isinstance(zone.capacity, int) else None
                    high[row + 1] = len(holdable) if cap is None else min(cap, len(holdable))
                    for label, i in col.items():
                        if i >= 2:
                            high[row + i] = min(per_label.get(label, 0), high[row + 1]) or 1
                    if fam.visible_const is None:        # the rule's locals: the zone's index, then the viewer
                        L = [None] * max(fam.nslots, 1)
                        for ispec, value in zip(fam.index, zone.index_values):
                            L[ispec.slot] = value
                        dynamic.append((zone.id, fam.visible, L, fam.viewer_slot))
                    else:
                        static_vis[zone.id] = 1.0 if fam.visible_const else 0.0
            elif p.kind == "var":
                var = p.ref
                width = p.shape[1]
                numeric = len(p.columns) == 2 and p.columns[1] == "value"
                lo = hi = None
                if numeric:
                    if var.type == T.BOOL:
                        lo, hi = 0, 1
                    else:
                        lo, hi = number_bounds(game, lay, var.name)
                        lo = -VAR_BOUND if lo is None else lo
                        hi = VAR_BOUND if hi is None else hi
                        lo, hi = min(lo, 0), max(hi, 0)     # a hidden value shows as 0
                        if hi == lo:
                            hi = lo + 1
                    onehot = None
                else:
                    onehot = {name: i for i, name in enumerate(p.columns[1:])}
                keys = lay.vkeys[var.family_id] if var.index else None
                for r, key in enumerate(p.rows):
                    row = at + r * width
                    slot = keys[key] if var.index else var.offset
                    if numeric:
                        low[row + 1], high[row + 1] = lo, hi
                    self.var_cells.append((slot, var, key, row, onehot, lo, hi))
            elif p.kind == "order":
                width = p.shape[1]
                col = {label: i for i, label in enumerate(p.columns)}
                r = 0
                for zone in lay.zfam[p.ref.id].values():
                    places = sum(1 for name, _ in p.rows if name == zone.name)
                    self.order_parts.append((zone.id, at + r * width, places, width, col))
                    r += places
            elif p.kind == "cells":
                fam = p.ref
                width = p.shape[1]
                col = {label: i for i, label in enumerate(p.columns)}
                r = 0
                for zone in lay.zfam[fam.id].values():
                    grid = lay.grids[zone.id]
                    for slot in grid.values():
                        row = at + r * width
                        high[row + width - 1] = max(len(grid) - 1, 1)
                        self.grid_cells.append((slot, row, col, width - 1))
                        r += 1
            else:
                self.seat_parts.append((p.name == "seat:viewer", at))
            at += n
        self.label_cell, self.count_cell = label_cell, count_cell
        self.comp_ids = np.arange(nc, dtype=np.intp)
        self.shown_zones = np.flatnonzero(count_cell < size)       # zones with a row
        self.visible_cells = count_cell[self.shown_zones] - 1       # their "visible" column
        self.static_vis, self.dynamic = static_vis, dynamic
        self.low, self.high = low, high
        self.inv_span = (1.0 / (high - low)).astype(np.float32)
        # numbers every seat sees: read, clipped and written all at once; the rest one by one
        plain = [c for c in self.var_cells if c[1].visible_const is True and c[4] is None]
        self.plain_get = operator.itemgetter(*[c[0] for c in plain]) if plain else None
        self.plain_rows = np.array([c[3] for c in plain], dtype=np.intp)
        self.plain_cells = plain
        self.plain_values = self.plain_rows + 1
        self.plain_lo_list, self.plain_hi_list = [c[5] for c in plain], [c[6] for c in plain]
        self.plain_value_list = [c[3] + 1 for c in plain]
        self.var_cells = [c for c in self.var_cells if not (c[1].visible_const is True and c[4] is None)]
        # for ObservationWriter: the same maps as lists (one cell at a time), the visibility rules
        # that read only variables and constants (kept per viewer and values), and the rest
        self.nc = nc
        self.label_flat = label_cell.ravel().tolist()
        self.count_list = count_cell.tolist()
        self.visible_list = [int(c) - 1 if c < size else -1 for c in count_cell.tolist()]
        self.static_vis_list = static_vis.tolist()
        kept, self.every_time = [], []
        slots = set()
        for item in dynamic:
            reads = visibility_reads(game, lay, game.zones[lay.zones[item[0]].family])
            if reads is None:
                self.every_time.append(item)
            else:
                kept.append(item)
                slots |= reads
        self.kept_rules = kept
        self.kept_get = operator.itemgetter(*sorted(slots)) if slots else None
        self.vis_cache = {}                 # (viewer, values read) -> [visibility per zone]
        self.vis_kept = set()               # the ids of those lists (kept for good)
        self.vis_diff = {}                  # (id, id) of two of them -> the zones that differ (ObservationWriter._changed)
        # visibility fixed per viewer (but for what a `reveal` step showed): no rule reads the state
        self.vis_fixed = not self.every_time and (not kept or self.kept_get is None)
        self.lab_cache = {}                 # id(a kept visibility list) -> (it, its cells per move: ObservationWriter._labels)
        self.update = None                  # ObservationWriter's update, written for this layout (_updater)

    def encode(self, st, viewer):
        np = _np()
        size = self.size
        everyone = viewer is EVERYONE
        where = np.fromiter(st.where, dtype=np.intp, count=len(st.where))
        if everyone:
            vis = np.ones(len(self.static_vis), np.float32)
        else:
            vis = self.static_vis.copy()
            seat = -1 if viewer is None else viewer
            for zid, rule, L, viewer_slot in self.dynamic:        # as observe.zone_visible
                L = L.copy()
                L[viewer_slot] = seat
                if not rule(st, L):
                    vis[zid] = 0.0
            if st.known and viewer is not None:
                for zid, seats in st.known.items():
                    if zid >= 0 and viewer in seats:      # (a variable's key is -1 - its slot)
                        vis[zid] = 1.0
        out = np.bincount(self.label_cell[where, self.comp_ids], weights=vis[where], minlength=size + 1)
        out += np.bincount(self.count_cell[where], minlength=size + 1)
        out = out[:size].astype(np.float32)
        # a zone's "visible" column sits just before its count
        out[self.visible_cells] = vis[self.shown_zones]
        v = st.v
        if self.plain_get is not None:
            values = self.plain_get(v)
            if len(self.plain_cells) == 1:
                values = (values,)
            for x, lo, hi in zip(values, self.plain_lo_list, self.plain_hi_list):
                if x is None or not lo <= x <= hi:            # clipped (or not a number: 0), one by one
                    values = [0.0 if not isinstance(x, (int, float)) else lo if x < lo else hi if x > hi else x
                              for x, lo, hi in zip(values, self.plain_lo_list, self.plain_hi_list)]
                    break
            out[self.plain_rows] = 1
            out[self.plain_values] = values
        known = st.known if not everyone and viewer is not None else None
        for slot, var, key, row, onehot, lo, hi in self.var_cells:
            if (var.visible_const is not True and not everyone and not var_visible(st, var, key, viewer)
                    and not (known and viewer in known.get(-1 - slot, ()))):     # (as observe.observation)
                continue
            out[row] = 1
            value = v[slot]
            if onehot is None:
                if isinstance(value, (int, float)):
                    out[row + 1] = lo if value < lo else hi if value > hi else value
            elif value is not None:
                i = onehot.get(str(value))
                if i is not None:
                    out[row + 1 + i] = 1
        for slot, row, col, part in self.grid_cells:     # a grid is seen by everyone
            held = v[slot]
            if held is not None:
                out[row] = 1
                out[row + col[held[0].label]] = 1
                out[row + part] = held[1]
        for is_viewer, at in self.seat_parts:
            who = (None if everyone else viewer) if is_viewer else st.current_player()
            if who is not None:
                out[at + who] = 1
        if self.order_parts:
            self.write_order(out, st, vis)
        return out

    def write_order(self, out, st, vis) -> None:
        """The ``order:`` rows: for each open deck the seat sees, its labels from the top."""
        z = st.z
        for zid, at, places, width, col in self.order_parts:
            out[at:at + places * width] = 0
            if vis[zid]:
                held = z[zid]
                top = len(held) - 1
                for i in range(min(len(held), places)):
                    out[at + i * width + col[held[top - i].label]] = 1


#: names a visibility rule may read and still be kept per viewer and variable values: constants of the layout
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
    for name, cells in obs.get("cells", {}).items():
        lines.append(f"{name} cells: " + " ".join(f"{cell}={'-' if held is None else f'{held[0]}/{held[1]}'}"
                                                  for cell, held in cells.items()))
    for zone, at, fact, holds in obs.get("facts", ()):
        lines.append(f"told: {zone} #{at} {fact}: {'yes' if holds else 'no'}")
    return "\n".join(lines)
