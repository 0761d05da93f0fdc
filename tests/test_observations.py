"""``state.observations(viewers)`` — every viewer's observation made at once, what all seats see read
once and shared — equals ``state.observation(viewer)`` of each viewer (keys in the same order too), at
every state of random games of the shipped games and of test rulebooks with hidden zones, reveals,
told facts, sealed choices and grids; the shared parts are not changed by making the others; and
``state.observed_variable(name, viewer)`` is the observation's entry for that variable."""
import copy
import random
from pathlib import Path

import pytest

from conftest import RULES
from interpreter.game import Rulebook

BOOKS = [RULES / g for g in ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak")] + [
    Path(__file__).parent / "rulebooks" / b
    for b in ("knowledge", "sealed_bids", "sealed_offers", "hints", "cups", "known_top", "hidden_die", "patch_quilt")]


def _ordered(d):
    """The observation with every dict's keys in their order (equal dicts in another order differ)."""
    if isinstance(d, dict):
        return [(k, _ordered(v)) for k, v in d.items()]
    if isinstance(d, list):
        return [_ordered(x) for x in d]
    return d


@pytest.mark.slow
@pytest.mark.parametrize("book", BOOKS, ids=lambda p: p.name)
def test_observations_together_equal_each_seats_observation(book):
    rb = Rulebook.load(book)
    shipped = book.parent == RULES
    players = 3 if shipped else 2
    checked = 0
    for seed in (1, 2) if shipped else range(1, 9):     # (the test rulebooks' games are short)
        st = rb.new_game(players, seed, logging=False)
        rng = random.Random(seed)
        viewers = [None, *range(players)]
        names = [v.name for v in st.game.scalar_vars] + [v.name for v in st.game.family_vars] + ["no_such_name"]
        step = 0
        while not st.is_terminal() and step < 150:
            history = step % 2 == 0
            together = st.observations(viewers, history=history)
            before = copy.deepcopy(together)
            assert list(together) == viewers
            for viewer in viewers:
                alone = st.observation(viewer, history=history)
                assert _ordered(together[viewer]) == _ordered(alone), (book.name, seed, step, viewer)
                shown = alone["variables"]
                for name in names:
                    assert st.observed_variable(name, viewer) == shown.get(name), (book.name, step, viewer, name)
            assert together == before          # making each seat's did not change what they share
            checked += 1
            st.apply_action(rng.choice(st.legal_actions()))
            step += 1
    assert checked >= 10


def test_a_hidden_zone_differs_between_the_viewers_made_together():
    """The shared parts are only what all see: a seat's own hidden hand shows to it as cards and to
    the others as a count, in the same call."""
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(3, 4, logging=False)
    obs = st.observations([0, 1, None], history=False)
    own = [name for name, z in obs[0]["zones"].items() if isinstance(z, list) and isinstance(obs[1]["zones"][name], dict)]
    assert own, "seat 0 sees a zone seat 1 sees only as a count"
    for name in own:
        assert obs[1]["zones"][name] == {"count": len(obs[0]["zones"][name])}
        assert isinstance(obs[None]["zones"][name], dict)
