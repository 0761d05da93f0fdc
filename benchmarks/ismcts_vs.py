"""ISMCTS against random and greedy: two-player games, seats alternating.

    python benchmarks/ismcts_vs.py --games 100 --seconds 1            # every game, both opponents
    python benchmarks/ismcts_vs.py --games 5 --seconds 0.1 --game yak --opponent random

A game counts as won when ISMCTS finishes first (a shared first place
counts half).  In Moonlight Market the two automaton seats (a 2-player
game has none; a 1-player game has two) are opponents too.  Prints the win
rate with its 95% Wilson confidence interval per game and opponent.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter.bots import BOTS  # noqa: E402
from interpreter.game import Rulebook  # noqa: E402
from interpreter.ismcts import IsmctsBot  # noqa: E402
from interpreter.report.stats import wilson  # noqa: E402

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]


def play(rb, seed: int, ismcts_seat: int, opponent: str, seconds: float, playouts):
    st = rb.new_game(2, seed, logging=False)
    bots = {}
    for seat in range(st.lay.num_seats):
        if seat == ismcts_seat:
            bots[seat] = IsmctsBot(seed, seat, playouts=playouts, seconds=seconds)
        else:
            bots[seat] = BOTS[opponent](seed, seat)
    while not st.is_terminal():
        seat = st.current_player()
        st.apply_action(bots[seat].choose(st))
    places = st.ranking()
    if places[ismcts_seat] != 1:
        return 0.0
    return 1.0 / places.count(1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=1.0, help="thinking time per decision")
    ap.add_argument("--playouts", type=int, default=None, help="at most this many iterations per decision")
    ap.add_argument("--game", action="append", choices=GAMES)
    ap.add_argument("--opponent", action="append", choices=["random", "greedy"])
    args = ap.parse_args(argv)
    results = []
    for game in args.game or GAMES:
        rb = Rulebook.load(ROOT / "rules" / game)
        for opponent in args.opponent or ["random", "greedy"]:
            t = time.time()
            wins = 0.0
            for i in range(args.games):
                wins += play(rb, 1000 + i, i % 2, opponent, args.seconds, args.playouts)
            lo, hi = wilson(wins, args.games)
            line = (f"{game:22s} vs {opponent:6s}: {wins:g}/{args.games} = {wins / args.games:.0%} "
                    f"(95% CI {lo:.0%}-{hi:.0%}), {time.time() - t:.0f}s")
            print(line, flush=True)
            results.append((game, opponent, wins, args.games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
