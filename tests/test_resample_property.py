"""The resample property (issue 26), for every shipped rulebook and every test rulebook:
at decision points of random games, ``resample(seat, k)`` (a) gives the seat the same
observation and information-state string, (b) varies what it cannot see when more than
one world fits, (c) never contradicts a fact it was told.  A clairvoyant resample (the
real state) and one that changes what the seat sees fail it."""
from pathlib import Path

import pytest

from conftest import RULES, SHIPPED
from interpreter.engine.run import runtime
from interpreter.ai.bots import RandomBot
from interpreter.game import Rulebook
from interpreter.engine.knowledge.properties import hidden_part, resample_property

TESTS = Path(__file__).parent / "rulebooks"
BOOKS = [RULES / g for g in SHIPPED] + sorted(p for p in TESTS.iterdir() if (p / "game.yaml").exists())


def hidden_draws(st, seat: int) -> list:
    """The variable slots holding a value drawn by chance that ``seat`` does not see now."""
    from interpreter.engine.knowledge.observe import var_visible
    owner = {var.offset: (var, None) for var in st.game.scalar_vars}
    for var in st.game.family_vars:
        for key, at in st.lay.vkeys[var.family_id].items():
            owner[at] = (var, key)
    return [slot for slot in st.drawn
            if seat not in st.value_revealed_to(slot) and not var_visible(st, *owner[slot], seat)]


def several_worlds(st, seat) -> bool:
    """More than one world fits for sure: a value chance drew that the seat never saw.  (Components
    the seat cannot see need not vary: it may know by counting where each one is — which cards are
    left in a bag when it saw every draw; tests/test_posterior.py checks the frequencies exactly.)"""
    return bool(hidden_draws(st, seat))


def positions(book, games=2, every=7):
    """(state, seat) at every ``every``-th decision of a few random games."""
    rb = Rulebook.load(book)
    g = rb.game
    for players in sorted({g.min_players, min(g.max_players, g.min_players + 1)}):
        for seed in range(1, games + 1):
            st = rb.new_game(players, seed, logging=False)
            bots = [RandomBot(seed, s) for s in range(st.lay.num_seats)]
            n = 0
            while not st.is_terminal() and n < 200:
                seat = st.current_player()
                if n % every == 0:
                    yield st.clone(), seat
                st.apply_action(bots[seat].choose(st))
                n += 1


@pytest.mark.slow
@pytest.mark.parametrize("book", BOOKS, ids=[b.name for b in BOOKS])
def test_the_resample_property_holds(book):
    checked = 0
    for st, seat in positions(book):
        problems = resample_property(st, seat, samples=12, vary=several_worlds(st, seat))
        assert problems == [], f"{book.name}: {problems[0]}"
        checked += 1
    assert checked


@pytest.mark.parametrize("name", ["hidden_die", "cups", "hints"])
def test_the_property_holds_on_the_hidden_information_test_games(name):
    for st, seat in positions(TESTS / name, games=3, every=2):
        assert resample_property(st, seat, samples=12, vary=several_worlds(st, seat)) == []


def test_a_clairvoyant_resample_fails_the_property(monkeypatch):
    st = Rulebook.load(TESTS / "cups").new_game(2, 3)
    assert resample_property(st, 0, vary=True) == []
    monkeypatch.setattr(runtime.State, "resample", lambda self, seat, seed: self.clone())   # sees the real dice
    problems = resample_property(st, 0, vary=True)
    assert problems and "never changes what seat 0 cannot see" in problems[0]


def test_a_resample_that_forgets_a_told_fact_fails_the_property(monkeypatch):
    from test_told_facts import started
    st = started()
    st.apply_action("hint_color(target=1,color=red)")
    st.apply_action("hint_number(target=0,n=1)")
    assert resample_property(st, 0, vary=True) == []
    from interpreter.engine.knowledge import worlds
    from posterior import FactBlind
    monkeypatch.setattr(worlds, "Recorder", FactBlind)
    problems = resample_property(st, 0, samples=40, vary=True)
    assert any("contradicts a fact told to seat 0" in p or "observes" in p for p in problems)


def test_hidden_part_is_what_the_seat_cannot_see():
    st = Rulebook.load(TESTS / "hidden_die").new_game(2, 1)
    assert hidden_part(st, 0) == ((), (st.v[1],))          # die[1]; guess_right is seen by all
