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
from .observe import observation, var_visible
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
            reads = _variable_reads(game, lay, game.zones[lay.zones[item[0]].family])
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
_LAYOUT_NAMES = frozenset({"players", "num_players", "num_seats"})


def _variable_reads(game, lay, fam):
    """The slots of ``State.v`` the ``visible`` rule of ``fam`` reads when it reads nothing but
    variables (with hashable values) and constants, so that its value is fixed by the viewer, the
    zone and those slots' values; else None (it is evaluated for every observation)."""
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


class _View:
    """What an ObservationWriter wrote last for one viewer of one state."""

    __slots__ = ("state", "moved", "at", "out", "cells", "where", "vis", "known", "plain", "var_last", "var_raw",
                 "to_move", "grid_last", "lab")


class ObservationWriter:
    """The observation vectors of games as they go on, each written over the last one of
    the same viewer (equal to :func:`observation_vector` of the state, entry by entry):
    only the components that changed zone since (``State.track_moves``, which the writer
    turns on), the zones whose visibility changed, and the variables and seats whose
    values changed are written again.  A state the writer has not seen (a new game, a
    copy) is written whole.  Edits of a state's zones that bypass the engine's moves
    (scenario set-ups) are not seen: use ``observation_vector`` for those."""

    def __init__(self, game, lay):
        self.enc = enc = _encoder(observation_spec(game, lay), game, lay)
        self.views = {}
        self.everyone = [1.0] * len(enc.static_vis_list)

    def vector(self, st, viewer, normalise: bool = False):
        """``observation_vector(st, viewer, normalise)``."""
        vec = self._written(st, viewer)[:self.enc.size].copy()
        if normalise:
            vec -= self.enc.low
            vec *= self.enc.inv_span
        return vec

    def write_into(self, out, st, viewer, normalise: bool = False) -> None:
        """``out[:] = observation_vector(st, viewer, normalise)`` (a row of a batch: no new array)."""
        np = _np()
        np.copyto(out, self._written(st, viewer)[:self.enc.size])
        if normalise:
            out -= self.enc.low
            out *= self.enc.inv_span

    def write_over(self, row, st, viewer) -> None:
        """``row[:size] = observation_vector(st, viewer)`` (not normalised), where ``row`` is a float32
        array of ``size + 1`` cells that only this writer writes (a row of a batch): the writer keeps
        its vector there, so a step writes only the cells that changed, with no copy.  The last cell
        is the writer's own (what no row counts)."""
        self._written(st, viewer, row)

    def _written(self, st, viewer, row=None):
        view = self.views.get(viewer)
        if (view is None or view.state is not st or view.moved is None or view.moved is not st.moved
                or view.at < view.moved.base          # (moves it has not read were trimmed off the journal)
                or (row is not None and view.out is not row)):
            view = self.views[viewer] = self._whole(st, viewer, row)
        else:
            (self.enc.update or self._updater())(self, view, st, viewer)
        return view.out

    def _updater(self):
        """The encoder's update function, written on first use (_updater)."""
        self.enc.update = _updater(self.enc)
        return self.enc.update

    # --- writing ----------------------------------------------------------------
    def _whole(self, st, viewer, row=None) -> _View:
        np = _np()
        enc = self.enc
        view = _View()
        view.state = st
        view.moved = st.track_moves()
        view.at = view.moved.end()                          # (a place in the journal: MoveJournal)
        if row is None:
            view.out = np.zeros(enc.size + 1, np.float32)    # one cell past the end: what no row counts
        else:
            if row.shape != (enc.size + 1,) or row.dtype != np.float32:
                raise ValueError(f"a row to write over must be float32 of {enc.size + 1} cells, "
                                 f"not {row.dtype} of shape {row.shape}")
            for other in [v for v, kept in self.views.items() if kept.out is row]:
                del self.views[other]                       # (its vector is about to be written over)
            view.out = row
            row[enc.size] = 0.0
        view.out[:enc.size] = enc.encode(st, viewer)
        view.cells = memoryview(view.out)
        view.where = list(st.where)
        view.vis = self._visibility(st, viewer)
        view.plain = enc.plain_get(st.v) if enc.plain_get is not None else None
        view.var_last = [self._var_cell(st, viewer, cell) for cell in enc.var_cells]
        view.var_raw = [_UNSEEN] * len(enc.var_cells)      # the value written last ((shown, value) where that varies)
        view.known = bool(st.known)
        view.to_move = st.current_player()
        view.grid_last = [st.v[cell[0]] for cell in enc.grid_cells]
        view.lab = self._labels(view.vis)
        return view

    def _visibility(self, st, viewer) -> list:
        """1.0/0.0 per zone: whether ``viewer`` sees what it holds (as _Encoder.encode)."""
        enc = self.enc
        everyone = viewer is EVERYONE
        if everyone:
            return self.everyone
        seat = -1 if viewer is None else viewer
        key = (viewer, enc.kept_get(st.v) if enc.kept_get is not None else None)
        try:
            vis = enc.vis_cache.get(key)
        except TypeError:                   # a value that cannot be a key: worked out each time
            vis, key = None, None
        if vis is None:
            vis = list(enc.static_vis_list)
            for zid, rule, L, viewer_slot in enc.kept_rules:
                L = L.copy()
                L[viewer_slot] = seat
                if not rule(st, L):
                    vis[zid] = 0.0
            if key is not None and len(enc.vis_cache) < 4096:
                enc.vis_cache[key] = vis
                enc.vis_kept.add(id(vis))   # (kept for good: its id stays its own)
        if enc.every_time or (st.known and viewer is not None):
            vis = list(vis)
            for zid, rule, L, viewer_slot in enc.every_time:
                L = L.copy()
                L[viewer_slot] = seat
                vis[zid] = 1.0 if rule(st, L) else 0.0
            if st.known and viewer is not None:
                for zid, seats in st.known.items():
                    if zid >= 0 and viewer in seats:
                        vis[zid] = 1.0
        return vis

    def _var_cell(self, st, viewer, cell):
        """(the cell of a variable's row set to a value, the value) or None where it is hidden."""
        slot, var, key, row, onehot, lo, hi = cell
        if not self._var_shown(st, viewer, cell):
            return None
        value = st.v[slot]
        if onehot is None:
            if isinstance(value, (int, float)):
                return (row + 1, lo if value < lo else hi if value > hi else value)
            return (None, 0.0)
        if value is not None:
            i = onehot.get(str(value))
            if i is not None:
                return (row + 1 + i, 1.0)
        return (None, 0.0)                  # shown, but no column for it

    @staticmethod
    def _var_shown(st, viewer, cell) -> bool:
        """Whether ``viewer`` sees the variable cell's value: its rule, or a ``reveal`` step
        showed it to the seat and it has not changed since (as observe.observation)."""
        slot, var, key = cell[0], cell[1], cell[2]
        if var.visible_const is True or viewer is EVERYONE or var_visible(st, var, key, viewer):
            return True
        known = st.known
        return bool(known) and viewer is not None and viewer in known.get(-1 - slot, ())

    def _revisit(self, view, st, viewer, m) -> None:
        """The visibility of the zones again; the label columns of those whose visibility changed."""
        vis = self._visibility(st, viewer)
        view.known = bool(st.known)
        if vis is not view.vis:
            z, label, nc = st.z, self.enc.label_flat, self.enc.nc
            for zid, d, b, cell in self._changed(view.vis, vis):
                at = zid * nc
                for c in z[zid]:
                    m[label[at + c.id]] += d
                m[cell] = b
            view.vis = vis
            view.lab = self._labels(vis)

    def _changed(self, old, new) -> list:
        """(zone id, new - old, new, its ``visible`` cell) of each zone with a row whose visibility
        differs between ``old`` and ``new``; kept per pair of visibility lists the encoder keeps."""
        enc = self.enc
        kept = enc.vis_diff.get((id(old), id(new)))
        if kept is not None and kept[0] is old and kept[1] is new:
            return kept[2]
        visible = enc.visible_list
        diff = [(zid, b - a, b, visible[zid]) for zid, (a, b) in enumerate(zip(old, new))
                if a != b and visible[zid] >= 0]
        if id(old) in enc.vis_kept and id(new) in enc.vis_kept and len(enc.vis_diff) < 4096:
            enc.vis_diff[id(old), id(new)] = (old, new, diff)
        return diff

    def _labels(self, vis):
        """Per (zone, component) the cell a move adds 1 to or takes 1 from under visibility ``vis``:
        its label cell where the zone is seen, else the writer's own last cell; None where ``vis``
        is not one the encoder keeps (the moves are then weighed by ``vis`` one by one)."""
        enc = self.enc
        if vis is self.everyone:
            return enc.label_flat
        if not enc.vis_fixed:
            return None
        kept = enc.lab_cache.get(id(vis))
        if kept is not None and kept[0] is vis:
            return kept[1]
        if not any(vis is v for v in enc.vis_cache.values()):
            return None                     # (a copy with what a `reveal` showed: not kept)
        nc, label, dump = enc.nc, enc.label_flat, [enc.size] * enc.nc
        lab = []
        for zid, seen in enumerate(vis):
            lab.extend(label[zid * nc:(zid + 1) * nc] if seen else dump)
        enc.lab_cache[id(vis)] = (vis, lab)
        return lab

    def _var_other(self, m, view, st, viewer, i) -> None:
        """Variable cell ``i`` (whose visibility depends on the viewer): written again when its
        value or whether it is shown changed."""
        cell = self.enc.var_cells[i]
        everyone = viewer is EVERYONE
        known = st.known if viewer is not None and not everyone else None     # (as _var_shown)
        shown = (everyone or var_visible(st, cell[1], cell[2], viewer)
                 or (bool(known) and viewer in known.get(-1 - cell[0], ())))
        value = st.v[cell[0]] if shown else None
        was = view.var_raw[i]
        if was is not _UNSEEN and was[0] == shown and was[1] is value:
            return
        view.var_raw[i] = (shown, value)
        self._var_set(m, view, st, viewer, i)

    def _var_set(self, m, view, st, viewer, i) -> None:
        """Variable cell ``i`` written again (its value or whether it is shown changed)."""
        cell = self.enc.var_cells[i]
        got = self._var_cell(st, viewer, cell)
        had = view.var_last[i]
        if got == had:
            return
        row = cell[3]
        if had is not None:
            m[row] = 0.0
            if had[0] is not None:
                m[had[0]] = 0.0
        if got is not None:
            m[row] = 1.0
            if got[0] is not None:
                m[got[0]] = got[1]
        view.var_last[i] = got

    def _write_grids(self, view, v, m) -> None:
        """The cells of grids (seen by everyone): a cell whose piece or part changed."""
        last = view.grid_last
        for i, (slot, row, col, part) in enumerate(self.enc.grid_cells):
            held, was = v[slot], last[i]
            if held is was or held == was:
                continue
            if was is not None:
                m[row] = m[row + col[was[0].label]] = m[row + part] = 0.0
            if held is not None:
                m[row] = m[row + col[held[0].label]] = 1.0
                m[row + part] = held[1]
            last[i] = held


#: what ObservationWriter._whole leaves in ``var_raw``: a value not yet read
_UNSEEN = object()


def _literal(value, names: dict) -> str:
    """``value`` as Python source: a literal for an int or a finite float, else a name bound in
    ``names`` (the generated module's globals)."""
    if type(value) is int or (type(value) is float and value == value and abs(value) != float("inf")):
        return repr(value)
    name = f"K{len(names)}"
    names[name] = value
    return name


def _updater(enc):
    """The function ``update(writer, view, st, viewer)`` that writes a view of ``enc``'s layout over
    with what changed since (ObservationWriter): Python source written once per layout, with the
    layout's cells, slots and bounds as constants (unrolled per variable) and the branches the
    layout never takes left out; compiled with ``compile``/``exec`` like the rules' own code
    (engine/compile/codegen.py).  What it writes is what ``observation_vector`` writes whole
    (tests/test_tensors_incremental.py compares them at every step of random games)."""
    names = {"ENC": enc, "COUNT": enc.count_list, "LABEL": enc.label_flat, "PLAIN_GET": enc.plain_get,
             "_UNSEEN": _UNSEEN}
    nc = enc.nc
    src = [
        "def update(writer, view, st, viewer, COUNT=COUNT, LABEL=LABEL, isinstance=isinstance, "
        "PLAIN_GET=PLAIN_GET):",
        "    m = view.cells",
        # components that changed zone: 1 off the count of the zone left and on the one entered, and
        # off/on the component's label cell where the zone is seen (``lab``: else the writer's own cell)
        "    moved = view.moved",
        "    base = moved.base",
        "    end = base + len(moved)",
        "    if end > view.at:",
        "        new = moved[view.at - base:]",
        "        view.at = end",
        "        before = view.where",
        "        where = st.where",
        "        lab = view.lab",
        "        if lab is not None:",
        "            for cid in new:",           # (a component moved twice is done at its first entry)
        "                old = before[cid]",
        "                now = where[cid]",
        "                if old != now:",
        "                    before[cid] = now",
        "                    m[COUNT[old]] -= 1.0",
        "                    m[COUNT[now]] += 1.0",
        f"                    m[lab[old * {nc} + cid]] -= 1.0",
        f"                    m[lab[now * {nc} + cid]] += 1.0",
        "        else:",                          # weighed by the visibility written last
        "            vis = view.vis",
        "            for cid in new:",
        "                old = before[cid]",
        "                now = where[cid]",
        "                if old != now:",
        "                    before[cid] = now",
        "                    m[COUNT[old]] -= 1.0",
        "                    m[COUNT[now]] += 1.0",
        "                    w = vis[old]",
        "                    if w:",
        f"                        m[LABEL[old * {nc} + cid]] -= w",
        "                    w = vis[now]",
        "                    if w:",
        f"                        m[LABEL[now * {nc} + cid]] += w",
    ]
    # zones whose visibility changed: their label columns again
    if enc.vis_fixed:
        src += ["    if st.known or view.known:",
                "        writer._revisit(view, st, viewer, m)"]
    else:
        src += ["    writer._revisit(view, st, viewer, m)"]
    src += ["    v = st.v"]
    # variables every seat sees: the changed values, clipped to their bounds (not a number: 0)
    if enc.plain_get is not None:
        src += ["    values = PLAIN_GET(v)",
                "    was = view.plain",
                "    if values != was:",
                "        view.plain = values"]
        single = len(enc.plain_cells) == 1
        for k, (lo, hi, at) in enumerate(zip(enc.plain_lo_list, enc.plain_hi_list, enc.plain_value_list)):
            lo, hi = _literal(lo, names), _literal(hi, names)
            src += ["        x = values" if single else f"        x = values[{k}]",
                    "        y = was" if single else f"        y = was[{k}]",
                    "        if x != y or x.__class__ is not y.__class__:",
                    f"            m[{at}] = (0.0 if x is None or not isinstance(x, (int, float))",
                    f"                      else {lo} if x < {lo} else {hi} if x > {hi} else x)"]
    # the other variables, cell by cell, when the value (or whether it is shown) changed
    if enc.var_cells:
        src += ["    raw = view.var_raw"]
        for i, cell in enumerate(enc.var_cells):
            if cell[1].visible_const is True:
                src += [f"    x = v[{cell[0]}]",
                        f"    if x is not raw[{i}]:",
                        f"        raw[{i}] = x",
                        f"        writer._var_set(m, view, st, viewer, {i})"]
            else:
                src += [f"    writer._var_other(m, view, st, viewer, {i})"]
    if enc.grid_cells:
        src += ["    writer._write_grids(view, v, m)"]
    # the order of open decks: written again (a shuffle or a move within a deck changes no zone)
    if enc.order_parts:
        src += ["    ENC.write_order(view.out, st, view.vis)"]
    # who decides
    src += ["    who = st.current_player()",
            "    if who != view.to_move:"]
    for is_viewer, at in enc.seat_parts:
        if not is_viewer:
            src += ["        if view.to_move is not None:",
                    f"            m[{at} + view.to_move] = 0.0",
                    "        if who is not None:",
                    f"            m[{at} + who] = 1.0"]
    src += ["        view.to_move = who"]
    code = compile("\n".join(src) + "\n", "<observation writer>", "exec")
    exec(code, names)
    return names["update"]


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
