"""What the seats of a :class:`~interpreter.engine.run.runtime.State` were shown and told:
zones a ``reveal`` step showed to chosen seats (forgotten when a zone changes), variables
holding what a ``random`` step drew and to whom their values were shown, facts a ``tell``
step told about components.  A part of ``State`` (runtime.py composes it).
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

from .values import Component, format_value


class Told:
    """What the seats were shown and told: a part of :class:`State`."""

    __slots__ = ()

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
