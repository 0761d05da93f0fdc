"""A new frame's locals made by one list display per action (codegen.locals_maker).

State._apply used to write them slot by slot: a list of Nones, the first ``inherit`` slots
copied from the frame that decided, the seat at ``player_slot``, each value at its
parameter's slot.  ``reference`` below is that, written out; the generated maker must give
the same list for every action of the shipped games and of the test rulebooks (inline
actions, inherited locals, parameters at scattered slots), and games must still play.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.engine.compile.codegen import locals_maker
from interpreter.game import Rulebook
from interpreter.ai.bots import RandomBot, play_out

from conftest import SHIPPED

ROOT = Path(__file__).resolve().parents[1]
TEST_BOOKS = ("hand_draft", "sealed_bids", "tricks52", "patch_quilt", "end_turn", "open_auction")


def reference(action, who, values, PL):
    L = [None] * action.proc.nslots
    if action.inherit:
        L[:action.inherit] = PL[:action.inherit]
    L[action.player_slot] = who
    for spec, v in zip(action.params, values):
        L[spec.slot] = v
    return L


def _books():
    return [ROOT / "rules" / g for g in SHIPPED] + [ROOT / "tests" / "rulebooks" / b for b in TEST_BOOKS]


@pytest.mark.parametrize("path", _books(), ids=lambda p: p.name)
def test_the_maker_writes_what_the_slot_by_slot_writing_wrote(path):
    game = Rulebook.load(path).game
    actions = list(game.action_by_proc.values())
    assert actions
    for action in actions:
        make = locals_maker(action)
        values = tuple(f"value {k}" for k in range(len(action.params)))
        PL = [f"parent {i}" for i in range(max(action.inherit, 1) + 3)]
        for who in (0, 2):
            got = make(who, values, PL if action.inherit else None)
            assert got == reference(action, who, values, PL), action.name
            assert got is not make(who, values, PL if action.inherit else None)    # a new list each time


def test_an_action_that_inherits_sees_the_deciding_frames_locals_and_games_still_play():
    inheriting = 0
    for path in _books():
        rb = Rulebook.load(path)
        inheriting += sum(1 for a in rb.game.action_by_proc.values() if a.inherit)
    assert inheriting >= 3                 # (the cases above cover inherited locals)
    rb = Rulebook.load(ROOT / "rules" / "moonlight_market")
    for seed in range(3):
        st = rb.new_game(3, seed, logging=False)
        assert play_out(st, [RandomBot(seed, s) for s in range(3)]) > 0
        assert st.status == "over"


@pytest.mark.parametrize("path", _books(), ids=lambda p: p.name)
def test_taking_an_option_makes_the_same_locals_or_passes_them_to_the_direct_call(path):
    """codegen.option_taker: without a direct function, the new frame's locals (as the maker's);
    with one, that function called with the state and those locals, and None."""
    from interpreter.engine.compile.codegen import option_taker
    game = Rulebook.load(path).game
    for action in game.action_by_proc.values():
        values = tuple(f"value {k}" for k in range(len(action.params)))
        PL = [f"parent {i}" for i in range(max(action.inherit, 1) + 3)]
        parent = PL if action.inherit else None
        assert option_taker(action, None)("the state", 1, values, parent) == reference(action, 1, values, PL)
        calls = []
        take = option_taker(action, lambda *args: calls.append(args))
        assert take("the state", 1, values, parent) is None
        assert calls == [("the state", *reference(action, 1, values, PL))], action.name
