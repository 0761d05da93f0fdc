"""Decisions taken together (``decide: … together:``), seat by seat: where each seat chooses.

The engine takes such a decision one seat after the other in seat order, each seat told
nothing of the others' choices (``State.pending_seats()`` names the seats still to
choose; docs/language.md, "Decisions taken together").  A seat's options never depend on
the choices before it (those take effect only when all have chosen), so every seat can be
offered its options at once: :func:`choosing_states` gives, per seat still to choose, a
state at which that seat decides — the state itself for the first, for a later seat a copy
in which the seats before it took their first option (which it is not told of).  The
adapters that play joint actions (PettingZoo's parallel API, OpenSpiel's simultaneous
games) and the table server (every seat choosing at once, a choice held until the last is
in) both start from it.
"""
from __future__ import annotations


def choosing_states(st) -> dict:
    """``{seat: state at which it decides}`` for each seat still to choose in the pending
    decision, in seat order (a seat whose options are empty, and so takes no part, is left
    out).  Only the first is ``st``; the copies do not log."""
    return dict(_choosing(st, keep=True))


def pending_decisions(st) -> dict:
    """``{seat: Decision}``: the options each seat still to choose has now (as
    :func:`choosing_states`, on one copy)."""
    return {seat: s.pending for seat, s in _choosing(st, keep=False)}


def _choosing(st, keep: bool):
    """(seat, a state at which it decides) in seat order; ``keep``: each its own copy, else one
    copy taken on from seat to seat (only its decision is read before it moves on)."""
    seats = st.pending_seats()
    copy = st
    for k, seat in enumerate(seats):
        dec = copy.pending
        if dec is None or dec.who != seat:
            continue                    # this seat had nothing legal: it takes no part
        yield seat, copy
        if k + 1 < len(seats):
            if keep or copy is st:
                copy = copy.clone()
                copy.logging = False
            copy.apply_index(0)         # (the options of the next seat do not depend on it)
