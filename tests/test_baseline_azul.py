"""The hand-written Azul baseline plays the rulebook's game exactly.

``benchmarks/baselines/azul_summer_pavilion.py`` is the yardstick of
``benchmarks/vs_baseline.py``: it must play the same games as the engine on
``rules/azul_summer_pavilion``, or the comparison compares different work.
For each seed and player count both play with the seeded random bots; at every
decision the seat and the legal action ids (in order: the bot picks an index)
must be the same, and so must the final scores.  The default run plays 5 games
per player count; the slow suite 200 per player count.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from interpreter.ai.bots import RandomBot
from interpreter.game import Rulebook

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "benchmarks" / "baselines" / "azul_summer_pavilion.py"


def _baseline():
    spec = importlib.util.spec_from_file_location("azul_baseline", BASELINE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def both():
    return _baseline(), Rulebook.load(ROOT / "rules" / "azul_summer_pavilion")


def _compare(base, rb, players: int, seed: int) -> None:
    decisions = []
    game = base.Game(players, seed, watch=lambda seat, legal: decisions.append(
        (seat, [base.action_id(a) for a in legal])))
    scores = game.play()
    st = rb.new_game(players, seed, logging=False)
    bots = [RandomBot(seed, s) for s in range(players)]
    n = 0
    while not st.is_terminal():
        assert n < len(decisions), f"{players} players, seed {seed}: the baseline ended after {n} decisions"
        assert (st.current_player(), st.legal_actions()) == decisions[n], \
            f"{players} players, seed {seed}, decision {n}"
        st.apply_index(bots[st.current_player()].choose_index(st))
        n += 1
    assert n == len(decisions), f"{players} players, seed {seed}: the rulebook ended after {n} decisions"
    assert st.scores() == scores, f"{players} players, seed {seed}"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_baseline_plays_the_rulebooks_games(both, players):
    base, rb = both
    for seed in range(5):
        _compare(base, rb, players, seed)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_baseline_plays_the_rulebooks_games_200_seeds(both, players):
    base, rb = both
    for seed in range(200):
        _compare(base, rb, players, seed)


def test_baseline_differs_when_the_rules_differ(both, monkeypatch):
    """The comparison can fail: a baseline whose window pays 2 bonus tiles instead of 3
    no longer matches (some game of these seeds completes a window)."""
    base, rb = both
    monkeypatch.setattr(base, "STRUCTURES_AT", {key: [(spaces, 2 if tiles == 3 else tiles) for spaces, tiles in bs]
                                                for key, bs in base.STRUCTURES_AT.items()})
    with pytest.raises(AssertionError):
        for seed in range(5):
            _compare(base, rb, 4, seed)
