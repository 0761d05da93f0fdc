"""What a seat is shown must be what it may know: the checks `regelwerk check` runs on
random games for hidden information (issue 26).

RW920  a legal action id shown to the chooser, a decision as another seat is told
       it (``history_for``) or a line of the rulebook's log (told to all) names a
       component label the seat cannot see (before the decision and, for what is told
       after it, after it too)
RW923  ``State.resample(seat, k)`` gives a state in which the seat sees something else
       than in the real one (its observation or its information-state string differ)
RW921/RW922 (raised by resample itself): no consistent world within the limit / a start
       that its seed and decisions do not give back
"""
from __future__ import annotations

import re

from .observe import sees_zone
from .runtime import public_action_id
from .values import Component


def hidden_labels(st, seat: int) -> frozenset:
    """Labels of components ``seat`` cannot see that no component it sees also bears."""
    seen, hidden = set(), set()
    for zone in st.lay.zones:
        (seen if sees_zone(st, zone, seat) else hidden).update(c.label for c in st.z[zone.id])
    return frozenset(hidden - seen)


def _named(action, values, labels, secret=()) -> str | None:
    """The label among ``labels`` of a component given as a (not ``secret``) parameter value."""
    for param, value in zip(action.params, values):
        if param.name not in secret and isinstance(value, Component) and value.label in labels:
            return value.label
    return None


def legal_leak(st) -> str | None:
    """What the legal ids shown to the seat that decides name that it cannot see, else None."""
    chooser = st.current_player()
    if chooser is None:
        return None
    mine = hidden_labels(st, chooser)
    if mine:
        for opt in st.pending.options:
            label = _named(opt.action, opt.values, mine)
            if label is not None:
                return (f"the legal action '{opt.id}' shown to seat {chooser} names '{label}', which it "
                        f"cannot see")
    return None


def hidden_from_others(st) -> dict:
    """Before a decision: for each seat but the one deciding, the labels it cannot see."""
    chooser = st.current_player()
    return {seat: hidden_labels(st, seat) for seat in range(st.lay.num_seats) if seat != chooser}


def told_leak(st, option, before: dict) -> str | None:
    """After ``option`` was applied: a seat told of it (``public_action_id``: not its secret
    parameters) learns the label of a component it could not see before the decision and
    cannot see after it (a card played face up from a hidden hand is no leak), else None."""
    if option.action.name in st.game.sealed:        # taken together: the others are told only '…'
        return None
    info = st.game.redact.get(option.action.name)
    secret = info[1] if info is not None else ()
    for seat, hidden in before.items():
        label = _named(option.action, option.values, hidden, secret)
        if label is not None and label in hidden_labels(st, seat):
            return (f"seat {seat} is told the decision '{public_action_id(st.game, option.id)}', which names "
                    f"'{label}', which it cannot see")
    return None


def hidden_from_all(st) -> dict:
    """Before a decision: for every seat, the labels it cannot see (the log is told to all)."""
    return {seat: hidden_labels(st, seat) for seat in range(st.lay.num_seats)}


def log_leak(st, lines, before: dict) -> str | None:
    """After a decision: a new line of the rulebook's log (told to every seat) that names, as a
    word, the label of a component a seat could not see before the decision and cannot see
    after it, else None.  Words the rulebook wrote into its log texts ("pays a seal") and
    labels that are numbers (counts and values far more often) are not looked for."""
    if not lines:
        return None
    written = st.game.log_words
    words = [set(re.findall(r"[^\s,.;:!?()\[\]{}'\"]+", line)) - written for line in lines]
    for seat, hidden in before.items():
        still = hidden & hidden_labels(st, seat)
        for line, ws in zip(lines, words):
            for label in sorted(still & ws):
                if not label.isdigit():
                    return f"seat {seat} is told the log line '{line}', which names '{label}', which it cannot see"
    return None


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
    return [f for f in r.facts if f[0] == seat and
            ((comps[f[1]].attrs.get(f[2]) == f[3]) == f[4]) != f[5]]


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
