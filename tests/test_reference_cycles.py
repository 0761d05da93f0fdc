"""A finished game is freed when the last reference to it goes, not when the cycle collector
next runs: nothing the engine makes while playing refers back to the state in a cycle.  (A
recursive search inside best_assignment once did: every finished Yak game — ~1,300 objects —
waited for the collector, which then ran more often: 3.6 % of Yak's instructions.)"""
import gc
import weakref

import pytest

from interpreter.ai.bots import RandomBot, play_out
from interpreter.engine.run import stdlib
from interpreter.game import Rulebook

from conftest import RULES, SHIPPED


@pytest.fixture
def no_collector():
    """The collector off, and what it finds kept in ``gc.garbage`` (restored after)."""
    was_enabled, flags = gc.isenabled(), gc.get_debug()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("game", SHIPPED)
def test_a_finished_game_is_freed_by_its_last_reference(game, no_collector):
    rb = Rulebook.load(RULES / game)
    players = rb.game.min_players
    warm = rb.new_game(players, 99, logging=False)       # code made on first use is not the game's
    play_out(warm, [RandomBot(99, s) for s in range(players)])
    del warm
    gc.collect()
    gc.garbage.clear()
    for seed in range(3):
        st = rb.new_game(players, seed, logging=False)
        play_out(st, [RandomBot(seed, s) for s in range(players)])
        assert st.status == "over"
        del st
    gc.collect()
    kept = [type(o).__name__ for o in gc.garbage]
    assert "State" not in kept and "Option" not in kept, sorted(set(kept))


def test_best_assignment_lets_go_of_the_functions_it_was_given(no_collector):
    def options(x):
        return (x, x + 10)

    def value(assignment):
        return sum(v for _, v in assignment)

    refs = weakref.ref(options), weakref.ref(value)
    # by hand: items 1 and 2, options (1, 11) and (2, 12), all distinct: 11 + 12 is the most
    assert stdlib._best_assignment(None, (1, 2), options, value) == ((1, 11), (2, 12))
    del options, value
    assert [r() for r in refs] == [None, None]


def test_what_loading_made_is_in_the_collectors_oldest_generation_when_load_returns():
    """Rulebook.load ends with a collection of the two younger generations: the objects
    compiling made (tens of thousands, while the collector was paused) are then in the oldest,
    so the first collection of the middle one during play walks a few hundred objects, not all
    of them (Yak: some 14 ms, as much as two games, in whichever game it fell on).  A process
    that turned the collector off is left as it was."""
    assert gc.isenabled()
    rb = Rulebook.load(RULES / "yak")
    young = len(gc.get_objects(0)) + len(gc.get_objects(1))
    assert young < 2000, young
    assert rb.new_game(3, 1, logging=False).status == "play"
    gc.disable()
    try:
        before = gc.get_stats()
        Rulebook.load(RULES / "moonlight_market")
        assert not gc.isenabled()
        assert [g["collections"] for g in gc.get_stats()] == [g["collections"] for g in before]
    finally:
        gc.enable()
