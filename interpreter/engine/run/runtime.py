"""The game state and the machine that runs compiled rules.

A :class:`State` is pure data: zone contents, variables, the random
generator (one integer), a stack of :class:`Frame` (procedure, program
counter, local slots), the open scopes with their deferred effects, and the
pending decision.  Because the stack is data, a game can stop at a decision
anywhere — deep inside an action, a trigger or a loop — and be cloned or
serialised there.

:func:`run` executes instructions until a decision is needed or the game
is over.  An instruction is a closure ``ins(state, frame)``; the machine
advances the program counter *before* calling it, so an instruction jumps
by setting ``frame.pc`` and suspends by returning ``True``.
"""
from __future__ import annotations

from dsl.diagnostics import Pos, RuleRuntimeError

from . import rng as rngmod
from ..compile.flowcode import direct_function, rule_error
from .limits import LIMITS, NEXT, WORK
from ..knowledge.observe import observation
from .frames import Decision, Frame, Option, ScopeRec, id_part, option_id  # noqa: F401 - part of this module's API
from .values import Component, Record, encode, decode, format_value



class MoveJournal(list):
    """The ids of the components that changed zone, in order (``State.track_moves``): a list the
    engine appends to, kept bounded — once it holds more than ``2 * KEEP`` entries, the next
    decision drops all but the last ``KEEP`` (``trim``).  ``base`` counts the entries dropped
    so far, so a reader keeps its place as ``base + index`` (``end()`` after the last entry);
    finding its place before ``base``, it has lost entries and reads the state whole instead."""

    __slots__ = ("base",)

    #: the entries kept at a trim (a reader more than this many moves behind reads the state whole)
    KEEP = 2048

    def __init__(self):
        super().__init__()
        self.base = 0

    def end(self) -> int:
        """The place after the last entry (the entries dropped included)."""
        return self.base + len(self)

    def trim(self, keep: int) -> None:
        """Drop all but the last ``keep`` entries."""
        drop = len(self) - keep
        if drop > 0:
            del self[:drop]
            self.base += drop


class IllegalAction(Exception):
    """A decision that is not among the legal actions; the state is unchanged."""


def public_action_id(game, action_id: str) -> str:
    """``action_id`` as a seat other than the one that chose it is told: its secret
    parameters' values replaced by ``…`` (``GameDef.redact``); all secret: ``name(…)``."""
    name, sep, rest = action_id.partition("(")
    if name in getattr(game, "sealed", ()):     # taken together: nothing of it is told
        return "…"
    info = game.redact.get(name)
    if info is None or not sep:
        return action_id
    names, hidden = info
    if all(n in hidden for n in names):
        return f"{name}(…)"
    body = rest[:-1] if rest.endswith(")") else rest
    parts = []
    at = 0
    for i, pname in enumerate(names):
        key = pname + "="
        if not body.startswith(key, at):
            return f"{name}(…)"                 # not an id of this action: tell nothing
        start = at + len(key)
        end = body.find("," + names[i + 1] + "=", start) if i + 1 < len(names) else len(body)
        if end < 0:
            return f"{name}(…)"
        parts.append(f"{pname}={'…' if pname in hidden else body[start:end]}")
        at = end + 1
    return f"{name}({','.join(parts)})"


class State:
    """Everything that changes during a game.  See the module docstring.  (``zf``, ``zi``,
    ``vk``: the layout's zones, zone ids and variable slots by family and key, kept here
    for the generated code to reach in one step.)"""

    __slots__ = ("game", "lay", "z", "where", "v", "rng", "frames", "scopes", "pending", "_history",
                 "status", "running", "forced", "log", "log_marks", "logging", "steps", "error", "seed", "memo",
                 "short_draws", "known", "drawn", "facts", "step_limit", "chance", "zf", "zi", "vk", "broken",
                 "origin", "moved", "rec", "script")

    # --- construction ------------------------------------------------------
    def clone(self) -> "State":
        s = State.__new__(State)
        s.game = self.game
        s.lay = self.lay
        s.z = [list(x) for x in self.z]
        s.where = list(self.where)
        s.v = list(self.v)
        s.rng = self.rng
        s.frames = [f.copy() for f in self.frames]
        s.scopes = [sc.copy() for sc in self.scopes]
        s.pending = self.pending  # decisions are never mutated
        s._history = list(self._history)
        s.status = self.status
        s.running = self.running
        s.forced = list(self.forced)
        s.log = list(self.log)
        s.log_marks = list(self.log_marks)
        s.logging = self.logging
        s.steps = 0
        s.error = self.error
        s.seed = self.seed
        s.memo = [None] * self.game.memo_size
        s.short_draws = []
        s.known = dict(self.known)
        s.drawn = self.drawn                # never changed in place (State.drew)
        s.facts = self.facts                # a tuple
        s.chance = None
        s.broken = []
        s.zf, s.zi, s.vk = self.zf, self.zi, self.vk
        s.origin = self.origin              # an edited start (never changed), or None
        s.script = self.script              # a sampled world's chance answers (a tuple pair), or None
        s.moved = None                      # a copy is tracked only when asked (track_moves)
        s.rec = None                        # a replay's record of what one seat is shown (knowledge/record.py)
        return s

    def __reduce__(self):
        """Plain ``pickle``: by the rulebook's folder and the game so far (engine/run/persist.py)."""
        from .persist import reduce_state
        return reduce_state(self)

    # --- queries -----------------------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.status == "over"

    @property
    def truncated(self) -> bool:
        """Whether the game has not ended after its layout's ``decision_bound`` decisions (the
        rulebook's ``max_decisions``, else a default per seat: layout.py): an environment ends
        the episode there as truncated.  The engine itself plays on (to the limit 'decisions')."""
        return self.status != "over" and len(self._history) >= self.lay.decision_bound

    def contents(self, zone):
        return self.z[zone.id]

    def track_moves(self) -> "MoveJournal":
        """From now on every component that changes zone is appended (its id) to the journal
        returned (``State.moved``), kept until the state is cloned (a copy is not tracked).
        Observers read it from where they last were to see which components moved
        (tensors.ObservationWriter); the order within a zone is not tracked.  It stays
        bounded: a decision trims it when it grew past twice ``MoveJournal.KEEP`` entries."""
        if self.moved is None:
            self.moved = MoveJournal()
        return self.moved

    # --- randomness --------------------------------------------------------
    def below(self, n: int) -> int:
        """A random number in ``range(n)`` from the game's generator, or from ``chance``
        (set while interpreter/chance.py replays a segment with chosen outcomes)."""
        if self.chance is not None:
            return self.chance(n)
        value, self.rng = rngmod.below(self.rng, n)
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
        rng, below = self.rng, rngmod.below
        for i in range(len(items) - 1, 0, -1):     # the numbers self.below would draw
            j, rng = below(rng, i + 1)
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
        for c in incoming:
            src = where[c.id]
            z[src].remove(c)
            if bottom:
                lst.insert(0, c)
            else:
                lst.append(c)
            where[c.id] = dst.id
            moved_from.append(src)
        if self.moved is not None:
            self.moved.extend([c.id for c in incoming])
        if bottom and len(incoming) != len(comps):     # some were there already: they go under too
            self._put_at(lst, comps[::-1], 0)
        if self.known and (incoming or bottom):
            self.forget((dst.id, *moved_from))
        self.forget_results((dst.id, *moved_from))
        if self.game.on_moved:
            self.emit("moved", Record.of({"components": tuple(incoming), "to": dst,
                                       "from": self.lay.zones[moved_from[0]] if moved_from else dst}), pos)
        if self.game.condition_triggers:     # no function reads what moved: only they may care
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
                if self.known:
                    self.forget((did,))
            self.forget_results((did,))
            if game.on_moved:
                self.emit("moved", Record.of({"components": (), "to": dst, "from": dst}), pos)
        if game.condition_triggers:     # no function reads what moved: only they may care
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
        self.forget_results((src.id, did))
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

    # --- knowledge: what a `reveal` step showed to chosen seats ------------
    def reveal(self, zones, seats) -> None:
        """``seats`` know what ``zones`` hold, until their contents change."""
        seats = frozenset(seats)
        for zone in zones:
            self.known[zone.id] = self.known.get(zone.id, frozenset()) | seats
        if self.rec is not None:
            self.rec.revealed(self, zones, seats)
        self.changed()

    def revealed_to(self, zone) -> frozenset:
        """The seats a `reveal` step showed ``zone`` to, since its contents last changed."""
        return self.known.get(zone.id, frozenset())

    def forget(self, zone_ids) -> None:
        """The contents of these zones changed: what was revealed of them is no longer known."""
        known = self.known
        for zid in zone_ids:
            known.pop(zid, None)

    # --- chance values: variables that hold what a `random` step drew ----------
    def drew(self, slot: int, key) -> None:
        """Variable slot ``slot`` holds a value a `random` step drew when the generator was at
        ``key``: ``resample`` may draw it anew for a seat that does not see it (engine/knowledge/)."""
        self.drawn = {**self.drawn, slot: key}
        if self.known:
            self.known.pop(-1 - slot, None)

    def draw_key(self):
        """Where the next random number comes from, while ``chance`` answers them: under
        explicit chance (engine/run/chance.py) ``-1 - n`` for the game's n-th chance
        outcome; else the generator's state (as without ``chance``)."""
        key = getattr(self.chance, "key", None)
        return key() if key is not None else self.rng

    def undrew(self, slot: int) -> None:
        """Variable slot ``slot`` was set to something else than a drawn value (nor one revealed)."""
        if slot in self.drawn:
            drawn = dict(self.drawn)
            del drawn[slot]
            self.drawn = drawn
        if self.known:
            self.known.pop(-1 - slot, None)

    def reveal_values(self, slots, seats) -> None:
        """``seats`` know the values in variable slots ``slots``, until they change.  (Kept
        in ``known`` beside the zones, under ``-1 - slot``.)"""
        seats = frozenset(seats)
        for slot in slots:
            self.known[-1 - slot] = self.known.get(-1 - slot, frozenset()) | seats
        self.changed()

    def value_revealed_to(self, slot: int) -> frozenset:
        """The seats a `reveal` step showed variable slot ``slot`` to, since it last changed."""
        return self.known.get(-1 - slot, frozenset()) if self.known else frozenset()

    # --- told facts: what a `tell` step told chosen seats about components ---------
    def tell(self, seats, items, equal: bool) -> None:
        """Each seat in ``seats`` is told, for each ``(component id, attribute, value, holds)``
        of ``items``, whether ``attribute == value`` (``equal``; else ``!=``) holds.  A fact is
        ``(seat, component id, attribute, value, equal, holds)``; kept for the rest of the game."""
        have = set(self.facts)
        new = [(seat, cid, attr, value, equal, holds) for seat in seats for cid, attr, value, holds in items]
        if self.rec is not None:
            self.rec.told(self, new)
        self.facts = self.facts + tuple(f for f in new if f not in have)

    def tell_that(self, seats, text: str, holds: bool) -> None:
        """Each seat in ``seats`` is told whether the condition ``text`` holds now (``holds``): a
        fact ``(seat, -1, text, None, True, holds)``, about no component."""
        new = [(seat, -1, text, None, True, holds) for seat in seats]
        if self.rec is not None:
            self.rec.told(self, new)
        have = set(self.facts)
        self.facts = self.facts + tuple(f for f in new if f not in have)

    def forced_value(self, items, pos):
        """The next value a scenario's ``draws:`` names, for a ``random`` step:
        the item written that way (a number, a symbol, a component's label)."""
        label = self.forced.pop(0)
        for v in items:
            if (v.label if isinstance(v, Component) else format_value(v)) == label:
                return v
        shown = sorted(set(v.label if isinstance(v, Component) else format_value(v) for v in items))
        raise RuleRuntimeError(f"the scenario wants the random value '{label}', but this step picks "
                               f"from {', '.join(shown[:20])}", pos)

    def _forced_pick(self, lst, pos):
        label = self.forced.pop(0)
        for c in lst:
            if c.label == label:
                return c
        raise RuleRuntimeError(f"the scenario wants to draw '{label}', but the zone holds only "
                               f"{', '.join(sorted(set(c.label for c in lst))) or 'nothing'}", pos)

    # --- events, triggers, scopes ------------------------------------------
    def frame_player(self):
        """The seat bound to `player` in the running frame (for triggers)."""
        return self.frames[-1].L[0] if self.frames else None

    def emit(self, name: str, event: Record, pos: Pos) -> None:
        triggers = self.game.event_triggers.get(name)
        if not triggers:
            return
        player = self.frame_player()
        fire = []
        for trig in triggers:
            L = [None] * trig.proc.nslots
            L[0] = player
            L[trig.event_slot] = event
            if trig.when is not None and not trig.when(self, L):
                continue
            fire.append((trig, L))
        for trig, L in reversed(fire):
            if trig.at:
                self.defer(trig.at, trig.proc, L, False, trig.pos, trig.name)
            else:
                self.frames.append(Frame(trig.proc, L, 0, trig.name))

    def forget_results(self, zone_ids) -> None:
        """The contents of these zones changed: forget the remembered function
        results that may depend on them (``Layout.stale_results``)."""
        memo = self.memo
        stale_results = self.lay.stale_results
        for zid in zone_ids:
            stale = stale_results[zid]
            if stale is None:           # no plan (or a zone it does not know): forget everything
                self.forget_all()
                return
            for slot in stale:
                memo[slot] = None
        keyed = self.game.memo_keyed
        if keyed:
            zones = self.lay.zones
            for slot, _, _ in keyed:
                results = memo[slot]
                if results:
                    for zid in zone_ids:
                        results.pop(zones[zid], None)

    def forget_all(self) -> None:
        """Forget every remembered function result."""
        self.memo = [None] * self.game.memo_size

    def changed(self, drop=None) -> None:
        """Called after every change of state: forget remembered function
        results — those at the slots in ``drop`` (the ones a change of one
        variable makes stale: ``GameDef.memo_drop``), or all (None) — and check
        condition triggers.  A move or a draw forgets its zones' results itself
        (``forget_results``) and calls ``changed(())`` only for the condition
        triggers, so not at all in a game without them."""
        if drop is None:
            self.forget_all()
        else:
            memo = self.memo
            for slot in drop:
                memo[slot] = None
        conds = self.game.condition_triggers
        if not conds or self.status != "play":
            return
        for trig in conds:
            if trig.name in self.running:
                continue
            L = [None] * trig.proc.nslots
            L[0] = self.frame_player()
            if trig.when(self, L):
                self.running = self.running | {trig.name}
                if trig.at:
                    self.defer(trig.at, trig.proc, L, True, trig.pos, trig.name)
                else:
                    self.frames.append(Frame(trig.proc, L, 0, trig.name))
                return

    def scope_start(self, kind: str, name: str) -> None:
        self.scopes.append(ScopeRec(kind, name))
        if self.game.event_triggers:
            ev = kind + "_start"
            if ev in self.game.event_triggers:
                self.emit(ev, Record.of({"name": name}), Pos("<scope>"))

    def scope_end(self, kind: str, name: str) -> None:
        rec = self.scopes.pop()
        if self.game.scope_invariants:  # `invariants: {x: {expr: ..., when: turn_end}}`
            for inv, fn, pos in self.game.scope_invariants.get(kind, ()):
                if not fn(self, [None]):
                    self.broken.append((inv, pos, kind))
        if self.game.event_triggers:
            ev = kind + "_end"
            if ev in self.game.event_triggers:
                self.emit(ev, Record.of({"name": name}), Pos("<scope>"))
        if rec.deferred:
            for proc, L, trig in reversed(rec.deferred):
                self.frames.append(Frame(proc, L, 0, trig))

    def defer(self, until: str, proc, L, once: bool, pos: Pos, trigger=None) -> None:
        for rec in reversed(self.scopes):
            if rec.kind == until or rec.name == until:
                if once and any(p is proc for p, _, _ in rec.deferred):
                    if trigger and trigger in self.running:
                        self.running = self.running - {trigger}
                    return
                rec.deferred.append((proc, L, trigger))
                return
        raise RuleRuntimeError(f"cannot defer to the end of '{until}': no such scope is open here", pos)

    def end_game(self) -> None:
        self.frames.clear()
        self.scopes.clear()
        self.running = frozenset()
        self.start_scoring()

    def start_scoring(self) -> None:
        self.status = "scoring"
        scoring = self.game.scoring
        if scoring is not None:
            self.frames.append(Frame(scoring, [None] * scoring.nslots))

    # --- decisions -----------------------------------------------------------
    def legal_actions(self) -> list:
        if self.pending is None:
            return []
        return [o.id for o in self.pending.options]

    def apply(self, action_id: str) -> None:
        dec = self.pending
        if dec is None or self.status == "over":
            raise IllegalAction("no decision is pending: the game is over" if self.status == "over"
                                else "no decision is pending")
        opt = dec.by_id.get(action_id) if isinstance(action_id, str) else None
        if opt is None:
            shown = repr(action_id)[:80] if not isinstance(action_id, str) else f"'{action_id[:80]}'"
            raise IllegalAction(f"{shown} is not a legal action now")
        self._apply(dec, opt)

    def legal_action_indices(self) -> range:
        """The legal actions by position (``legal_actions()[i]``): for bots and
        playouts, which need no ids."""
        return range(len(self.pending.raw)) if self.pending is not None else range(0)

    def apply_index(self, i: int) -> None:
        """Apply ``legal_actions()[i]`` without writing any action id."""
        dec = self.pending
        if dec is None or self.status == "over":
            raise IllegalAction("no decision is pending: the game is over" if self.status == "over"
                                else "no decision is pending")
        raw = dec.raw
        if type(i) is not int or not 0 <= i < len(raw):
            raise IllegalAction(f"{i!r} is not the index of a legal action now (0..{len(raw) - 1})")
        opts = dec._options
        self._apply(dec, opts[i] if opts is not None else Option(*raw[i]))

    def _apply(self, dec, opt) -> None:
        moved = self.moved
        if moved is not None and len(moved) > 2 * MoveJournal.KEEP:     # tracked (track_moves): kept bounded
            moved.trim(MoveJournal.KEEP)
        if len(self._history) >= LIMITS.decisions:
            self.error = RuleRuntimeError(f"the game has gone on for {len(self._history):,} decisions without "
                                          f"ending (limit 'decisions')", dec.pos, "RW910")
            self.status = "error"
            raise self.error
        self.pending = None
        if dec.held is not None:        # taken together: held until every seat has chosen
            fr = self.frames[-1]
            fr.L[dec.held] = fr.L[dec.held] + ((dec.who, opt.action.proc.name, opt.values),)
            self._history.append((dec.who, opt))
            run(self)
            return
        if dec.as_slot is not None:
            self.frames[-1].L[dec.as_slot] = opt.action.name
        action = opt.action
        L = [None] * action.proc.nslots
        if action.inherit:
            L[:action.inherit] = self.frames[-1].L[:action.inherit]
        L[action.player_slot] = dec.who
        for spec, v in zip(action.params, opt.values):
            L[spec.slot] = v
        self._history.append((dec.who, opt))
        proc = action.proc
        if proc.entries is not None:
            direct = proc.direct
            if direct is None:
                direct = direct_function(proc, proc.live) or False
            if direct:          # an action that cannot stop: a Python call, then the frame that decided
                run(self, None, direct, L, proc)
                return
        self.frames.append(Frame(proc, L))
        run(self)

    def run_together(self, held, first=None) -> None:
        """Run the options of a decision taken together (``held``: ``(seat, action, values)``
        of each seat, in seat order), each as a frame of its own, the first seat's on top;
        ``first``: clockwise from that seat instead (``first:``, a seat with priority)."""
        base = self.frames[-1].L
        by_proc = self.game.action_by_proc
        if first is not None:
            n = self.lay.num_seats
            held = sorted(held, key=lambda h: (h[0] - first) % n)
        for who, name, values in reversed(held):
            if name is None:            # a seat that had nothing legal took no part
                continue
            action = by_proc[name]
            L = [None] * action.proc.nslots
            if action.inherit:
                L[:action.inherit] = base[:action.inherit]
            L[action.player_slot] = who
            for spec, v in zip(action.params, values):
                L[spec.slot] = v
            self.frames.append(Frame(action.proc, L))

    def pending_seats(self) -> list:
        """Every seat still to choose in the pending decision: for a decision taken together
        (``together:``) all that have not chosen yet, in seat order (``current_player()`` is
        the first of them); else ``[current_player()]``, or ``[]`` when none is pending."""
        dec = self.pending
        if dec is None:
            return []
        return list(dec.seats) if dec.seats is not None else [dec.who]

    # --- the player-facing API, in OpenSpiel's terms ----------------------
    @property
    def history(self) -> list:
        """Every decision so far: ``(seat, action id)`` in order."""
        return [(who, o.id) for who, o in self._history]

    def history_for(self, seat: int | None) -> list:
        """Every decision so far as ``seat`` may know it (``None``: an onlooker):
        ``(seat, action id)`` in order; in another seat's decision the secret
        parameters show as ``…`` (``bid(card=…,k=2)``; ``name(…)`` when all are
        secret, as for a ``secret: true`` action or a ``display: secret`` one)."""
        game = self.game
        if not game.redact and not game.sealed:
            return self.history
        return [(who, action_id if who == seat else public_action_id(game, action_id))
                for who, action_id in self.history]

    def told_id(self, action_id: str) -> str:
        """``action_id`` as the seats other than its chooser are told it (:func:`public_action_id`)."""
        return public_action_id(self.game, action_id)

    def simultaneous(self) -> str | None:
        """The ``simultaneous:`` group of the pending decision (its decide step
        says the seats choose at the same time, one after the other here), or None."""
        return self.pending.group if self.pending is not None else None

    def current_player(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        return self.pending.who if self.pending is not None else None

    def is_terminal(self) -> bool:
        return self.status == "over"

    def scores(self) -> list:
        score = self.game.score
        if self.game.together is not None:     # one score, shared (p is the first seat)
            return [score(self, [0])] * self.lay.num_seats
        return [score(self, [p]) for p in self.lay.seats]

    def scores_if_ended(self) -> list:
        """The scores the game would give if it ended now: a copy runs the rulebook's
        ``scoring:`` steps, then ``end: score:`` (this state is unchanged).  For bots that
        judge a position by its score when the rules write scores only as the game ends; a
        ``scoring:`` that cannot run mid-game falls back to :meth:`scores`."""
        if self.status == "over" or self.game.scoring is None:
            return self.scores()
        s = self.clone()
        s.logging = False
        s.pending = None
        s.end_game()
        try:
            run(s)
        except RuleRuntimeError:
            return self.scores()
        return s.scores()

    def won_together(self) -> bool | None:
        """In a cooperative game (``end: together:``): whether the seats have won, once the
        game is over (False before); None in a game of each against each."""
        if self.game.together is None:
            return None
        return self.status == "over" and bool(self.game.together(self, [None]))

    def score_parts(self) -> list:
        """Per seat, the score's named parts (``end: parts:``) as {name: value}, in
        the rulebook's order; with ``end: rest: NAME`` also NAME: the score minus
        the parts.  Empty dicts when the rulebook names no parts."""
        parts = self.game.score_parts
        if not parts and self.game.score_rest is None:
            return [{} for _ in self.lay.seats]
        out = []
        for p, total in zip(self.lay.seats, self.scores()):
            row = {name: fn(self, [p]) for name, fn in parts}
            if self.game.score_rest is not None:
                row[self.game.score_rest] = total - sum(row.values())
            out.append(row)
        return out

    def ranking(self) -> list:
        """Places (1 = best) per seat; seats equal on every ranking key share a place.
        With ``end: better: lower`` the lower keys are the better ones."""
        if self.game.together is not None:     # one result for all: one place
            return [1] * self.lay.num_seats
        keys = [tuple(k(self, [p]) for k in self.game.rank_by) for p in self.lay.seats]
        if self.game.score_direction == "lower":
            return [sum(1 for q in self.lay.seats if keys[q] < keys[p]) + 1 for p in self.lay.seats]
        return [sum(1 for q in self.lay.seats if keys[q] > keys[p]) + 1 for p in self.lay.seats]

    def winners(self) -> list:
        """The seats that won: the first place; in a cooperative game every seat or none."""
        if self.game.together is not None:
            return list(self.lay.seats) if self.won_together() else []
        return [p for p, place in enumerate(self.ranking()) if place == 1]

    def returns(self, kind: str = "win") -> list:
        """Per seat, at the end (0 for all before): ``win`` 1 for a (shared) win, else 0;
        ``rank`` 1 for first place down to 0 for last; ``zero_sum`` the win share
        (1/k for k winners) minus its mean over the seats; ``score`` the final score,
        negated when lower scores are better (``end: better: lower``), so that a
        higher return is always the better one.  In a cooperative game (``end: together:``)
        ``win`` and ``rank`` are 1 for every seat when they won together, else 0, and
        ``zero_sum`` is 0."""
        n = self.lay.num_seats
        if self.status != "over":
            return [0] * n
        if self.game.together is not None and kind in ("win", "rank", "zero_sum"):
            # one result for all: won (1) or lost (0); nothing to share out against each other
            won = 1.0 if self.won_together() else 0.0
            return [0.0 if kind == "zero_sum" else won] * n
        if kind == "win":
            winners = set(self.winners())
            return [1 if p in winners else 0 for p in self.lay.seats]
        if kind == "score":
            sign = -1.0 if self.game.score_direction == "lower" else 1.0
            return [sign * s for s in self.scores()]
        places = self.ranking()
        if kind == "rank":
            return [1.0 if n == 1 else (n - place) / (n - 1) for place in places]
        if kind == "zero_sum":
            k = places.count(1)
            share = [1.0 / k if place == 1 else 0.0 for place in places]
            return [s - 1.0 / n for s in share]
        raise ValueError(f"returns: unknown kind '{kind}' (win, rank, zero_sum, score)")

    def apply_action(self, action_id: str) -> None:
        self.apply(action_id)

    def legal_mask(self) -> list:
        """0/1 per id of the layout's fixed action space (``Rulebook.action_space``): 1 where legal."""
        from .spaces import space_of
        return space_of(self.game, self.lay).mask(self.legal_actions())

    def observation(self, viewer: int | None, history: bool = True) -> dict:
        """The state as seat ``viewer`` sees it (``None``: an onlooker); see observe.py
        (``history=False``: without the decisions so far)."""
        return observation(self, viewer, history)

    def resample(self, seat: int, seed: int) -> "State":
        """A state ``seat`` cannot tell from this one, drawn from the posterior of what it was
        shown; the generator reseeded (see engine/knowledge/)."""
        from ..knowledge import resample
        return resample(self, seat, seed)

    def recall_notes(self, seat: int) -> list:
        """Where ``resample(seat, …)`` remembers less than ``seat`` could tell from the rules:
        ``[(decisions so far, zone name, why)]``: always [] since resample replays worlds (engine/knowledge/)."""
        from ..knowledge.infosets import recall_notes
        return recall_notes(self, seat)

    def observation_tensor(self, viewer: int) -> dict:
        """Named fixed-shape numpy arrays of what ``viewer`` may see (see interpreter/tensors.py)."""
        from ..knowledge.tensors import observation_tensor
        return observation_tensor(self, viewer)

    def information_state_tensor(self, seat: int) -> dict:
        """The observation tensor of ``seat`` and a summary of the decisions it knows
        of (``history:counts``, ``history:last``; see interpreter/infosets.py)."""
        from ..knowledge.infosets import information_state_tensor
        return information_state_tensor(self, seat)

    def information_state_string(self, seat: int) -> str:
        """What ``seat`` sees now and every decision it knows of, as text (interpreter/infosets.py)."""
        from ..knowledge.infosets import information_state_string
        return information_state_string(self, seat)

    def observation_string(self, viewer: int) -> str:
        """What ``viewer`` may see, as text (see interpreter/tensors.py)."""
        from ..knowledge.tensors import observation_string
        return observation_string(self, viewer)

    def open_scopes(self) -> list:
        """The scopes play is inside, outermost first, as (kind, name): ("round", "round"), ("phase", "take")…"""
        return [(sc.kind, sc.name) for sc in self.scopes]

    # --- serialisation -------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": "regelwerk-state/1",
            "game": self.game.name,
            "layout": self.lay.describe(),
            "seed": self.seed,
            "zones": [[c.id for c in zone] for zone in self.z],
            "v": [encode(x) for x in self.v],
            "rng": self.rng,
            "frames": [{"proc": f.proc.name, "pc": f.pc, "L": [encode(x) for x in f.L], "trigger": f.trigger}
                       for f in self.frames],
            "scopes": [{"kind": s.kind, "name": s.name,
                        "deferred": [[p.name, [encode(x) for x in L], t] for p, L, t in s.deferred]}
                       for s in self.scopes],
            "pending": None if self.pending is None else {
                "who": self.pending.who,
                "as_slot": self.pending.as_slot,
                **({"group": self.pending.group} if self.pending.group is not None else {}),
                **({"held": self.pending.held, "seats": list(self.pending.seats)}
                   if self.pending.held is not None else {}),
                "pos": [self.pending.pos.file, self.pending.pos.line, self.pending.pos.col],
                "options": [[a.proc.name, [encode(v) for v in values]] for a, values in self.pending.raw],
            },
            "history": [[who, o.id] for who, o in self._history],
            "status": self.status,
            "running": sorted(self.running),
            "forced": list(self.forced),
            "log": list(self.log),
            # absent unless a `reveal` step showed something (states of games without one serialise as before)
            **({"known": {str(zid): sorted(seats) for zid, seats in sorted(self.known.items())}}
               if self.known else {}),
            # absent unless a `random` step drew a value into a variable that may be hidden
            **({"drawn": [[slot, key] for slot, key in sorted(self.drawn.items())]} if self.drawn else {}),
            **({"facts": [[seat, cid, attr, encode(value), equal, holds]
                          for seat, cid, attr, value, equal, holds in self.facts]} if self.facts else {}),
            # absent unless the game began at an edited start (a scenario's): what resample replays from
            **({"origin": self.origin.to_json()} if self.origin is not None else {}),
            # absent unless the state is a sampled world (resample): its chance answers and the generator after them
            **({"script": [list(self.script[0]), self.script[1]]} if self.script is not None else {}),
        }

    @classmethod
    def from_json(cls, game, data: dict, layout) -> "State":
        s = cls.__new__(cls)
        s.game = game
        s.lay = layout
        comps = layout.components
        s.z = [[comps[i] for i in zone] for zone in data["zones"]]
        s.moved = None
        s.rec = None
        s.where = [0] * len(comps)
        for zid, zone in enumerate(s.z):
            for c in zone:
                s.where[c.id] = zid
        s.v = [decode(x, layout) for x in data["v"]]
        s.rng = data["rng"]
        procs = game.all_procs
        s.frames = [Frame(procs[f["proc"]], [decode(x, layout) for x in f["L"]], f["pc"], f["trigger"])
                    for f in data["frames"]]
        s.scopes = [ScopeRec(sc["kind"], sc["name"],
                             [(procs[p], [decode(x, layout) for x in L], t) for p, L, t in sc["deferred"]])
                    for sc in data["scopes"]]
        s.pending = None
        if data["pending"] is not None:
            pd = data["pending"]
            opts = []
            for name, values in pd["options"]:
                action = game.action_by_proc[name]
                opts.append((action, tuple(decode(v, layout) for v in values)))
            s.pending = Decision(pd["who"], opts, pd["as_slot"], Pos(*pd["pos"]), pd.get("group"), pd.get("held"),
                                 tuple(pd["seats"]) if "seats" in pd else None)
        s._history = [(who, Option(None, (), action_id)) for who, action_id in data["history"]]
        s.status = data["status"]
        s.running = frozenset(data["running"])
        s.forced = list(data["forced"])
        s.log = list(data["log"])
        s.log_marks = []
        s.logging = True
        s.steps = 0
        s.error = None
        s.seed = data.get("seed")
        s.memo = [None] * game.memo_size
        s.short_draws = []
        s.known = {int(zid): frozenset(seats) for zid, seats in data.get("known", {}).items()}
        s.broken = []
        s.drawn = {int(slot): key for slot, key in data.get("drawn", ())}
        s.facts = tuple((seat, cid, attr, decode(value, layout), equal, holds)
                        for seat, cid, attr, value, equal, holds in data.get("facts", ()))
        s.chance = None
        s.zf, s.zi, s.vk = layout.zfam, layout.zid, layout.vkeys
        origin = data.get("origin")
        s.origin = None if origin is None else cls.from_json(game, origin, layout)
        script = data.get("script")
        s.script = None if script is None else (tuple(script[0]), script[1])
        return s


def _uncover(v, grid: dict, c) -> None:
    """Free the cells of ``grid`` (cell -> slot of ``v``) that ``c`` covers."""
    for at in grid.values():
        held = v[at]
        if held is not None and held[0] is c:
            v[at] = None


def _forget_two(st: State, a: int, b: int) -> None:
    """``st.forget_results((a, b))`` for the two zones of a move, without the tuple and loop."""
    stale_results = st.lay.stale_results
    drop_a = stale_results[a]
    drop_b = stale_results[b]
    if drop_a is None or drop_b is None:
        st.forget_all()
        return
    memo = st.memo
    for slot in drop_a:
        memo[slot] = None
    for slot in drop_b:
        memo[slot] = None
    keyed = st.game.memo_keyed
    if keyed:                       # results of functions of one zone: forgotten for a and b only
        zones = st.lay.zones
        for slot, _, _ in keyed:
            results = memo[slot]
            if results:
                results.pop(zones[a], None)
                results.pop(zones[b], None)


def run(st: State, limit: int | None = None, first=None, L=None, proc=None) -> None:
    """Run until a decision is pending or the game is over (at most ``limit`` steps: LIMITS.steps);
    ``first(st, *L)`` first: a procedure that cannot stop (flowcode.direct_function), ``proc``,
    given its locals."""
    if limit is None:
        limit = LIMITS.steps
    st.step_limit = limit           # for the loops of generated step code (interpreter/flowcode.py)
    NEXT[0] -= WORK[0]              # what was built counts towards the next look at the memory
    WORK[0] = 0                     # the elements built between two decisions (limit 'work')
    frames = st.frames
    steps = 0
    fr = None
    pc = 0
    try:
        if first is not None:
            first(st, *L)
        while True:
            while frames:
                fr = frames[-1]
                code = fr.code
                n = len(code)
                pc = fr.pc
                while pc < n:               # the frame on top runs until it ends or another is on top
                    fr.pc = pc + 1
                    steps += 1
                    if code[pc](st, fr):
                        st.steps += steps
                        return
                    if steps > limit:
                        raise RuleRuntimeError(
                            f"the rules ran {limit:,} steps without reaching a decision (an endless loop? "
                            f"limit 'steps')", fr.proc.pos_at(pc), "RW910")
                    if not frames or frames[-1] is not fr:
                        break
                    pc = fr.pc
                else:
                    frames.pop()
                    if fr.trigger is not None:
                        if fr.trigger in st.running:
                            st.running = st.running - {fr.trigger}
                        st.changed(())      # only which triggers run changed: no function reads it
                    elif fr.proc.kind == "setup":
                        st.status = "play"
                        st.changed(())
            if st.status == "play":
                st.start_scoring()
                continue
            if st.status == "setup":
                st.status = "play"
                continue
            st.status = "over"
            st.steps += steps
            return
    except RuleRuntimeError as exc:
        st.error = exc
        st.status = "error"
        raise
    except Exception as exc:  # noqa: BLE001 - a failure of generated code or a fault, located at the rule
        if fr is not None or proc is not None:
            err = rule_error(exc, fr.proc if fr is not None else proc, pc)
        else:
            err = RuleRuntimeError(f"internal error while running this step: {type(exc).__name__}: {exc}",
                                   Pos("<runtime>"))
        st.error = err
        st.status = "error"
        raise err from exc
