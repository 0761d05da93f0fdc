"""Decisions taken together (``decide: … together:``) as joint actions, for the adapters
that play them at once (PettingZoo's ParallelEnv, OpenSpiel's simultaneous game type).

The engine takes such a decision one seat after the other in seat order, each seat told
nothing of the others' choices (``State.pending_seats()`` names the seats still to
choose; docs/language.md, "Decisions taken together").  A seat's options never depend on
the choices before it (those take effect only when all have chosen), so every seat's
options can be listed at once: ``pending_decisions`` (the engine's, in
``interpreter.game``) lists each seat's on a copy, choosing for the seats before it.  The
adapters then apply one option per seat, in seat order.
"""
from __future__ import annotations

from ...game import pending_decisions  # noqa: F401 - the engine's; the adapters take it from here


def all_together(game) -> bool:
    """Whether every decision of the rulebook is taken together (a game of joint actions),
    not one seat's (then the adapters play it turn by turn)."""
    return bool(game.sealed) and not game.single_decides
