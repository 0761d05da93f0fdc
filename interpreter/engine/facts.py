"""Facts about a layout that learning code and bots ask for (``Rulebook.info``)."""
from __future__ import annotations

#: the kinds ``State.returns(kind)`` knows
RETURN_KINDS = ("win", "rank", "zero_sum", "score")


def game_info(rulebook, players: int, options=None, variants=()) -> dict:
    """Seats, who decides, automata, the sizes of the action space and the
    observation, the score direction and the kinds of returns.

    ``max_game_length`` is the rulebook's bound on the decisions of a game
    (``game: max_decisions:``; ``regelwerk check`` reports a game that goes
    on longer), or None when it states none.  ``action_space_size`` is None when a
    parameter cannot be bounded before the game (RW240): the layout has no fixed
    action space.  ``score_direction`` is
    ``"higher"`` or ``"lower"`` (``end: better: lower``: the lowest score wins).
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
        "score_direction": rulebook.score_direction,
        "returns": list(RETURN_KINDS),
    }
    try:
        info["observation_size"] = rulebook.observation_spec(players, options, variants).size()
    except ImportError:  # pragma: no cover - numpy absent: the spec itself needs no numpy
        info["observation_size"] = None
    return info


def _space_size(rulebook, lay):
    from .spaces import space_of
    space = space_of(rulebook.game, lay)
    return None if space.unbounded else len(space)
