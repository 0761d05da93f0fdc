"""`end: parts:` and `end: rest:` name the parts of a score (State.score_parts)."""
from __future__ import annotations

from pathlib import Path

from interpreter.game import Rulebook, check_rulebook

from conftest import SHIPPED, RULES

BOOK = Path(__file__).parent / "rulebooks" / "score_parts"


def _play(rb, moves):
    st = rb.new_game(2, 1)
    for m in moves:
        st.apply_action(m)
    return st


def test_parts_and_rest_add_up_to_the_score():
    rb = Rulebook.load(BOOK)
    st = _play(rb, ["take(n=3)", "take(n=1)", "take(n=2)", "take(n=3)"])
    assert st.is_terminal()
    # by hand (see the scenario): seat 0 took 5 (bonus 4, score 9), seat 1 took 4 (no bonus)
    assert st.scores() == [9, 4]
    assert st.score_parts() == [{"bonus": 4, "taking": 5}, {"bonus": 0, "taking": 4}]
    assert list(st.score_parts()[0]) == ["bonus", "taking"]      # the rulebook's order, rest last


def test_no_parts_gives_empty_dicts(rulebook):
    path = rulebook("""\
        regelwerk: 1
        game: {name: T, players: {min: 2, max: 2}}
        variables:
          score: {index: {p: players}, init: 3}
        flow: []
        end:
          score: "score[p]"
        """)
    st = Rulebook.load(path).new_game(2, 1)
    assert st.is_terminal() and st.score_parts() == [{}, {}]


def test_a_part_that_is_not_a_number_is_a_located_error(rulebook):
    path = rulebook("""\
        regelwerk: 1
        game: {name: T, players: {min: 2, max: 2}}
        variables:
          score: {index: {p: players}, init: 3}
        flow: []
        end:
          score: "score[p]"
          parts:
            name: "seat_name(p)"
            fine: "score[p]"
            broken: "nosuch[p]"
        """)
    report, _ = check_rulebook(path)
    errors = [d.format() for d in report.errors]
    assert any(":9:" in e and "score part must be a number" in e for e in errors), errors
    assert any(":11:" in e and "nosuch" in e for e in errors), errors


def test_every_shipped_game_names_its_score_parts_and_they_add_up():
    for game in SHIPPED:
        rb = Rulebook.load(RULES / game)
        st = rb.new_game(rb.game.min_players, 3, logging=False)
        from interpreter.ai.bots import make_bots
        bots = make_bots("random", st.lay.num_seats, 3)
        while not st.is_terminal():
            st.apply_action(bots[st.current_player()].choose(st))
        parts = st.score_parts()
        assert all(parts), f"{game} names no score parts"
        if rb.game.score_rest is not None:
            assert [sum(p.values()) for p in parts] == st.scores(), game
