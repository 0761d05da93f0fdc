"""Cooperative games (issue 26): `end: together:` — all seats share one result, a win
when the condition holds at the end (or the shared score reaches a target).
Rulebook: tests/rulebooks/hints; the decisions are those of its scenario 01."""
from pathlib import Path

from interpreter.ai.bots import GreedyBot
from interpreter.game import Rulebook
from interpreter.ai.ismcts import _values
from test_told_facts import started

HINTS = Path(__file__).parent / "rulebooks" / "hints"
WON = ["hint_color(target=1,color=red)", "hint_number(target=0,n=1)", "play(pos=2)", "play(pos=2)",
       "play(pos=1)", "play(pos=1)", "play(pos=1)", "discard(pos=1)"]


def test_a_shared_win_is_one_result_for_every_seat():
    st = started()
    assert st.returns("win") == [0, 0] and st.won_together() is False
    for action in WON:
        st.apply_action(action)
    assert st.is_terminal() and st.won_together() is True
    assert st.scores() == [4, 4] and st.ranking() == [1, 1] and st.winners() == [0, 1]
    assert st.returns("win") == [1.0, 1.0] and st.returns("rank") == [1.0, 1.0]
    assert st.returns("zero_sum") == [0.0, 0.0] and st.returns("score") == [4.0, 4.0]
    assert _values(st) == [1.0, 1.0]


def test_a_shared_loss_gives_every_seat_nothing():
    st = started()
    st.apply_action("play(pos=3)")                 # Player 1's red2 on an empty red row: a fuse burns (2 -> 1)
    st.apply_action("play(pos=2)")                 # Player 2's red3: the last fuse burns, the game ends
    assert st.is_terminal() and st.won_together() is False
    assert st.winners() == [] and st.ranking() == [1, 1] and st.scores() == [0, 0]
    assert st.returns("win") == [0.0, 0.0] and st.returns("rank") == [0.0, 0.0]
    assert _values(st) == [0.0, 0.0]


def test_a_target_score_is_a_win_condition(rulebook):
    text = (HINTS / "game.yaml").read_text().replace(
        'together: {win: "fuses > 0 and sum(colors, c -> row[c]) >= 4"}', "together: {target: 4}")
    rb = Rulebook.load(rulebook(text))
    st = rb.new_game(2, 5)
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
    assert st.won_together() == (st.scores()[0] >= 4)
    assert st.winners() == ([0, 1] if st.won_together() else [])


def test_the_greedy_bot_plays_for_the_shared_score():
    # one card in Player 1's hand extends a row (blue1, 2nd); greedy takes the play that raises the score
    st = started()
    assert GreedyBot(seed=1, seat=0).choose(st) in ("play(pos=1)", "play(pos=2)")   # red1 and blue1 both fit


def test_the_report_counts_wins_together():
    from interpreter.tools.report.stats import summarise
    rows = [{"scores": [4, 4], "ranking": [1, 1], "winners": [0, 1] if won else [], "first_player": 0,
             "parts": [], "actions": [{}, {}], "decisions": 8, "turns": 8, "rounds": None, "together": won,
             "seat_names": ["A", "B"]} for won in (True, False, True, True)]
    out = summarise(rows)
    assert out["together"]["wins"] == 3 and out["together"]["win_rate"] == 0.75
