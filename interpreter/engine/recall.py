"""What a seat remembers of the components: where it may know each one is, from what it saw
at every stop since the game began (perfect recall for component movements, used by
``resample``: engine/infosets.py; the rule: docs/language.md, "What a seat knows")."""
from __future__ import annotations

from .observe import sees_zone, zone_visible


class Recall:
    """Where ``seat`` may know each component is, from what it observed: fed the state at each
    stop it observes (the start and after every decision), in order.  ``places[c]``: the
    zones component ``c`` may be in as far as the seat can tell (it is in one of them).

    Before the setup every component lies in its home zone, known to all.  From one stop to
    the next (``step``): a component in a zone the seat sees is there; one it saw (in a zone
    it saw) that went out of its sight is in one of the hidden zones that received components
    meanwhile; one it did not see stays among the zones it may be in, and when one of those
    zones it cannot see lost components meanwhile, it may also be in any hidden zone that
    received some.  A shuffle changes nothing here: the membership of a zone is remembered.

    The order inside a hidden deck (drawn from the top) is remembered too, in ``ordered``: the
    components whose place in their deck the seat knows — it saw each that went in meanwhile
    go in (the deck as laid out before the setup, a card put under a deck from a hand) or saw
    the deck (a reveal), and the deck was not shuffled since (logged by a replay in
    ``State.shuffles``; else: the order of what stayed in it changed).  When the components
    that left a hidden deck were its top ones, one whose place the seat knew is among the
    hidden zones they went to (a draw takes the top).  Where this is looser than what the
    seat could tell (known components leaving from elsewhere, or for several hidden zones),
    ``loose`` says so."""

    __slots__ = ("seat", "where", "saw", "places", "decks", "ordered", "stops", "loose", "shuffled")

    def __init__(self, lay, seat: int, origin=None):
        self.seat = seat
        decks = [z.id for z in lay.zones if z.type == "deck"]
        if origin is None:
            self.where = list(lay.start_where)
            self.saw = dict.fromkeys(range(len(lay.zones)), True)    # the layout before the setup: known to all
            self.places = [frozenset((z,)) for z in self.where]
            self.decks = {z: tuple(c.id for c in lay.start_contents[z]) for z in decks}
            self.ordered = frozenset(c for z in decks for c in self.decks[z])
        else:                   # an edited start: the seat knows what it sees there, nothing before
            self.where = list(origin.where)
            self.saw = {z.id: sees_zone(origin, z, seat) for z in lay.zones}
            anywhere = frozenset(range(len(lay.zones)))
            self.places = [frozenset((z,)) if self.saw[z] else anywhere for z in self.where]
            self.decks = {z: tuple(c.id for c in origin.z[z]) for z in decks}
            self.ordered = frozenset()
        self.stops = 0
        self.loose: list = []
        self.shuffled = None

    def copy(self) -> "Recall":
        c = Recall.__new__(Recall)
        c.seat, c.where, c.saw, c.places = self.seat, list(self.where), self.saw, list(self.places)
        c.decks, c.ordered = self.decks, self.ordered
        c.stops, c.loose, c.shuffled = self.stops, list(self.loose), self.shuffled
        return c

    def memory(self) -> tuple:
        """(``places``, ``ordered``, ``loose``): what :func:`permuted` honours, and where it
        is looser than what the seat could tell."""
        return self.places, self.ordered, tuple(self.loose)

    def _step_decks(self, st, old, saw, sees) -> None:
        if not self.decks:
            return
        ordered = set(self.ordered)
        decks = {}
        for zid, prev in self.decks.items():
            ids = tuple(c.id for c in st.z[zid])
            decks[zid] = ids
            if sees.get(zid):           # it sees the deck (a reveal): every place in it
                ordered.update(ids)
                continue
            if ids == prev and not (self.shuffled and zid in self.shuffled):
                continue
            here, there = set(ids), set(prev)
            if self._was_shuffled(zid, prev, ids, here, there):
                ordered -= here         # shuffled: no place in it is known any more
            entered = [i for i in ids if old[i] != zid]
            if entered:
                if all(saw[old[i]] for i in entered):
                    ordered.update(entered)
                else:
                    ordered.difference_update(entered)
            ordered.difference_update(there - here)      # gone from the deck
        self.decks = decks
        self.ordered = frozenset(ordered)

    def step(self, st, shared=None, shuffled=None) -> None:
        """Take in the state at the next stop (``shared``: a dict for the visibility of zones
        that is the same for every seat, filled by the first seat that asks; ``shuffled``: the
        zones shuffled since the last stop, else read (and emptied) from ``State.shuffles``,
        else, when the state does not log them, told by the order of what stayed in a deck)."""
        if shuffled is None and st.shuffles is not None:
            shuffled = frozenset(st.shuffles)
            st.shuffles.clear()
        self.shuffled = shuffled
        seat, old, saw, places = self.seat, self.where, self.saw, self.places
        now = st.where
        zones = st.lay.zones
        known = st.known
        families = st.game.zones

        def sees_now(z):
            zone = zones[z]
            fam = families.get(zone.family)
            const = True if fam is None else fam.visible_const     # the box: seen by all
            if const is None:
                if shared is None or fam.visible_by_viewer:
                    return sees_zone(st, zone, seat)
                const = shared.get(z)
                if const is None:
                    const = shared[z] = zone_visible(st, zone, seat)
            return const or (bool(known) and seat in st.revealed_to(zone))
        sees = {z: sees_now(z) for z in set(now)}      # the zones that hold something
        # where components went since the last stop, out of the seat's sight: zone -> zones
        edges: dict = {}
        moved = [c for c in range(len(now)) if now[c] != old[c]]
        for c in moved:
            if not sees[now[c]]:
                edges.setdefault(old[c], set()).add(now[c])
        lost = {old[c] for c in moved}
        told = self._taken_from_known(st, old, saw, edges, sees) if self.decks and edges else {}

        def reach(zones):
            """``zones`` and every hidden zone a component could have gone to from them, at
            one or more removes (the seat may not know which component moved)."""
            out, todo = set(zones), [z for z in zones if z in edges]
            while todo:
                for dst in edges[todo.pop()]:
                    if dst not in out:
                        out.add(dst)
                        if dst in edges:
                            todo.append(dst)
            return frozenset(out)
        for c, z in enumerate(now):
            was = old[c]
            seen = sees[z]
            if z == was and seen == saw[was] and (not edges or seen or places[c].isdisjoint(edges)) and \
                    (seen or not saw[was]):
                continue                # nothing the seat could tell changed for it
            if seen:
                places[c] = frozenset((z,))
                continue
            if was in told and told[was] is not None and c in told[was][0]:
                mine = reach(edges[was])     # it knew this card was taken from the deck
                if len(mine) > 1:
                    self._note(st, was, "it knew cards drawn from it but not which of the hidden zones they "
                                        "went to took which")
            elif was in told and told[was] is None and z != was and (saw[was] or c in self.ordered):
                mine = reach((was,))
                self._note(st, was, "components it knew left it from places it cannot tell (not the top "
                                    "ones, or with components going in unseen)")
            elif saw[was]:                # it saw the component there at the last stop
                if was not in lost:
                    mine = frozenset((was,))
                elif z != was and sees.get(was, sees_now(was)):     # it sees that it left
                    mine = reach((was,)) - {was}
                else:
                    mine = reach((was,))
            else:
                mine = places[c]
                if edges and not mine.isdisjoint(edges):
                    mine = reach(mine)
            if z not in mine:           # cannot happen; never exclude the truth
                mine = mine | {z}
            places[c] = mine
        self._step_decks(st, old, saw, sees)
        self.where = list(now)
        self.saw = sees
        self.stops += 1

    def _taken_from_known(self, st, old, saw, edges, sees) -> dict:
        """For each deck the seat does not see now that lost components to zones it cannot
        see: (the components it knew were taken from it, ) when the components
        that left it were its top ones and every one that went in came from where the seat
        saw it (so it can tell how many were taken: a draw takes the top ones), else None.
        A component it knew the place of (``ordered``, or all of a deck it saw) is one it
        knew was taken when its place was among the top ones."""
        out = {}
        now = st.where
        for zid, prev in self.decks.items():
            if zid not in edges or sees.get(zid):
                continue
            n = len(prev)
            left = [i for i in prev if now[i] != zid]
            k = len(left)
            ids = [c.id for c in st.z[zid]]
            entered = [i for i in ids if old[i] != zid]
            if self._was_shuffled(zid, prev, ids, set(ids), set(prev)):
                out[zid] = (frozenset(),)       # shuffled: it knows no place in it any more
            elif set(left) == set(prev[n - k:]) and ids[:n - k] == list(prev[:n - k]) and \
                    all(saw[old[i]] for i in entered):
                known = saw[zid]
                out[zid] = (frozenset(i for i in left if known or i in self.ordered),)
            else:
                out[zid] = None
        return out

    def _was_shuffled(self, zid, prev, ids, here, there) -> bool:
        """Whether the deck ``zid`` was shuffled since the last stop (``prev``, ``there``: its
        components then, in order and as a set; ``ids``, ``here``: now): logged by the replay,
        else told by the order of the components that stayed (a shuffle may leave it)."""
        if self.shuffled is not None:
            return zid in self.shuffled
        return [i for i in ids if i in there] != [i for i in prev if i in here]

    def _note(self, st, zid: int, why: str) -> None:
        """Recall of this seat is looser than what it could tell at zone ``zid`` (kept, in
        ``loose``, as (stop, zone name, why): :func:`interpreter.engine.infosets.recall_notes`)."""
        if len(self.loose) < 16:
            self.loose.append((self.stops, st.lay.zones[zid].name, why))


class Recalls:
    """A :class:`Recall` for every seat (one replay of the game serves all seats)."""

    __slots__ = ("of",)

    def __init__(self, lay, _seat=None, origin=None):
        self.of = [Recall(lay, seat, origin) for seat in range(lay.num_seats)]

    def copy(self) -> "Recalls":
        c = Recalls.__new__(Recalls)
        c.of = [m.copy() for m in self.of]
        return c

    def step(self, st) -> None:
        shared: dict = {}
        shuffled = None
        if st.shuffles is not None:
            shuffled = frozenset(st.shuffles)
            st.shuffles.clear()
        for m in self.of:
            m.step(st, shared, shuffled)
