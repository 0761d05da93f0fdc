"""What a seat knows, in one place (issue 36; docs/language.md, "What a seat knows").

=============  ==================================================================
``record``     a seat's record: every event it is shown, in order (percepts)
``worlds``     worlds that give a seat the same record, drawn from its posterior (resample)
``leaks``      texts shown to a seat that differ between worlds it cannot otherwise tell apart
``properties`` what `check` and the tests look at in resampled states (RW923)
``observe``    what a seat sees now (its observation; an onlooker's: what every seat sees)
``infosets``   information states: the decisions a seat knows of, as text and arrays
``tensors``    observations as fixed-shape arrays
=============  ==================================================================

This module is the face: ``State.resample`` and ``ChanceState.resample`` call :func:`resample`
and :func:`resample_steps`; :func:`record_of` gives a seat's record; :func:`shown_leaks` what it
was shown that leaks; :func:`public_view` what every seat sees.
"""
from __future__ import annotations

from dsl.diagnostics import RuleRuntimeError

from ..run import rng as rngmod
from .record import Mismatch, view
from .worlds import sample, trajectory

__all__ = ["record_of", "resample", "resample_steps", "public_view", "shown_leaks", "Mismatch"]

#: the real game's trajectory per (game, seat): a search resamples one state many times
_CACHE: dict = {}


def _key(st, seat, given):
    history = tuple(opt.id for _who, opt in st._history)
    return (id(st.game), id(st.lay), st.seed, seat, st.rng, tuple(st.v), history, given if given is not None
            else st.script)


def real_trajectory(st, seat: int, given=None):
    """The replay of the game of ``st`` for ``seat`` (cached); RW922 when its seed (or its script)
    and decisions do not give ``st`` back."""
    key = _key(st, seat, given)
    got = _CACHE.get(key)
    if got is None:
        try:
            got = trajectory(st, seat, given)
        except (Mismatch, RuleRuntimeError):
            got = None
        if got is not None and given is None and not _same(got.state, st):
            got = None
        if got is None:
            raise RuleRuntimeError(f"resample: this state is not what its seed and decisions give (its start was "
                                   f"edited), so what seat {seat} was shown since the start cannot be replayed",
                                   st.pending.pos if st.pending is not None else None, "RW922")
        if len(_CACHE) >= 64:
            _CACHE.clear()
        _CACHE[key] = got
    return got


def _same(a, b) -> bool:
    return (a.v == b.v and a.status == b.status and a.facts == b.facts and
            [[c.id for c in z] for z in a.z] == [[c.id for c in z] for z in b.z])


def record_of(st, seat: int) -> tuple:
    """Everything ``seat`` was shown in the game of ``st``, in order (:mod:`.record`)."""
    return real_trajectory(st, seat).record


def resample(st, seat: int, seed: int):
    """A state ``seat`` cannot tell from ``st``: a world drawn from the posterior of its record,
    replayed to the end of the history; its random generator seeded anew from ``seed`` (so the
    future differs too).  The sample keeps its chance answers (``State.script``): it replays,
    pickles and resamples as itself."""
    from ..run.facts import perfect_information
    if perfect_information(st.game):        # every seat sees everything: one world, the real one
        r = st.clone()
        r.rng = rngmod.seed_state(seed, 4000)
        r.forget_all()
        return r
    real = real_trajectory(st, seat)
    r, world = sample(st, seat, seed, real)
    r.chance = None
    r.rec = None
    r.rng = rngmod.seed_state(seed, 4000)
    r.script = (tuple(world.answers), r.rng)
    r.logging = st.logging
    if not st.logging:
        r.log = list(st.log)
    r.forced = list(st.forced)
    r.origin = st.origin
    r.forget_all()
    return r


def resample_steps(rulebook_state, steps, seat: int, seed: int):
    """For an explicit-chance game: its ``steps`` (``("chance", k)`` or ``(seat, action id)``)
    replayed as a plain game whose numbers are the outcomes given, and a world drawn from the
    posterior of ``seat``'s record: the steps of that world, in the same form."""
    st = rulebook_state
    answers = tuple(k for kind, k in steps if kind == "chance")
    real = real_trajectory(st, seat, (answers, None))
    _r, world = sample(st, seat, seed, real)
    out = []
    k = 0
    for n, who, action_id in world.decided:
        out += [("chance", a) for a in world.answers[k:n]]
        k = n
        out.append((who, action_id))
    out += [("chance", a) for a in world.answers[k:]]
    return out


def public_view(st) -> tuple:
    """What every seat sees now: a spectator is shown this, never more than any seat."""
    return view(st, None)


def shown_leaks(st, seat: int, samples: int = 6, seed: int = 0) -> list:
    """What ``seat`` was shown at the last decision of ``st`` that tells it something it cannot
    see (:mod:`.leaks`): ``[(kind, text)]`` — the log lines written, its legal actions now."""
    from ..run.facts import perfect_information
    from .leaks import leaks
    if perfect_information(st.game):        # nothing hidden: nothing to leak
        return []
    return leaks(st, seat, real_trajectory(st, seat), samples, seed)
