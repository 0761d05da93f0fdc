"""What one seat is shown, event by event: the seat's *record* (docs/language.md, "What a seat
knows").

A seat's knowledge is exactly the sequence of what it was shown, in order, as it happened
(after GDL-II's percepts, ``sees``): two games that give a seat the same record are games it
cannot tell apart.  The record is made of these percepts:

``("o", view)``
    at the start and at every stop (a decision to take, the end): what the seat sees then —
    each zone's labels in order (or only how many it holds, when hidden; the zones every seat
    always sees first, then the others, each part in the layout's order), the variables it
    sees, who decides and, when it is the seat, its legal actions, the cells of grids;
``("l", lines)``
    the lines of the game's log written since the last stop (the log is told to all);
``("d", seat, action id)``
    a decision, as the seat is told it (another seat's secret parameters as ``…``);
``("m", from, to, label)``
    a component moving between two zones, as it happens — with its label when the seat sees
    the zone it leaves or the zone it enters, else ``None`` (the seat sees that something
    moved, not what);
``("s", zone)``
    a zone shuffled (every seat sees a shuffle);
``("r", zone, labels)``
    a zone revealed to the seat (a `reveal` step), with what it held then;
``("t", zone, place, attribute, value, equal, holds)``
    a fact a `tell` step told the seat about the component at that place; ``("t", condition,
    holds)`` whether a condition held when a `tell` step without ``about:`` told it.

The record is not kept while a game is played: a :class:`Recorder` is attached to a replay
(``State.rec``) by :mod:`.worlds`, which builds the record of the real game (``collect``) or
checks a replayed world against it event by event (``expect``: :class:`Mismatch` at the first
difference, so that a world that cannot be the real one is dropped early).
"""
from __future__ import annotations

from operator import attrgetter, itemgetter

from .observe import sees_zone, var_visible, visibility_reads, zone_visible
from ..run.frames import option_id
from ..run.values import format_value, plain


class Mismatch(BaseException):
    """A replayed world gives the seat another record than the real game.  A BaseException,
    so that the engine's handlers (which turn faults into located rule errors) let it pass."""


def view(st, seat) -> tuple:
    """What ``seat`` sees at a stop (the ``("o", …)`` percept); ``seat`` None: what every
    seat sees (the public part)."""
    return Viewer(st, seat)(st)


class Viewer:
    """:func:`view` for one seat and layout.  What does not change from state to state is made
    once per layout and seat (:class:`_ViewPlan`, kept in ``Layout.viewers``); a Viewer adds the
    last view it wrote of one state, for a Recorder that tells it which zones changed since."""

    __slots__ = ("seat", "open", "zones", "shown", "shown_get", "asked", "grids", "place", "kept", "vis_get",
                 "vis_cache", "other_place", "steady", "st", "out", "labels", "others", "others_flags")

    def __init__(self, st, seat):
        lay = st.lay
        viewers = lay.viewers
        plan = viewers.get(seat)
        if plan is None:
            plan = viewers[seat] = _ViewPlan(st, seat)
        self.seat = seat
        self.open, self.zones, self.place = plan.open, plan.zones, plan.place
        self.shown, self.shown_get, self.asked, self.grids = plan.shown, plan.shown_get, plan.asked, plan.grids
        self.kept, self.vis_get, self.vis_cache = plan.kept, plan.vis_get, plan.vis_cache
        self.other_place, self.steady = plan.other_place, plan.steady
        self.st = None                  # the state of the last view written for changes (``__call__``'s ``changed``)
        self.out = None                 # that view's always-seen part, a list
        self.labels = {}                # the labels of the other zones as that view read them
        self.others = None              # that view's other zones (labels or counts), when no rule is asked each time
        self.others_flags = None        # and the visibility (of the rules kept by values) it was written with

    def __call__(self, st, changed=None) -> tuple:
        """The view of ``st``.  ``changed``: the ids of the zones whose contents or order changed
        since this viewer's last view of the same state object (the Recorder sees every move, shuffle
        and reordering), or None: the view is read whole.  With it, the labels of the zones not in
        ``changed`` are the last view's (the same tuples, not read again)."""
        seat = self.seat
        z = st.z
        known = st.known
        labels = self.labels
        if changed is None or st is not self.st:
            out = [tuple(map(_LABEL, c)) if c else () for c in map(z.__getitem__, self.open)]   # always seen: first
            labels.clear()
            self.others = None
            self.st, self.out = (st, out) if changed is not None else (None, None)
            out = list(out)
        else:
            out = self.out
            place = self.place
            for zid in changed:
                k = place.get(zid)
                if k is not None:
                    c = z[zid]
                    out[k] = tuple(map(_LABEL, c)) if c else ()
                else:
                    labels.pop(zid, None)
            out = list(out)
        flags = None
        kept = self.kept
        if kept:                        # the rules that read only variables: kept by those values
            key = self.vis_get(st.v) if self.vis_get is not None else None
            cache = self.vis_cache
            flags = cache.get(key)
            if flags is None:
                flags = [bool(rule(st, L)) for rule, L in kept]
                if len(cache) < _VIS_KEPT:
                    cache[key] = flags
        others = self.others
        if (others is not None and flags is self.others_flags and not known and st is self.st
                and changed is not None):
            # the same visibility as the last view and nothing revealed: only the zones that changed
            other_place = self.other_place
            for zid in changed:
                k = other_place.get(zid)
                if k is not None:
                    _zid, rule, zone, L, j = self.zones[k]
                    contents = z[zid]
                    if j is not None and flags[j]:
                        others[k] = labels[zid] = tuple(map(_LABEL, contents))
                    else:
                        others[k] = len(contents)
            out.extend(others)
        else:
            start = len(out)
            for zid, rule, zone, L, j in self.zones:
                contents = z[zid]
                if j is not None:
                    seen = flags[j] or (bool(known) and seat in known.get(zid, ()))
                elif rule is False:
                    seen = bool(known) and seat in known.get(zid, ())
                elif rule is None:
                    seen = sees_zone(st, zone, seat)
                else:
                    seen = bool(rule(st, L)) or (bool(known) and seat in known.get(zid, ()))
                if seen:
                    got = labels.get(zid)
                    if got is None:
                        got = labels[zid] = tuple(map(_LABEL, contents))
                    out.append(got)
                else:
                    out.append(len(contents))
            if self.steady and changed is not None and st is self.st and not known:
                self.others, self.others_flags = out[start:], flags
            else:
                self.others = None
        v = st.v
        values = self.shown_get(v)      # the values always seen, read in one call
        try:
            hash(values)                # all hashable (the usual case): kept as they are
        except TypeError:               # a list in a variable: frozen as it is now
            values = tuple([x if x.__class__ in _PLAIN else _frozen(x) for x in values])
        asked = self.asked
        if asked:
            more = []
            for at, var, key, rule, L in asked:
                if rule is None:
                    seen = var_visible(st, var, key, seat)
                else:
                    seen = bool(rule(st, L))
                if seen or (known and _knows(st, -1 - at, seat)):
                    more.append((at, _frozen(v[at])))
            if more:
                values += tuple(more)
        dec = st.pending
        decision = None
        if dec is not None:
            decision = (dec.who, dec.group,
                        tuple([option_id(a, vals) for a, vals in dec.raw]) if seat == dec.who else None)
        cells = ()
        if self.grids:
            cells = tuple(None if v[at] is None else (v[at][0].label, v[at][1]) for at in self.grids)
        return (st.status, tuple(out), values, decision, cells)


#: the visibilities kept per plan (one per combination of the values its rules read)
_VIS_KEPT = 4096


class _ViewPlan:
    """What a seat's view reads, for one layout (``Layout.viewers``): the zones it always sees
    (``open``, their places in the view), the others as ``(zone id, rule, zone, L, j)`` — rule
    False: seen only when a `reveal` showed it; None: an onlooker's (``sees_zone``); else the
    family's `visible:` rule and its arguments, whose value is ``kept[j]``'s when the rule reads
    nothing but variables and constants (``observe.visibility_reads``: then it is kept per the
    values of those variables, ``vis_get``, in ``vis_cache``) — the variable slots it always sees
    (``shown``) and the others with their rules (``asked``), and the cells of grids."""

    __slots__ = ("open", "zones", "place", "shown", "shown_get", "asked", "grids", "kept", "vis_get", "vis_cache",
                 "other_place", "steady")

    def __init__(self, st, seat):
        game, lay = st.game, st.lay
        zones, kept, reads = [], [], set()
        for zone in lay.zones:
            fam = game.zones[zone.family] if zone.family != "box" else None
            if seat is not None and (fam is None or fam.visible_const is True):
                zones.append((zone.id, True, None, None, None))       # seen by every seat, always
            elif seat is not None and fam.visible_const is False:
                zones.append((zone.id, False, None, None, None))      # seen only when a `reveal` showed it
            elif seat is None:
                zones.append((zone.id, None, zone, None, None))
            else:
                L = [None] * max(fam.nslots, 1)
                for spec, value in zip(fam.index, zone.index_values):
                    L[spec.slot] = value
                L[fam.viewer_slot] = seat
                slots = visibility_reads(game, lay, fam)
                if slots is None:
                    zones.append((zone.id, fam.visible, None, L, None))
                else:
                    zones.append((zone.id, fam.visible, None, L, len(kept)))
                    kept.append((fam.visible, L))
                    reads |= slots
        self.open = tuple(zid for zid, rule, _, _, _ in zones if rule is True)
        self.zones = [zone for zone in zones if zone[1] is not True]
        self.other_place = {zone[0]: k for k, zone in enumerate(self.zones)}
        #: whether the other zones' visibility is known without asking a rule at each stop (nothing
        #: revealed): only a `reveal` or rules kept by the values of the variables they read
        self.steady = all(j is not None or rule is False for _, rule, _, _, j in self.zones)
        self.place = {zid: k for k, zid in enumerate(self.open)}     # an always-seen zone's place in the view
        self.kept = kept
        self.vis_get = itemgetter(*sorted(reads)) if reads else None
        self.vis_cache = {}
        shown, asked = [], []           # slots always seen; (slot, variable, key, rule, L) for the rest
        slots = [(var.offset, var, None) for var in game.scalar_vars]
        slots += [(at, var, key) for var in game.family_vars for key, at in lay.vkeys[var.family_id].items()]
        for at, var, key in slots:
            if seat is not None and var.visible_const is True:
                shown.append(at)
            else:
                asked.append((at, var, key) + _var_rule(seat, var, key))
        self.shown = shown
        self.shown_get = _getter(shown)
        self.asked = asked
        self.grids = tuple(at for grid in lay.grids.values() for at in grid.values())


def _getter(slots):
    """A function of a list that returns the tuple of its elements at ``slots`` (an
    ``itemgetter``, which returns a bare element for one slot and cannot be made for none)."""
    if len(slots) > 1:
        return itemgetter(*slots)
    if slots:
        at = slots[0]
        return lambda v: (v[at],)
    return lambda v: ()


def _var_rule(seat, var, key):
    """(the `visible:` rule of variable ``var``'s element ``key``, its arguments for ``seat``), or
    (None, None) where it is constant (or for an onlooker)."""
    if seat is None or var.visible_const is not None:
        return (None, None)
    L = [None] * max(var.nslots, 1)
    keys = key if isinstance(key, tuple) and len(var.index) > 1 else (key,)
    for spec, value in zip(var.index, keys):
        L[spec.slot] = value
    L[var.viewer_slot] = seat
    return (var.visible, L)


_LABEL = attrgetter("label")
_PLAIN = frozenset((int, str, bool, float, type(None)))


def _open_zones(st) -> list:
    """``Layout.open_zones``: per zone, whether every seat always sees it (then a move from or
    into it is seen without asking the rules)."""
    zones = st.game.zones
    st.lay.open_zones = [z.family == "box" or zones[z.family].visible_const is True for z in st.lay.zones]
    return st.lay.open_zones


def _knows(st, key, seat) -> bool:
    seats = st.known.get(key)
    if not seats:
        return False
    if seat is None:
        return all(s in seats for s in range(st.lay.num_seats))
    return seat in seats


def _frozen(value):
    """``value`` as it is now, kept apart from later changes (a list in a variable may change in place)."""
    if type(value) in _PLAIN:
        return value
    try:
        hash(value)
        return value
    except TypeError:
        return format_value(plain(value, format_value))


class Recorder:
    """The record of one seat in a replay (``State.rec``): built (``expect`` None) or
    checked against ``expect`` as it goes (:class:`Mismatch` at the first difference).
    While it builds, it also notes which random outcomes the seat came to see (``pins``)
    for :class:`.worlds.World`: the components whose identity it saw after the shuffle or
    bag draw that last placed them at random, and the drawn values it saw."""

    __slots__ = ("seat", "events", "expect", "at", "logged", "chance", "last_random", "pins", "drawn_seen",
                 "drawn_all", "owner", "viewer", "changed", "seen_zones", "want")

    def __init__(self, seat: int, expect=None, chance=None):
        self.seat = seat
        self.expect = expect
        self.events = [] if expect is None else None
        self.at = 0
        self.logged = 0
        self.chance = chance              # the replay's chance (worlds.Trace) when building: for pins
        self.last_random = {}             # component id -> the chance event that last placed it at random
        self.pins = set()                 # (chance event, component id) the seat saw
        self.drawn_seen = set()           # draw keys of values the seat saw
        self.drawn_all = set()            # draw keys of values ever held in a variable that may be hidden
        self.owner = None
        self.viewer = None
        self.changed = set()              # the zones whose contents or order changed since the last stop
        self.seen_zones = set()           # the zones the seat saw at the last stop (building: for pins)
        #: the option the next decision takes, when the replay knows it and the seat is not told that
        #: decision's options: (seat, action name, id parts); a decide step that finds it offers only
        #: it and sets this None (flowcode.decide_lines; worlds.replay_world)
        self.want = None

    def copy(self) -> "Recorder":
        """A copy that goes on on its own from this stop (its view read whole at the next one)."""
        c = Recorder.__new__(Recorder)
        c.seat, c.expect, c.at, c.logged, c.chance = self.seat, self.expect, self.at, self.logged, self.chance
        c.events = list(self.events) if self.events is not None else None
        c.last_random = dict(self.last_random)
        c.pins, c.drawn_seen, c.drawn_all = set(self.pins), set(self.drawn_seen), set(self.drawn_all)
        c.owner = self.owner                # (made once per layout, never changed)
        c.viewer = None
        c.changed, c.seen_zones = set(self.changed), set(self.seen_zones)
        c.want = None
        return c

    def add(self, event) -> None:
        expect = self.expect
        if expect is None:
            self.events.append(event)
            return
        at = self.at
        try:
            if expect[at] != event:
                raise Mismatch()
        except IndexError:              # past the record's end
            raise Mismatch() from None
        self.at = at + 1

    # --- the engine's hooks (runtime.State calls them while ``State.rec`` is set) -----
    def moving(self, st, c, src: int, dst: int) -> None:
        open_zones = st.lay.open_zones or _open_zones(st)
        if open_zones[src] or open_zones[dst]:
            seen = True
            event = ("m", src, dst, c.label)
        else:
            zones = st.lay.zones
            seat = self.seat
            seen = sees_zone(st, zones[src], seat) or zone_visible(st, zones[dst], seat)
            event = ("m", src, dst, c.label if seen else None)
        changed = self.changed
        changed.add(src)
        changed.add(dst)
        expect = self.expect                # (self.add written out: the most frequent event)
        if expect is None:
            self.events.append(event)
            if seen:
                self._saw(c.id)
            return
        at = self.at
        try:
            if expect[at] != event:
                raise Mismatch()
        except IndexError:              # past the record's end
            raise Mismatch() from None
        self.at = at + 1

    def shuffled(self, st, zone) -> None:
        self.changed.add(zone.id)
        self.add(("s", zone.id))

    def reordered(self, st, zid: int) -> None:
        """The components of zone ``zid`` lie in another order (no component came or went: a
        move under the others of what was there already, a move to a place)."""
        self.changed.add(zid)

    def revealed(self, st, zones, seats) -> None:
        if self.seat in seats:
            for zone in zones:
                self.add(("r", zone.id, tuple(c.label for c in st.z[zone.id])))
                if self.expect is None:
                    for c in st.z[zone.id]:
                        self._saw(c.id)

    def told(self, st, facts) -> None:
        seat = self.seat
        comps = st.lay.components
        for f_seat, cid, attr, value, equal, holds in facts:
            if f_seat == seat and cid < 0:          # a condition told (tell: without about:)
                self.add(("t", attr, holds))
            elif f_seat == seat:
                zid = st.where[cid]
                self.add(("t", zid, st.z[zid].index(comps[cid]), attr, _frozen(value), equal, holds))

    # --- what the replay calls -------------------------------------------------
    def stop(self, st) -> None:
        """At the start and after every decision: the log lines since the last stop, then what
        the seat sees."""
        log = st.log
        if len(log) > self.logged:
            self.add(("l", tuple(log[self.logged:])))
            self.logged = len(log)
        viewer = self.viewer
        if viewer is None:
            viewer = self.viewer = Viewer(st, self.seat)
        changed = self.changed
        self.add(("o", viewer(st, changed)))
        if self.expect is None:
            self._saw_at_stop(st, changed)
        changed.clear()

    def decided(self, st, who: int, action_id: str) -> None:
        self.add(("d", who, action_id if who == self.seat else st.told_id(action_id)))

    def decided_as_recorded(self) -> None:
        """``decided`` for the decision the record holds next, taken with the same id as in the
        game the record is of: its event is the record's next one (how a decision is told is a
        function of its id), so it is not written again — a replay's last stop matched, so the
        record's next event is that decision's."""
        at = self.at
        expect = self.expect
        if at >= len(expect) or expect[at][0] != "d":
            raise Mismatch()
        self.at = at + 1

    def placed(self, event: int, ids) -> None:
        """Chance event ``event`` placed the components ``ids`` at random (a shuffle, a bag draw)."""
        last = self.last_random
        for cid in ids:
            last[cid] = event

    # --- pins ------------------------------------------------------------------
    def _saw(self, cid: int) -> None:
        event = self.last_random.get(cid)
        if event is not None:
            self.pins.add((event, cid))

    def _saw_at_stop(self, st, changed) -> None:
        """The components of the zones the seat sees now: seen (``_saw``).  Those of a zone it saw
        at the last stop too, whose contents have not changed since (``changed``), were noted then
        and have not been placed at random since (that changes the zone): not noted again."""
        seat = self.seat
        z = st.z
        lay = st.lay
        open_zones = lay.open_zones or _open_zones(st)
        before = self.seen_zones
        now = set()
        for zone in lay.zones:
            zid = zone.id
            comps = z[zid]
            if comps and (open_zones[zid] or sees_zone(st, zone, seat)):
                now.add(zid)
                if zid in before and zid not in changed:
                    continue
                for c in comps:
                    self._saw(c.id)
        self.seen_zones = now
        if st.drawn:
            owner = self.owner
            if owner is None:
                owner = self.owner = _owners(st)
            for slot, key in st.drawn.items():
                self.drawn_all.add(key)
                var, k = owner[slot]
                if var_visible(st, var, k, seat) or seat in st.value_revealed_to(slot):
                    self.drawn_seen.add(key)


def _owners(st) -> dict:
    """{variable slot: (variable, key)}."""
    owner = {}
    game = st.game
    for var in game.scalar_vars:
        owner[var.offset] = (var, None)
    for var in game.family_vars:
        for key, at in st.lay.vkeys[var.family_id].items():
            owner[at] = (var, key)
    return owner
