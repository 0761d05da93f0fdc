"""Plain ``pickle`` for rulebooks and game states (``Rulebook.__reduce__``, ``State.__reduce__``).

Compiled rules are Python closures and never pickle.  A :class:`Rulebook` pickles
as its folder: unpickling loads it there, once per process (so 64 pickled
environments of one rulebook compile it once).  A :class:`State` pickles as its
rulebook, its JSON form (``State.to_json``) and, when it was started by
``Rulebook.new_game`` (a seed, no edited start, no chance driver), the ids of
its decisions: unpickling replays the game from its seed and keeps the replay
when it is exactly the saved state (``to_json`` equal) — a replayed state is the
full original (its history's options, what resample needs) — else it rebuilds
the state from the JSON form, as ``Rulebook.state_from_json`` does.
"""
from __future__ import annotations


def reduce_state(st):
    book = st.game.rulebook
    if book is None:
        raise TypeError("this State has no Rulebook to pickle by (start games with Rulebook.new_game)")
    recipe = None
    if st.origin is None and st.chance is None and st.seed is not None and st.status in ("play", "over"):
        recipe = ([o.id for _who, o in st._history], bool(st.logging))
    return (restore_state, (book, st.to_json(), recipe))


def restore_state(book, data: dict, recipe):
    lay = data["layout"]
    if recipe is not None:
        ids, logging = recipe
        try:
            st = book.new_game(lay["players"], data["seed"], lay["options"], lay["variants"], logging=logging)
            for action_id in ids:
                st.apply(action_id)
        except Exception:  # noqa: BLE001 - not replayable after all: the JSON form below
            st = None
        if st is not None and st.to_json() == data:
            return st
    return book.state_from_json(data)
