"""Long simulation runs (marked slow; CI runs them with `pytest -m slow`).

Every rulebook, every player count, every variant: seeds 1-50 with random
bots must end without an error, and replay identically.
"""
import json

import pytest

from conftest import game_folders
from interpreter.ai.bots import make_bots, play_out
from interpreter.game import Rulebook

pytestmark = pytest.mark.slow

CASES = []
for folder in game_folders():
    rb = Rulebook.load(folder)
    variant_sets = [()] + [(v,) for v in sorted(rb.game.variants)]
    for n in range(rb.game.min_players, rb.game.max_players + 1):
        for variants in variant_sets:
            CASES.append((folder, n, variants))


@pytest.mark.parametrize("folder, players, variants", CASES,
                         ids=[f"{f.name}-{n}p-{'+'.join(v) or 'base'}" for f, n, v in CASES])
def test_fifty_seeds(folder, players, variants):
    rb = Rulebook.load(folder)
    for seed in range(1, 51):
        st = rb.new_game(players, seed, variants=variants, logging=False)
        play_out(st, make_bots("random", st.lay.num_seats, seed))
        assert st.is_terminal()
        again = rb.new_game(players, seed, variants=variants, logging=False)
        play_out(again, make_bots("random", again.lay.num_seats, seed))
        assert json.dumps(again.scores()) == json.dumps(st.scores()) and again.history == st.history
