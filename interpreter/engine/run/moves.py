"""What the steps do to the zones of a :class:`~interpreter.engine.run.runtime.State`:
random numbers from the state's generator (``below``, ``shuffle``), moving components
(``move``, ``move_zone``, ``move_component``, ``move_to_place``, ``draw``: capacities, refills,
the events and records a move makes), and pieces that cover several cells of a grid
(``cover``, ``grid_leave``).  A part of ``State`` (runtime.py composes it).
"""
from __future__ import annotations

from dsl.diagnostics import Pos, RuleRuntimeError

from . import rng as rngmod
from .values import Record, format_value


class Moves:
    """Randomness and moving components: a part of :class:`State`."""

    __slots__ = ()

    # --- randomness --------------------------------------------------------
    def below(self, n: int) -> int:
        """A random number in ``range(n)`` from the game's generator, or from ``chance``
        (set while interpreter/chance.py replays a segment with chosen outcomes)."""
        if self.chance is not None:
            return self.chance(n)
        value, self.rng = rngmod.draw(self.ahead, self.rng, n)
        return value

    def shuffle(self, zone) -> None:
        self.forget_results((zone.id,))
        if self.known:
            self.known.pop(zone.id, None)
        items = self.z[zone.id]
        if self.rec is not None:            # a seat watches every shuffle (knowledge/record.py)
            self.rec.shuffled(self, zone)
        if self.chance is not None:         # a replay with chosen outcomes answers every number
            order = getattr(self.chance, "shuffle", None)
            if order is not None:           # a sampled world (knowledge/worlds.py) orders the zone itself
                order(self, zone, items)
                return
            for i in range(len(items) - 1, 0, -1):
                j = self.below(i + 1)
                items[i], items[j] = items[j], items[i]
            return
        rng, draw, ahead = self.rng, rngmod.draw, self.ahead
        for i in range(len(items) - 1, 0, -1):     # the numbers self.below would draw
            j, rng = draw(ahead, rng, i + 1)
            items[i], items[j] = items[j], items[i]
        self.rng = rng

    # --- moving components -----------------------------------------------
    def move(self, comps, dst, bottom: bool, pos: Pos) -> None:
        if not comps:
            return
        if len(comps) == 1:             # most moves: the same as below, without the lists
            self.move_component(comps[0], dst, bottom, pos)
            return
        lst = self.z[dst.id]
        incoming = [c for c in comps if self.where[c.id] != dst.id]
        if dst.capacity is not None and len(lst) + len(incoming) > dst.capacity:
            raise RuleRuntimeError(
                f"{dst.name} is full: it holds {len(lst)} of {dst.capacity} and cannot take {len(incoming)} more", pos)
        if dst.holds:
            for c in incoming:
                if c.kind not in dst.holds:
                    raise RuleRuntimeError(f"{dst.name} cannot hold {c.kind} ({c.label})", pos)
        where = self.where
        z = self.z
        if self.rec is not None:
            for c in incoming:
                self.rec.moving(self, c, where[c.id], dst.id)
        if self.game.grids:
            for c in incoming:
                self.grid_leave(c, where[c.id], dst, pos)
        moved_from = []
        did = dst.id
        for c in incoming:
            src = where[c.id]
            z[src].remove(c)
            if bottom:
                lst.insert(0, c)
            else:
                lst.append(c)
            where[c.id] = did
            moved_from.append(src)
        if self.moved is not None:
            self.moved.extend([c.id for c in incoming])
        if bottom and len(incoming) != len(comps):     # some were there already: they go under too
            self._put_at(lst, comps[::-1], 0)
            if self.rec is not None:
                self.rec.reordered(self, did)
        if self.known and (incoming or bottom):
            self.forget((did, *moved_from))
        if moved_from and moved_from.count(moved_from[0]) == len(moved_from):
            _forget_two(self, did, moved_from[0])       # all from one zone (most moves): each forgotten once
        else:
            self.forget_results((did, *dict.fromkeys(moved_from)))
        if self.game.on_moved:
            self.emit("moved", Record.of({"components": tuple(incoming), "to": dst,
                                       "from": self.lay.zones[moved_from[0]] if moved_from else dst}), pos)
        if self.game.condition_triggers:     # no function reads what moved: only they may care
            looks = self.lay.condition_zones
            look = looks[dst.id]
            for src in moved_from:      # (a loop: a generator costs more than the few it looks at)
                look = look or looks[src]
            if look:
                self.changed(())

    def move_zone(self, src, dst, bottom: bool, pos: Pos) -> None:
        """Move everything ``src`` holds: ``move(tuple(contents of src), dst, bottom, pos)``,
        without taking the components out one by one."""
        z = self.z
        sid = src.id
        comps = z[sid]
        if not comps:
            return
        did = dst.id
        if sid == did:
            self.move(tuple(comps), dst, bottom, pos)
            return
        lst = z[did]
        cap = dst.capacity
        if cap is not None and len(lst) + len(comps) > cap:
            raise RuleRuntimeError(
                f"{dst.name} is full: it holds {len(lst)} of {cap} and cannot take {len(comps)} more", pos)
        holds = dst.holds
        if holds:
            for c in comps:
                if c.kind not in holds:
                    raise RuleRuntimeError(f"{dst.name} cannot hold {c.kind} ({c.label})", pos)
        moved = tuple(comps)
        if self.rec is not None:
            for c in moved:
                self.rec.moving(self, c, sid, did)
        if self.game.grids:
            for c in moved:
                self.grid_leave(c, sid, dst, pos)
        if bottom:                      # one at a time onto the bottom: the last one lowest
            lst[0:0] = moved[::-1]
        else:
            lst.extend(moved)
        comps.clear()
        where = self.where
        for c in moved:
            where[c.id] = did
        if self.moved is not None:
            self.moved.extend([c.id for c in moved])
        if self.known:
            self.forget((did, sid))
        _forget_two(self, did, sid)
        game = self.game
        if game.on_moved:
            self.emit("moved", Record.of({"components": moved, "to": dst, "from": src}), pos)
        if game.condition_triggers:     # no function reads what moved: only they may care
            looks = self.lay.condition_zones
            if looks[did] or looks[sid]:
                self.changed(())

    def move_component(self, c, dst, bottom: bool, pos: Pos) -> None:
        """Move the one component ``c``: ``move((c,), dst, bottom, pos)``."""
        did = dst.id
        where = self.where
        cid = c.id
        src = where[cid]
        game = self.game
        if src != did:
            z = self.z
            lst = z[did]
            cap = dst.capacity
            if cap is not None and len(lst) >= cap:
                raise RuleRuntimeError(f"{dst.name} is full: it holds {len(lst)} of {cap} and cannot take 1 more",
                                       pos)
            holds = dst.holds
            if holds and c.kind not in holds:
                raise RuleRuntimeError(f"{dst.name} cannot hold {c.kind} ({c.label})", pos)
            if self.rec is not None:
                self.rec.moving(self, c, src, did)
            if game.grids:
                self.grid_leave(c, src, dst, pos)
            there = z[src]
            if there[-1] is c:          # most often the top one (a deck's, the last one put there)
                there.pop()
            else:
                there.remove(c)
            if bottom:
                lst.insert(0, c)
            else:
                lst.append(c)
            where[cid] = did
            if self.moved is not None:
                self.moved.append(cid)
            if self.known:
                self.forget((did, src))
            _forget_two(self, did, src)
            if game.on_moved:
                self.emit("moved", Record.of({"components": (c,), "to": dst, "from": self.lay.zones[src]}), pos)
        else:                           # already there: it stays, or goes under the others
            if bottom and self.z[did][0] is not c:
                self._put_at(self.z[did], (c,), 0)
                if self.rec is not None:
                    self.rec.reordered(self, did)
                if self.known:
                    self.forget((did,))
            self.forget_results((did,))
            if game.on_moved:
                self.emit("moved", Record.of({"components": (), "to": dst, "from": dst}), pos)
        if game.condition_triggers:     # no function reads what moved: only they may care
            looks = self.lay.condition_zones
            if looks[did] or looks[src]:
                self.changed(())

    def move_to_place(self, comps, dst, place: int, pos: Pos) -> None:
        """``move: …, to: dst, at: place``: move ``comps`` into ``dst`` (those already there
        too) so that ``place`` of its other components lie under them (0: at the bottom; the
        number of the others: on top), in the order given, the first one lowest."""
        comps = tuple(dict.fromkeys(comps))
        if not comps:
            return
        did = dst.id
        where = self.where
        others = len(self.z[did]) - sum(1 for c in comps if where[c.id] == did)
        if isinstance(place, bool) or not isinstance(place, int) or not 0 <= place <= others:
            raise RuleRuntimeError(f"at: {place!r} is not a place in {dst.name}: {others} other components lie "
                                   f"there, so 0 (the bottom) to {others} (the top)", pos)
        self.move(comps, dst, False, pos)
        self._put_at(self.z[did], comps, place)
        if self.rec is not None:
            self.rec.reordered(self, did)
        if self.known:
            self.forget((did,))
        self.forget_results((did,))

    @staticmethod
    def _put_at(lst: list, comps, place: int) -> None:
        """Reorder the zone list ``lst`` (bottom first): ``comps`` (all in it) at ``place``
        counted from the bottom among the others, in the order given."""
        ids = {id(c) for c in comps}
        rest = [c for c in lst if id(c) not in ids]
        lst[:] = [*rest[:place], *comps, *rest[place:]]

    def draw(self, src, n: int, dst, pos: Pos) -> tuple:
        """Draw ``n`` components from ``src`` (a bag: at random; else from the top) onto
        ``dst``, refilling ``src`` once from its refill zone when it runs out."""
        z = self.z
        where = self.where
        lst = z[src.id]
        did = dst.id
        target = z[did]
        cap = dst.capacity
        holds = dst.holds
        bag = src.type == "bag"
        grids = self.game.grids
        got = []
        refilled = False
        for _ in range(n):
            if not lst and not refilled and src.refill is not None and z[src.refill.id]:
                refilled = True
                self.move(tuple(z[src.refill.id]), src, False, pos)
                if src.type == "deck":
                    self.shuffle(src)
            if not lst:
                break
            if bag:
                if self.forced:
                    c = self._forced_pick(lst, pos)
                    i = lst.index(c)
                else:
                    pick = getattr(self.chance, "pick", None) if self.chance is not None else None
                    i = pick(self, src, lst) if pick is not None else self.below(len(lst))
                    c = lst[i]
            else:
                i = len(lst) - 1
                c = lst[i]
            got.append(c)
            if cap is not None and len(target) >= cap:
                raise RuleRuntimeError(f"{dst.name} is full (capacity {cap})", pos)
            if holds and c.kind not in holds:
                raise RuleRuntimeError(f"{dst.name} cannot hold {c.kind} ({c.label})", pos)
            if self.rec is not None:
                self.rec.moving(self, c, src.id, did)
            if grids:
                self.grid_leave(c, src.id, dst, pos)
            if self.known:
                self.forget((where[c.id], did))
            del lst[i]                  # c is at index i of its zone, src
            target.append(c)
            where[c.id] = did
        if self.moved is not None:
            self.moved.extend([c.id for c in got])
        _forget_two(self, src.id, did)
        got = tuple(got)
        if len(got) < n:
            self.short_draws.append((pos, n, len(got), src.name))
        game = self.game
        if game.on_moved and got:
            self.emit("moved", Record.of({"components": got, "from": src, "to": dst}), pos)
        if "drawn" in game.event_triggers:
            self.emit("drawn", Record.of({"components": got, "from": src, "to": dst, "count": n,
                                          "short": len(got) < n}), pos)
        if game.condition_triggers:     # no function reads what moved: only they may care
            looks = self.lay.condition_zones
            if looks[did] or looks[src.id] or (refilled and looks[src.refill.id]):
                self.changed(())
        return got

    # --- pieces on a grid: a component that covers several cells ---------------
    def grid_leave(self, c, src: int, dst, pos: Pos) -> None:
        """Before ``c`` moves from zone id ``src`` to ``dst`` by a step without `cells:`: the
        cells it covered on a grid ``src`` are free; a grid ``dst`` is refused (which cells?)."""
        grids = self.lay.grids
        if dst.id in grids:
            raise RuleRuntimeError(f"{dst.name} is a grid: {c.label} goes onto it with a move that says "
                                   f"which cells it covers (cells:)", pos)
        grid = grids.get(src)
        if grid is not None:
            _uncover(self.v, grid, c)

    def free_cells(self, c) -> None:
        """Free the cells ``c`` covers on the grid it lies on (for tools that move components
        themselves, such as a scenario's starting position)."""
        grid = self.lay.grids.get(self.where[c.id])
        if grid is not None:
            _uncover(self.v, grid, c)

    def cover(self, c, dst, cells, pos: Pos, events: bool = True) -> None:
        """Move the one component ``c`` onto the grid ``dst`` so that it covers ``cells``: cell i
        of the list is covered by the piece's part i.  A piece already on ``dst`` is laid anew
        (its old cells are free first); one on another grid leaves its cells there.  ``events``
        False: no `moved` event and no condition trigger (a scenario's starting position)."""
        if c is None:
            raise RuleRuntimeError("nothing to move (none)", pos)
        grid = self.lay.grids.get(dst.id)
        if grid is None:
            raise RuleRuntimeError(f"{dst.name} is not a grid (a zone with cells:): {c.label} cannot cover "
                                   f"cells there", pos)
        v = self.v
        did = dst.id
        src = self.where[c.id]
        slots = []
        for cell in cells:
            if type(cell) is list:
                cell = tuple(cell)
            try:
                at = grid.get(cell)
            except TypeError:               # a value that is no cell (unhashable)
                at = None
            if at is None:
                raise RuleRuntimeError(f"{format_value(cell)} is not a cell of {dst.name}", pos)
            held = v[at]
            if held is not None and held[0] is not c:
                raise RuleRuntimeError(f"cell {format_value(cell)} of {dst.name} is covered by {held[0].label} "
                                       f"already", pos)
            if at in slots:
                raise RuleRuntimeError(f"{c.label} cannot cover cell {format_value(cell)} twice", pos)
            slots.append(at)
        if not slots:
            raise RuleRuntimeError(f"{c.label} must cover at least one cell of {dst.name}", pos)
        parts = self.lay.parts.get(c.id)
        if parts is not None and parts != len(slots):
            raise RuleRuntimeError(f"{c.label} has {parts} parts (its shape), so it covers {parts} cells, not "
                                   f"{len(slots)}", pos)
        game = self.game
        if src == did:
            _uncover(v, grid, c)
            self.forget_results((did,))
        else:
            z = self.z
            lst = z[did]
            cap = dst.capacity
            if cap is not None and len(lst) >= cap:
                raise RuleRuntimeError(f"{dst.name} is full: it holds {len(lst)} of {cap} and cannot take 1 more",
                                       pos)
            if dst.holds and c.kind not in dst.holds:
                raise RuleRuntimeError(f"{dst.name} cannot hold {c.kind} ({c.label})", pos)
            if self.rec is not None:
                self.rec.moving(self, c, src, did)
            before = self.lay.grids.get(src)
            if before is not None:
                _uncover(v, before, c)
            z[src].remove(c)
            lst.append(c)
            self.where[c.id] = did
            if self.moved is not None:
                self.moved.append(c.id)
            if self.known:
                self.forget((did, src))
            _forget_two(self, did, src)
        for i, at in enumerate(slots):
            v[at] = (c, i)
        if not events:
            self.forget_all()
            return
        if game.on_moved:
            self.emit("moved", Record.of({"components": (c,) if src != did else (), "to": dst,
                                          "from": self.lay.zones[src]}), pos)
        if game.condition_triggers:
            self.changed(())

    def covering(self, zone, cell):
        """What covers ``cell`` of the grid ``zone``: ``(piece, part)``, or None (free, or no
        such cell, or no grid)."""
        grid = self.lay.grids.get(zone.id)
        if grid is None:
            return None
        if type(cell) is list:
            cell = tuple(cell)
        try:
            at = grid.get(cell)
        except TypeError:
            return None
        return None if at is None else self.v[at]


def _uncover(v, grid: dict, c) -> None:
    """Free the cells of ``grid`` (cell -> slot of ``v``) that ``c`` covers."""
    for at in grid.values():
        held = v[at]
        if held is not None and held[0] is c:
            v[at] = None


def _forget_two(st, a: int, b: int) -> None:
    """``st.forget_results((a, b))`` for the two zones of a move, without the tuple and loop:
    what either zone's family makes stale, each slot once (``Layout.stale_two``)."""
    lay = st.lay
    drop = lay.stale_two[a][lay.zone_family_no[b]]
    if drop is None:
        st.forget_all()
        return
    memo = st.memo
    for slot in drop:
        memo[slot] = None
    keyed = st.game.memo_keyed
    if keyed:                       # results of functions of one zone: forgotten for a and b only
        zones = st.lay.zones
        for slot, _, _ in keyed:
            results = memo[slot]
            if results:
                results.pop(zones[a], None)
                results.pop(zones[b], None)
