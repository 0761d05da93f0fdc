"""Properties of resample that `regelwerk check` and the tests look at in random games
(leaks themselves: leaks.py).

RW923  ``State.resample(seat, k)`` gives a state in which the seat sees something else
       than in the real one (its observation or its information-state string differ)
RW921/RW922 (raised by resample itself): no consistent world within the limit / a start
       that its seed and decisions do not give back
"""
from __future__ import annotations

from .observe import sees_zone


def resample_problem(st, seat: int, seed: int) -> str | None:
    """What differs for ``seat`` between ``st`` and ``st.resample(seat, seed)``, else None."""
    r = st.resample(seat, seed)
    if r.observation(seat) != st.observation(seat):
        return f"resample({seat}, {seed}) changes what seat {seat} observes"
    if r.information_state_string(seat) != st.information_state_string(seat):
        return f"resample({seat}, {seed}) changes the information state of seat {seat}"
    return None


def hidden_part(st, seat: int) -> tuple:
    """What ``seat`` cannot see: the labels in each zone hidden from it, in order, and the
    values of the variables hidden from it."""
    from .observe import var_visible
    zones = tuple(tuple(c.label for c in st.z[z.id]) for z in st.lay.zones if not sees_zone(st, z, seat))
    values = []
    for var in st.game.scalar_vars:
        if not var_visible(st, var, None, seat) and seat not in st.value_revealed_to(var.offset):
            values.append(st.v[var.offset])
    for var in st.game.family_vars:
        for key, at in st.lay.vkeys[var.family_id].items():
            if not var_visible(st, var, key, seat) and seat not in st.value_revealed_to(at):
                values.append(st.v[at])
    return zones, tuple(values)


def contradicted_facts(r, seat: int) -> list:
    """The facts told to ``seat`` that do not hold in ``r``."""
    comps = r.lay.components
    return [f for f in r.facts if f[0] == seat and f[1] >= 0 and
            ((comps[f[1]].attribute(f[2]) == f[3]) == f[4]) != f[5]]


def resample_property(st, seat: int, samples: int = 20, vary: bool = False) -> list:
    """Problems of ``st.resample(seat, k)`` for k < ``samples``: (a) the seat's observation
    or information-state string differs; (c) a fact told to the seat does not hold; (b) with
    ``vary``, when the caller knows that more than one world fits what the seat knows:
    no sample differs from the real state in what the seat cannot see."""
    problems = []
    real_obs, real_info, real_hidden = st.observation(seat), st.information_state_string(seat), hidden_part(st, seat)
    varied = False
    for k in range(samples):
        r = st.resample(seat, k)
        if r.observation(seat) != real_obs:
            problems.append(f"resample({seat}, {k}) changes what seat {seat} observes")
        elif r.information_state_string(seat) != real_info:
            problems.append(f"resample({seat}, {k}) changes the information state of seat {seat}")
        bad = contradicted_facts(r, seat)
        if bad:
            problems.append(f"resample({seat}, {k}) contradicts a fact told to seat {seat}: {bad[0]}")
        varied = varied or hidden_part(r, seat) != real_hidden
    if vary and not varied:
        problems.append(f"resample({seat}, k) never changes what seat {seat} cannot see in {samples} samples")
    return problems
