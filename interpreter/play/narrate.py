"""The story of a game as lines of text: round and phase headers, every decision, the rulebook's log lines.

A decision the rulebook logs nothing for is still told
("Player 1: take_factory(factory_no=3, color=red)"), except secret parameters
(``secret:`` on the action, its default, or an action the ``display:`` hints
call ``secret``: a card chosen face down), which only the deciding seat is told.  The rulebook's ``log:`` lines are
public.
"""
from __future__ import annotations

from ..game import public_action_id
from ..game import read_hints


def pretty_action(action_id: str) -> str:
    """``take(f=3,c=red)`` → ``take(f=3, c=red)``."""
    return action_id.replace(",", ", ")


class Narrator:
    """Feed it each decision; it returns the new lines of the story."""

    def __init__(self, state):
        hints = read_hints(state.game)
        self.round_var = hints.round
        self.secret = hints.secret
        self.game = state.game
        self.names = list(state.lay.seat_names)
        self.printed = 0
        self.where = None

    def _where(self, state):
        rnd = None
        if self.round_var is not None:
            rnd = state.observation(None)["variables"].get(self.round_var)
        phase = next((name for kind, name in reversed(state.open_scopes()) if kind == "phase"), None)
        return rnd, phase

    def lines_before(self, state) -> list:
        """The rulebook's new log lines and a header if play entered a new round or phase."""
        out = list(state.log[self.printed:])
        self.printed = len(state.log)
        if state.is_terminal():
            return out
        where = self._where(state)
        if where != self.where:
            rnd, phase = where
            parts = []
            if rnd is not None:
                parts.append(f"{self.round_var} {rnd}")
            if phase:
                parts.append(f"phase {phase}")
            if parts:
                out.append(f"── {' · '.join(parts)} ──")
            self.where = where
        return out

    def decision(self, seat: int, action_id: str, viewer=None, everyone: bool = False) -> str:
        """"Player 1: take(f=3, c=red)"; a secret action's parameters only for its own seat
        (``viewer``) or when ``everyone`` may see all (bots only, a finished game)."""
        if not everyone and viewer != seat:
            action_id = public_action_id(self.game, action_id)
        return f"{self.names[seat]}: {pretty_action(action_id)}"

    def lines_after(self, state) -> list:
        out = list(state.log[self.printed:])
        self.printed = len(state.log)
        return out
