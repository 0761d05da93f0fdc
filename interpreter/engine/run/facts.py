"""Facts about a layout that learning code and bots ask for (``Rulebook.info``)."""
from __future__ import annotations

#: the kinds ``State.returns(kind)`` knows
RETURN_KINDS = ("win", "rank", "zero_sum", "score")


def game_info(rulebook, players: int, options=None, variants=()) -> dict:
    """Seats, who decides, automata, the sizes of the action space and the
    observation, the score direction and the kinds of returns.

    ``max_game_length`` is the rulebook's bound on the decisions of a game
    (``game: max_decisions:``; ``regelwerk check`` reports a game that goes
    on longer), or None when it states none; ``truncation`` the decisions after which
    an unfinished game is truncated (``State.truncated``; the environments end the
    episode there): ``max_game_length``, else 1000 per seat (layout.DECISIONS_PER_SEAT).  ``action_space_size`` is None when a
    parameter cannot be bounded before the game (RW240): the layout has no fixed
    action space.  ``score_direction`` is
    ``"higher"`` or ``"lower"`` (``end: better: lower``: the lowest score wins).
    ``random`` and ``perfect_information``: see :func:`draws_at_random` and
    :func:`perfect_information`.  ``unbounded``: the number variables whose observation
    entries fall back to ±1000 because no ``min``/``max`` bounds them (:func:`unbounded_numbers`).
    """
    lay = rulebook.layout(players, options, variants)
    deciding = [s for s in lay.seats if s not in lay.automata]
    info = {
        "game": rulebook.game.name,
        "players": players,
        "seats": lay.num_seats,
        "seat_names": list(lay.seat_names),
        "deciding_seats": deciding,
        "automata": sorted(lay.automata),
        "action_space_size": _space_size(rulebook, lay),
        "max_game_length": lay.max_decisions,
        "truncation": lay.decision_bound,
        "score_direction": rulebook.score_direction,
        "returns": list(RETURN_KINDS),
        "random": draws_at_random(rulebook.game),
        "perfect_information": perfect_information(rulebook.game),
    }
    try:
        info["observation_size"] = rulebook.observation_spec(players, options, variants).size()
    except ImportError:  # pragma: no cover - numpy absent: the spec itself needs no numpy
        info["observation_size"] = None
    info["unbounded"] = unbounded_numbers(rulebook.game, lay)
    return info


def unbounded_numbers(game, lay) -> list:
    """The number variables nothing in the rulebook bounds on one side or both (no
    ``min``/``max`` and no ``when: always`` invariant that keeps them within a bound): their observation entries fall back to ``-VAR_BOUND..VAR_BOUND`` (±1000,
    engine/knowledge/tensors.py) on the open side, so a normalised observation of them sits near 0.5."""
    from ..compile import types as T
    from ..knowledge.tensors import number_bounds
    out = []
    for var in game.scalar_vars + game.family_vars:
        if var.type == T.INT:
            lo, hi = number_bounds(game, lay, var.name)
            if lo is None or hi is None:
                out.append(var.name)
    return out


def _space_size(rulebook, lay):
    from .spaces import space_of
    space = space_of(rulebook.game, lay)
    return None if space.unbounded else len(space)
def draws_at_random(game) -> bool:
    """Whether the rules can ever draw a random number: a `shuffle` or `random` step,
    a bag (drawn from at random) or a deck that refills (shuffled when it does).
    False: the game is deterministic (every seed plays the same game)."""
    if game.random_steps:
        return True
    return any(fam.ztype == "bag" or (fam.ztype == "deck" and fam.refill is not None) for fam in game.zone_list)


def perfect_information(game) -> bool:
    """Whether every seat always sees everything: every zone and variable visible to
    all (no `visible:` rule that can hide), no secret parameters, no simultaneous
    decisions.  (Chance may still decide: see :func:`draws_at_random`.)"""
    if game.simultaneous or any(secret for _names, secret in game.redact.values()):
        return False
    if any(fam.visible_const is not True for fam in game.zone_list):
        return False
    return all(var.visible_const is True for var in game.scalar_vars + game.family_vars)
