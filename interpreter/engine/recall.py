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
    go in (the deck as laid out before the setup, a card put under a deck from a hand), and
    the deck was not shuffled since (the order of what stayed in it changed)."""

    __slots__ = ("seat", "where", "saw", "places", "decks", "ordered")

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

    def copy(self) -> "Recall":
        c = Recall.__new__(Recall)
        c.seat, c.where, c.saw, c.places = self.seat, list(self.where), self.saw, list(self.places)
        c.decks, c.ordered = self.decks, self.ordered
        return c

    def memory(self) -> tuple:
        """(``places``, ``ordered``): what :func:`permuted` honours."""
        return self.places, self.ordered

    def _step_decks(self, st, old, saw) -> None:
        if not self.decks:
            return
        ordered = set(self.ordered)
        decks = {}
        for zid, prev in self.decks.items():
            ids = tuple(c.id for c in st.z[zid])
            decks[zid] = ids
            if ids == prev:
                continue
            here, there = set(ids), set(prev)
            if [i for i in ids if i in there] != [i for i in prev if i in here]:
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

    def step(self, st, shared=None) -> None:
        """Take in the state at the next stop (``shared``: a dict for the visibility of zones
        that is the same for every seat, filled by the first seat that asks)."""
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
            if saw[was]:                # it saw the component there at the last stop
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
        self._step_decks(st, old, saw)
        self.where = list(now)
        self.saw = sees


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
        for m in self.of:
            m.step(st, shared)
