"""Random-playout speed of two checkouts by CPU time, for a machine other work shares.

    python benchmarks/cpu_ab.py OLD_CHECKOUT NEW_CHECKOUT --game iquazu --players 3 --games 40 --rounds 5

Each checkout needs its own virtual environment in ``.venv``.  Every round runs
one process per checkout (alternating, in pure Python: ``REGELWERK_PURE=1``)
that loads the rulebook, then plays ``--games`` seeded games with random bots
(after one unmeasured game, as ``regelwerk bench`` does) and reports games
per second of its own CPU time — which, unlike the wall time, hardly moves
when other processes take turns on the cores.  Prints every round's rates
and their medians.  ``--ismcts P``: seat 0 is an ISMCTS bot of P playouts a
decision without its time limit (the same games in every run), the others random.
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
search = int(sys.argv[4]) if len(sys.argv) > 4 else 0   # ISMCTS playouts a decision for seat 0 (0: random bots)
rb = Rulebook.load('rules/' + game)
st = rb.new_game(players, n, logging=False)      # unmeasured, as in `regelwerk bench`: code made on first use
play_out(st, [RandomBot(n, s) for s in range(st.lay.num_seats)])


def bots(seed, seats):
    if not search:
        return [RandomBot(seed, s) for s in range(seats)]
    from interpreter.ai.ismcts import IsmctsBot    # its time limit off: the same playouts in every run
    return [IsmctsBot(seed, 0, playouts=search, seconds=1e9)] + [RandomBot(seed, s) for s in range(1, seats)]


t = time.process_time()
for seed in range(n):
    st = rb.new_game(players, seed, logging=False)
    play_out(st, bots(seed, st.lay.num_seats))
print(n / (time.process_time() - t))
"""


def rate(checkout: Path, game: str, players: int, games: int, ismcts: int = 0) -> float:
    env = dict(os.environ, REGELWERK_PURE="1")
    out = subprocess.run([str(checkout / ".venv/bin/python"), "-c", CHILD, game, str(players), str(games),
                          str(ismcts)], cwd=checkout, capture_output=True, text=True, env=env, check=True).stdout
    return float(out.split()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--game", action="append", required=True)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ismcts", type=int, default=0, metavar="PLAYOUTS",
                    help="seat 0 an ISMCTS bot of that many playouts a decision, its time limit off "
                         "(the others random): what a search bot pays, most of it replaying sampled worlds")
    args = ap.parse_args(argv)
    form = ".3g" if args.ismcts else ".1f"
    for game in args.game:
        old, new = [], []
        for _ in range(args.rounds):
            old.append(rate(args.old, game, args.players, args.games, args.ismcts))
            new.append(rate(args.new, game, args.players, args.games, args.ismcts))
        mo, mn = statistics.median(old), statistics.median(new)
        print(f"{game} {args.players}p: old {' '.join(f'{x:{form}}' for x in old)} | "
              f"new {' '.join(f'{x:{form}}' for x in new)} | median {mo:{form}} -> {mn:{form}} "
              f"({mn / mo:.2f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
