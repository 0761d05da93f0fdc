"""Games must not change: random bots replay the recorded golden games exactly.

The golden files (``tests/golden/*.jsonl.gz``, written by
``tests/golden/record.py`` from commit 41d7473) hold, for every encoded game,
player count, variant set and option value, seeds 1-20: the decisions seeded
random bots took and the final scores.  Any engine change (speed, new
constructs) must leave every one of them identical.  The default run replays
seed 1 of each configuration; the slow suite replays all of them.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from interpreter.ai.bots import make_bots
from interpreter.game import Rulebook

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).with_name("golden")
GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]


def _records(game):
    with gzip.open(GOLDEN / f"{game}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


_BOOKS: dict = {}


def _book(game):
    if game not in _BOOKS:
        _BOOKS[game] = Rulebook.load(ROOT / "rules" / game)
    return _BOOKS[game]


def _replay(game, rec):
    rb = _book(game)
    state = rb.new_game(rec["players"], rec["seed"], rec["options"], rec["variants"], logging=False)
    bots = make_bots("random", state.lay.num_seats, rec["seed"])
    for i, expected in enumerate(rec["decisions"]):
        assert not state.is_terminal(), f"the game ended after {i} decisions, the golden one after {len(rec['decisions'])}"
        action = bots[state.current_player()].choose(state)
        assert action == expected, f"decision {i}: {action} instead of {expected}"
        state.apply_action(action)
    assert state.is_terminal(), f"the golden game ended after {len(rec['decisions'])} decisions; this one goes on"
    assert state.scores() == rec["scores"]
    assert state.ranking() == rec["ranking"]


def _label(rec):
    opts = ",".join(f"{k}={v}" for k, v in rec["options"].items())
    return f"{rec['players']}p-{'+'.join(rec['variants']) or 'base'}-{opts or 'default'}"


@pytest.mark.parametrize("game", GAMES)
def test_seed_one_of_every_configuration_replays(game):
    for rec in _records(game):
        if rec["seed"] == 1:
            _replay(game, rec)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_golden_game_replays(game):
    failures = []
    for rec in _records(game):
        try:
            _replay(game, rec)
        except AssertionError as exc:
            failures.append(f"{_label(rec)} seed {rec['seed']}: {exc}")
    assert not failures, f"{len(failures)} golden games changed:\n" + "\n".join(failures[:20])
