"""Issue 39, item 5: the bot ladder (Elo with intervals) and what the report says of its bots."""
from __future__ import annotations

import json
import math
from pathlib import Path

from interpreter.cli import main
from interpreter.tools.ladder import fit_elo
from interpreter.tools.report import bots_strength, random_play_warning

ROOT = Path(__file__).resolve().parents[1]


def test_elo_is_the_bradley_terry_fit_with_one_prior_draw_per_pair():
    # a beat b in 3 of 4 games: with the prior draw 3.5 to 1.5, so p_a / p_b = 7/3 (by hand)
    elo = fit_elo(["b", "a"], {("a", "b"): [1, 1, 1, 0]})
    assert elo["b"] == 0 and math.isclose(elo["a"], 400 * math.log10(7 / 3), abs_tol=1e-6)
    # three bots in a circle of equal results: all equal
    even = fit_elo(["x", "y", "z"], {("x", "y"): [1, 0], ("y", "z"): [1, 0], ("x", "z"): [0.5, 0.5]})
    assert all(abs(v) < 1e-6 for v in even.values())


def test_ladder_plays_every_pair_seeded_and_prints_elo_with_intervals(capsys):
    args = ["ladder", str(ROOT / "tests" / "rulebooks" / "tiny_duel"), "--bots", "random,greedy", "--games", "12",
            "--jobs", "1", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["bot"]: r for r in out["bots"]}
    assert rows["random"]["elo"] == 0 and rows["random"]["games"] == 12 == rows["greedy"]["games"]
    assert rows["greedy"]["points"] + rows["random"]["points"] == 12
    lo, hi = rows["greedy"]["ci95"]
    assert lo <= rows["greedy"]["elo"] <= hi
    assert main(args) == 0 and json.loads(capsys.readouterr().out) == out          # seeded: the same again
    assert main(["ladder", str(ROOT / "tests" / "rulebooks" / "tiny_duel"), "--bots", "random,nobody"]) == 2


def test_the_report_says_how_strong_its_bots_are_and_warns_of_random_play():
    assert "ladder" in bots_strength("random") and "uniformly random" in bots_strength("random")
    assert "at most 50 iterations" in bots_strength("ismcts:50,greedy") and "one ply" in bots_strength("greedy")
    assert "balance measured with random play" in random_play_warning("random")
    assert "balance measured with random play" in random_play_warning("ismcts,random")
    assert random_play_warning("ismcts") is None and random_play_warning("greedy,ismcts:100") is None


def test_greedy_judges_by_the_scores_the_game_would_give_if_it_ended_now():
    import random
    from interpreter.ai.bots import make_bots, play_out
    from interpreter.game import Rulebook
    rb = Rulebook.load(ROOT / "rules" / "yak")            # Yak writes its scores only as the game ends
    st = rb.new_game(2, 3, logging=False)
    rng = random.Random(1)
    for _ in range(60):
        st.apply_index(rng.randrange(len(st.legal_action_indices())))
    before = st.to_json()
    assert st.scores() == [0, 0] and st.scores_if_ended() != [0, 0]
    assert st.to_json() == before                          # scored on a copy
    won = 0
    for seed in range(1, 7):                               # seats alternating
        game = rb.new_game(2, seed, logging=False)
        spec, seat = ("greedy,random", 0) if seed % 2 else ("random,greedy", 1)
        play_out(game, make_bots(spec, 2, seed))
        won += seat in game.winners()
    assert won >= 5                                        # (it won 5 of 6; blind to Yak's scores it played at random)


#: Each person picks 1, 2 or 3 once and scores it; the automaton (a seat that never decides)
#: scores 10, so it always comes first.
AUTOMATON_FIRST = """\
regelwerk: 1
game: {name: Automaton first, players: {min: 1, max: 2}, max_decisions: 2}
seats:
  automata: "1"
variables:
  score: {index: {p: players}, init: 0, min: 0, max: 10}
actions:
  pick:
    params: {n: "1..3"}
    do:
      - set: "score[player] += n"
flow:
  - for: "p in players"
    do:
      - if: "automaton(p)"
        then: [{set: "score[p] = 10"}]
  - turns: 0
    once: true
    skip: "automaton(player)"
    do:
      - decide: [pick]
        otherwise: [{fail: "a pick is always there"}]
end: {score: "score[p]"}
"""


def test_an_automaton_s_first_place_is_no_bot_s_win_the_bots_places_decide(rulebook):
    """2 players and the automaton: greedy picks 3 (its score if the game ended now), random 1,
    2 or 3, so greedy's place is never the worse one: it wins or, when random picks 3 too, the
    two share their place (½). Crediting the automaton's first place to the bot at its seat
    would give greedy 0 in every other game."""
    from interpreter.tools.ladder import run_ladder
    folder = rulebook(AUTOMATON_FIRST)
    ladder = run_ladder(folder, 2, ["greedy", "random"], games=12)
    got = ladder.results[("greedy", "random")]
    assert len(got) == 12 and all(p in (1.0, 0.5) for p in got) and 1.0 in got


def test_a_ladder_needs_two_seats_that_decide(rulebook, capsys):
    folder = rulebook(AUTOMATON_FIRST)
    # 1 player: the person and the automaton, one seat decides; the default is the fewest with two
    assert main(["ladder", str(folder), "--players", "1", "--bots", "random,greedy", "--games", "1"]) == 2
    assert "1 seat(s) that decide" in capsys.readouterr().err
    assert main(["ladder", str(folder), "--bots", "random,greedy", "--games", "2", "--jobs", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == 2
    assert main(["ladder", str(folder), "--bots", "random,random"]) == 2
