"""Record golden replays: every encoded game x player count x variants/options x seeds 1-20.

    python tests/golden/record.py            # writes tests/golden/<game>.jsonl.gz

Each line: the configuration, the decisions random bots took (action ids) and
the final scores and ranking.  ``tests/test_golden_replays.py`` plays the same
games again and demands identical decisions and scores: an engine change must
not change any game.  Re-record only for a deliberate rule change, and say so
in the commit.
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from interpreter.ai.bots import make_bots  # noqa: E402
from interpreter.game import GameSetupError, Rulebook  # noqa: E402
from interpreter.engine.run.layout import Layout, _LayoutState  # noqa: E402

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]
SEEDS = range(1, 21)


def option_values(rb, players: int) -> dict:
    """Every allowed value of every option at this player count."""
    lay = Layout(rb.game, players, {}, ())
    st = _LayoutState(lay)
    out = {}
    for name, opt in rb.game.options.items():
        allowed = opt.allowed(st, [None]) if callable(opt.allowed) else opt.allowed
        out[name] = list(allowed) if allowed is not None else [opt.default]
    return out


def configurations(rb):
    """(players, variants, options): defaults, all variants, and each option value alone."""
    variant_sets = [[]] + ([sorted(rb.game.variants)] if rb.game.variants else [])
    for players in range(rb.game.min_players, rb.game.max_players + 1):
        for variants in variant_sets:
            yield players, variants, {}
            for name, values in option_values(rb, players).items():
                for value in values:
                    if value == rb.game.options[name].default:
                        continue
                    try:
                        rb.layout(players, {name: value}, variants)
                    except GameSetupError:
                        continue
                    yield players, variants, {name: value}


def play(rb, players, variants, options, seed) -> dict:
    state = rb.new_game(players, seed, options, variants, logging=False)
    bots = make_bots("random", state.lay.num_seats, seed)
    decisions = []
    while not state.is_terminal():
        action = bots[state.current_player()].choose(state)
        state.apply_action(action)
        decisions.append(action)
    return {"players": players, "variants": variants, "options": options, "seed": seed,
            "decisions": decisions, "scores": state.scores(), "ranking": state.ranking()}


def record(game: str) -> int:
    rb = Rulebook.load(ROOT / "rules" / game)
    path = Path(__file__).with_name(f"{game}.jsonl.gz")
    n = 0
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for players, variants, options in configurations(rb):
            for seed in SEEDS:
                out.write(json.dumps(play(rb, players, variants, options, seed), separators=(",", ":")) + "\n")
                n += 1
    return n


if __name__ == "__main__":
    for g in sys.argv[1:] or GAMES:
        print(g, record(g), "games")
