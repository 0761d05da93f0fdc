"""Random-playout speed of two checkouts by CPU time, for a machine other work shares.

    python benchmarks/cpu_ab.py OLD_CHECKOUT NEW_CHECKOUT --game iquazu --players 3 --games 40 --rounds 5

Each checkout needs its own virtual environment in ``.venv``.  Every round runs
one process per checkout (alternating, in pure Python: ``REGELWERK_PURE=1``)
that loads the rulebook, then plays ``--games`` seeded games with random bots
(after one unmeasured game, as ``regelwerk bench`` does) and reports games
per second of its own CPU time — which, unlike the wall time, hardly moves
when other processes take turns on the cores.  Prints every round's rates
and their medians.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import sys, time
sys.path.insert(0, '.')
from interpreter.game import Rulebook
try:
    from interpreter.ai.bots import RandomBot, play_out
except ImportError:             # a checkout from before the wings (0.1)
    from interpreter.bots import RandomBot, play_out
game, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rb = Rulebook.load('rules/' + game)
st = rb.new_game(players, n, logging=False)      # unmeasured, as in `regelwerk bench`: code made on first use
play_out(st, [RandomBot(n, s) for s in range(st.lay.num_seats)])
t = time.process_time()
for seed in range(n):
    st = rb.new_game(players, seed, logging=False)
    play_out(st, [RandomBot(seed, s) for s in range(st.lay.num_seats)])
print(n / (time.process_time() - t))
"""


def rate(checkout: Path, game: str, players: int, games: int) -> float:
    env = dict(os.environ, REGELWERK_PURE="1")
    out = subprocess.run([str(checkout / ".venv/bin/python"), "-c", CHILD, game, str(players), str(games)],
                         cwd=checkout, capture_output=True, text=True, env=env, check=True).stdout
    return float(out.split()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--game", action="append", required=True)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    for game in args.game:
        old, new = [], []
        for _ in range(args.rounds):
            old.append(rate(args.old, game, args.players, args.games))
            new.append(rate(args.new, game, args.players, args.games))
        mo, mn = statistics.median(old), statistics.median(new)
        print(f"{game} {args.players}p: old {' '.join(f'{x:.1f}' for x in old)} | "
              f"new {' '.join(f'{x:.1f}' for x in new)} | median {mo:.1f} -> {mn:.1f} ({mn / mo:.2f}x)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
