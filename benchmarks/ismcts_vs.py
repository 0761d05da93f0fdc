"""ISMCTS against random and greedy: two-player games, seats alternating.

    python benchmarks/ismcts_vs.py --games 100 --seconds 1            # every game, both opponents
    python benchmarks/ismcts_vs.py --games 5 --seconds 0.1 --game yak --opponent random
    python benchmarks/ismcts_vs.py --games 100 --playouts 200 --seconds 1 --jobs 2 --out results.jsonl

A game counts as won when ISMCTS finishes first (a shared first place
counts half).  In Moonlight Market a 2-player game has an automaton seat,
Dirk (the rulebook's special rule for two), who is an opponent too: ISMCTS
must finish ahead of him as well.  Prints the win
rate with its 95% Wilson confidence interval per game and opponent, and
how long ISMCTS thought per decision (median and longest).  With
``--playouts`` the games do not depend on the machine's speed (unless the
time limit cuts a search short).  ``--jobs`` plays games in that many
processes; ``--out`` appends one JSON line per game as it finishes.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter.ai.bots import BOTS  # noqa: E402
from interpreter.game import Rulebook  # noqa: E402
from interpreter.ai.ismcts import IsmctsBot  # noqa: E402
from interpreter.tools.report.stats import wilson  # noqa: E402

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]


def play(rb, seed: int, ismcts_seat: int, opponent: str, seconds: float, playouts):
    """One game; returns (ISMCTS's share of first place, its thinking times in seconds)."""
    st = rb.new_game(2, seed, logging=False)
    bots = {}
    for seat in range(st.lay.num_seats):
        if seat == ismcts_seat:
            bots[seat] = IsmctsBot(seed, seat, playouts=playouts, seconds=seconds)
        else:
            bots[seat] = BOTS[opponent](seed, seat)
    times = []
    while not st.is_terminal():
        seat = st.current_player()
        t = time.perf_counter()
        action = bots[seat].choose(st)
        if seat == ismcts_seat:
            times.append(time.perf_counter() - t)
        st.apply_action(action)
    places = st.ranking()
    if places[ismcts_seat] != 1:
        return 0.0, times
    return 1.0 / places.count(1), times


_RULEBOOKS: dict = {}


def _play_task(task):
    game, opponent, i, seconds, playouts = task
    if game not in _RULEBOOKS:
        _RULEBOOKS[game] = Rulebook.load(ROOT / "rules" / game)
    t = time.time()
    win, times = play(_RULEBOOKS[game], 1000 + i, i % 2, opponent, seconds, playouts)
    return {"game": game, "opponent": opponent, "seed": 1000 + i, "ismcts_seat": i % 2, "win": win,
            "decisions": len(times), "think_median": statistics.median(times) if times else 0.0,
            "think_max": max(times, default=0.0), "seconds": time.time() - t}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=1.0, help="thinking time per decision")
    ap.add_argument("--playouts", type=int, default=None, help="at most this many iterations per decision")
    ap.add_argument("--game", action="append", choices=GAMES)
    ap.add_argument("--opponent", action="append", choices=["random", "greedy"])
    ap.add_argument("--jobs", type=int, default=1, help="games played side by side in this many processes")
    ap.add_argument("--out", type=Path, default=None, help="append one JSON line per game to this file")
    args = ap.parse_args(argv)
    pairs = [(g, o) for g in args.game or GAMES for o in args.opponent or ["random", "greedy"]]
    tasks = [(g, o, i, args.seconds, args.playouts) for g, o in pairs for i in range(args.games)]
    rows: dict = {pair: [] for pair in pairs}
    started = {pair: time.time() for pair in pairs}
    out = args.out.open("a") if args.out else None
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    results = pool.map(_play_task, tasks) if pool else map(_play_task, tasks)
    for row in results:
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
        pair = (row["game"], row["opponent"])
        rows[pair].append(row)
        if len(rows[pair]) == args.games:
            print(summary(pair, rows[pair], time.time() - started[pair]), flush=True)
    if pool:
        pool.shutdown()
    return 0


def summary(pair, rows, elapsed: float) -> str:
    game, opponent = pair
    wins = sum(r["win"] for r in rows)
    n = len(rows)
    lo, hi = wilson(wins, n)
    medians = [r["think_median"] for r in rows if r["decisions"]]
    longest = max((r["think_max"] for r in rows), default=0.0)
    think = statistics.median(medians) if medians else 0.0
    return (f"{game:22s} vs {opponent:6s}: {wins:g}/{n} = {wins / n:.0%} "
            f"(95% CI {lo:.0%}-{hi:.0%}), thinking median {think:.2f}s, longest {longest:.2f}s, "
            f"{elapsed:.0f}s")


if __name__ == "__main__":
    sys.exit(main())
