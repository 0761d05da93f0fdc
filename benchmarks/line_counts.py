"""Which functions run more Python lines in one checkout than in another: an A/B that says *where*.

    python benchmarks/line_counts.py OLD_CHECKOUT NEW_CHECKOUT --game yak --players 2

``instructions.py`` says by how much two checkouts differ; this says where.  Each checkout (with its
own ``.venv``) plays the same seeded random games as ``cpu_ab.py`` in pure Python under
``sys.settrace`` and counts the lines each function executes (generated rule code is grouped by its
rulebook position, without the ``#n`` serial numbers that differ between checkouts).  Lines are
deterministic for fixed seeds; they are not instructions, but a line more in a hot function shows.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import collections, os, sys
sys.path.insert(0, '.')
from interpreter.game import Rulebook
try:
    from interpreter.ai.bots import RandomBot, play_out
except ImportError:             # a checkout from before the wings (0.1)
    from interpreter.bots import RandomBot, play_out
game, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rb = Rulebook.load('rules/' + game)
st = rb.new_game(players, 999, logging=False)      # unmeasured: code made on first use
play_out(st, [RandomBot(999, s) for s in range(st.lay.num_seats)])
lines = collections.Counter()

def local(frame, event, arg):
    if event == "line":
        lines[(frame.f_code.co_filename, frame.f_code.co_name)] += 1
    return local

def calls(frame, event, arg):
    frame.f_trace_lines = True
    return local

sys.settrace(calls)
for seed in range(n):
    st = rb.new_game(players, seed, logging=False)
    play_out(st, [RandomBot(seed, s) for s in range(st.lay.num_seats)])
sys.settrace(None)
for (f, name), k in lines.items():
    print(f"{k}\t{os.path.basename(f)}:{name}")
"""

SERIAL = re.compile(r"#\d+")


def line_counts(checkout: Path, game: str, players: int, games: int) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0", REGELWERK_PURE="1", REGELWERK_CACHE="0")
    run = subprocess.run([str(checkout / ".venv/bin/python"), "-c", CHILD, game, str(players), str(games)],
                         cwd=checkout, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise SystemExit(f"{checkout}: the run failed:\n{run.stderr[-2000:]}")
    counts: dict = {}
    for row in run.stdout.splitlines():
        k, name = row.split("\t", 1)
        name = SERIAL.sub("", name)
        counts[name] = counts.get(name, 0) + int(k)
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--top", type=int, default=20, help="the functions that differ most (default 20)")
    args = ap.parse_args(argv)
    old = line_counts(args.old, args.game, args.players, args.games)
    new = line_counts(args.new, args.game, args.players, args.games)
    rows = sorted(((new.get(k, 0) - old.get(k, 0), k) for k in old.keys() | new.keys()),
                  key=lambda r: (-abs(r[0]), r[1]))
    total_old, total_new = sum(old.values()), sum(new.values())
    print(f"{args.game} {args.players}p, {args.games} games: {total_old:,} -> {total_new:,} lines "
          f"({total_new / total_old - 1:+.2%})")
    for diff, name in rows[:args.top]:
        if diff:
            print(f"  {diff:+9,}  {old.get(name, 0):>9,} -> {new.get(name, 0):>9,}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
