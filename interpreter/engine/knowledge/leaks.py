"""Leaks found by what changes (issue 36, item 5).

A text shown to a seat — a line of the log, its own legal actions, another seat's decision as it
is told — *leaks* when it can differ between two worlds that the seat's record, without that text,
cannot tell apart: it then tells the seat something about what it cannot see.  The check samples
such worlds (:mod:`.worlds`, with the text left out of the record) and compares the text:

* a log line, the legal actions shown to the seat that decides: the text itself, in each world.

A decision as another seat is told it is not checked: what an action tells is the rulebook's word
(``secret:``, its default), and that the decision was legal is knowledge too (a player who did not
follow suit holds none of it) — both are in the seat's record and resample honours them.

A rulebook that means to tell a seat something hidden says so — ``announce:`` (a log line that is
knowledge) or ``tell:`` — and it is then no leak.  Whatever a seat is shown is in its record, so
resample honours it in any case; the check only says where a rulebook shows more than it may have
meant to.
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

from ..run import rng as rngmod
from ..run.limits import LIMITS
from .worlds import Trajectory, replay_world, skip


class _Any:
    """Stands for a text left out of a record: equal to whatever the world shows there, which it
    keeps (``seen``)."""

    __slots__ = ("seen",)

    def __init__(self):
        self.seen = []

    def __eq__(self, other):
        self.seen.append(other)
        return True

    def __ne__(self, other):
        self.seen.append(other)
        return False

    __hash__ = None


def _without(real: Trajectory, at: int, event) -> Trajectory:
    record = list(real.record)
    record[at] = event
    return Trajectory(tuple(record), real.events, real.pins, real.kept, real.decisions, real.state,
                      real.answers, real.choices, real.stops)


def _worlds(st, seat, real, samples, seed, blank=None, same=None) -> int:
    """Replay ``samples`` worlds of ``real`` (a reduced record): how many were found — fewer when
    a world already showed ``blank`` another text than ``same``."""
    fresh = rngmod.Rng(seed, 9000)
    budget = [LIMITS.resample_work]
    found = 0
    for _ in range(samples * 20):       # each a new world: its first try (worlds.skip)
        if replay_world(st, seat, real, fresh, budget, None, skip(real, fresh)) is not None:
            found += 1
            if found >= samples:
                break
        if budget[0] <= 0 or (blank is not None and any(x != same for x in blank.seen)):
            break
    return found


def leaks(st, seat: int, real: Trajectory, samples: int = 6, seed: int = 0) -> list:
    """What ``seat`` was shown since its last decision-stop that leaks (see the module docstring):
    ``[(kind, text)]`` — kind ``"log"``, ``"legal"`` or ``"told"``."""
    record = real.record
    out = []
    try:
        # the log lines of the last stop
        at = len(record) - 2
        if at >= 0 and record[at][0] == "l":
            blank = _Any()
            _worlds(st, seat, _without(real, at, ("l", blank)), samples, seed, blank, record[at][1])
            if any(x != record[at][1] for x in blank.seen):
                out.append(("log", " / ".join(record[at][1])))
        # the legal actions shown to the seat now
        last = record[-1]
        if last[0] == "o" and last[1][3] is not None and last[1][3][2] is not None:
            status, zones, values, decision, cells = last[1]
            blank = _Any()
            _worlds(st, seat, _without(real, len(record) - 1,
                                       ("o", (status, zones, values, (decision[0], decision[1], blank), cells))),
                    samples, seed, blank, decision[2])
            if any(x != decision[2] for x in blank.seen):
                out.append(("legal", next(a for x in blank.seen if x != decision[2]
                                          for a in set(decision[2]) ^ set(x))))
    except RuleRuntimeError:
        pass
    return out
