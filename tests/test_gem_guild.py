"""tests/rulebooks/gem_guild: a gem-taking engine builder written with set-valued choices
(issue 27): "take 3 different of 5 colours" is exactly 10 ids of the fixed action space.
(Clean, scenarios, `check` and PettingZoo's api_test: tests/test_written_games.py.)"""
from pathlib import Path

from interpreter.game import Rulebook

BOOK = Path(__file__).parent / "rulebooks" / "gem_guild"


def test_take_three_different_of_five_colours_is_ten_ids():
    rb = Rulebook.load(BOOK)
    for players in (2, 3, 4):
        ids = [i for i in rb.action_space(players).ids if i.startswith("take_three(")]
        assert len(ids) == 10 and "take_three(gems={blue,green,white})" in ids
