"""Observation vectors written over the last one, from what changed since (``ObservationWriter``).

The vector is ``tensors.observation_vector``'s, entry by entry; the writer keeps, per viewer,
the last one and where each component was, and rewrites only what changed.  Its update is
Python source written once per layout (``_updater``).  Needs numpy (the ``rl`` extra).
"""
from __future__ import annotations

from .movewrite import write_moves, write_moves_weighed
from .observe import var_visible
from .tensors import EVERYONE, _encoder, _np, observation_spec


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
             "_UNSEEN": _UNSEEN, "WRITE_MOVES": write_moves, "WRITE_MOVES_WEIGHED": write_moves_weighed}
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
        "        lab = view.lab",
        "        if lab is not None:",
        f"            WRITE_MOVES(m, new, view.where, st.where, COUNT, lab, {nc})",
        "        else:",                          # weighed by the visibility written last
        f"            WRITE_MOVES_WEIGHED(m, new, view.where, st.where, COUNT, LABEL, view.vis, {nc})",
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
