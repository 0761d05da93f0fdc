"""Decisions taken together at a table (``decide: … together:``): every seat taking part chooses at
once, its choice held until the last one is in, then all are applied in seat order.

``Table.together()`` names the seats choosing now and, per seat, a state at which it decides
(``choosing_states``: the seats before it took their first option, which it is not told).  Here,
:class:`HeldChoices` (a base of ``Hall``): a seat's choice is checked against its own options,
stored (``held`` rows of the :class:`~.store.Store`) before the answer, replaces its earlier one and
is sent to that seat only (``Table.changed_for``: no other seat's payload, update id or stream moves,
so nobody learns that, when or what another chose); bots choose at once.  When the last is in, the
choices are applied in seat order and stored as decisions in one transaction.  After a restart the
held choices of the decision still waiting are read back (:meth:`HeldChoices._held_again`).
"""
from __future__ import annotations

import time

from dsl.diagnostics import RuleRuntimeError

from ...game import IllegalAction
from .guard import Refused


class HeldChoices:
    """The part of ``Hall`` that keeps the choices of a decision taken together (needs its
    ``store``, ``work_clock`` and ``_decided``)."""

    def hold(self, table, seat: int, action: str) -> None:
        """With the table's lock, ``seat`` one of those choosing together: keep its choice (stored
        before this returns; it replaces the seat's earlier one, and only that seat is told); when
        every seat has chosen, apply them all.  Refused (nothing changed) for an illegal one."""
        together = table.together()
        if action not in together[seat].legal_actions():
            raise Refused(f"not a legal action now: '{action}'")
        self.store.hold(table.id, seat, len(table.session.history), action)
        table.held[seat] = action
        table.touched = time.time()             # (a table where seats are choosing is not idle)
        if all(p in table.held for p in together):
            self._apply_held(table, together)
        else:
            table.changed_for(seat)

    def _apply_held(self, table, together: dict) -> None:
        """With the table's lock: every seat's held choice applied in seat order, stored as decisions
        in one transaction (all or none); the held choices are gone then."""
        s = table.session
        n = len(s.history)
        choices = [(seat, table.held[seat]) for seat in together]
        clock = self.work_clock()
        start = clock()
        try:
            for seat, action in choices:
                if s.state.current_player() != seat:
                    raise IllegalAction(f"seat {seat}'s choice '{action}' came after another's took its turn away")
                s.apply(action)
            over = s.state.is_terminal()
            self.store.add_decisions(table.id, table.rows, choices, over=over)
        except BaseException as exc:
            s.reset_to(n)
            table.held = {}
            self.store.drop_held(table.id)
            table.changed()
            if isinstance(exc, IllegalAction):
                raise Refused(f"the choices made together do not apply: {exc}; choose again") from None
            if isinstance(exc, RuleRuntimeError):
                raise Refused("the rulebook failed on this decision: " + exc.diagnostic().format(), 500) from None
            raise
        table.held = {}
        self._decided(table, n, len(choices), clock() - start, over)

    def _held_again(self, table) -> None:
        """After the replay: the choices held in the decision taken together now (one made for a
        decision undone since, or no longer legal, is dropped); all of them in: applied."""
        together = table.together()
        n = len(table.session.history)
        held = {seat: action for seat, (at, action) in table.rec.held.items()
                if together is not None and at == n and seat in together
                and action in together[seat].legal_actions()}
        if len(held) != len(table.rec.held):
            self.store.drop_held(table.id)
            for seat, action in held.items():
                self.store.hold(table.id, seat, n, action)
        table.held = held
        if together is not None and all(p in held for p in together):
            self._apply_held(table, together)     # (the server stopped between the last choice and this)
