"""Option ids kept by their values (ActionDecl.ids, frames.option_id): the same id as written
afresh, kept only for actions whose values key their ids (numbers, seats, booleans, symbols,
components), and never more than the cap."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from interpreter.ai.bots import RandomBot
from interpreter.engine.compile.codegen import id_kept_by_value
from interpreter.engine.compile.types import Comp
from interpreter.engine.run import frames
from interpreter.game import Rulebook

ROOT = Path(__file__).resolve().parents[1]


def test_every_option_of_random_games_has_the_id_written_afresh():
    """For every option of every decision of random games of the shipped rulebooks, the id from
    the kept ids equals the id written with nothing kept; and what is kept is the actions whose
    parameters are all numbers, seats, booleans, symbols or components."""
    kept_any = kept_component = False
    for game in ("moonlight_market", "yak", "iquazu", "azul_summer_pavilion"):
        book = Rulebook.load(ROOT / "rules" / game)
        for seed in range(2):
            st = book.new_game(3, seed, logging=False)
            bots = [RandomBot(seed, s) for s in range(3)]
            steps = 0
            while st.status != "over" and steps < 150:
                for action, values in st.pending.raw:
                    fresh = frames.option_id(dataclasses.replace(action, ids=None), values)
                    assert frames.option_id(action, values) == fresh
                    assert frames.option_id(action, values) == fresh      # (now from what is kept)
                    if action.ids is not None and values in action.ids:
                        kept_any = True
                        kept_component |= any(isinstance(p.type, Comp) for p in action.params)
                        assert action.ids[values] == fresh
                st.apply_index(bots[st.pending.who].pick_index(len(st.pending.raw)))
                steps += 1
        for action in list(book.game.actions.values()) + list(book.game.inline_actions.values()):
            plain = bool(action.params) and all(id_kept_by_value(p.type) for p in action.params)
            assert (action.ids is not None) == plain, (game, action.name)
    assert kept_any and kept_component


def test_no_more_ids_are_kept_than_the_cap_and_they_stay_right(monkeypatch):
    book = Rulebook.load(ROOT / "rules" / "moonlight_market")
    action = next(a for a in book.game.actions.values() if a.ids is not None)
    monkeypatch.setattr(frames, "_IDS_KEPT", 50)
    action.ids.clear()
    fresh = dataclasses.replace(action, ids=None)
    values = [tuple(range(k, k + len(action.params))) for k in range(120)]
    for v in values * 2:
        assert frames.option_id(action, v) == frames.option_id(fresh, v)
    assert len(action.ids) == 50
    assert frames.option_id(action, [1] * len(action.params)) == frames.option_id(fresh, (1,) * len(action.params))
