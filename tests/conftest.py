"""Shared helpers: write small rulebooks into a temporary folder."""
from __future__ import annotations

import os
import random
import textwrap
from pathlib import Path

import pytest

# the remembered findings of the semantic checks (interpreter/checkcache.py) stay off in the
# tests, which patch checks and count what runs; tests/test_checkcache.py turns them on
os.environ["REGELWERK_CACHE"] = "0"

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
#: The games the project ships.  Tests enumerate these, never every folder in
#: rules/: a user's own rulebook there must not break (or join) the tests.
SHIPPED = ("azul_summer_pavilion", "iquazu", "moonlight_market", "yak")

MINIMAL_HEADER = """\
regelwerk: 1
game: {name: Test, players: {min: 2, max: 4}}
"""


def write_rulebook(folder: Path, text: str, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    for name, body in files.items():
        (folder / name.replace("__", ".")).write_text(textwrap.dedent(body), encoding="utf-8")
    return folder


@pytest.fixture
def rulebook(tmp_path):
    """rulebook(yaml_text, **other_files) -> path of a fresh rulebook folder."""
    counter = {"n": 0}

    def make(text: str, **files: str) -> Path:
        counter["n"] += 1
        return write_rulebook(tmp_path / f"rb{counter['n']}", text, **files)
    return make


def game_folders():
    return [RULES / name for name in SHIPPED]


#: test rulebooks with hidden information: secret choices, hands, sealed bids, a bag, a die under a cup
HIDDEN_BOOKS = ("tricks52", "sealed_bids", "sealed_offers", "hand_draft", "passed_card", "hidden_die", "knowledge")


def hidden_book_folders():
    return [ROOT / "tests" / "rulebooks" / name for name in HIDDEN_BOOKS]


def shipped_in_slow(folders):
    """``folders`` as test parameters, the shipped games' ones in the slow suite only."""
    return [pytest.param(f, marks=pytest.mark.slow) if f.parent == RULES else f for f in folders]


def seeded_random_games(rb, seeds, most, logging=lambda seed: False):
    """``(decisions taken, state)`` at every decision of seeded random games of ``rb``, up to
    ``most`` decisions a game: an even seed plays with the rulebook's largest player count, an
    odd one with its smallest, and the one state is moved on after each yield."""
    for seed in seeds:
        players = rb.game.max_players if seed % 2 == 0 else rb.game.min_players
        st = rb.new_game(players, seed, logging=logging(seed))
        rng = random.Random(seed)
        k = 0
        while st.pending is not None and k < most:
            yield k, st
            st.apply_index(rng.randrange(len(st.pending.raw)))
            k += 1
