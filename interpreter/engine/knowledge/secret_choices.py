"""Another seat's secret choice, followed: the options told to the seat the same as the one taken,
and which of them the seat's record rules out as the game goes on (:class:`Window`) — what a
world chooses in its place (:func:`.worlds.replay_world`) and with what weight (docs/language.md,
"What a seat knows")."""
from __future__ import annotations

import copy

from dsl.diagnostics import RuleRuntimeError

from ..run import rng as rngmod
from ..run.frames import option_id
from .record import Mismatch, Recorder


#: how many decisions after another seat's secret choice an alternative is followed to see whether
#: the seat's record rules it out (one that survives that long is kept among the candidates)
LOOKAHEAD = 40


class _Follow:
    """``State.chance`` that gives the real game's numbers ``answers`` from ``start`` on (those
    it drew up to the end of the window followed), then numbers of ``fresh`` (``fresh_taken``)."""

    __slots__ = ("answers", "i", "fresh", "fresh_taken")

    def __init__(self, answers, start, fresh):
        self.answers, self.i, self.fresh = answers, start, fresh
        self.fresh_taken = False

    def key(self) -> int:
        return -1 - self.i

    def __call__(self, n: int) -> int:
        i = self.i
        self.i = i + 1
        if i < len(self.answers) and self.answers[i] < n:
            return self.answers[i]
        self.fresh_taken = True
        return self.fresh.below(n)


class Window:
    """Another seat's secret choice at ``place`` and its alternatives — the options legal there,
    told to the seat the same as the one taken — followed as the game went on (its chance and its
    other decisions), up to decision ``upto``, for at most LOOKAHEAD decisions: those the seat's
    record rules out (``out``: a sealed bid revealed later, say), the others as they stand there
    (``alive``: (option id, state, record, numbers taken)).  A world does not choose the options
    ruled out; what it chooses is weighted back to uniform among all the options told the same
    (replay_world), by the largest share of options left that a world may offer (``result``).

    The record and the numbers an alternative is followed with end where the window followed
    ends, so the result of a complete window is the same however far the game has gone since; and
    a window goes on from where it stood (``go_on``) as long as no alternative took a number of
    its own (``fresh``: one the real game had not drawn there) or ran past the record's end — else
    it is followed again from the choice, which gives the same as going on in every other case.
    Never changed: going on makes a new window."""

    __slots__ = ("place", "before", "given", "recorded", "logged", "same", "most", "alts", "upto", "alive", "out",
                 "whole")

    @classmethod
    def open(cls, place, real, before, given, recorded, logged) -> "Window":
        """The choice ``real`` at ``place`` (``before``: the state there, ``given``, ``recorded``,
        ``logged``: the numbers, events and log lines so far), not followed yet."""
        self = cls.__new__(cls)
        self.place, self.before, self.given, self.recorded, self.logged = place, before, given, recorded, logged
        told = before.told_id(real)
        told_same = [opt.id for opt in before.pending.options if before.told_id(opt.id) == told]
        self.same = len(told_same)
        self.alts = tuple(a for a in told_same if a != real)
        # the most options told the same that any world can offer: those of the layout's fixed action
        # space (the share of the options not ruled out is at most 1 - ruled out / that many, in a world
        # where the ruled-out ones are open; the weights of replay_world divide by the largest share)
        most = self.same
        try:
            from ..run.spaces import space_of
            space = space_of(before.game, before.lay)
            if not space.unbounded:
                most = max(self.same, space.told_count(before.told_id, told))
        except Exception:           # no fixed action space (RW240): the options of the real game
            most = self.same
        self.most = most
        self.upto, self.alive, self.out, self.whole = None, None, (), False
        return self

    def result(self) -> tuple:
        """(the options ruled out, the share of the options told the same they leave, how many
        options are told the same)."""
        n = len(self.out)
        return frozenset(self.out), max((self.same - n) / self.same, 1 - n / self.most), self.same

    def go_on(self, seat, record, answers, decisions, stop) -> "Window":
        """This window followed on to decision ``stop`` (not included), ``record`` and ``answers``
        the seat's record and the real game's numbers up to there."""
        who, _real, _i = decisions[self.place]
        fresh = rngmod.Rng(self.place, 7000)
        if self.whole:                  # as it stood at ``upto``: the same as following it again
            todo, out, first = self.alive, list(self.out), self.upto
        else:
            todo, out, first = [(a, None, None, self.given) for a in self.alts], [], self.place + 1
        alive = []
        whole = True
        for opt_id, state, was, taken in todo:
            follow = _Follow(answers, taken, fresh)
            if state is None:
                r = self.before.clone()
                rec = Recorder(seat, expect=record)
                rec.at, rec.logged = self.recorded, self.logged
            else:
                r = state.clone()
                rec = was.copy()
                rec.expect = record
            r.logging = True
            r.chance = follow
            r.rec = rec
            try:
                if state is None:
                    rec.decided(r, who, opt_id)
                    r.apply(opt_id)
                    rec.stop(r)
                for k in range(first, stop):
                    w, a, i = decisions[k]
                    dec = r.pending
                    if dec is None or dec.who != w:
                        raise Mismatch()
                    raw = dec.raw
                    if i < len(raw) and option_id(*raw[i]) == a:
                        rec.decided_as_recorded()   # where it was in the real game: no other id written
                        r.apply_index(i)
                        rec.stop(r)
                        continue
                    if a not in dec.by_id:
                        if not secret_for(r, seat, w, a):
                            raise Mismatch()
                        t = r.told_id(a)
                        a = next((o.id for o in r.pending.options if r.told_id(o.id) == t), None)
                        if a is None:
                            raise Mismatch()
                    rec.decided(r, w, a)
                    r.apply(a)
                    rec.stop(r)
            except Mismatch:
                out.append(opt_id)
                if rec.at >= len(record):           # ran past the record's end: a longer one may differ
                    whole = False
            except RuleRuntimeError:
                out.append(opt_id)
            else:
                alive.append((opt_id, r, rec, follow.i))
            if follow.fresh_taken:
                whole = False
        w = copy.copy(self)
        w.upto, w.alive, w.out, w.whole = stop, alive, tuple(out), whole
        return w


def secret_for(st, seat: int, who: int, action_id: str) -> bool:
    """Whether ``seat`` is told another seat's decision ``action_id`` with something hidden."""
    return who != seat and st.told_id(action_id) != action_id
