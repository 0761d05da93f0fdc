"""The language gaps published games met (issue 37, ``shared/language-repro``): each case
as its reproducer's README says it should behave, plus the edges of each new construct."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.game import Rulebook

RULEBOOKS = Path(__file__).with_name("rulebooks")


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "game.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def _labels(state, zone: str) -> list:
    return list(state.observation(0)["zones"][zone])


# --- moves within a zone --------------------------------------------------------------

def test_a_move_within_its_own_zone_to_the_bottom_or_a_place_reorders_it():
    rb = Rulebook.load(RULEBOOKS / "zone_order")
    s = rb.new_game(players=1, seed=1)
    before = _labels(s, "deck")
    s.apply("roll_top")
    assert _labels(s, "deck") == [before[-1], *before[:-1]]
    s.apply("top_under_one")
    now = _labels(s, "deck")
    assert now[1] == before[-2] and len(now) == 4


def test_a_place_outside_the_zone_is_a_located_error():
    from dsl.diagnostics import RuleRuntimeError
    rb = Rulebook.load(RULEBOOKS / "zone_order")
    s = rb.new_game(players=1, seed=1)
    with pytest.raises(RuleRuntimeError) as err:
        s.apply("aside_at(k=4)")
    assert "at: 4 is not a place in deck: 3 other components lie there" in str(err.value)
    assert str(err.value.pos).endswith("zone_order/game.yaml:26:42")      # at the step
